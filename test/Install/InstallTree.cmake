# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DGENERATOR=...
#       -DC_COMPILER=... -DPYTHON_DIR=... -DFAKE_HIP=... -P InstallTree.cmake
#
# Installs BUILD_DIR into WORK_DIR/prefix, checks the tree's contents, builds
# SOURCE_DIR/examples/frontend out of tree against it and runs the example
# (through the fake HIP runtime FAKE_HIP), then runs the installed Python
# package with no environment pointing at the build tree. Fails with the
# step that failed and its output.
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result
                  OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}):\n${output}")
  endif()
  message(STATUS "${what}: ok")
  set(step_output "${output}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR}
     --prefix ${prefix})

foreach(file
    bin/pa-compile bin/pa-opt bin/pa-cuda-run bin/pa-isa-run
    lib/libPACAPI.so lib/libPARuntimeCAPI.so lib/libPARuntime.a
    lib/libPAHipRuntime.a
    include/pa-c/Compile.h include/pa-c/Hip.h include/pa-c/Cuda.h
    include/pa-c/Runtime.h include/pa/Runtime/HipLauncher.h
    include/pa/Runtime/ProgramArtifact.h
    lib/cmake/PaMLIR/PaMLIRConfig.cmake
    lib/cmake/PaMLIR/PaMLIRConfigVersion.cmake
    lib/cmake/PaMLIR/PaMLIRTargets.cmake
    ${PYTHON_DIR}/pa_mlir/__init__.py ${PYTHON_DIR}/pa_mlir/_location.py)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "the install tree has no ${file}")
  endif()
endforeach()

# The installed tools run from the tree (their libraries found through
# RUNPATH): a program compiled by the installed pa-compile.
step("installed pa-compile"
     ${prefix}/bin/pa-compile ${SOURCE_DIR}/test/CAPI/Inputs/decode-small.mlir
     --chip=sm_90a --emit=program -o ${WORK_DIR}/small.paprog)

step("configure examples/frontend against the install tree"
     ${CMAKE_COMMAND} -G ${GENERATOR} -S ${SOURCE_DIR}/examples/frontend
     -B ${WORK_DIR}/frontend -DCMAKE_PREFIX_PATH=${prefix}
     -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release)
step("build examples/frontend" ${CMAKE_COMMAND} --build ${WORK_DIR}/frontend)
step("run the example"
     ${CMAKE_COMMAND} -E env PA_HIP_LIBRARY=${FAKE_HIP}
     ${WORK_DIR}/frontend/pa-capi-frontend-example ${WORK_DIR}/decode.paprog)
if(NOT step_output MATCHES "program for gfx950 \\(hsaco\\)" OR
   NOT step_output MATCHES "loaded with HIP")
  message(FATAL_ERROR "unexpected example output:\n${step_output}")
endif()

# The installed package: its libraries are the prefix's, and the runtime
# side loads the example's program with libPACAPI.so out of reach.
step("installed Python package"
     ${CMAKE_COMMAND} -E env --unset=PA_MLIR_LIB --unset=PA_MLIR_RUNTIME_LIB
     PYTHONPATH=${prefix}/${PYTHON_DIR} PA_HIP_LIBRARY=${FAKE_HIP}
     /usr/bin/python3 -c "
import sys, pa_mlir
from pa_mlir import _capi, _runtime_capi
prefix = sys.argv[1]
assert str(_capi.library_path()) == prefix + '/lib/libPACAPI.so', _capi.library_path()
assert str(_runtime_capi.library_path()) == prefix + '/lib/libPARuntimeCAPI.so'
program = pa_mlir.load_program(sys.argv[2])
assert (program.chip, program.driver) == ('gfx950', 'hip'), program
assert 'libPACAPI' not in open('/proc/self/maps').read()
print('installed package ok:', program)
" ${prefix} ${WORK_DIR}/decode.paprog)
message(STATUS "${step_output}")
