# Text the library hands out at run time (the device header of user kernels, the CUDA
# prelude, the simulator's shim) is kept as real source files and embedded at build time by
# embed_text.cmake, never as hand-copied strings. Included from the top CMakeLists.txt once
# resident_objects exists.

# rs_embed_text(<target> SYMBOL <name> SOURCES <file>... [DECLARED_IN <header>]
#               [ACCESSOR <function>])
# adds a generated C file to <target> that defines `const char <name>[]`, the files' text
# joined in order; it is regenerated whenever one of them changes.
function(rs_embed_text target)
  cmake_parse_arguments(E "" "SYMBOL;DECLARED_IN;ACCESSOR" "SOURCES" ${ARGN})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded/${E_SYMBOL}.c)
  set(inputs "")
  foreach(f ${E_SOURCES})
    list(APPEND inputs ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  string(REPLACE ";" "|" joined "${inputs}")
  string(REPLACE ";" " + " shown "${E_SOURCES}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSYMBOL=${E_SYMBOL} -DINPUTS=${joined}
            -DDECLARED_IN=${E_DECLARED_IN} -DACCESSOR=${E_ACCESSOR}
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    DEPENDS ${inputs} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    COMMENT "Embedding ${shown}" VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()

# The device header of user kernels: NVRTC gets it in memory, the simulator writes it out.
rs_embed_text(resident_objects SYMBOL rs_device_header_text SOURCES include/resident_device.h
  DECLARED_IN resident/kernel.h ACCESSOR rs_kernel_device_header)
# The simulator's shim header around user kernels and the entry stub after them.
rs_embed_text(resident_objects SYMBOL rs_sim_shim_text SOURCES src/backend/sim/sim_shim.h
  src/backend/sim/sim_shim_check.h
  DECLARED_IN backend/sim/sim_kernel.h)
rs_embed_text(resident_objects SYMBOL rs_sim_entry_text SOURCES src/backend/sim/sim_shim_entry.inc
  DECLARED_IN backend/sim/sim_kernel.h)
rs_embed_text(resident_objects SYMBOL rs_sim_cg_text SOURCES src/backend/sim/sim_cg.h
  DECLARED_IN backend/sim/sim_kernel.h)

if(RS_HAVE_CUDA)
  # The head of every generated CUDA kernel. NVRTC compiles it only at run time, on a GPU;
  # the build compiles the same joined text with nvcc (about a second, again only when a
  # file of it changes), so a syntax error fails here on a machine without one. The check
  # joins the files itself: a second rule for the embedded output would race with the
  # library's own under make -j.
  set(RS_PRELUDE_FILES src/native/numpy_scalar.h src/backend/cuda/cuda_ops_prelude.cuh)
  rs_embed_text(resident_objects SYMBOL rs_cuda_ops_prelude SOURCES ${RS_PRELUDE_FILES}
    DECLARED_IN backend/cuda/cuda_ops.h)
  set(check ${CMAKE_CURRENT_BINARY_DIR}/embedded/cuda_prelude_check)
  list(TRANSFORM RS_PRELUDE_FILES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/ OUTPUT_VARIABLE inputs)
  string(REPLACE ";" "|" joined "${inputs}")
  set(werror "")
  if(RESIDENT_WERROR)
    set(werror --Werror all-warnings)
  endif()
  add_custom_command(OUTPUT ${check}.ptx
    COMMAND ${CMAKE_COMMAND} -DOUT=${check}.c -DSYMBOL=unused -DINPUTS=${joined} -DJOINED=${check}.cu
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    COMMAND ${CMAKE_CUDA_COMPILER} -x cu -std=c++17 ${werror} -ptx -o ${check}.ptx ${check}.cu
    DEPENDS ${inputs} ${PROJECT_SOURCE_DIR}/cmake/embed_text.cmake
    COMMENT "Checking the CUDA prelude with nvcc" VERBATIM)
  add_custom_target(rs_cuda_prelude_check ALL DEPENDS ${check}.ptx)
endif()
