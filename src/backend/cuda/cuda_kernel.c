/* User kernels on the CUDA backend: images loaded with the runtime's library API
 * (cudaLibraryLoadData / cudaLibraryGetKernel, CUDA 12+), so no driver library is linked;
 * launched with cudaLaunchKernel, which takes a cudaKernel_t as its function. The
 * library is context-independent: it loads into a device's context on first use there. */
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_kernel.h"

typedef struct cuda_kmodule {
  cudaLibrary_t lib;
  cudaKernel_t kernel;
  char lowered[256];
} cuda_kmodule;

static rs_status cuda_kernel_load(rs_backend *b, const void *image, size_t bytes, void **module) {
  rs_cuda_image_header h;
  if (bytes < sizeof h) return rs_fail(RS_ERR_DEVICE, "cuda kernel load: the image is truncated");
  memcpy(&h, image, sizeof h);
  if (h.magic != RS_CUDA_IMAGE_MAGIC || h.name_len == 0 || h.name_len > sizeof(((cuda_kmodule *)0)->lowered) ||
      sizeof h + h.name_len + h.code_len != bytes)
    return rs_fail(RS_ERR_DEVICE, "cuda kernel load: not an image of this library");
  const char *name = (const char *)image + sizeof h;
  const char *code = name + h.name_len;
  if (name[h.name_len - 1] != '\0') return rs_fail(RS_ERR_DEVICE, "cuda kernel load: corrupt image");
  RS_CUDA_ENTER(b);
  cuda_kmodule *m = calloc(1, sizeof *m);
  if (!m) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "cuda kernel load: out of host memory");
  memcpy(m->lowered, name, h.name_len);
  cudaError_t err = cudaLibraryLoadData(&m->lib, code, NULL, NULL, 0, NULL, NULL, 0);
  if (err != cudaSuccess) {
    free(m);
    return rs_cuda_fail(err, "cudaLibraryLoadData(%s, %llu bytes of %s)", name, (unsigned long long)h.code_len,
                        h.kind == RS_CUDA_IMAGE_PTX ? "PTX" : "CUBIN");
  }
  *module = m;
  return RS_OK;
}

static int rs_attr(int attr, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)attr, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return v;
}

static rs_status cuda_kernel_get_function(rs_backend *b, void *module, const char *name, void **fn,
                                          rs_kernel_attrs *a) {
  cuda_kmodule *m = module;
  RS_CUDA_ENTER(b);
  cudaError_t err = cudaLibraryGetKernel(&m->kernel, m->lib, m->lowered);
  if (err != cudaSuccess) {
    rs_status st = rs_cuda_fail(err, "cudaLibraryGetKernel(%s, lowered '%s')", name, m->lowered);
    return err == cudaErrorSymbolNotFound ? RS_ERR_NOT_FOUND : st;
  }
  struct cudaFuncAttributes fa;
  RS_CUDA_CALL(cudaFuncGetAttributes(&fa, (const void *)m->kernel), "cudaFuncGetAttributes(%s)", name);
  memset(a, 0, sizeof *a);
  int d = b->device;
  a->max_threads_per_block = fa.maxThreadsPerBlock;
  a->max_block[0] = (unsigned)rs_attr(cudaDevAttrMaxBlockDimX, d);
  a->max_block[1] = (unsigned)rs_attr(cudaDevAttrMaxBlockDimY, d);
  a->max_block[2] = (unsigned)rs_attr(cudaDevAttrMaxBlockDimZ, d);
  a->max_grid[0] = (unsigned)rs_attr(cudaDevAttrMaxGridDimX, d);
  a->max_grid[1] = (unsigned)rs_attr(cudaDevAttrMaxGridDimY, d);
  a->max_grid[2] = (unsigned)rs_attr(cudaDevAttrMaxGridDimZ, d);
  a->static_shared_bytes = fa.sharedSizeBytes;
  a->dynamic_shared_limit = (size_t)fa.maxDynamicSharedSizeBytes;
  size_t optin = (size_t)rs_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, d);
  a->dynamic_shared_optin = optin > fa.sharedSizeBytes ? optin - fa.sharedSizeBytes : 0;
  if (a->dynamic_shared_optin < a->dynamic_shared_limit) a->dynamic_shared_optin = a->dynamic_shared_limit;
  a->registers = fa.numRegs;
  a->multiprocessors = rs_attr(cudaDevAttrMultiProcessorCount, d);
  a->max_threads_per_multiprocessor = rs_attr(cudaDevAttrMaxThreadsPerMultiProcessor, d);
  /* The compiled parameter list, to check the parsed one against (CUDA 12.4+). */
  a->nparams = 0;
  for (int i = 0; i <= RS_KERNEL_MAX_PARAMS; i++) {
    size_t offset = 0, size = 0;
    err = cudaFuncGetParamInfo((const void *)m->kernel, (size_t)i, &offset, &size);
    if (err != cudaSuccess) {
      (void)cudaGetLastError();
      if (err != cudaErrorInvalidValue) a->nparams = -1; /* not answered: unknown */
      break;
    }
    if (i == RS_KERNEL_MAX_PARAMS) return rs_fail(RS_ERR_COMPILE, "kernel '%s' has more than %d parameters", name, i);
    a->param_sizes[i] = size;
    a->nparams = i + 1;
  }
  *fn = (void *)m->kernel;
  return RS_OK;
}

static rs_status cuda_kernel_launch(rs_backend *b, void *module, void *fn, const rs_kernel_dims *d, void **args,
                                    const unsigned char *kinds, int nargs, void *stream) {
  (void)kinds;
  (void)nargs;
  RS_CUDA_ENTER(b);
  dim3 grid = {d->grid[0], d->grid[1], d->grid[2]};
  dim3 block = {d->block[0], d->block[1], d->block[2]};
  cudaError_t err = cudaLaunchKernel((const void *)fn, grid, block, args, d->shared_bytes, (cudaStream_t)stream);
  if (err == cudaSuccess) return RS_OK;
  const cuda_kmodule *m = module;
  rs_status st = rs_cuda_fail(err, "cudaLaunchKernel(%s, grid %ux%ux%u, block %ux%ux%u, %zu bytes of shared memory)",
                              m->lowered, grid.x, grid.y, grid.z, block.x, block.y, block.z, d->shared_bytes);
  switch (err) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorLaunchOutOfResources:
    case cudaErrorInvalidValue:
      return RS_ERR_LAUNCH;
    default:
      return st;
  }
}

static rs_status cuda_kernel_occupancy(rs_backend *b, void *fn, int block, size_t shared_bytes, int *blocks) {
  RS_CUDA_ENTER(b);
  *blocks = 0;
  cudaError_t err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)fn, block, shared_bytes);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cudaOccupancyMaxActiveBlocksPerMultiprocessor(block %d)", block);
  return RS_OK;
}

static rs_status cuda_kernel_set_shared_limit(rs_backend *b, void *fn, size_t bytes) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
               "cudaFuncSetAttribute(max dynamic shared memory = %zu bytes)", bytes);
  return RS_OK;
}

static rs_status cuda_kernel_get_symbol(rs_backend *b, void *module, const char *symbol, void **ptr, size_t *bytes) {
  cuda_kmodule *m = module;
  RS_CUDA_ENTER(b);
  cudaError_t err = cudaLibraryGetGlobal(ptr, bytes, m->lib, symbol);
  if (err == cudaSuccess) return RS_OK;
  rs_status st = rs_cuda_fail(err, "cudaLibraryGetGlobal(%s)", symbol);
  if (err == cudaErrorSymbolNotFound || err == cudaErrorInvalidSymbol || err == cudaErrorInvalidValue)
    return rs_fail(RS_ERR_NOT_FOUND, "kernel '%s' has no __constant__ or __device__ variable '%s'", m->lowered, symbol);
  return st;
}

/* Faults surface from CUDA's own synchronizing calls (sticky errors). */
static rs_status cuda_kernel_take_fault(void *module) {
  (void)module;
  return RS_OK;
}

static void cuda_kernel_unload(void *module) {
  cuda_kmodule *m = module;
  if (!m) return;
  if (cudaLibraryUnload(m->lib) != cudaSuccess) (void)cudaGetLastError();
  free(m);
}

const rs_kernel_table rs_cuda_kernels = {
    .name = "cuda",
    .target = rs_cuda_kernel_target,
    .compile = rs_cuda_kernel_compile,
    .load = cuda_kernel_load,
    .get_function = cuda_kernel_get_function,
    .launch = cuda_kernel_launch,
    .occupancy = cuda_kernel_occupancy,
    .set_shared_limit = cuda_kernel_set_shared_limit,
    .get_symbol = cuda_kernel_get_symbol,
    .take_fault = cuda_kernel_take_fault,
    .unload = cuda_kernel_unload,
};
