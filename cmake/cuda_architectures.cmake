# Which CUDA toolkit the backend accepts and which GPU architectures its kernels are
# built for. Both run before enable_language(CUDA): a toolkit too old is reported with
# what is needed (and the simulator-only build goes on) instead of failing later inside
# a CUDA source.

# out: TRUE when CMAKE_CUDA_COMPILER (from check_language) is an nvcc of at least
# RESIDENT_CUDA_MIN_VERSION; why: what is missing otherwise.
function(rs_cuda_toolkit_usable out why)
  set(${out} FALSE PARENT_SCOPE)
  if(NOT CMAKE_CUDA_COMPILER)
    set(${why} "no CUDA compiler found (the CUDA backend needs the CUDA toolkit >= ${RESIDENT_CUDA_MIN_VERSION}: put nvcc on PATH or set CMAKE_CUDA_COMPILER)" PARENT_SCOPE)
    return()
  endif()
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --version OUTPUT_VARIABLE text
    RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT text MATCHES "release ([0-9]+\\.[0-9]+)")
    set(${why} "${CMAKE_CUDA_COMPILER} --version did not answer (the CUDA backend needs the CUDA toolkit >= ${RESIDENT_CUDA_MIN_VERSION})" PARENT_SCOPE)
    return()
  endif()
  set(found ${CMAKE_MATCH_1})
  if(found VERSION_LESS RESIDENT_CUDA_MIN_VERSION)
    set(${why} "CUDA toolkit ${found} (${CMAKE_CUDA_COMPILER}) is too old: the CUDA backend needs ${RESIDENT_CUDA_MIN_VERSION} or newer" PARENT_SCOPE)
    return()
  endif()
  set(${out} TRUE PARENT_SCOPE)
  set(${why} "" PARENT_SCOPE)
endfunction()

# out: one machine code per major architecture the compiler supports (sm_X0, and the
# oldest it lists), PTX for the newest so GPUs newer than the toolkit JIT it. A newer
# minor of the same major runs the major's code (sm_80 code on sm_86/sm_89, sm_120 on
# sm_121), so the minors add build time and nothing a device can only run with them.
function(rs_cuda_default_architectures out)
  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-arch OUTPUT_VARIABLE text
    RESULT_VARIABLE rc ERROR_QUIET)
  string(REGEX MATCHALL "compute_[0-9]+" found "${text}")
  set(archs "")
  foreach(a ${found})
    string(REPLACE "compute_" "" n ${a})
    list(APPEND archs ${n})
  endforeach()
  if(NOT rc EQUAL 0 OR NOT archs)
    set(archs 75 80 90 100 120) # nvcc older than --list-gpu-arch: the CUDA 12.x majors
  endif()
  list(SORT archs COMPARE NATURAL)
  list(GET archs 0 oldest)
  list(GET archs -1 newest)
  set(result "")
  foreach(n ${archs})
    math(EXPR minor "${n} % 10")
    if((minor EQUAL 0 OR n EQUAL oldest) AND NOT n EQUAL newest)
      list(APPEND result ${n}-real)
    endif()
  endforeach()
  # the newest: machine code and PTX, or PTX only when it is a minor (sm_121 from 120).
  math(EXPR minor "${newest} % 10")
  if(minor EQUAL 0)
    list(APPEND result ${newest})
  else()
    math(EXPR major0 "${newest} - ${minor}")
    list(REMOVE_ITEM result ${major0}-real)
    list(APPEND result ${major0})
  endif()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()
