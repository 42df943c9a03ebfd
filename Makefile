# pa-mlir front door: a thin layer over CMake + Ninja.
#   make setup   install the Debian packages the project needs (idempotent)
#   make build   configure and build everything into build/
#   make demo    run the bundled example through pa-opt, compile code objects
#   make test    build, then run every test (lit + unit tests) through CTest
#   make bench   benchmarks (figures, not pass/fail)
#   make docs    regenerate the dialect reference in docs/ from ODS
#   make test-emulator-full  the whole numerics matrix through the wave64 emulator
#   make fuzz    fuzz parse -> verify -> pipelines for FUZZ_SECONDS (build-fuzz/)
#   make test-sanitize  the tests under ASan + UBSan (build-asan/)

BUILD ?= build
LLVM_PREFIX ?= /usr/lib/llvm-22
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

PA_OPT := $(BUILD)/bin/pa-opt

.PHONY: setup configure build demo test bench docs clean fuzz test-sanitize test-emulator-full test-isa-full

setup:
	@bash scripts/setup.sh

$(BUILD)/build.ninja: CMakeLists.txt
	cmake -G Ninja -S . -B $(BUILD) \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=$(LLVM_PREFIX)/bin/clang \
	  -DCMAKE_CXX_COMPILER=$(LLVM_PREFIX)/bin/clang++ \
	  -DLLVM_USE_LINKER=lld \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LLVM_PREFIX)/bin/lit \
	  $(CMAKE_FLAGS)

configure: setup $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD) -j $(JOBS)

demo: build
	@echo "== parse, verify and print examples/decode-d256-fp8.mlir"
	$(PA_OPT) examples/decode-d256-fp8.mlir
	@echo "== AMD code objects (.hsaco + .json) of both examples, built in process (no GPU, no ROCm)"
	$(BUILD)/bin/pa-compile examples/decode-d256-fp8.mlir --chip=gfx950 -o $(BUILD)/decode-d256-fp8-gfx950.hsaco --print-resources --print-time
	$(BUILD)/bin/pa-compile examples/decode-d256-fp8-gfx942.mlir --chip=gfx942 -o $(BUILD)/decode-d256-fp8-gfx942.hsaco --print-resources --print-time

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@bash bench/run.sh $(BUILD)

docs: build
	cp $(BUILD)/docs/Dialects/PaDialect.md docs/Dialects/PaDialect.md

# Reliability (docs/reliability.md): each in its own instrumented build.
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
SANITIZE_BUILD ?= build-asan

fuzz: setup
	$(MAKE) configure BUILD=$(FUZZ_BUILD) CMAKE_FLAGS="-DPA_ENABLE_FUZZ=ON"
	ninja -C $(FUZZ_BUILD) -j $(JOBS) pa-fuzz-pipeline
	bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

test-sanitize: setup
	$(MAKE) build BUILD=$(SANITIZE_BUILD) CMAKE_FLAGS="-DPA_ENABLE_SANITIZERS=ON"
	bash fuzz/test-sanitize.sh $(SANITIZE_BUILD) $(JOBS)

# Every program and length set of the numerics matrix on both AMD chips,
# through the wave64 emulator (make test runs its CI subset).
test-emulator-full: build
	$(BUILD)/bin/PAEmulatorMatrix --subset full

# The same on the shipped gfx942 / gfx950 code objects through the
# instruction-level executor (make test runs its CI subset).
test-isa-full: build
	$(BUILD)/bin/PAISAMatrix --subset full

clean:
	rm -rf $(BUILD)
