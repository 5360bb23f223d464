// Package structured holds the numerical primitives behind the random-feature
// rules of rff: fast structured orthogonal operators, simplex vertices,
// low-discrepancy points and one-dimensional quadrature.
//
// # Batch layout
//
// Every operator works on a block of B vectors of length n stored
// coordinate-major: x[i*B+b] is coordinate i of vector b. Each elementary
// step (a Givens rotation, a Hadamard butterfly, a running sum) is then a
// tight, contiguous loop over b, which is what makes the operators fast.
// Apply-style functions never allocate; scratch space, when needed, is passed
// in by the caller. All types are read-only after construction and can be
// shared by any number of goroutines.
//
// # SIMD kernels and determinism
//
// The elementwise steps of FWHT and Butterfly (radix-2 and radix-4 Hadamard
// butterflies, single and fused double Givens rotations) run on AVX2
// assembly (simd_amd64.s) when CPUID reports AVX2 and the OS saves the YMM
// registers. Elsewhere, and with the purego build tag, they run on the
// portable Go loops (the *Generic functions in fwht.go and butterfly.go),
// which are also the references of the tests. Both paths do the same IEEE-754
// operations in the same order with one rounding each: products are rounded
// before they are summed, and the Go code uses explicit float64 conversions so
// that the compiler cannot fuse them into FMAs (it would on arm64 or with
// GOAMD64=v3). Results are therefore bit-identical on every path and machine,
// as TestFWHTBitIdentical and TestButterflyBitIdentical check for all
// power-of-two sizes up to 2^16 against straight-from-the-definition
// references. Consecutive rows of a stage are contiguous in the
// coordinate-major layout, so a whole run of h rows is one kernel call. The
// early FWHT stages run on L1-sized row chunks. Neither changes the
// arithmetic.
//
// # Contents and references
//
//   - FWHT: normalized fast Walsh–Hadamard transform, the H of the HD-block
//     operators √d·HD₁HD₂HD₃ of structured orthogonal random features
//     (Yu, Suresh, Choromanski, Holtmann-Rice, Kumar, "Orthogonal Random
//     Features", NIPS 2016, SORF).
//   - Butterfly: random butterfly orthogonal matrices (A. Genz, "Methods for
//     generating random orthogonal matrices", Monte Carlo and Quasi-Monte
//     Carlo Methods 1996, Springer 1998, pp. 199–213), used as the fast
//     rotation Q of the SR(3,3) quadrature rules (M. Munkhoeva, Y. Kapushev,
//     E. Burnaev, I. Oseledets, "Quadrature-based features for kernel
//     approximation", NeurIPS 2018, §2.3–2.4). Applying Q to a block costs
//     O(d log d · B).
//   - Haar: Haar-distributed orthogonal matrices from the QR factorization of
//     a Gaussian matrix with Mezzadri's sign fix (F. Mezzadri, "How to
//     generate random matrices from the classical compact groups", Notices
//     AMS 54, 2007).
//   - Simplex, SimplexT: the d+1 unit vertices of a regular simplex centred
//     at the origin (the spherical points of the degree-3 spherical rule),
//     with Vᵀx computed in O(d) by a running sum.
//   - Primes, Halton, HaltonSet: Halton sequences (J. H. Halton, Numer. Math.
//     2, 1960) randomized by a Cranley–Patterson rotation (R. Cranley,
//     T. N. L. Patterson, SIAM J. Numer. Anal. 13, 1976), for quasi-Monte
//     Carlo features (Yang, Sindhwani, Avron, Mahoney, ICML 2014).
//   - GaussHermite: Gauss–Hermite nodes and weights for the standard normal
//     weight by the Golub–Welsch algorithm (G. H. Golub, J. H. Welsch,
//     "Calculation of Gauss quadrature rules", Math. Comp. 23, 1969),
//     used by the Gaussian-quadrature feature grid (Dao, De Sa, Ré, NIPS 2017).
//   - NormalQuantile: inverse CDF of N(0,1) (Wichura, AS 241, 1988) with a
//     Halley refinement step.
package structured
