#!/usr/bin/env python3
"""Writes the CDNA4 (gfx950) fp8 layout tables of v_mfma_f32_16x16x128_f8f6f4
and v_mfma_f32_32x32x64_f8f6f4 (A and B; cbsz = blgp = 0, i.e. fp8 E4M3 on
both sides) in the format of the CDNA3 tables next to this script, from the
register mappings transcribed below.

Sources (see README.md):
- AMD CDNA4 Instruction Set Architecture reference guide, chapter 7 "Matrix
  Arithmetic Instructions" (dense matrix layouts), https://www.amd.com/content/
  dam/amd/en/documents/instinct-tech-docs/instruction-set-architectures/
  amd-instinct-cdna4-instruction-set-architecture.pdf
- AMD's composable_kernel, test/mx_mfma_op/mx_mfma_op.hpp, load_A_col_major /
  load_A_row_major ("Register Mapping for 16x128 for FP8", "Register Mapping
  for 32x64 for FP8") and load_mx_B_col_major (the same K table with N in
  place of M): the tables below, row for row. Lane group g (columns) holds
  rows M = lane % 16 (16x16x128) or lane % 32 (32x32x64) of A (columns N of
  B); each cell is the K index held in that register byte.
- D: store_C_row_major of the same file ("Reg0 | M0 | M4 | M8 | M12"): the
  CDNA3 16x16 / 32x32 accumulator layouts, so the D tables are copies of
  cdna3-v_mfma_f32_16x16x32_fp8_fp8-D.csv / cdna3-v_mfma_f32_32x32x16_fp8_fp8-D.csv.

usage: transcribe_cdna4.py  (writes cdna4-*.csv into this directory)
"""
import os
import re

# Thread id 0-15 | 16-31 | 32-47 | 48-63
TABLE_16X16X128 = """
Reg 0 [0:7] | K0 | K16 | K32 | K48
Reg 0 [8:15] | K1 | K17 | K33 | K49
Reg 0 [16:23] | K2 | K18 | K34 | K50
Reg 0 [24:31] | K3 | K19 | K35 | K51
Reg 1 [0:7] | K4 | K20 | K36 | K52
Reg 1 [8:15] | K5 | K21 | K37 | K53
Reg 1 [16:23] | K6 | K22 | K38 | K54
Reg 1 [24:31] | K7 | K23 | K39 | K55
Reg 2 [0:7] | K8 | K24 | K40 | K56
Reg 2 [8:15] | K9 | K25 | K41 | K57
Reg 2 [16:23] | K10 | K26 | K42 | K58
Reg 2 [24:31] | K11 | K27 | K43 | K59
Reg 3 [0:7] | K12 | K28 | K44 | K60
Reg 3 [8:15] | K13 | K29 | K45 | K61
Reg 3 [16:23] | K14 | K30 | K46 | K62
Reg 3 [24:31] | K15 | K31 | K47 | K63
Reg 4 [0:7] | K64 | K80 | K96 | K112
Reg 4 [8:15] | K65 | K81 | K97 | K113
Reg 4 [16:23] | K66 | K82 | K98 | K114
Reg 4 [24:31] | K67 | K83 | K99 | K115
Reg 5 [0:7] | K68 | K84 | K100 | K116
Reg 5 [8:15] | K69 | K85 | K101 | K117
Reg 5 [16:23] | K70 | K86 | K102 | K118
Reg 5 [24:31] | K71 | K87 | K103 | K119
Reg 6 [0:7] | K72 | K88 | K104 | K120
Reg 6 [8:15] | K73 | K89 | K105 | K121
Reg 6 [16:23] | K74 | K90 | K106 | K122
Reg 6 [24:31] | K75 | K91 | K107 | K123
Reg 7 [0:7] | K76 | K92 | K108 | K124
Reg 7 [8:15] | K77 | K93 | K109 | K125
Reg 7 [16:23] | K78 | K94 | K110 | K126
Reg 7 [24:31] | K79 | K95 | K111 | K127
"""

# Thread id 0-31 | 32-63
TABLE_32X32X64 = """
Reg 0 [0:7] | K0 | K16
Reg 0 [8:15] | K1 | K17
Reg 0 [16:23] | K2 | K18
Reg 0 [24:31] | K3 | K19
Reg 1 [0:7] | K4 | K20
Reg 1 [8:15] | K5 | K21
Reg 1 [16:23] | K6 | K22
Reg 1 [24:31] | K7 | K23
Reg 2 [0:7] | K8 | K24
Reg 2 [8:15] | K9 | K25
Reg 2 [16:23] | K10 | K26
Reg 2 [24:31] | K11 | K27
Reg 3 [0:7] | K12 | K28
Reg 3 [8:15] | K13 | K29
Reg 3 [16:23] | K14 | K30
Reg 3 [24:31] | K15 | K31
Reg 4 [0:7] | K32 | K48
Reg 4 [8:15] | K33 | K49
Reg 4 [16:23] | K34 | K50
Reg 4 [24:31] | K35 | K51
Reg 5 [0:7] | K36 | K52
Reg 5 [8:15] | K37 | K53
Reg 5 [16:23] | K38 | K54
Reg 5 [24:31] | K39 | K55
Reg 6 [0:7] | K40 | K56
Reg 6 [8:15] | K41 | K57
Reg 6 [16:23] | K42 | K58
Reg 6 [24:31] | K43 | K59
Reg 7 [0:7] | K44 | K60
Reg 7 [8:15] | K45 | K61
Reg 7 [16:23] | K46 | K62
Reg 7 [24:31] | K47 | K63
"""

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(table):
    """{k: (register, low bit, lane group)}"""
    places = {}
    for line in table.strip().splitlines():
        m = re.match(r"Reg (\d+) \[(\d+):(\d+)\] \| (.*)", line)
        register, low = int(m.group(1)), int(m.group(2))
        for group, cell in enumerate(m.group(4).split("|")):
            k = int(cell.strip()[1:])
            assert k not in places, f"K{k} twice"
            places[k] = (register, low, group)
    return places


def write(name, table, m, k):
    places = parse(table)
    assert sorted(places) == list(range(k)), name
    def cell(row, kk):
        register, low, group = places[kk]
        return f"v{register}{{{group * m + row}}}.[{low + 7}:{low}]"
    header = "Architecture: CDNA4\nInstruction: " + name.upper() + "\nBlock 0\n"
    with open(os.path.join(HERE, f"cdna4-{name}-A.csv"), "w") as out:
        out.write(header + "A[M][K]," + ",".join(map(str, range(k))) + "\n")
        for row in range(m):
            out.write(f"{row}," + ",".join(cell(row, kk) for kk in range(k)) + "\n")
    with open(os.path.join(HERE, f"cdna4-{name}-B.csv"), "w") as out:
        out.write(header + "B[K][N]," + ",".join(map(str, range(m))) + "\n")
        for kk in range(k):
            out.write(f"{kk}," + ",".join(cell(col, kk) for col in range(m)) + "\n")
    cdna3 = {16: "v_mfma_f32_16x16x32_fp8_fp8", 32: "v_mfma_f32_32x32x16_fp8_fp8"}[m]
    with open(os.path.join(HERE, f"cdna3-{cdna3}-D.csv")) as source:
        lines = source.read().splitlines()
    with open(os.path.join(HERE, f"cdna4-{name}-D.csv"), "w") as out:
        out.write(header + "\n".join(lines[3:]) + "\n")


write("v_mfma_f32_16x16x128_f8f6f4", TABLE_16X16X128, 16, 128)
write("v_mfma_f32_32x32x64_f8f6f4", TABLE_32X32X64, 32, 64)
