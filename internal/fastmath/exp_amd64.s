//go:build !purego

#include "textflag.h"

// Four copies of each constant, for 256-bit memory operands (CONST4 of sincos_amd64.s is local to that file).
#define EXPCONST4(name, bits) \
	DATA name<>+0(SB)/8, $bits \
	DATA name<>+8(SB)/8, $bits \
	DATA name<>+16(SB)/8, $bits \
	DATA name<>+24(SB)/8, $bits \
	GLOBL name<>(SB), RODATA|NOPTR, $32

EXPCONST4(explo, 0xc086200000000000)   // -708.0
EXPCONST4(exphi, 0x4086280000000000)   // 709.0
EXPCONST4(log2e, 0x3ff71547652b82fe)   // 1.4426950408889634 (math's LOG2E)
EXPCONST4(ln2u, 0x3fe62e42fefa3000)    // LN2U = 0.69314718055966295651160180568695068359375
EXPCONST4(ln2l, 0x3d53de6af278ece6)    // LN2L = 0.28235290563031577122588448175013436025525412068e-12
EXPCONST4(sixteenth, 0x3fb0000000000000)
EXPCONST4(e8, 0x3efa01a01a01a01a)      // 1/8! = 2.4801587301587301587e-5
EXPCONST4(e7, 0x3f2a01a01a01a01a)      // 1/7!
EXPCONST4(e6, 0x3f56c16c16c16c17)      // 1/6! = 1.3888888888888888889e-3
EXPCONST4(e5, 0x3f81111111111111)      // 1/5!
EXPCONST4(e4, 0x3fa5555555555555)      // 1/4!
EXPCONST4(e3, 0x3fc5555555555555)      // 1/3! = 1.6666666666666666667e-1
EXPCONST4(ehalf, 0x3fe0000000000000)
EXPCONST4(eone, 0x3ff0000000000000)
EXPCONST4(etwo, 0x4000000000000000)

DATA bias1023<>+0(SB)/4, $1023
DATA bias1023<>+4(SB)/4, $1023
DATA bias1023<>+8(SB)/4, $1023
DATA bias1023<>+12(SB)/4, $1023
GLOBL bias1023<>(SB), RODATA|NOPTR, $16

// func expAVX2(dst, x *float64, n int) (done int)
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

loop:
	CMPQ AX, CX
	JGE  done
	VMOVUPD (SI)(AX*8), Y0
	VCMPPD    $0x1d, explo<>(SB), Y0, Y1 // x ≥ ExpLo (false for NaN)
	VCMPPD    $0x12, exphi<>(SB), Y0, Y2 // x ≤ ExpHi (false for NaN)
	VANDPD    Y2, Y1, Y1
	VMOVMSKPD Y1, BX
	CMPQ      BX, $15
	JNE       done

	// k = round(x·log₂e) as int32 (CVTPD2DQ rounds to nearest even, as CVTSD2SL), kf = float(k)
	VMULPD    log2e<>(SB), Y0, Y1
	VCVTPD2DQY Y1, X2
	VCVTDQ2PD X2, Y1
	// r = (x − kf·LN2U − kf·LN2L)/16, each subtraction fused
	VFNMADD231PD ln2u<>(SB), Y1, Y0
	VFNMADD231PD ln2l<>(SB), Y1, Y0
	VMULPD    sixteenth<>(SB), Y0, Y0
	// p = ((((((e8·r + e7)·r + e6)·r + e5)·r + e4)·r + e3)·r + ½)·r + 1, fused
	VMOVUPD   e8<>(SB), Y3
	VFMADD213PD e7<>(SB), Y0, Y3
	VFMADD213PD e6<>(SB), Y0, Y3
	VFMADD213PD e5<>(SB), Y0, Y3
	VFMADD213PD e4<>(SB), Y0, Y3
	VFMADD213PD e3<>(SB), Y0, Y3
	VFMADD213PD ehalf<>(SB), Y0, Y3
	VFMADD213PD eone<>(SB), Y0, Y3
	// y = r·p; then y ← y·(y + 2) three times, and y·(y + 2) + 1 fused
	VMULPD    Y3, Y0, Y0
	VADDPD    etwo<>(SB), Y0, Y3
	VMULPD    Y3, Y0, Y0
	VADDPD    etwo<>(SB), Y0, Y3
	VMULPD    Y3, Y0, Y0
	VADDPD    etwo<>(SB), Y0, Y3
	VMULPD    Y3, Y0, Y0
	VADDPD    etwo<>(SB), Y0, Y3
	VFMADD213PD eone<>(SB), Y3, Y0
	// · 2^k: the double with exponent field k + 1023 (in [1, 2046] on the fast range)
	VPADDD    bias1023<>(SB), X2, X2
	VPMOVSXDQ X2, Y2
	VPSLLQ    $52, Y2, Y2
	VMULPD    Y2, Y0, Y0
	VMOVUPD   Y0, (DI)(AX*8)
	ADDQ      $4, AX
	JMP       loop

done:
	MOVQ AX, done+24(FP)
	VZEROUPPER
	RET
