# What `cmake --install` puts under the prefix:
#   bin/                       pa-opt, pa-compile, pa-isa-run, pa-cuda-run
#   include/pa-c/              the C API (libPACAPI.so, libPARuntimeCAPI.so)
#   include/pa/Runtime/        the runtime's C++ API (libPARuntime.a,
#                              libPAHipRuntime.a: plain C++, no MLIR)
#   lib/                       the libraries above
#   lib/cmake/PaMLIR/          PaMLIRConfig.cmake: find_package(PaMLIR) gives
#                              PaMLIR::PACAPI, PaMLIR::PARuntimeCAPI,
#                              PaMLIR::PARuntime, PaMLIR::PAHipRuntime
#   PA_PYTHON_INSTALL_DIR/pa_mlir   the Python package, which finds the
#                              libraries of this prefix (_location.py)
# docs/user-guide.md, "Deployment", describes the tree.
include(CMakePackageConfigHelpers)

set(PA_PYTHON_INSTALL_DIR "${CMAKE_INSTALL_LIBDIR}/python3/site-packages"
  CACHE STRING "Where cmake --install puts the pa_mlir package (under the prefix)")

install(TARGETS pa-opt pa-compile pa-isa-run pa-cuda-run
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS PACAPI PARuntimeCAPI PARuntime PAHipRuntime
  EXPORT PaMLIRTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pa-c
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/pa/Runtime
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pa)

# The Python package, and where its libraries are from its own directory
# (the same whatever the prefix: both paths are relative to it).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/pa_mlir
  DESTINATION ${PA_PYTHON_INSTALL_DIR}
  PATTERN "__pycache__" EXCLUDE)
file(RELATIVE_PATH PA_PYTHON_TO_LIBRARIES
  "/prefix/${PA_PYTHON_INSTALL_DIR}/pa_mlir" "/prefix/${CMAKE_INSTALL_LIBDIR}")
file(WRITE ${CMAKE_BINARY_DIR}/python-install/_location.py
  "\"\"\"Written by cmake --install: where this installed package's C\n"
  "libraries are, relative to the package directory.\"\"\"\n\n"
  "LIBRARY_DIR = \"${PA_PYTHON_TO_LIBRARIES}\"\n")
install(FILES ${CMAKE_BINARY_DIR}/python-install/_location.py
  DESTINATION ${PA_PYTHON_INSTALL_DIR}/pa_mlir)

# The package's version is the Python package's.
file(STRINGS ${PROJECT_SOURCE_DIR}/python/pa_mlir/_version.py PA_VERSION_LINE
  REGEX "^__version__ = ")
string(REGEX REPLACE "^__version__ = \"([0-9.]+)\".*" "\\1" PA_VERSION
  "${PA_VERSION_LINE}")

set(PA_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/PaMLIR)
install(EXPORT PaMLIRTargets NAMESPACE PaMLIR::
  DESTINATION ${PA_CMAKE_INSTALL_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/PaMLIRConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/PaMLIRConfig.cmake
  INSTALL_DESTINATION ${PA_CMAKE_INSTALL_DIR}
  PATH_VARS CMAKE_INSTALL_BINDIR PA_PYTHON_INSTALL_DIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/PaMLIRConfigVersion.cmake
  VERSION ${PA_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/PaMLIRConfig.cmake
  ${CMAKE_BINARY_DIR}/cmake/PaMLIRConfigVersion.cmake
  DESTINATION ${PA_CMAKE_INSTALL_DIR})
