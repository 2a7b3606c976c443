/* Internal: what a backend provides for user kernels - compile, load, find a function,
 * launch, occupancy, constant symbols, faults, unload.
 *
 * This table is the kernels table of a backend's descriptor (backend/backend.h), apart
 * from the runtime table so that user kernels are one concern in their own files on both
 * sides. The kernel layer (src/kernel) owns
 * parsing, caching, argument checks and the launch path; a backend only turns source into
 * an image and an image into something it can launch.
 *
 * Conventions are the backend vtable's: every fallible entry returns rs_status and sets
 * the message with rs_fail; everything is thread-safe. Modules are process-wide (not
 * bound to a context), so unload needs no rs_backend.
 */
#ifndef RS_BACKEND_KERNEL_TABLE_H
#define RS_BACKEND_KERNEL_TABLE_H

#include <stddef.h>
#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters a kernel may have (as CUDA's 32 KiB parameter space allows many more, this
 * is the library's limit, checked at create). */
#define RS_KERNEL_MAX_PARAMS 64

/* What a backend compiles. */
typedef struct rs_kernel_source {
  const char *text;                 /* the user's source */
  const char *blanked;              /* text with comments, literals and preprocessor lines
                                       blanked to spaces: same length, same offsets */
  const char *name;                 /* the function as named by the user ("k", "k<float>") */
  const char *file;                 /* for messages: the path, or "<string>" */
  int noptions;
  const char *const *options;
  int ninclude_paths;
  const char *const *include_paths; /* the file's directory first, when from a file */
  int uses_barrier;                 /* the source (or a user header) calls __syncthreads */
} rs_kernel_source;

/* A function's attributes on one device, filled by get_function. */
typedef struct rs_kernel_attrs {
  int max_threads_per_block;       /* the kernel's limit (registers, __launch_bounds__) */
  unsigned max_block[3];           /* the device's limit per block dimension */
  unsigned max_grid[3];            /* the device's limit per grid dimension */
  size_t static_shared_bytes;
  size_t dynamic_shared_limit;     /* cfg.shared_bytes allowed without opting in */
  size_t dynamic_shared_optin;     /* the most set_shared_limit can grant */
  int registers;
  int nparams;                     /* in the compiled code */
  size_t param_sizes[RS_KERNEL_MAX_PARAMS];
  int multiprocessors;
  int max_threads_per_multiprocessor;
} rs_kernel_attrs;

/* What one launch asks for. */
typedef struct rs_kernel_dims {
  unsigned grid[3];
  unsigned block[3];
  size_t shared_bytes;
} rs_kernel_dims;

/* Argument kinds as the launch passes them, so a backend can translate addresses. */
enum { RS_KARG_SCALAR = 0, RS_KARG_POINTER = 1, RS_KARG_DESCRIPTOR = 2 };

typedef struct rs_kernel_table {
  const char *name;

  /* What code compiled here runs on ("sm_90", "c++ <version> x86_64"): part of the cache
   * key, so code is never reused for another device or compiler. */
  rs_status (*target)(rs_backend *b, char *out, size_t len);

  /* Compile src to an image the backend's load understands (*image malloc'ed, the
   * caller frees it). *log (malloc'ed, may be NULL) is the compiler's output, also on
   * success. A compile error is RS_ERR_COMPILE with a one-line reason; the kernel layer
   * adds the log. */
  rs_status (*compile)(rs_backend *b, const rs_kernel_source *src, void **image,
                       size_t *image_bytes, char **log);

  /* Load an image. The module is independent of any context. */
  rs_status (*load)(rs_backend *b, const void *image, size_t image_bytes, void **module);

  /* The function `name` (as given to compile) and its attributes on b's device.
   * RS_ERR_NOT_FOUND if the module has no such function. */
  rs_status (*get_function)(rs_backend *b, void *module, const char *name, void **fn,
                            rs_kernel_attrs *attrs);

  /* Queue a launch on stream. args[i] points at parameter i's value (CUDA's convention);
   * kinds[i] is an RS_KARG_* value. The values are copied before this returns. */
  rs_status (*launch)(rs_backend *b, void *module, void *fn, const rs_kernel_dims *d, void **args,
                      const unsigned char *kinds, int nargs, void *stream);

  /* Blocks of `block` threads that fit on one multiprocessor with shared_bytes of dynamic
   * shared memory each (0 if none fits). */
  rs_status (*occupancy)(rs_backend *b, void *fn, int block, size_t shared_bytes, int *blocks);

  /* Let fn use up to bytes of dynamic shared memory (at most dynamic_shared_optin). */
  rs_status (*set_shared_limit)(rs_backend *b, void *fn, size_t bytes);

  /* The device address and size of a __constant__ or __device__ variable of the module
   * (an address kernels of b use; the copy path moves data to it). RS_ERR_NOT_FOUND. */
  rs_status (*get_symbol)(rs_backend *b, void *module, const char *symbol, void **device_ptr,
                          size_t *bytes);

  /* The first fault a launch of this module recorded since the last call, with its
   * message set, and forget it; RS_OK if none. Backends whose faults surface through
   * their own synchronizing calls (CUDA) always return RS_OK. */
  rs_status (*take_fault)(void *module);

  /* Unload once the module's queued launches are done. */
  void (*unload)(void *module);
} rs_kernel_table;

#ifdef __cplusplus
}
#endif
#endif
