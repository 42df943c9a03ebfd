# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "PA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.pa_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%pa_src_root", config.pa_src_root))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.pa_tools_dir, config.llvm_tools_dir]
tools = ["pa-opt", "pa-compile", "pa-isa-run", "pa-emulate", "pa-cuda-gen",
         "pa-cuda-run", "FileCheck", "not",
         "count", "mlir-runner", "llvm-mc", "ld.lld"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Execution tests JIT-compile the host lowering with mlir-runner, linking the
# runner utilities (printMemref*, vector.print).
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_runner_libs",
     ",".join(os.path.join(llvm_lib_dir, lib)
              for lib in ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"])))

# ptxas (CUDA toolkit) where it is installed, as the NVIDIA backend finds it:
# tests that assemble cubins need it (CI has none).
if shutil.which("ptxas") or os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
    config.available_features.add("ptxas")
