# Instrumented configurations of the project (docs/reliability.md). Included
# by the top-level CMakeLists.txt before any target exists, so the flags reach
# every library, tool and test of the project; libMLIR.so / libLLVM.so come
# from Debian and stay uninstrumented (ASan still sees every access our code
# makes to their memory).
#
#   -DPA_ENABLE_FUZZ=ON        -fsanitize=fuzzer-no-link,address on our code
#                              and the libFuzzer targets of fuzz/ (make fuzz)
#   -DPA_ENABLE_SANITIZERS=ON  AddressSanitizer + UndefinedBehaviorSanitizer
#                              on our code (make test-sanitize)
#
# Both need clang (clang-22) and its runtimes (Debian: libclang-rt-22-dev).

option(PA_ENABLE_FUZZ "Build the libFuzzer targets (clang only)" OFF)
option(PA_ENABLE_SANITIZERS "Build with AddressSanitizer and UBSan" OFF)

if(PA_ENABLE_FUZZ OR PA_ENABLE_SANITIZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PA_ENABLE_FUZZ / PA_ENABLE_SANITIZERS need clang "
                        "(configure with -DCMAKE_CXX_COMPILER=clang++-22)")
  endif()
  # Readable reports: frame pointers, debug lines, no tail calls.
  add_compile_options(-g -fno-omit-frame-pointer -fno-optimize-sibling-calls)
  # Instrumented shared libraries (libPACAPI.so) take the sanitizer runtime
  # from the process that loads them, as LLVM's own sanitizer builds do, so
  # HandleLLVMOptions' -z defs cannot hold.
  string(REPLACE "-Wl,-z,defs" "" CMAKE_SHARED_LINKER_FLAGS
                 "${CMAKE_SHARED_LINKER_FLAGS}")
endif()

if(PA_ENABLE_FUZZ)
  # Coverage and ASan on everything we compile; the fuzz targets themselves
  # link libFuzzer's main with -fsanitize=fuzzer (fuzz/CMakeLists.txt).
  add_compile_options(-fsanitize=fuzzer-no-link,address)
  add_link_options(-fsanitize=address)
endif()

if(PA_ENABLE_SANITIZERS)
  # Every UB check aborts (no recovery), so a finding fails its test.
  set(PA_SANITIZER_FLAGS -fsanitize=address,undefined
                         -fno-sanitize-recover=all)
  add_compile_options(${PA_SANITIZER_FLAGS})
  add_link_options(${PA_SANITIZER_FLAGS})
endif()
