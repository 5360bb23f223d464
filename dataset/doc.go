// Package dataset reads the numeric datasets that the rest of rff learns
// from, and fits the preprocessing applied to them.
//
// A dataset is a Data: a dense, row-major N×D matrix X of features, an
// optional target vector Y (regression values, or class indices into Labels),
// and column names. Data flows one way through rff: dataset → feature map →
// learner → model.
//
// # Formats
//
// Load opens a file, decompresses it transparently when it starts with the
// gzip magic bytes 1f 8b (whatever its name), and reads it in one of these
// formats (Options.Format; by default guessed from the name with ".gz"
// stripped, see GuessFormat, and else from the content):
//
//   - CSV (ReadCSV; .csv .tsv .txt .data): delimited numeric text. The
//     delimiter is detected from the first line among ',', ';' and tab; a file
//     with none of them but blank-separated fields is split on runs of
//     blanks. A header is detected (a first row with a name — a field that
//     is neither a number, nor empty, nor a mistyped number such as 2.5.1 —
//     in a column where the second row is numeric); its names must be
//     non-empty and distinct. CSV has no comment lines. A UTF-8 BOM, CRLF line ends,
//     blank lines, spaces around fields and double-quoted fields are
//     accepted. Options.Target picks the target column: "first", "last" (the
//     default), "none", a header name or a 1-based column index. Feature
//     columns must be numeric; a non-numeric target (LETTER's A–Z) becomes
//     class indices into the sorted distinct strings, stored in Labels.
//   - LibSVM / SVMlight (ReadLibSVM; .libsvm .svm .svmlight): lines of
//     "label idx:val …" with 1-based sparse indices, densified with
//     D = the largest index; '#' starts a comment; qid fields are skipped.
//     A matrix larger than the memory available is refused whatever the
//     budget, naming the line of the largest index.
//   - IDX (ReadIDX, LoadIDX; .idx, or names like train-images-idx3-ubyte):
//     LeCun's big-endian binary format of MNIST, element types unsigned byte
//     (08), signed byte (09), int16 (0B), int32 (0C), float32 (0D) and
//     float64 (0E). The first dimension indexes the items, the others are
//     flattened into D columns (28×28 → 784). Labels come from a second IDX
//     file (Options.Labels).
//
// NaN and Inf values are rejected in every format. Names are the header
// names of a CSV file, and otherwise generated as "x1" … "xD".
//
// # Errors
//
// Every error caused by the content of a file is one line that names the
// file, and the 1-based line and column where they apply, in the style of
// compilers:
//
//	letter.csv:17: column 3: "abc" is not a number
//	x.csv:5: row has 3 fields, want 4
//	x.csv:12: column 2: NaN/Inf not allowed ("NaN")
//	x.csv: unknown target column "foo" (columns: a, b, c)
//	train.libsvm:3: bad feature "3-1.0" (want index:value)
//	t10k-images-idx3-ubyte.gz: truncated IDX file: [10000 28 28] needs 7840000 elements, got 4096
//
// A field that is not a number in the first or last column, where a class
// label often is, adds a hint naming the Options.Target that would make it
// the target:
//
//	letter.csv:1: column 1: "T" is not a number (a class label? target "first" makes column 1 the target)
//
// Errors from the operating system or the decompressor are wrapped with %w.
// No input makes the readers panic.
//
// # Memory
//
// The loaders read within a memory budget, Options.MaxBytes (by default
// DefaultMaxBytes: half of the memory available, at least 256 MiB), and
// refuses a file that would exceed it before the memory is spent, with a
// *BudgetError:
//
//	big.csv.gz: the decompressed input needs at least 16777217 bytes (16 MiB), over the memory budget of 16777216 bytes (16 MiB); set Options.MaxBytes to raise it
//
// The budget bounds the arrays a loader builds (N×D×8 bytes for X; for each
// CSV target 8 bytes, its text and an 8-byte offset, kept until the targets
// are known to be numbers or labels; a LibSVM file's sparse entries at 12
// bytes each before densifying; the names of the columns of a LibSVM or IDX
// file, 32 bytes each), checked before each array grows; it
// bounds the dense LibSVM matrix and the IDX array its header describes
// before they are allocated (an uncompressed IDX file shorter than the array
// its header claims is refused as truncated before that); and it bounds the input of a whole-file loader
// after decompression: a plain file larger than the budget is refused
// before it is read, a gzip file as soon as its trailer or the bytes
// inflated so far exceed it, so a small file that inflates to gigabytes
// costs no more than the budget. A file read from memory — a pipe the
// command line has read once to read it more than once — counts in the
// budget with its bytes. While an array doubles, its old and new copies
// coexist: both must fit in the budget. The old copies are garbage, which
// the runtime collects only once its heap has grown well past what is live;
// a loader has them collected, and their memory returned to the operating
// system, before they and its arrays would exceed the budget, so the heap
// it makes the process hold stays within about the budget. A
// text line may take at most 1/64 of the budget (splitting a line into
// fields takes up to about 40 bytes per byte of the line), and never more
// than 64 MiB. CSVStream applies the budget to each block, not to the file,
// which may be any size. Open does not apply it.
//
// # Preprocessing
//
// ParseSteps parses a comma-separated chain of Step names, FitScaler fits it
// on training data and Scaler.Apply applies the same maps to any data:
//
//   - standardize: per column, mean 0 and population standard deviation 1
//     (a constant column becomes 0);
//   - minmax: per column onto [0, 1] (a constant column becomes 0);
//   - maxscale: divide everything by the global maximum of the data, as in
//     the protocol of Munkhoeva et al., "Quadrature-based features for kernel
//     approximation" (NeurIPS 2018); the maximum absolute value is used if
//     that maximum is not positive;
//   - isotropic: centre every column and divide all of them by one common
//     factor;
//   - pca:K and pca-whiten:K (the last step): project onto the K leading
//     principal directions of the previous steps' output (K an integer, or a
//     fraction such as 0.99 of the variance to keep), dividing each by its
//     standard deviation when whitening; the data then have OutDim() = K
//     columns (see Step.PCA for the formula and the sign convention);
//   - none.
//
// Each step is fitted on the output of the previous ones. The fitted
// parameters (StepParams) are exported so that model files can store them.
//
// Split and Subsample give the train/test protocols: the first n rows, and a
// uniform random subset of rows drawn from an explicit *rand.Rand.
package dataset
