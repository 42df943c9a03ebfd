// RUN: pa-opt %s -split-input-file -pa-expand-float-casts -verify-diagnostics

func.func @rounding_mode(%x: f32) -> bf16 {
  // expected-error @below {{rounding mode downward is not supported (only to_nearest_even)}}
  %r = arith.truncf %x downward : f32 to bf16
  return %r : bf16
}

// -----

func.func @unsupported_source(%x: f8E5M2) -> f16 {
  // expected-error @below {{extension from 'f8E5M2' to 'f16' is not supported by pa-expand-float-casts}}
  %r = arith.extf %x : f8E5M2 to f16
  return %r : f16
}

// -----

func.func @wide_source(%x: f128) -> bf16 {
  // expected-error @below {{truncation from 'f128' to 'bf16' is not supported by pa-expand-float-casts}}
  %r = arith.truncf %x : f128 to bf16
  return %r : bf16
}

// -----

func.func @unsupported_target(%x: f16) -> f8E5M2 {
  // expected-error @below {{truncation from 'f16' to 'f8E5M2' is not supported by pa-expand-float-casts}}
  %r = arith.truncf %x : f16 to f8E5M2
  return %r : f8E5M2
}
