// Package model reads and writes rff model files: a documented, versioned binary format that later releases keep
// reading. It is the storage layer; the root package rff turns a file into a model that predicts.
//
// File layout (all integers little-endian):
//
//	offset  size  content
//	0       8     magic "RFFMODEL"
//	8       4     format version (uint32): 2 is written, 1 and 2 are read
//	12      4     length L of the header (uint32)
//	16      L     header: JSON object with the full configuration ([Header]): task, kernel and bandwidth, rule,
//	              number of points D, input dimension, feature form, preprocessing, input/target/label names, λ, …
//	16+L    …     arrays
//	end−32  32    SHA-256 of every byte before it
//
// Version 2 stores named arrays: a uint32 count, then per array a uint16 name length, the name, a uint64 value count
// and that many float64 values. The names are those of the [Model] fields' comments ("theta", "bias", "probe",
// "train_x", "alpha", "scale", "weights", "phase", "b") and "points/<name>" for the arrays of the points. A feature
// map is stored by its explicit parameters — its points (dense, or the parameters of a structured operator: the
// signs of SORF's Hadamard blocks, the radii, butterfly angles, permutations and signs of an SR(3,3) rule; see
// rule.Stored), per-point scales, weights, zero-node weight, phases and the ORFF matrices B(ω) — so that reading
// never depends on how a release draws random points. A Nyström map (PointsKind "nystrom", [NystromKind]) stores
// its landmarks as "points/landmarks" and its normalization as "points/norm", with the header's "landmarks" (how
// they were chosen), "threshold" (the relative threshold of the rank truncation) and "basis": in the Cholesky basis
// (basis "cholesky", the default) the landmarks are those the pivoted Cholesky factorization of K_MM kept, in its
// order, the norm is U⁻¹ and "points/pivots" holds the squared pivots U_jj²; in the eigen basis (no basis in the
// header) the norm is U Λ^{-1/2}, with the kept eigenvalues as "points/eigenvalues" ([NystromKind] lists the
// arrays). The features of a fixed probe input ([ProbeInput]) are stored as a self-check that the rebuilt map
// computes what the writer computed (within the rounding bounds of docs/conventions.md §11).
//
// Version 1 stored five unnamed arrays (theta, bias, probe, train_x, alpha) and the map only by its seed: a reader
// redraws the points and requires the probe features to match within the same bounds.
//
// [Read] decodes a file from a stream, its arrays straight from the stream into the model's slices, so that reading a
// file allocates about its length; [Decode] decodes one held in memory, [Load] one on disk. They reject a wrong
// magic, an unknown version, a truncated file and a checksum mismatch with the sentinel errors below, and validate
// every field against every other ([Model.Check]): a file whose checksum is valid but whose configuration
// contradicts its arrays (an exact model with feature weights, an operator-valued kernel on a scalar model, NaN
// weights, an unknown rule, kernel, form, task, loss or encoding, bytes after the header's JSON object, Nyström
// pivots or eigenvalues that disagree with the stored normalization or threshold) is an error, never a
// panic or a silent default. [CheckHead] checks the 16-byte head alone, so that a reader of a stream can refuse
// anything but a model file before reading the rest.
// [Save] writes atomically: a temporary file in the same directory, synced, then renamed over the destination, so an
// existing model survives any failure.
package model
