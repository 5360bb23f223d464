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
	VMOVUPD (CX)(DI*1), Y0
	VMOVUPD (DX)(DI*1), Y1
	VMOVUPD 32(CX)(DI*1), Y4
	VMOVUPD 32(DX)(DI*1), Y5
	ROT(Y0, Y1, Y14, Y15, Y2, Y3, Y8)
	ROT(Y4, Y5, Y14, Y15, Y6, Y7, Y9)
	VMOVUPD Y2, (AX)(DI*1)
	VMOVUPD Y3, (BX)(DI*1)
	VMOVUPD Y6, 32(AX)(DI*1)
	VMOVUPD Y7, 32(BX)(DI*1)
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
