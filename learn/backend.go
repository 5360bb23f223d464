package learn

// Importing internal/linalg installs the fast BLAS/LAPACK backend (OpenBLAS when it is present, pure Go otherwise)
// into gonum, which every solver of this package uses through blas64, lapack64 and mat.
import _ "github.com/rffkit/rff/internal/linalg"
