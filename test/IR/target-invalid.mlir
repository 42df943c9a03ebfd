// RUN: pa-opt %s -split-input-file -verify-diagnostics

// Only chips of the chip table parse.
// expected-error @+1 {{unknown chip 'gfx90a'; expected one of gfx942, gfx950, sm_90a}}
module attributes {pa.target = #pa.target<"gfx90a">} {
}

// -----

// pa.target names a chip through #pa.target, not a string.
// expected-error @+1 {{'pa.target' must be a #pa.target attribute, got "gfx942"}}
module attributes {pa.target = "gfx942"} {
}

// -----

// The target is the module's: not an attribute of a kernel module or op.
module {
  // expected-error @+1 {{'pa.target' belongs on a builtin.module, not on 'gpu.module'}}
  gpu.module @pa_kernels attributes {pa.target = #pa.target<"gfx942">} {
  }
}
