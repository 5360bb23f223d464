//go:build !purego

#include "textflag.h"

// func sqDistPanelsAVX2(dst, x, yt *float64, panels, d int)
//
// For each panel of 16 centres, four accumulators of four lanes: for i = 0, …, d−1, t = x_i − y (VSUBPD), t·t
// (VMULPD), acc + t·t (VADDPD) — sqDist's operations in its order, lane by lane.
TEXT ·sqDistPanelsAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ yt+16(FP), DX
	MOVQ panels+24(FP), CX
	MOVQ d+32(FP), R8

panel:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ AX, AX

dim:
	VBROADCASTSD (SI)(AX*8), Y4
	VSUBPD (DX), Y4, Y5
	VSUBPD 32(DX), Y4, Y6
	VSUBPD 64(DX), Y4, Y7
	VSUBPD 96(DX), Y4, Y8
	VMULPD Y5, Y5, Y5
	VMULPD Y6, Y6, Y6
	VMULPD Y7, Y7, Y7
	VMULPD Y8, Y8, Y8
	VADDPD Y5, Y0, Y0
	VADDPD Y6, Y1, Y1
	VADDPD Y7, Y2, Y2
	VADDPD Y8, Y3, Y3
	ADDQ $128, DX
	INCQ AX
	CMPQ AX, R8
	JLT dim

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, DI
	DECQ CX
	JNZ panel

	VZEROUPPER
	RET
