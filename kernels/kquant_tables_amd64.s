//go:build !purego

#include "textflag.h"

// Constant tables shared by the K-quant dot kernels (kquant_q*k_amd64.s).

// kqWordBcast holds eight 32-byte VPSHUFB index vectors. Entry k copies
// 16-bit word k of each 128-bit lane to every word of that lane, so that
// VPSHUFB kqWordBcast+32*k(SB), Ysc, Ysb turns a vector of int16 scales into
// the per-lane broadcast VPMADDWD needs: with the same eight scales in both
// lanes it broadcasts scale k, with even scales in the low lane and odd ones
// in the high lane it broadcasts scales 2k and 2k+1 (one per 16 values).
DATA ·kqWordBcast+0(SB)/8, $0x0100010001000100
DATA ·kqWordBcast+8(SB)/8, $0x0100010001000100
DATA ·kqWordBcast+16(SB)/8, $0x0100010001000100
DATA ·kqWordBcast+24(SB)/8, $0x0100010001000100
DATA ·kqWordBcast+32(SB)/8, $0x0302030203020302
DATA ·kqWordBcast+40(SB)/8, $0x0302030203020302
DATA ·kqWordBcast+48(SB)/8, $0x0302030203020302
DATA ·kqWordBcast+56(SB)/8, $0x0302030203020302
DATA ·kqWordBcast+64(SB)/8, $0x0504050405040504
DATA ·kqWordBcast+72(SB)/8, $0x0504050405040504
DATA ·kqWordBcast+80(SB)/8, $0x0504050405040504
DATA ·kqWordBcast+88(SB)/8, $0x0504050405040504
DATA ·kqWordBcast+96(SB)/8, $0x0706070607060706
DATA ·kqWordBcast+104(SB)/8, $0x0706070607060706
DATA ·kqWordBcast+112(SB)/8, $0x0706070607060706
DATA ·kqWordBcast+120(SB)/8, $0x0706070607060706
DATA ·kqWordBcast+128(SB)/8, $0x0908090809080908
DATA ·kqWordBcast+136(SB)/8, $0x0908090809080908
DATA ·kqWordBcast+144(SB)/8, $0x0908090809080908
DATA ·kqWordBcast+152(SB)/8, $0x0908090809080908
DATA ·kqWordBcast+160(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA ·kqWordBcast+168(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA ·kqWordBcast+176(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA ·kqWordBcast+184(SB)/8, $0x0b0a0b0a0b0a0b0a
DATA ·kqWordBcast+192(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA ·kqWordBcast+200(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA ·kqWordBcast+208(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA ·kqWordBcast+216(SB)/8, $0x0d0c0d0c0d0c0d0c
DATA ·kqWordBcast+224(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA ·kqWordBcast+232(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA ·kqWordBcast+240(SB)/8, $0x0f0e0f0e0f0e0f0e
DATA ·kqWordBcast+248(SB)/8, $0x0f0e0f0e0f0e0f0e
GLOBL ·kqWordBcast(SB), RODATA|NOPTR, $256

// kqEvenOdd is a 16-byte VPSHUFB index that moves the even bytes of a
// vector to its low half and the odd bytes to its high half, the scale
// order kqWordBcast needs for the 16-scale types (Q2_K, Q3_K, Q6_K).
DATA ·kqEvenOdd+0(SB)/8, $0x0e0c0a0806040200
DATA ·kqEvenOdd+8(SB)/8, $0x0f0d0b0907050301
GLOBL ·kqEvenOdd(SB), RODATA|NOPTR, $16

// kqPackOrder is the VPERMD index that restores element order after two
// rounds of in-lane VPACKSSDW/VPACKSSWB (used by the q8_K quantizer).
DATA ·kqPackOrder+0(SB)/8, $0x0000000400000000
DATA ·kqPackOrder+8(SB)/8, $0x0000000500000001
DATA ·kqPackOrder+16(SB)/8, $0x0000000600000002
DATA ·kqPackOrder+24(SB)/8, $0x0000000700000003
GLOBL ·kqPackOrder(SB), RODATA|NOPTR, $32
