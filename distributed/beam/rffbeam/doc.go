// Package rffbeam fits rff models with Apache Beam, on data spread over many files and machines: the passes of
// rff.FitCSV as Beam pipelines, whose result is the model rff.FitCSV fits on the files concatenated (in
// lexicographic order), in the same file format.
//
// Fit runs the whole fit from a driver program. Its pieces compose into other pipelines:
//
//   - ListFiles and DetectLayout expand a glob with Beam's file systems and read the CSV layout of the first file
//     (delimiter, header, target column) that every file is read with;
//   - ReadRows reads the files — each whole on one worker, gzip-compressed or not, a first line equal to the
//     header skipped — into a PCollection of Rows, failing on a bad row with one line naming its file, line and
//     column, or skipping and counting it (ReadSpec.SkipBadRows), and failing likewise on a value rff refuses as
//     too large for the statistics (a regression target, or an input after the preprocessing ReadSpec.Scaler);
//   - ScanFn (first pass) merges the column statistics of the preprocessing (dataset.ScalerAccumulator.Merge: count,
//     mean and M2 by the update of Chan, Golub and LeVeque; minimum and maximum) and collects the class labels;
//   - SampleFn fetches the rows the median heuristic measures (rff.SampleRows, rff.ChooseSigma) when the bandwidth
//     is not given;
//   - StatsFn (second pass) maps batches of rows through the feature map (rff.NewMap) with a learn.Accumulator and
//     merges the ridge statistics (learn.Stats.Merge); its accumulator travels as the packed upper triangle of ZᵀZ
//     in float64;
//   - WriteResult leaves a combine's result where the driver reads it, and rff.FitFromStats solves.
//
// EstimateMemory says what the second pass holds per bundle and per worker; Fit refuses a run above
// Options.WorkerMemory before any pipeline starts. The DoFns, combines and coders are registered when the package
// is imported; a program must call beam.Init before building a pipeline. See docs/distributed.md for running it on
// prism, Dataflow, Flink and Spark.
package rffbeam
