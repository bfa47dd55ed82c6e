# cmake --install: headers, the libraries, a CMake package (nabla::nabla, nabla::models) and
# pkg-config files (nabla, nabla-models).
include(CMakePackageConfigHelpers)

# nabla::models is a second library of the same package: its headers (nabla/models.h,
# nabla/models/) join nabla's.
install(TARGETS nabla nabla_models EXPORT nablaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The CUDA backend's internal headers (they include the toolkit's) stay out: no public
# header includes them.
install(DIRECTORY include/nabla models/include/nabla DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        PATTERN "detail/cuda" EXCLUDE)

set(NABLA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nabla)
install(EXPORT nablaTargets NAMESPACE nabla:: DESTINATION ${NABLA_CMAKE_DIR})
configure_package_config_file(cmake/nablaConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/nablaConfig.cmake INSTALL_DESTINATION ${NABLA_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nablaConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nablaConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/nablaConfigVersion.cmake
        DESTINATION ${NABLA_CMAKE_DIR})

# The .pc file locates the prefix from its own directory, so the install is relocatable
# (cmake --install --prefix anywhere).
file(RELATIVE_PATH NABLA_PC_TO_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
set(NABLA_PC_PREFIX "\${pcfiledir}/${NABLA_PC_TO_PREFIX}")
configure_file(cmake/nabla.pc.in ${CMAKE_CURRENT_BINARY_DIR}/nabla.pc @ONLY)
configure_file(cmake/nabla-models.pc.in ${CMAKE_CURRENT_BINARY_DIR}/nabla-models.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nabla.pc ${CMAKE_CURRENT_BINARY_DIR}/nabla-models.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
