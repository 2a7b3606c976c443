# What `cmake --install` writes: the libraries, the command, the headers, a CMake package
# (find_package(resident CONFIG) -> resident::resident, resident::resident_static) and a
# pkg-config file. Nothing written names the build machine: the package locates itself
# from its own folder, resident.pc from ${pcfiledir}, so an installed tree still works
# after it is moved or unpacked elsewhere.
include(CMakePackageConfigHelpers)

set(RS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/resident)
install(TARGETS resident resident_static EXPORT residentTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS resident_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} PATTERN "*.in" EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/resident/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/resident)

install(EXPORT residentTargets NAMESPACE resident:: DESTINATION ${RS_CMAKE_DIR})
configure_package_config_file(cmake/residentConfig.cmake.in
  ${PROJECT_BINARY_DIR}/residentConfig.cmake INSTALL_DESTINATION ${RS_CMAKE_DIR})
# 0.x: a minor release may change the API, so only the same minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/residentConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/residentConfig.cmake
  ${PROJECT_BINARY_DIR}/residentConfigVersion.cmake DESTINATION ${RS_CMAKE_DIR})

# resident.pc: the prefix is found from the file's own folder (${pcfiledir}) when the
# install folders are relative, as they are unless set to absolute paths.
set(RS_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${RS_PC_DIR}")
  set(RS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  set(RS_PC_PREFIX "\${pcfiledir}")
  string(REPLACE "/" ";" parts "${RS_PC_DIR}")
  foreach(part ${parts})
    if(NOT part STREQUAL "" AND NOT part STREQUAL ".")
      string(APPEND RS_PC_PREFIX "/..")
    endif()
  endforeach()
endif()
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(RS_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(RS_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
# A static link from outside needs what the library links privately; the CUDA runtime by
# name only (its folder is the consumer's toolkit's, not this machine's).
set(RS_PC_CUDA_LIBS "")
if(RS_HAVE_CUDA)
  set(RS_PC_CUDA_LIBS "-lcudart_static")
endif()
configure_file(resident.pc.in ${PROJECT_BINARY_DIR}/resident.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/resident.pc DESTINATION ${RS_PC_DIR})
