// Package model saves and loads fitted rff models in a documented, versioned binary format.
//
// File layout (all integers little-endian):
//
//	offset  size  content
//	0       8     magic "RFFMODEL"
//	8       4     format version (uint32), currently 1
//	12      4     length L of the header (uint32)
//	16      L     header: JSON object with the full configuration (Header): task, kernel and bandwidth, rule,
//	              seed, number of points D, input dimension, feature form, preprocessing, label names, λ, …
//	16+L    …     arrays, each as a uint64 count followed by count float64 values:
//	              Theta (F×P, row-major), Bias (P), Probe (the features of a fixed probe input), and for exact
//	              kernel models TrainX (N×d) and Alpha (N×P)
//	end−32  32    SHA-256 of every byte before it
//
// A feature map is stored by its parameters, not as a dense W: kernel, bandwidth, rule, seed, D and d determine every
// point (structured rules never materialize one). The features of a fixed probe input are stored too, and [Load]
// rebuilds the map and checks that it reproduces them bit for bit, so a model cannot silently be read by code that
// draws different points. Loading rejects a wrong magic, an unknown version, a truncated file and a checksum
// mismatch, each with one clear error.
package model
