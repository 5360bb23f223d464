//go:build !purego

#include "textflag.h"

// Constants, four copies each so that they can be used as 256-bit memory operands.
#define CONST4(name, bits) \
	DATA name<>+0(SB)/8, $bits \
	DATA name<>+8(SB)/8, $bits \
	DATA name<>+16(SB)/8, $bits \
	DATA name<>+24(SB)/8, $bits \
	GLOBL name<>(SB), RODATA|NOPTR, $32

CONST4(absmask, 0x7fffffffffffffff)
CONST4(signmask, 0x8000000000000000)
CONST4(zero, 0x0000000000000000)
CONST4(one64, 0x0000000000000001)
CONST4(limit, 0x4138000000000000)     // 0x1.8p20
CONST4(twoOverPi, 0x3fe45f306dc9c883)
CONST4(magic, 0x4338000000000000)     // 0x1.8p52
CONST4(pio2c1, 0x3ff921fb54400000)
CONST4(pio2c2, 0x3dd0b4611a600000)
CONST4(pio2c3, 0x3ba3198a2e037073)
CONST4(one, 0x3ff0000000000000)
CONST4(half, 0x3fe0000000000000)
CONST4(s1, 0xbfc5555555555549)
CONST4(s2, 0x3f8111111110f8a6)
CONST4(s3, 0xbf2a01a019c161d5)
CONST4(s4, 0x3ec71de357b1fe7d)
CONST4(s5, 0xbe5ae5e68a2b9ceb)
CONST4(s6, 0x3de5d93a5acfd57c)
CONST4(c1, 0x3fa555555555554c)
CONST4(c2, 0xbf56c16c16c15177)
CONST4(c3, 0x3efa01a019cb1590)
CONST4(c4, 0xbe927e4f809c52ad)
CONST4(c5, 0x3e21ee9ebdb4b1c4)
CONST4(c6, 0xbda8fae9be8838d4)

// SINCOS4 computes, for the four doubles in Y0, sin into Y8 and cos into Y2 by exactly the operations of sincos1
// (one rounding each, no FMA), the out-of-range mask into Y9 (all ones where !(|x| ≤ Limit), NaN included) and
// ORs that mask into Y15. Y14 must hold 1.0 in every lane. Clobbers Y1..Y10.
#define SINCOS4 \
	VANDPD    absmask<>(SB), Y0, Y9 \
	VCMPPD    $0x16, limit<>(SB), Y9, Y9 \ // NLE_UQ
	VORPD     Y9, Y15, Y15 \
	VMULPD    twoOverPi<>(SB), Y0, Y1 \
	VADDPD    magic<>(SB), Y1, Y1 \        // t = x·2/π + magic
	VSUBPD    magic<>(SB), Y1, Y2 \        // k = t − magic
	VMULPD    pio2c1<>(SB), Y2, Y3 \
	VSUBPD    Y3, Y0, Y3 \                 // r = x − k·c1
	VMULPD    pio2c2<>(SB), Y2, Y7 \
	VSUBPD    Y7, Y3, Y3 \                 // r −= k·c2
	VMULPD    pio2c3<>(SB), Y2, Y7 \
	VSUBPD    Y7, Y3, Y3 \                 // r −= k·c3
	VMULPD    Y3, Y3, Y4 \                 // z = r·r
	VMULPD    Y4, Y4, Y10 \                // z2 = z·z
	VMULPD    s6<>(SB), Y4, Y5 \
	VADDPD    s5<>(SB), Y5, Y5 \           // z·s6 + s5
	VMULPD    s4<>(SB), Y4, Y7 \
	VADDPD    s3<>(SB), Y7, Y7 \           // z·s4 + s3
	VMULPD    Y10, Y5, Y5 \
	VADDPD    Y5, Y7, Y5 \                 // (z·s4 + s3) + z2·(z·s6 + s5)
	VMULPD    s2<>(SB), Y4, Y7 \
	VADDPD    s1<>(SB), Y7, Y7 \           // z·s2 + s1
	VMULPD    Y10, Y5, Y5 \
	VADDPD    Y5, Y7, Y5 \                 // ps
	VMULPD    Y3, Y4, Y7 \                 // z·r
	VMULPD    Y7, Y5, Y5 \
	VADDPD    Y5, Y3, Y5 \                 // s = r + (z·r)·ps
	VCMPPD    $0x00, zero<>(SB), Y0, Y7 \  // EQ_OQ: x == 0 → s = x (keeps the sign of zero)
	VBLENDVPD Y7, Y0, Y5, Y5 \
	VMULPD    c6<>(SB), Y4, Y6 \
	VADDPD    c5<>(SB), Y6, Y6 \           // z·c6 + c5
	VMULPD    c4<>(SB), Y4, Y7 \
	VADDPD    c3<>(SB), Y7, Y7 \           // z·c4 + c3
	VMULPD    Y10, Y6, Y6 \
	VADDPD    Y6, Y7, Y6 \
	VMULPD    c2<>(SB), Y4, Y7 \
	VADDPD    c1<>(SB), Y7, Y7 \           // z·c2 + c1
	VMULPD    Y10, Y6, Y6 \
	VADDPD    Y6, Y7, Y6 \                 // pc
	VMULPD    Y4, Y6, Y6 \
	VMULPD    Y4, Y6, Y6 \                 // z·(z·pc)
	VMULPD    half<>(SB), Y4, Y7 \         // hz = 0.5·z
	VSUBPD    Y7, Y14, Y8 \                // w = 1 − hz
	VSUBPD    Y8, Y14, Y2 \                // 1 − w
	VSUBPD    Y7, Y2, Y2 \                 // (1 − w) − hz
	VADDPD    Y6, Y2, Y2 \                 // … + z·pc
	VADDPD    Y2, Y8, Y6 \                 // c = w + …
	VPSLLQ    $63, Y1, Y7 \                // bit 0 of k → sign bit: swap s and c
	VBLENDVPD Y7, Y6, Y5, Y8 \
	VBLENDVPD Y7, Y5, Y6, Y2 \
	VPSLLQ    $62, Y1, Y7 \                // bit 1 of k → sign of sin
	VANDPD    signmask<>(SB), Y7, Y7 \
	VXORPD    Y7, Y8, Y8 \
	VPADDQ    one64<>(SB), Y1, Y1 \        // bit 1 of k+1 → sign of cos
	VPSLLQ    $62, Y1, Y1 \
	VANDPD    signmask<>(SB), Y1, Y1 \
	VXORPD    Y1, Y2, Y2

// func sincosAVX2(sin, cos, x, w *float64, n int) (bad bool)
TEXT ·sincosAVX2(SB), NOSPLIT, $0-41
	MOVQ   sin+0(FP), DI
	MOVQ   cos+8(FP), DX
	MOVQ   x+16(FP), SI
	MOVQ   w+24(FP), R8
	MOVQ   n+32(FP), CX
	XORQ   BX, BX
	VXORPD Y15, Y15, Y15
	VMOVUPD one<>(SB), Y14
	TESTQ  CX, CX
	JZ     done
	TESTQ  R8, R8
	JZ     loop

wloop:
	VMOVUPD   (SI)(BX*1), Y0
	SINCOS4
	VMULPD    (R8)(BX*1), Y8, Y8
	VMULPD    (R8)(BX*1), Y2, Y2
	VBLENDVPD Y9, Y0, Y8, Y8
	VBLENDVPD Y9, Y0, Y2, Y2
	VMOVUPD   Y8, (DI)(BX*1)
	VMOVUPD   Y2, (DX)(BX*1)
	ADDQ      $32, BX
	SUBQ      $4, CX
	JNZ       wloop
	JMP       done

loop:
	VMOVUPD   (SI)(BX*1), Y0
	SINCOS4
	VBLENDVPD Y9, Y0, Y8, Y8
	VBLENDVPD Y9, Y0, Y2, Y2
	VMOVUPD   Y8, (DI)(BX*1)
	VMOVUPD   Y2, (DX)(BX*1)
	ADDQ      $32, BX
	SUBQ      $4, CX
	JNZ       loop

done:
	VPTEST     Y15, Y15
	SETNE      bad+40(FP)
	VZEROUPPER
	RET

// func cosAVX2(dst, x, w *float64, n int) (bad bool)
TEXT ·cosAVX2(SB), NOSPLIT, $0-33
	MOVQ   dst+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   w+16(FP), R8
	MOVQ   n+24(FP), CX
	XORQ   BX, BX
	VXORPD Y15, Y15, Y15
	VMOVUPD one<>(SB), Y14
	TESTQ  CX, CX
	JZ     cdone

cloop:
	VMOVUPD   (SI)(BX*1), Y0
	SINCOS4
	VMULPD    (R8)(BX*1), Y2, Y2
	VBLENDVPD Y9, Y0, Y2, Y2
	VMOVUPD   Y2, (DI)(BX*1)
	ADDQ      $32, BX
	SUBQ      $4, CX
	JNZ       cloop

cdone:
	VPTEST     Y15, Y15
	SETNE      bad+32(FP)
	VZEROUPPER
	RET
