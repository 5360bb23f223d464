//go:build amd64 && !purego

#include "textflag.h"

// The 4×12 register-blocked micro-kernel of the packed Gemm/Syrk driver
// (internal/linalg/pack.go). Accumulators: Y(3r+v) holds C[r][4v:4v+4] for
// row r = 0..3 and vector v = 0..2 (Y0..Y11), loaded from C and stored back;
// Y12..Y14 hold the 12 values of the B panel at one l, Y15 the broadcast A
// value.

// KSTEP does one rank-1 update at packed offsets ao (A, 4 values) and bo (B,
// 12 values).
#define KSTEP(ao, bo) \
	VMOVUPD      bo(BX), Y12 \
	VMOVUPD      bo+32(BX), Y13 \
	VMOVUPD      bo+64(BX), Y14 \
	VBROADCASTSD ao(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y0 \
	VFMADD231PD  Y13, Y15, Y1 \
	VFMADD231PD  Y14, Y15, Y2 \
	VBROADCASTSD ao+8(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y3 \
	VFMADD231PD  Y13, Y15, Y4 \
	VFMADD231PD  Y14, Y15, Y5 \
	VBROADCASTSD ao+16(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y6 \
	VFMADD231PD  Y13, Y15, Y7 \
	VFMADD231PD  Y14, Y15, Y8 \
	VBROADCASTSD ao+24(AX), Y15 \
	VFMADD231PD  Y12, Y15, Y9 \
	VFMADD231PD  Y13, Y15, Y10 \
	VFMADD231PD  Y14, Y15, Y11

// LOADROW loads one row of the C tile at DI into three accumulators and
// moves DI to the next row.
#define LOADROW(a0, a1, a2) \
	VMOVUPD (DI), a0 \
	VMOVUPD 32(DI), a1 \
	VMOVUPD 64(DI), a2 \
	ADDQ    DX, DI

// STOREROW stores three accumulators into one row of the C tile at DI and
// moves DI to the next row.
#define STOREROW(a0, a1, a2) \
	VMOVUPD a0, (DI) \
	VMOVUPD a1, 32(DI) \
	VMOVUPD a2, 64(DI) \
	ADDQ    DX, DI

// func Kern4x12(kc int, a, b, c *float64, ldc int)
TEXT ·Kern4x12(SB), NOSPLIT, $0-40
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), BX
	MOVQ c+24(FP), DI
	MOVQ ldc+32(FP), DX
	SHLQ $3, DX

	// Prefetch the tile 4 rows down, which the driver usually updates next.
	LEAQ       (DI)(DX*4), SI
	PREFETCHT0 (SI)
	PREFETCHT0 64(SI)
	ADDQ       DX, SI
	PREFETCHT0 (SI)
	PREFETCHT0 64(SI)
	ADDQ       DX, SI
	PREFETCHT0 (SI)
	PREFETCHT0 64(SI)
	ADDQ       DX, SI
	PREFETCHT0 (SI)
	PREFETCHT0 64(SI)

	MOVQ DI, R9
	LOADROW(Y0, Y1, Y2)
	LOADROW(Y3, Y4, Y5)
	LOADROW(Y6, Y7, Y8)
	LOADROW(Y9, Y10, Y11)

	MOVQ CX, R8
	SHRQ $2, R8
	JZ   tail

loop4:
	PREFETCHT0 512(AX)
	KSTEP(0, 0)
	KSTEP(32, 96)
	KSTEP(64, 192)
	KSTEP(96, 288)
	ADDQ $128, AX
	ADDQ $384, BX
	DECQ R8
	JNZ  loop4

tail:
	ANDQ $3, CX
	JZ   store

loop1:
	KSTEP(0, 0)
	ADDQ $32, AX
	ADDQ $96, BX
	DECQ CX
	JNZ  loop1

store:
	MOVQ R9, DI
	STOREROW(Y0, Y1, Y2)
	STOREROW(Y3, Y4, Y5)
	STOREROW(Y6, Y7, Y8)
	STOREROW(Y9, Y10, Y11)
	VZEROUPPER
	RET

// func AxpyFMA(n int, a float64, x, y *float64)
TEXT ·AxpyFMA(SB), NOSPLIT, $0-32
	MOVQ         n+0(FP), CX
	VBROADCASTSD a+8(FP), Y15
	MOVQ         x+16(FP), SI
	MOVQ         y+24(FP), DI
	MOVQ         CX, R8
	SHRQ         $4, R8
	JZ           axpy4

axpy16:
	VMOVUPD     (DI), Y0
	VMOVUPD     32(DI), Y1
	VMOVUPD     64(DI), Y2
	VMOVUPD     96(DI), Y3
	VFMADD231PD (SI), Y15, Y0
	VFMADD231PD 32(SI), Y15, Y1
	VFMADD231PD 64(SI), Y15, Y2
	VFMADD231PD 96(SI), Y15, Y3
	VMOVUPD     Y0, (DI)
	VMOVUPD     Y1, 32(DI)
	VMOVUPD     Y2, 64(DI)
	VMOVUPD     Y3, 96(DI)
	ADDQ        $128, SI
	ADDQ        $128, DI
	DECQ        R8
	JNZ         axpy16

axpy4:
	MOVQ CX, R8
	ANDQ $15, R8
	SHRQ $2, R8
	JZ   axpy1

axpy4loop:
	VMOVUPD     (DI), Y0
	VFMADD231PD (SI), Y15, Y0
	VMOVUPD     Y0, (DI)
	ADDQ        $32, SI
	ADDQ        $32, DI
	DECQ        R8
	JNZ         axpy4loop

axpy1:
	ANDQ $3, CX
	JZ   axpydone

axpy1loop:
	VMOVSD      (DI), X0
	VFMADD231SD (SI), X15, X0
	VMOVSD      X0, (DI)
	ADDQ        $8, SI
	ADDQ        $8, DI
	DECQ        CX
	JNZ         axpy1loop

axpydone:
	VZEROUPPER
	RET

// GROUP4(base, acc) adds four terms l..l+3 of the chains of four rows of B (base, base+DX, base+2DX, base+3DX) to
// the accumulator acc: the 4×4 tile is transposed so that each vector holds one term of the four rows, and the four
// terms are added in order, one fused multiply-add each (x[l..l+3] broadcast in Y4..Y7).
#define GROUP4(base, acc) \
	VMOVUPD     (base), Y8 \
	VMOVUPD     (base)(DX*1), Y9 \
	VMOVUPD     (base)(DX*2), Y10 \
	VMOVUPD     (base)(R12*1), Y11 \
	VUNPCKLPD   Y9, Y8, Y12 \
	VUNPCKHPD   Y9, Y8, Y13 \
	VUNPCKLPD   Y11, Y10, Y14 \
	VUNPCKHPD   Y11, Y10, Y15 \
	VPERM2F128  $0x20, Y14, Y12, Y8 \
	VPERM2F128  $0x20, Y15, Y13, Y9 \
	VPERM2F128  $0x31, Y14, Y12, Y10 \
	VPERM2F128  $0x31, Y15, Y13, Y11 \
	VFMADD231PD Y8, Y4, acc \
	VFMADD231PD Y9, Y5, acc \
	VFMADD231PD Y10, Y6, acc \
	VFMADD231PD Y11, Y7, acc

// func Dots16FMA(k4 int, x, b *float64, ldb int, c *float64)
TEXT ·Dots16FMA(SB), NOSPLIT, $0-40
	MOVQ k4+0(FP), CX
	MOVQ x+8(FP), AX
	MOVQ b+16(FP), R8
	MOVQ ldb+24(FP), DX
	MOVQ c+32(FP), DI
	SHLQ $3, DX
	LEAQ (DX)(DX*2), R12 // 3 rows
	LEAQ (R8)(DX*4), R9  // rows 4..7
	LEAQ (R9)(DX*4), R10 // rows 8..11
	LEAQ (R10)(DX*4), R11 // rows 12..15
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	TESTQ CX, CX
	JZ    dotsstore

dotsloop:
	VBROADCASTSD (AX), Y4
	VBROADCASTSD 8(AX), Y5
	VBROADCASTSD 16(AX), Y6
	VBROADCASTSD 24(AX), Y7
	GROUP4(R8, Y0)
	GROUP4(R9, Y1)
	GROUP4(R10, Y2)
	GROUP4(R11, Y3)
	ADDQ $32, AX
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	ADDQ $32, R11
	DECQ CX
	JNZ  dotsloop

dotsstore:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VZEROUPPER
	RET
