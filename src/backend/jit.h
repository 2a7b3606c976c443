/* Internal: the jit service - compile generated source into a loaded module, through the kernel
 * cache. The kernel layer (src/kernel) owns the cache (memory, and a directory on disk) and
 * implements this table; a backend that generates its own kernels (the CUDA backend's
 * elementwise and reduction code) gets it handed down in the plan (rs_ew_geom,
 * rs_reduce_plan) and so never calls up into the kernel layer.
 *
 * Included by C and by CUDA C++ (.cu) files.
 */
#ifndef RS_BACKEND_JIT_H
#define RS_BACKEND_JIT_H

#include <stddef.h>
#include "backend/kernel_table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_jit_service {
  /* The module of src compiled by `kernels` for b's device, loaded: its image from the
   * cache (memory, then cache_dir on disk; "" = memory only) or compiled and cached (the
   * disk directory kept under cache_max bytes, 0 = no limit). A cached image that does not
   * load is compiled again. The key is salt (the generator's version), kernels' target,
   * src's name, options and text. The caller unloads the module with kernels->unload. A
   * failed compile returns its status with the compiler's output in *log (malloc'ed, may
   * be NULL; the caller frees it); *log is NULL otherwise. */
  rs_status (*module)(rs_backend *b, const rs_kernel_table *kernels, const rs_kernel_source *src, const char *salt,
                      const char *cache_dir, size_t cache_max, void **module, char **log);
} rs_jit_service;

#ifdef __cplusplus
}
#endif
#endif
