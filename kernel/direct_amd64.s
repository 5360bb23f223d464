//go:build !purego

#include "textflag.h"

// DIMSTEP takes coordinate i = AX of the 16 centres of the panel at DX into the accumulators Y0..Y3: t = x_i − y
// into Y5..Y8, LANE(t) on each, then ACC(t, acc) — one of the loops of sqDist (SQUARE, SUM), absDist (ABS, SUM) or
// cauchyProd (CAUCHY, QUOT), with Y9 the mask that clears the sign bit, Y10 σ and Y11 1.0; then moves DX to the next
// coordinate's 16 values and compares the next i with d (R8).
#define DIMSTEP(LANE, ACC) \
	VBROADCASTSD (SI)(AX*8), Y4 \
	VSUBPD (DX), Y4, Y5 \
	VSUBPD 32(DX), Y4, Y6 \
	VSUBPD 64(DX), Y4, Y7 \
	VSUBPD 96(DX), Y4, Y8 \
	LANE(Y5) \
	LANE(Y6) \
	LANE(Y7) \
	LANE(Y8) \
	ACC(Y5, Y0) \
	ACC(Y6, Y1) \
	ACC(Y7, Y2) \
	ACC(Y8, Y3) \
	ADDQ $128, DX \
	INCQ AX \
	CMPQ AX, R8

// DOTSTEP is DIMSTEP for dot: the products x_i·y into Y5..Y8, added to Y0..Y3.
#define DOTSTEP \
	VBROADCASTSD (SI)(AX*8), Y4 \
	VMULPD (DX), Y4, Y5 \
	VMULPD 32(DX), Y4, Y6 \
	VMULPD 64(DX), Y4, Y7 \
	VMULPD 96(DX), Y4, Y8 \
	VADDPD Y5, Y0, Y0 \
	VADDPD Y6, Y1, Y1 \
	VADDPD Y7, Y2, Y2 \
	VADDPD Y8, Y3, Y3 \
	ADDQ $128, DX \
	INCQ AX \
	CMPQ AX, R8

#define SQUARE(r) VMULPD r, r, r
#define ABS(r) VANDPD Y9, r, r
#define CAUCHY(r) VDIVPD Y10, r, r; VMULPD r, r, r; VADDPD Y11, r, r
#define SUM(t, acc) VADDPD t, acc, acc
#define QUOT(t, acc) VDIVPD t, acc, acc

// func distPanelsAVX2(dst, x, yt *float64, panels, d int, mode dirMode, sigma float64)
//
// For each panel of 16 centres, four accumulators of four lanes, the operations of sqDist (mode 0: t = x_i − y,
// acc + t·t), absDist (mode 1: acc + |t|), cauchyProd (mode 2: t/σ, acc / (1 + t·t), acc from 1) or dot (mode 3:
// acc + x_i·y) in their order, lane by lane.
TEXT ·distPanelsAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ yt+16(FP), DX
	MOVQ panels+24(FP), CX
	MOVQ d+32(FP), R8
	MOVQ mode+40(FP), R9
	VBROADCASTSD sigma+48(FP), Y10
	MOVQ $0x7fffffffffffffff, R10
	MOVQ R10, X9
	VBROADCASTSD X9, Y9          // clears the sign bit
	MOVQ $0x3ff0000000000000, R10
	MOVQ R10, X11
	VBROADCASTSD X11, Y11        // 1.0

panel:
	XORQ AX, AX
	CMPQ R9, $2
	JEQ cauchy
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	CMPQ R9, $1
	JEQ absdim
	CMPQ R9, $3
	JEQ dotdim

sqdim:
	DIMSTEP(SQUARE, SUM)
	JLT sqdim
	JMP store

absdim:
	DIMSTEP(ABS, SUM)
	JLT absdim
	JMP store

dotdim:
	DOTSTEP
	JLT dotdim
	JMP store

cauchy:
	VMOVAPD Y11, Y0
	VMOVAPD Y11, Y1
	VMOVAPD Y11, Y2
	VMOVAPD Y11, Y3

cauchydim:
	DIMSTEP(CAUCHY, QUOT)
	JLT cauchydim

store:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	DECQ CX
	JNZ panel

	VZEROUPPER
	RET
