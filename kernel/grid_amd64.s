//go:build !purego

#include "textflag.h"

DATA gridabs<>+0(SB)/8, $0x7fffffffffffffff
GLOBL gridabs<>(SB), RODATA|NOPTR, $8
DATA gridmaxq<>+0(SB)/8, $0x4080000000000000 // 512 = gridMaxQ
GLOBL gridmaxq<>(SB), RODATA|NOPTR, $8
DATA gridtol<>+0(SB)/8, $0x3cb8000000000000 // 3·2⁻⁵³ = gridTol
GLOBL gridtol<>(SB), RODATA|NOPTR, $8

// func quantizeAVX2(out *float32, row *float64, shift, lo, hi *int32, n int, inv, s float64) (sq float64, ok bool)
//
// Four values at a time (n a multiple of 4), the operations of quantizeRowGeneric in the same order:
// q = round-to-even(v·inv); ok while |q| ≤ 512 and |v − q·s| ≤ gridTol·|v| (both false for NaN);
// t = int32(q) − shift; out = float32(t); lo = min(lo, t); hi = max(hi, t); sq += t² (exact integers in float64).
TEXT ·quantizeAVX2(SB), NOSPLIT, $0-73
	MOVQ out+0(FP), DI
	MOVQ row+8(FP), SI
	MOVQ shift+16(FP), R8
	MOVQ lo+24(FP), R9
	MOVQ hi+32(FP), R10
	MOVQ n+40(FP), CX
	VBROADCASTSD inv+48(FP), Y10
	VBROADCASTSD s+56(FP), Y11
	VBROADCASTSD gridabs<>(SB), Y12
	VBROADCASTSD gridmaxq<>(SB), Y13
	VBROADCASTSD gridtol<>(SB), Y14
	VXORPD Y9, Y9, Y9           // sq, four partial sums
	VPCMPEQD Y15, Y15, Y15      // ok, all lanes true
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE done
	VMOVUPD (SI)(AX*8), Y0      // v
	VMULPD Y10, Y0, Y1          // v·inv
	VROUNDPD $0, Y1, Y1         // q, to nearest even
	VANDPD Y12, Y1, Y2          // |q|
	VCMPPD $0x12, Y13, Y2, Y2   // |q| ≤ 512 (LE_OQ)
	VMULPD Y11, Y1, Y3          // q·s
	VSUBPD Y3, Y0, Y3           // v − q·s
	VANDPD Y12, Y3, Y3          // |v − q·s|
	VANDPD Y12, Y0, Y4          // |v|
	VMULPD Y14, Y4, Y4          // gridTol·|v|
	VCMPPD $0x12, Y4, Y3, Y3    // |v − q·s| ≤ gridTol·|v|
	VANDPD Y3, Y2, Y2
	VANDPD Y2, Y15, Y15
	VCVTPD2DQY Y1, X5           // int32(q) (q is an integer)
	VMOVDQU (R8)(AX*4), X6
	VPSUBD X6, X5, X5           // t = int32(q) − shift
	VCVTDQ2PS X5, X6
	VMOVUPS X6, (DI)(AX*4)
	VPMINSD (R9)(AX*4), X5, X6
	VMOVDQU X6, (R9)(AX*4)
	VPMAXSD (R10)(AX*4), X5, X6
	VMOVDQU X6, (R10)(AX*4)
	VCVTDQ2PD X5, Y6
	VMULPD Y6, Y6, Y6
	VADDPD Y6, Y9, Y9
	ADDQ $4, AX
	JMP loop

done:
	VEXTRACTF128 $1, Y9, X0
	VADDPD X0, X9, X0
	VHADDPD X0, X0, X0
	MOVSD X0, sq+64(FP)
	VMOVMSKPD Y15, BX
	CMPQ BX, $15
	SETEQ ok+72(FP)
	VZEROUPPER
	RET
