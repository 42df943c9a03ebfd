// RUN: pa-opt %s -pa-set-target=chip=gfx950 -verify-diagnostics
// RUN: not pa-opt %s -pa-set-target=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: echo 'module {}' | not pa-opt -pa-set-target 2>&1 | FileCheck %s --check-prefix=NONE

// UNKNOWN: error: pa-set-target: unknown chip 'gfx90a'; expected one of gfx942, gfx950, sm_90a
// NONE: error: pa-set-target: no chip: pass chip=... (one of gfx942, gfx950, sm_90a)

// A module compiled for one chip is not silently retargeted.
// expected-error @+1 {{pa-set-target: the module is compiled for gfx942 (its pa.target), not gfx950}}
module attributes {pa.target = #pa.target<"gfx942">} {
}
