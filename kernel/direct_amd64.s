//go:build !purego

#include "textflag.h"

// DIMSTEP adds coordinate i = AX of the 16 centres of the panel at DX to the accumulators Y0..Y3: t = x_i − y into
// Y5..Y8, LANE(t) on each (SQUARE: t·t; ABS: |t|, with Y9 the mask that clears the sign bit), the sums; then moves
// DX to the next coordinate's 16 values and compares the next i with d (R8).
#define DIMSTEP(LANE) \
	VBROADCASTSD (SI)(AX*8), Y4 \
	VSUBPD (DX), Y4, Y5 \
	VSUBPD 32(DX), Y4, Y6 \
	VSUBPD 64(DX), Y4, Y7 \
	VSUBPD 96(DX), Y4, Y8 \
	LANE(Y5) \
	LANE(Y6) \
	LANE(Y7) \
	LANE(Y8) \
	VADDPD Y5, Y0, Y0 \
	VADDPD Y6, Y1, Y1 \
	VADDPD Y7, Y2, Y2 \
	VADDPD Y8, Y3, Y3 \
	ADDQ $128, DX \
	INCQ AX \
	CMPQ AX, R8

#define SQUARE(r) VMULPD r, r, r
#define ABS(r) VANDPD Y9, r, r

// func distPanelsAVX2(dst, x, yt *float64, panels, d int, l1 bool)
//
// For each panel of 16 centres, four accumulators of four lanes: for i = 0, …, d−1, t = x_i − y (VSUBPD), then
// acc + t·t (VMULPD, VADDPD) — sqDist's operations in its order, lane by lane — or acc + |t| (VANDPD with the
// sign cleared, VADDPD) — absDist's — when l1 is set.
TEXT ·distPanelsAVX2(SB), NOSPLIT, $0-41
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ yt+16(FP), DX
	MOVQ panels+24(FP), CX
	MOVQ d+32(FP), R8
	MOVBQZX l1+40(FP), R9
	MOVQ $0x7fffffffffffffff, R10
	MOVQ R10, X9
	VBROADCASTSD X9, Y9          // clears the sign bit

panel:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX
	TESTQ R9, R9
	JNZ absdim

sqdim:
	DIMSTEP(SQUARE)
	JLT sqdim
	JMP store

absdim:
	DIMSTEP(ABS)
	JLT absdim

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
