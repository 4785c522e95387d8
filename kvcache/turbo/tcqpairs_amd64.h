// Shared by expand_amd64.s, score_amd64.s and accum_amd64.s: one step of
// the TCQ pair-table decode. It expects the block at SRC and the pair table
// at CB, and uses AX, BX, CX, DX and R12.

// P4 puts values 8q..8q+7 (four pairs whose (6+2k)-bit indices start at
// bits 0, s1, s2, s3 of the 4-byte window at win) into ylo, using xlo and
// xhi (xlo is ylo's low half).
#define P4(win, s1, s2, s3, mask, xlo, xhi, ylo) \
	MOVL        win(SRC), AX;              \
	MOVL        AX, BX;                    \
	ANDL        mask, BX;                  \
	RORXL       $s1, AX, CX;               \
	ANDL        mask, CX;                  \
	RORXL       $s2, AX, DX;               \
	ANDL        mask, DX;                  \
	RORXL       $s3, AX, R12;              \
	ANDL        mask, R12;                 \
	VMOVQ       (CB)(BX*8), xlo;           \
	VPINSRQ     $1, (CB)(CX*8), xlo, xlo;  \
	VMOVQ       (CB)(DX*8), xhi;           \
	VPINSRQ     $1, (CB)(R12*8), xhi, xhi; \
	VINSERTI128 $1, xhi, ylo, ylo
