# The host path's sort of long rows: Highway's vectorized quicksort (vqsort; Debian:
# libhwy-dev, scripts/deps.sh) where it is installed, otherwise the parallel radix sort of
# src/native. Sets RS_HOST_VQSORT on resident_objects, adds the C++ shim that calls it
# (src/native/native_vqsort.cpp: Highway's API is C++ only) and its libraries to
# RS_LINK_LIBS and the pkg-config file.
set(RS_HOST_SORT_PC_LIBS "")
if(NOT RESIDENT_HOST_SORT)
  message(STATUS "host sort: off (RESIDENT_HOST_SORT=OFF): radix sort in C")
  return()
endif()
if(RESIDENT_TSAN)
  # Highway's library is not instrumented (see host_blas.cmake).
  message(STATUS "host sort: off in the ThreadSanitizer build: radix sort in C")
  return()
endif()
find_path(RS_HWY_INCLUDE hwy/contrib/sort/vqsort.h)
find_library(RS_HWY_CONTRIB_LIB hwy_contrib)
find_library(RS_HWY_LIB hwy)
if(NOT RS_HWY_INCLUDE OR NOT RS_HWY_CONTRIB_LIB OR NOT RS_HWY_LIB)
  message(STATUS "host sort: Highway's vqsort (hwy/contrib/sort/vqsort.h, libhwy_contrib) not found: radix sort in C")
  return()
endif()
message(STATUS "host sort: Highway vqsort ${RS_HWY_CONTRIB_LIB}")
target_sources(resident_objects PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src/native/native_vqsort.cpp)
target_compile_definitions(resident_objects PRIVATE RS_HOST_VQSORT=1)
target_include_directories(resident_objects PRIVATE ${RS_HWY_INCLUDE})
foreach(lib ${RS_HWY_CONTRIB_LIB} ${RS_HWY_LIB})
  list(APPEND RS_LINK_LIBS $<BUILD_INTERFACE:${lib}>)
endforeach()
foreach(name hwy_contrib hwy)
  list(APPEND RS_LINK_LIBS $<INSTALL_INTERFACE:${name}>)
  string(APPEND RS_HOST_SORT_PC_LIBS " -l${name}")
endforeach()
