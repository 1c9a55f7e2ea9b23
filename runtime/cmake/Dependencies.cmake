# The runtime's third-party dependencies, each optional or replaceable so that
# runtime/ builds on a machine with only CMake and a C++17 compiler (a GPU
# host with no -dev packages, say):
#   - nlohmann_json (header-only, required): an installed package, else the
#     header under TFCRT_JSON_INCLUDE_DIR (default: <repo>/third_party/include,
#     where scripts/gpu-pack puts it).
#   - OpenBLAS (optional, TFCRT_OPENBLAS=AUTO|ON|OFF): host GEMMs; without it
#     the host backend uses its portable blocked GEMM (runtime/src/host).
#   - GoogleTest (unit tests only): an installed package, else its sources in
#     TFCRT_GTEST_SOURCE_DIR (default: <repo>/third_party/googletest, then
#     /usr/src/googletest).
#   - Threads (the NVRTC compile pool) and the dl library (dlopen of CUDA).

find_package(Threads REQUIRED)

# nlohmann_json
set(TFCRT_JSON_INCLUDE_DIR "${TFC_SOURCE_ROOT}/third_party/include" CACHE PATH
    "Directory holding nlohmann/json.hpp when no nlohmann_json package is installed")
add_library(tfcrt_json INTERFACE)
find_package(nlohmann_json 3.2 QUIET)
if(nlohmann_json_FOUND)
  target_link_libraries(tfcrt_json INTERFACE nlohmann_json::nlohmann_json)
elseif(EXISTS "${TFCRT_JSON_INCLUDE_DIR}/nlohmann/json.hpp")
  message(STATUS "tfcrt: nlohmann_json from ${TFCRT_JSON_INCLUDE_DIR}")
  target_include_directories(tfcrt_json SYSTEM INTERFACE ${TFCRT_JSON_INCLUDE_DIR})
else()
  message(FATAL_ERROR "tfcrt: nlohmann_json not found: install it "
          "(apt-get install nlohmann-json3-dev) or set TFCRT_JSON_INCLUDE_DIR "
          "to a directory holding nlohmann/json.hpp")
endif()

# OpenBLAS
set(TFCRT_OPENBLAS AUTO CACHE STRING "Host GEMMs on OpenBLAS: AUTO, ON or OFF")
set_property(CACHE TFCRT_OPENBLAS PROPERTY STRINGS AUTO ON OFF)
set(TFCRT_HAVE_OPENBLAS OFF)
if(NOT TFCRT_OPENBLAS STREQUAL "OFF")
  find_library(TFC_OPENBLAS_LIBRARY NAMES openblas
    PATH_SUFFIXES openblas-pthread openblas)
  # Prefer OpenBLAS's own cblas.h over the netlib alternative when both exist.
  find_path(TFC_OPENBLAS_INCLUDE_DIR cblas.h
    PATH_SUFFIXES openblas-pthread openblas x86_64-linux-gnu/openblas-pthread)
  if(TFC_OPENBLAS_LIBRARY AND TFC_OPENBLAS_INCLUDE_DIR)
    set(TFCRT_HAVE_OPENBLAS ON)
    message(STATUS "tfcrt host backend: OpenBLAS ${TFC_OPENBLAS_LIBRARY}")
  elseif(TFCRT_OPENBLAS STREQUAL "ON")
    message(FATAL_ERROR "tfcrt: TFCRT_OPENBLAS=ON but OpenBLAS was not found "
            "(apt-get install libopenblas-dev)")
  else()
    message(STATUS "tfcrt host backend: OpenBLAS not found, host GEMMs use "
            "the portable blocked GEMM")
  endif()
endif()

# GoogleTest (only for the unit tests of a runtime-only build)
if(TFCRT_ONLY AND TFCRT_BUILD_TESTS AND NOT TARGET GTest::gtest_main)
  find_package(GTest QUIET)
  if(NOT GTest_FOUND)
    set(TFCRT_GTEST_SOURCE_DIR "" CACHE PATH "GoogleTest sources for the unit tests")
    foreach(dir ${TFCRT_GTEST_SOURCE_DIR} ${TFC_SOURCE_ROOT}/third_party/googletest
                /usr/src/googletest)
      if(dir AND EXISTS ${dir}/CMakeLists.txt)
        message(STATUS "tfcrt: GoogleTest from ${dir}")
        set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
        set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
        add_subdirectory(${dir} ${CMAKE_BINARY_DIR}/third_party/googletest EXCLUDE_FROM_ALL)
        break()
      endif()
    endforeach()
  endif()
endif()
