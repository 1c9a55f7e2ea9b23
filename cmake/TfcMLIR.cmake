# How tfc builds against LLVM/MLIR 19, for the two builds that compile the
# compiler: the main build (CMakeLists.txt at the root) and the fuzz build's
# fuzz-compiler (test/fuzz/compiler/CMakeLists.txt). include() it with
# TFC_SOURCE_ROOT set to the repository root: that is the include root
# ("dialects/tfc/TfcOps.h"), and generated headers mirror it under
# CMAKE_BINARY_DIR ("dialects/tfc/TfcOps.h.inc").
find_package(MLIR REQUIRED CONFIG
  HINTS /usr/lib/llvm-19/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "tfc needs LLVM/MLIR 19, found ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}")
endif()
message(STATUS "Using MLIRConfig.cmake in: ${MLIR_DIR}")
message(STATUS "Using LLVMConfig.cmake in: ${LLVM_DIR}")

set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
include(TableGen)
include(AddLLVM)
include(AddMLIR)

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
include_directories(${TFC_SOURCE_ROOT} ${CMAKE_BINARY_DIR})
add_definitions(${LLVM_DEFINITIONS})
if(NOT LLVM_ENABLE_RTTI)
  # Our classes derive from MLIR's, whose type_info libMLIR lacks.
  add_compile_options(-fno-rtti)
endif()
