//go:build !purego

#include "textflag.h"

// AVX2 versions of the elementwise kernels of fwht.go and butterfly.go. Each
// output is computed by exactly the operations of the Go reference (one
// rounding per add, subtract and multiply, never an FMA), so the results are
// bit-identical to it. n is the number of values per row, a positive
// multiple of 4; rows are unaligned.

// HAD4(a, b, c, d) replaces the four registers by (s0+s1, d0+d1, s0−s1,
// d0−d1) with s0 = a+b, d0 = a−b, s1 = c+d, d1 = c−d; clobbers Y8..Y11.
#define HAD4(a, b, c, d) \
	VADDPD b, a, Y8 \
	VSUBPD b, a, Y9 \
	VADDPD d, c, Y10 \
	VSUBPD d, c, Y11 \
	VADDPD Y10, Y8, a \
	VADDPD Y11, Y9, b \
	VSUBPD Y10, Y8, c \
	VSUBPD Y11, Y9, d

// ROT(a, b, c, s, u, v, t) sets u = c·a − s·b and v = s·a + c·b (products
// rounded, then summed); clobbers t. a and b are left intact.
#define ROT(a, b, c, s, u, v, t) \
	VMULPD a, c, u \
	VMULPD b, s, t \
	VSUBPD t, u, u \
	VMULPD a, s, v \
	VMULPD b, c, t \
	VADDPD t, v, v

// ROT8(x1, x2, y1, y2, c, s) rotates the eight values at byte DI of the rows
// at x1 and x2 (two registers each) by ROT and stores them at byte DI of y1
// and y2 (which may be x1 and x2); clobbers Y0..Y9.
#define ROT8(x1, x2, y1, y2, c, s) \
	VMOVUPD (x1)(DI*1), Y0 \
	VMOVUPD (x2)(DI*1), Y1 \
	VMOVUPD 32(x1)(DI*1), Y4 \
	VMOVUPD 32(x2)(DI*1), Y5 \
	ROT(Y0, Y1, c, s, Y2, Y3, Y8) \
	ROT(Y4, Y5, c, s, Y6, Y7, Y9) \
	VMOVUPD Y2, (y1)(DI*1) \
	VMOVUPD Y3, (y2)(DI*1) \
	VMOVUPD Y6, 32(y1)(DI*1) \
	VMOVUPD Y7, 32(y2)(DI*1)

// ROT4PROLOGUE loads the 8 row pointers into AX, BX, CX, DX (y0..y3) and
// R9..R12 (x0..x3), n·8 into SI and the six angles into Y10..Y15
// (cH, sH, c0, s0, c1, s1).
#define ROT4PROLOGUE \
	MOVQ         y0+0(FP), AX \
	MOVQ         y1+8(FP), BX \
	MOVQ         y2+16(FP), CX \
	MOVQ         y3+24(FP), DX \
	MOVQ         x0+32(FP), R9 \
	MOVQ         x1+40(FP), R10 \
	MOVQ         x2+48(FP), R11 \
	MOVQ         x3+56(FP), R12 \
	MOVQ         n+64(FP), SI \
	SHLQ         $3, SI \
	VBROADCASTSD cH+72(FP), Y10 \
	VBROADCASTSD sH+80(FP), Y11 \
	VBROADCASTSD c0+88(FP), Y12 \
	VBROADCASTSD s0+96(FP), Y13 \
	VBROADCASTSD c1+104(FP), Y14 \
	VBROADCASTSD s1+112(FP), Y15 \
	XORQ         DI, DI

// func hadamard2AVX2(r0, r1 *float64, n int)
TEXT ·hadamard2AVX2(SB), NOSPLIT, $0-24
	MOVQ r0+0(FP), AX
	MOVQ r1+8(FP), BX
	MOVQ n+16(FP), SI
	SHLQ $3, SI
	XORQ DI, DI
	MOVQ SI, R8
	ANDQ $-64, R8
	JZ   h2tail

h2loop:
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD 32(AX)(DI*1), Y2
	VMOVUPD (BX)(DI*1), Y1
	VMOVUPD 32(BX)(DI*1), Y3
	VADDPD  Y1, Y0, Y4
	VSUBPD  Y1, Y0, Y5
	VADDPD  Y3, Y2, Y6
	VSUBPD  Y3, Y2, Y7
	VMOVUPD Y4, (AX)(DI*1)
	VMOVUPD Y6, 32(AX)(DI*1)
	VMOVUPD Y5, (BX)(DI*1)
	VMOVUPD Y7, 32(BX)(DI*1)
	ADDQ    $64, DI
	CMPQ    DI, R8
	JNE     h2loop

h2tail:
	CMPQ    DI, SI
	JEQ     h2done
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD (BX)(DI*1), Y1
	VADDPD  Y1, Y0, Y4
	VSUBPD  Y1, Y0, Y5
	VMOVUPD Y4, (AX)(DI*1)
	VMOVUPD Y5, (BX)(DI*1)

h2done:
	VZEROUPPER
	RET

// func hadamard2ScaledAVX2(r0, r1 *float64, n int, s float64)
TEXT ·hadamard2ScaledAVX2(SB), NOSPLIT, $0-32
	MOVQ         r0+0(FP), AX
	MOVQ         r1+8(FP), BX
	MOVQ         n+16(FP), SI
	VBROADCASTSD s+24(FP), Y15
	SHLQ         $3, SI
	XORQ         DI, DI
	MOVQ         SI, R8
	ANDQ         $-64, R8
	JZ           h2stail

h2sloop:
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD 32(AX)(DI*1), Y2
	VMOVUPD (BX)(DI*1), Y1
	VMOVUPD 32(BX)(DI*1), Y3
	VADDPD  Y1, Y0, Y4
	VSUBPD  Y1, Y0, Y5
	VADDPD  Y3, Y2, Y6
	VSUBPD  Y3, Y2, Y7
	VMULPD  Y15, Y4, Y4
	VMULPD  Y15, Y5, Y5
	VMULPD  Y15, Y6, Y6
	VMULPD  Y15, Y7, Y7
	VMOVUPD Y4, (AX)(DI*1)
	VMOVUPD Y6, 32(AX)(DI*1)
	VMOVUPD Y5, (BX)(DI*1)
	VMOVUPD Y7, 32(BX)(DI*1)
	ADDQ    $64, DI
	CMPQ    DI, R8
	JNE     h2sloop

h2stail:
	CMPQ    DI, SI
	JEQ     h2sdone
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD (BX)(DI*1), Y1
	VADDPD  Y1, Y0, Y4
	VSUBPD  Y1, Y0, Y5
	VMULPD  Y15, Y4, Y4
	VMULPD  Y15, Y5, Y5
	VMOVUPD Y4, (AX)(DI*1)
	VMOVUPD Y5, (BX)(DI*1)

h2sdone:
	VZEROUPPER
	RET

// func hadamard4AVX2(r0, r1, r2, r3 *float64, n int)
TEXT ·hadamard4AVX2(SB), NOSPLIT, $0-40
	MOVQ r0+0(FP), AX
	MOVQ r1+8(FP), BX
	MOVQ r2+16(FP), CX
	MOVQ r3+24(FP), DX
	MOVQ n+32(FP), SI
	SHLQ $3, SI
	XORQ DI, DI
	MOVQ SI, R8
	ANDQ $-64, R8
	JZ   h4tail

h4loop:
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD (BX)(DI*1), Y1
	VMOVUPD (CX)(DI*1), Y2
	VMOVUPD (DX)(DI*1), Y3
	VMOVUPD 32(AX)(DI*1), Y4
	VMOVUPD 32(BX)(DI*1), Y5
	VMOVUPD 32(CX)(DI*1), Y6
	VMOVUPD 32(DX)(DI*1), Y7
	HAD4(Y0, Y1, Y2, Y3)
	HAD4(Y4, Y5, Y6, Y7)
	VMOVUPD Y0, (AX)(DI*1)
	VMOVUPD Y1, (BX)(DI*1)
	VMOVUPD Y2, (CX)(DI*1)
	VMOVUPD Y3, (DX)(DI*1)
	VMOVUPD Y4, 32(AX)(DI*1)
	VMOVUPD Y5, 32(BX)(DI*1)
	VMOVUPD Y6, 32(CX)(DI*1)
	VMOVUPD Y7, 32(DX)(DI*1)
	ADDQ    $64, DI
	CMPQ    DI, R8
	JNE     h4loop

h4tail:
	CMPQ    DI, SI
	JEQ     h4done
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD (BX)(DI*1), Y1
	VMOVUPD (CX)(DI*1), Y2
	VMOVUPD (DX)(DI*1), Y3
	HAD4(Y0, Y1, Y2, Y3)
	VMOVUPD Y0, (AX)(DI*1)
	VMOVUPD Y1, (BX)(DI*1)
	VMOVUPD Y2, (CX)(DI*1)
	VMOVUPD Y3, (DX)(DI*1)

h4done:
	VZEROUPPER
	RET

// func hadamard4ScaledAVX2(r0, r1, r2, r3 *float64, n int, s float64)
TEXT ·hadamard4ScaledAVX2(SB), NOSPLIT, $0-48
	MOVQ         r0+0(FP), AX
	MOVQ         r1+8(FP), BX
	MOVQ         r2+16(FP), CX
	MOVQ         r3+24(FP), DX
	MOVQ         n+32(FP), SI
	VBROADCASTSD s+40(FP), Y15
	SHLQ         $3, SI
	XORQ         DI, DI
	MOVQ         SI, R8
	ANDQ         $-64, R8
	JZ           h4stail

h4sloop:
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD (BX)(DI*1), Y1
	VMOVUPD (CX)(DI*1), Y2
	VMOVUPD (DX)(DI*1), Y3
	VMOVUPD 32(AX)(DI*1), Y4
	VMOVUPD 32(BX)(DI*1), Y5
	VMOVUPD 32(CX)(DI*1), Y6
	VMOVUPD 32(DX)(DI*1), Y7
	HAD4(Y0, Y1, Y2, Y3)
	HAD4(Y4, Y5, Y6, Y7)
	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y1, Y1
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y3, Y3
	VMULPD  Y15, Y4, Y4
	VMULPD  Y15, Y5, Y5
	VMULPD  Y15, Y6, Y6
	VMULPD  Y15, Y7, Y7
	VMOVUPD Y0, (AX)(DI*1)
	VMOVUPD Y1, (BX)(DI*1)
	VMOVUPD Y2, (CX)(DI*1)
	VMOVUPD Y3, (DX)(DI*1)
	VMOVUPD Y4, 32(AX)(DI*1)
	VMOVUPD Y5, 32(BX)(DI*1)
	VMOVUPD Y6, 32(CX)(DI*1)
	VMOVUPD Y7, 32(DX)(DI*1)
	ADDQ    $64, DI
	CMPQ    DI, R8
	JNE     h4sloop

h4stail:
	CMPQ    DI, SI
	JEQ     h4sdone
	VMOVUPD (AX)(DI*1), Y0
	VMOVUPD (BX)(DI*1), Y1
	VMOVUPD (CX)(DI*1), Y2
	VMOVUPD (DX)(DI*1), Y3
	HAD4(Y0, Y1, Y2, Y3)
	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y1, Y1
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y3, Y3
	VMOVUPD Y0, (AX)(DI*1)
	VMOVUPD Y1, (BX)(DI*1)
	VMOVUPD Y2, (CX)(DI*1)
	VMOVUPD Y3, (DX)(DI*1)

h4sdone:
	VZEROUPPER
	RET

// func rot2toAVX2(y1, y2, x1, x2 *float64, n int, c, s float64)
TEXT ·rot2toAVX2(SB), NOSPLIT, $0-56
	MOVQ         y1+0(FP), AX
	MOVQ         y2+8(FP), BX
	MOVQ         x1+16(FP), CX
	MOVQ         x2+24(FP), DX
	MOVQ         n+32(FP), SI
	VBROADCASTSD c+40(FP), Y14
	VBROADCASTSD s+48(FP), Y15
	SHLQ         $3, SI
	XORQ         DI, DI
	MOVQ         SI, R8
	ANDQ         $-64, R8
	JZ           r2tail

r2loop:
	ROT8(CX, DX, AX, BX, Y14, Y15)
	ADDQ    $64, DI
	CMPQ    DI, R8
	JNE     r2loop

r2tail:
	CMPQ    DI, SI
	JEQ     r2done
	VMOVUPD (CX)(DI*1), Y0
	VMOVUPD (DX)(DI*1), Y1
	ROT(Y0, Y1, Y14, Y15, Y2, Y3, Y8)
	VMOVUPD Y2, (AX)(DI*1)
	VMOVUPD Y3, (BX)(DI*1)

r2done:
	VZEROUPPER
	RET

// func rot4HiLoAVX2(y0, y1, y2, y3, x0, x1, x2, x3 *float64, n int, cH, sH, c0, s0, c1, s1 float64)
TEXT ·rot4HiLoAVX2(SB), NOSPLIT, $0-120
	ROT4PROLOGUE

r4hlloop:
	VMOVUPD (R9)(DI*1), Y0  // a
	VMOVUPD (R10)(DI*1), Y1 // b
	VMOVUPD (R11)(DI*1), Y2 // c
	VMOVUPD (R12)(DI*1), Y3 // e
	ROT(Y0, Y2, Y10, Y11, Y4, Y5, Y8) // a2 = cH·a − sH·c, c2 = sH·a + cH·c
	ROT(Y1, Y3, Y10, Y11, Y6, Y7, Y9) // b2 = cH·b − sH·e, e2 = sH·b + cH·e
	ROT(Y4, Y6, Y12, Y13, Y0, Y1, Y8) // y0 = c0·a2 − s0·b2, y1 = s0·a2 + c0·b2
	ROT(Y5, Y7, Y14, Y15, Y2, Y3, Y9) // y2 = c1·c2 − s1·e2, y3 = s1·c2 + c1·e2
	VMOVUPD Y0, (AX)(DI*1)
	VMOVUPD Y1, (BX)(DI*1)
	VMOVUPD Y2, (CX)(DI*1)
	VMOVUPD Y3, (DX)(DI*1)
	ADDQ    $32, DI
	CMPQ    DI, SI
	JNE     r4hlloop
	VZEROUPPER
	RET

// func rot4LoHiAVX2(y0, y1, y2, y3, x0, x1, x2, x3 *float64, n int, cH, sH, c0, s0, c1, s1 float64)
TEXT ·rot4LoHiAVX2(SB), NOSPLIT, $0-120
	ROT4PROLOGUE

r4lhloop:
	VMOVUPD (R9)(DI*1), Y0  // a
	VMOVUPD (R10)(DI*1), Y1 // b
	VMOVUPD (R11)(DI*1), Y2 // c
	VMOVUPD (R12)(DI*1), Y3 // e
	ROT(Y0, Y1, Y12, Y13, Y4, Y5, Y8) // a2 = c0·a − s0·b, b2 = s0·a + c0·b
	ROT(Y2, Y3, Y14, Y15, Y6, Y7, Y9) // c2 = c1·c − s1·e, e2 = s1·c + c1·e
	ROT(Y4, Y6, Y10, Y11, Y0, Y2, Y8) // y0 = cH·a2 − sH·c2, y2 = sH·a2 + cH·c2
	ROT(Y5, Y7, Y10, Y11, Y1, Y3, Y9) // y1 = cH·b2 − sH·e2, y3 = sH·b2 + cH·e2
	VMOVUPD Y0, (AX)(DI*1)
	VMOVUPD Y1, (BX)(DI*1)
	VMOVUPD Y2, (CX)(DI*1)
	VMOVUPD Y3, (DX)(DI*1)
	ADDQ    $32, DI
	CMPQ    DI, SI
	JNE     r4lhloop
	VZEROUPPER
	RET

// The single-vector butterfly levels (butterfly.go, applyVec). Each rotation is
// the ROT of the portable loop: c·a − s·b and s·a + c·b with the products
// rounded, s = sign·Sin[k] (sign = ±1, so exact).

// negLoHi is (−1, −1, 1, 1): multiplied by sign·s it gives the signed sines of
// level 1, whose pairs are the two halves of one register.
DATA negLoHi<>+0(SB)/8, $(-1.0)
DATA negLoHi<>+8(SB)/8, $(-1.0)
DATA negLoHi<>+16(SB)/8, $(1.0)
DATA negLoHi<>+24(SB)/8, $(1.0)
GLOBL negLoHi<>(SB), RODATA|NOPTR, $32

// LEVEL0(X, off): level 0 (pairs (j, j+1), angle j) on the four values in X,
// whose first is x[j] with j at byte offset off of the angles in BX (cos) and
// CX (sin). VMOVDDUP gives (c_j, c_j, c_{j+2}, c_{j+2}); VADDSUBPD subtracts in
// the even lanes (c·a − s·b) and adds in the odd ones (c·b + s·a). Y15 holds
// sign; clobbers Y9..Y13.
#define LEVEL0(X, off) \
	VMOVDDUP   off(BX), Y12 \
	VMOVDDUP   off(CX), Y13 \
	VMULPD     Y15, Y13, Y13 \
	VPERMILPD  $5, X, Y9 \
	VMULPD     X, Y12, Y10 \
	VMULPD     Y9, Y13, Y11 \
	VADDSUBPD  Y11, Y10, X

// LEVEL1(X, off): level 1 (pairs (j, j+2) and (j+1, j+3), angle j+1, at byte
// offset off) on the four values in X: c·X plus (−s, −s, s, s)·(X with its
// halves swapped). Y14 holds (−sign, −sign, sign, sign); clobbers Y9..Y13.
#define LEVEL1(X, off) \
	VBROADCASTSD off(BX), Y12 \
	VBROADCASTSD off(CX), Y13 \
	VMULPD       Y14, Y13, Y13 \
	VPERM2F128   $1, X, X, Y9 \
	VMULPD       X, Y12, Y10 \
	VMULPD       Y9, Y13, Y11 \
	VADDPD       Y11, Y10, X

// ANGLE(off): Y12 = c, Y13 = sign·s of the angle at byte offset off.
#define ANGLE(off) \
	VBROADCASTSD off(BX), Y12 \
	VBROADCASTSD off(CX), Y13 \
	VMULPD       Y15, Y13, Y13

// LOWPROLOGUE(off) loads x into AX, the angles into BX and CX, nb into DX, sign
// into Y15 and (−sign, −sign, sign, sign) into Y14; nb is at byte off of the
// frame and sign right after it.
#define LOWPROLOGUE(off) \
	MOVQ         x+0(FP), AX \
	MOVQ         cos+8(FP), BX \
	MOVQ         sin+16(FP), CX \
	MOVQ         nb+off(FP), DX \
	VBROADCASTSD sign+off+8(FP), Y15 \
	VMOVUPD      negLoHi<>(SB), Y14 \
	VMULPD       Y15, Y14, Y14

// LOAD16(skip) loads the 16 values at AX into Y0..Y3 and, unless R10 is nil,
// multiplies them by the 16 signs at R10 (±1, so exactly) and advances R10;
// skip is the label right after the macro.
#define LOAD16(skip) \
	VMOVUPD (AX), Y0 \
	VMOVUPD 32(AX), Y1 \
	VMOVUPD 64(AX), Y2 \
	VMOVUPD 96(AX), Y3 \
	TESTQ   R10, R10 \
	JZ      skip \
	VMULPD  (R10), Y0, Y0 \
	VMULPD  32(R10), Y1, Y1 \
	VMULPD  64(R10), Y2, Y2 \
	VMULPD  96(R10), Y3, Y3 \
	ADDQ    $128, R10

// func bflyLowTAVX2(x, cos, sin, signs *float64, nb int, sign float64)
// Levels 0, 1, 2, 3 in that order on nb blocks of 16 values, in registers,
// after multiplying the values by signs (±1, so exactly) unless signs is nil.
TEXT ·bflyLowTAVX2(SB), NOSPLIT, $0-48
	LOWPROLOGUE(32)
	MOVQ  signs+24(FP), R10
	TESTQ DX, DX
	JZ    lowTdone

lowTloop:
	LOAD16(lowTlevels)

lowTlevels:
	LEVEL0(Y0, 0)
	LEVEL0(Y1, 32)
	LEVEL0(Y2, 64)
	LEVEL0(Y3, 96)
	LEVEL1(Y0, 8)
	LEVEL1(Y1, 40)
	LEVEL1(Y2, 72)
	LEVEL1(Y3, 104)
	ANGLE(24)
	ROT(Y0, Y1, Y12, Y13, Y4, Y5, Y8)
	ANGLE(88)
	ROT(Y2, Y3, Y12, Y13, Y6, Y7, Y8)
	ANGLE(56)
	ROT(Y4, Y6, Y12, Y13, Y0, Y2, Y8)
	ROT(Y5, Y7, Y12, Y13, Y1, Y3, Y8)
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, 96(AX)
	ADDQ    $128, AX
	ADDQ    $128, BX
	ADDQ    $128, CX
	DECQ    DX
	JNZ     lowTloop

lowTdone:
	VZEROUPPER
	RET

// func bflyLowAVX2(x, cos, sin *float64, nb int, sign float64)
// Levels 3, 2, 1, 0 in that order on nb blocks of 16 values, in registers.
TEXT ·bflyLowAVX2(SB), NOSPLIT, $0-40
	LOWPROLOGUE(24)
	TESTQ DX, DX
	JZ    lowdone

lowloop:
	VMOVUPD (AX), Y4
	VMOVUPD 32(AX), Y5
	VMOVUPD 64(AX), Y6
	VMOVUPD 96(AX), Y7
	ANGLE(56)
	ROT(Y4, Y6, Y12, Y13, Y0, Y2, Y8)
	ROT(Y5, Y7, Y12, Y13, Y1, Y3, Y8)
	ANGLE(24)
	ROT(Y0, Y1, Y12, Y13, Y4, Y5, Y8)
	ANGLE(88)
	ROT(Y2, Y3, Y12, Y13, Y6, Y7, Y8)
	LEVEL1(Y4, 8)
	LEVEL1(Y5, 40)
	LEVEL1(Y6, 72)
	LEVEL1(Y7, 104)
	LEVEL0(Y4, 0)
	LEVEL0(Y5, 32)
	LEVEL0(Y6, 64)
	LEVEL0(Y7, 96)
	VMOVUPD Y4, (AX)
	VMOVUPD Y5, 32(AX)
	VMOVUPD Y6, 64(AX)
	VMOVUPD Y7, 96(AX)
	ADDQ    $128, AX
	ADDQ    $128, BX
	ADDQ    $128, CX
	DECQ    DX
	JNZ     lowloop

lowdone:
	VZEROUPPER
	RET

// func bflyLevelAVX2(x, cos, sin *float64, h, nb int, sign float64)
// One level of half h (a positive multiple of 8) on its first nb blocks of 2h
// values: block k rotates x[2hk+i] with x[2hk+h+i] by the angle 2hk+h−1.
TEXT ·bflyLevelAVX2(SB), NOSPLIT, $0-48
	MOVQ         x+0(FP), AX
	MOVQ         cos+8(FP), BX
	MOVQ         sin+16(FP), CX
	MOVQ         h+24(FP), SI
	MOVQ         nb+32(FP), DX
	VBROADCASTSD sign+40(FP), Y15
	SHLQ         $3, SI
	LEAQ         -8(BX)(SI*1), BX
	LEAQ         -8(CX)(SI*1), CX
	LEAQ         (AX)(SI*1), R8
	MOVQ         SI, R9
	SHLQ         $1, R9
	TESTQ        DX, DX
	JZ           lvldone

lvlblock:
	ANGLE(0)
	XORQ DI, DI

lvlinner:
	ROT8(AX, R8, AX, R8, Y12, Y13)
	ADDQ    $64, DI
	CMPQ    DI, SI
	JNE     lvlinner
	ADDQ    R9, AX
	ADDQ    R9, R8
	ADDQ    R9, BX
	ADDQ    R9, CX
	DECQ    DX
	JNZ     lvlblock

lvldone:
	VZEROUPPER
	RET

// HSTAGE1(X), HSTAGE2(X): one Walsh–Hadamard stage within the register X, whose
// pairs are lanes (0, 1), (2, 3) (VPERMILPD $5 swaps them) or (0, 2), (1, 3)
// (VPERM2F128 swaps the halves): the lower lane of a pair gets a + b, the upper
// a − b (VBLENDPD takes the upper lanes from the differences); clobbers Y9..Y11.
#define HSTAGE1(X) \
	VPERMILPD $5, X, Y9 \
	VADDPD    Y9, X, Y10 \
	VSUBPD    X, Y9, Y11 \
	VBLENDPD  $0x0A, Y11, Y10, X

#define HSTAGE2(X) \
	VPERM2F128 $1, X, X, Y9 \
	VADDPD     Y9, X, Y10 \
	VSUBPD     X, Y9, Y11 \
	VBLENDPD   $0x0C, Y11, Y10, X

// HPAIR(a, b): a, b = a + b, a − b; clobbers Y9.
#define HPAIR(a, b) \
	VSUBPD b, a, Y9 \
	VADDPD b, a, a \
	VMOVAPD Y9, b

// func fwhtLowAVX2(x, signs *float64, nb int, scale float64)
// The Walsh–Hadamard stages of halves 1, 2, 4 and 8 on nb blocks of 16 values
// of one vector, in registers, after multiplying the values by signs (±1, so
// exactly) unless signs is nil, each result then multiplied by scale (1 when
// more stages follow, which leaves it unchanged).
TEXT ·fwhtLowAVX2(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), AX
	MOVQ         signs+8(FP), R10
	MOVQ         nb+16(FP), DX
	VBROADCASTSD scale+24(FP), Y15
	TESTQ        DX, DX
	JZ           fwlowdone

fwlowloop:
	LOAD16(fwlowstages)

fwlowstages:
	HSTAGE1(Y0)
	HSTAGE1(Y1)
	HSTAGE1(Y2)
	HSTAGE1(Y3)
	HSTAGE2(Y0)
	HSTAGE2(Y1)
	HSTAGE2(Y2)
	HSTAGE2(Y3)
	HPAIR(Y0, Y1)
	HPAIR(Y2, Y3)
	HPAIR(Y0, Y2)
	HPAIR(Y1, Y3)
	VMULPD  Y15, Y0, Y0
	VMULPD  Y15, Y1, Y1
	VMULPD  Y15, Y2, Y2
	VMULPD  Y15, Y3, Y3
	VMOVUPD Y0, (AX)
	VMOVUPD Y1, 32(AX)
	VMOVUPD Y2, 64(AX)
	VMOVUPD Y3, 96(AX)
	ADDQ    $128, AX
	DECQ    DX
	JNZ     fwlowloop

fwlowdone:
	VZEROUPPER
	RET

// func gatherRows(dst, src *float64, idx *int32, n int)
// dst[i] = src[idx[i]] for i < n (a positive multiple of 4), four at a time;
// the indices must lie in src.
TEXT ·gatherRows(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ idx+16(FP), BX
	MOVQ n+24(FP), CX
	XORQ AX, AX

gatherloop:
	MOVLQSX (BX)(AX*4), R8
	MOVLQSX 4(BX)(AX*4), R9
	MOVLQSX 8(BX)(AX*4), R10
	MOVLQSX 12(BX)(AX*4), R11
	MOVQ    (SI)(R8*8), R8
	MOVQ    (SI)(R9*8), R9
	MOVQ    (SI)(R10*8), R10
	MOVQ    (SI)(R11*8), R11
	MOVQ    R8, (DI)(AX*8)
	MOVQ    R9, 8(DI)(AX*8)
	MOVQ    R10, 16(DI)(AX*8)
	MOVQ    R11, 24(DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JLT     gatherloop
	RET
