# `cmake --install`: the public headers (include/tfc), libtfcrt.so and
# libtfcrt.a, tfcrt-run, and a CMake package so that apps write
#   find_package(tfcrt REQUIRED)
#   target_link_libraries(app PRIVATE tfcrt::tfcrt)          # shared
#   target_link_libraries(app PRIVATE tfcrt::tfcrt_static)   # static
# (examples/embed does exactly that).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/tfc
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tfcrt tfcrt_static EXPORT tfcrtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET tfcrt-run)
  install(TARGETS tfcrt-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

set(TFCRT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tfcrt)
install(EXPORT tfcrtTargets NAMESPACE tfcrt:: DESTINATION ${TFCRT_CMAKE_DIR})
configure_package_config_file(
  ${CMAKE_CURRENT_SOURCE_DIR}/cmake/tfcrtConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tfcrtConfig.cmake
  INSTALL_DESTINATION ${TFCRT_CMAKE_DIR})
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/tfcrtConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tfcrtConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tfcrtConfigVersion.cmake
        DESTINATION ${TFCRT_CMAKE_DIR})
