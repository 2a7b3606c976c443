/* Private to the CUDA backend's user-kernel files (cuda_kernel*.c). */
#ifndef RS_BACKEND_CUDA_KERNEL_H
#define RS_BACKEND_CUDA_KERNEL_H

#include <stdint.h>
#include "backend/cuda/cuda_internal.h"
#include "backend/kernel_table.h"

/* An image: this header, the kernel's lowered name with its NUL, then the code. */
#define RS_CUDA_IMAGE_MAGIC 0x52534355u /* "RSCU" */
enum { RS_CUDA_IMAGE_CUBIN = 0, RS_CUDA_IMAGE_PTX = 1 };
typedef struct rs_cuda_image_header {
  uint32_t magic;
  uint32_t kind;     /* RS_CUDA_IMAGE_* */
  uint32_t name_len; /* with the NUL */
  uint32_t reserved;
  uint64_t code_len;
} rs_cuda_image_header;

/* cuda_kernel_nvrtc.c */
rs_status rs_cuda_kernel_target(rs_backend *b, char *out, size_t len);
rs_status rs_cuda_kernel_compile(rs_backend *b, const rs_kernel_source *src, void **image, size_t *bytes,
                                 char **log);

/* The CUDA toolkit's include directories for NVRTC (cuda_kernel_toolkit.c): up to two
 * paths into out (the include directory and its cccl/), found once from the loaded
 * libnvrtc, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda; how many. */
int rs_cuda_toolkit_includes(void *nvrtc_lib, const char *out[2]);

#endif
