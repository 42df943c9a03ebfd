// RUN: pa-opt %s -split-input-file -pa-set-target=chip=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: echo 'module {}' | pa-opt -pa-set-target=chip=sm_90a | FileCheck %s --check-prefix=SM90
// RUN: pa-opt %s -split-input-file -pa-set-target="default-chip=gfx950" | FileCheck %s --check-prefix=DEFAULT

// The chip lands on the module as #pa.target; without `chip` a module that
// states none gets `default-chip`.
// GFX942: module attributes {pa.target = #pa.target<"gfx942">}
// SM90: module attributes {pa.target = #pa.target<"sm_90a">}
// DEFAULT: module attributes {pa.target = #pa.target<"gfx950">}
module {
}

// -----

// The module's own target stays when it is the one asked for, or when no
// chip is asked for (DEFAULT does not override it).
// GFX942: module attributes {pa.target = #pa.target<"gfx942">}
// DEFAULT: module attributes {pa.target = #pa.target<"gfx942">}
module attributes {pa.target = #pa.target<"gfx942">} {
}
