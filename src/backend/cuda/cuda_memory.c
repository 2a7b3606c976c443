/* Raw CUDA allocations. The caching pool and the deferred-free queue sit above these, so
 * they stay thin: one CUDA call each, with the size in the message when it fails. */
#include "backend/cuda/cuda_internal.h"

rs_status rs_cuda_device_alloc(rs_backend *b, size_t bytes, void **out) {
  RS_CUDA_ENTER(b);
  void *p = NULL;
  RS_CUDA_CALL(cudaMalloc(&p, bytes), "cudaMalloc(%zu bytes)", bytes);
  *out = p;
  return RS_OK;
}

rs_status rs_cuda_device_free(rs_backend *b, void *ptr) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaFree(ptr), "cudaFree(%p)", ptr);
  return RS_OK;
}

rs_status rs_cuda_host_alloc(rs_backend *b, size_t bytes, unsigned flags, void **out) {
  RS_CUDA_ENTER(b);
  const unsigned known = RS_BE_HOST_MAPPED | RS_BE_HOST_PORTABLE | RS_BE_HOST_WRITE_COMBINED;
  if (flags & ~known) return rs_fail(RS_ERR_INVALID_ARGUMENT, "host_alloc: unknown flags 0x%x", flags);
  unsigned cf = cudaHostAllocDefault;
  if (flags & RS_BE_HOST_MAPPED) cf |= cudaHostAllocMapped;
  if (flags & RS_BE_HOST_PORTABLE) cf |= cudaHostAllocPortable;
  if (flags & RS_BE_HOST_WRITE_COMBINED) cf |= cudaHostAllocWriteCombined;
  void *p = NULL;
  RS_CUDA_CALL(cudaHostAlloc(&p, bytes, cf), "cudaHostAlloc(%zu bytes, flags 0x%x)", bytes, cf);
  *out = p;
  return RS_OK;
}

rs_status rs_cuda_host_free(rs_backend *b, void *ptr) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaFreeHost(ptr), "cudaFreeHost(%p)", ptr);
  return RS_OK;
}

rs_status rs_cuda_host_register(rs_backend *b, void *ptr, size_t bytes, unsigned flags) {
  RS_CUDA_ENTER(b);
  if (flags & ~(RS_BE_HOST_MAPPED | RS_BE_HOST_PORTABLE))
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "host_register: flags 0x%x: only mapped and portable apply to registered "
                   "memory (write-combining is chosen at allocation)",
                   flags);
  unsigned cf = cudaHostRegisterDefault;
  if (flags & RS_BE_HOST_MAPPED) cf |= cudaHostRegisterMapped;
  if (flags & RS_BE_HOST_PORTABLE) cf |= cudaHostRegisterPortable;
  RS_CUDA_CALL(cudaHostRegister(ptr, bytes, cf), "cudaHostRegister(%p, %zu bytes, flags 0x%x)", ptr,
               bytes, cf);
  return RS_OK;
}

rs_status rs_cuda_host_unregister(rs_backend *b, void *ptr) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaHostUnregister(ptr), "cudaHostUnregister(%p)", ptr);
  return RS_OK;
}

rs_status rs_cuda_host_device_pointer(rs_backend *b, void *host_ptr, void **out) {
  RS_CUDA_ENTER(b);
  void *d = NULL;
  RS_CUDA_CALL(cudaHostGetDevicePointer(&d, host_ptr, 0), "cudaHostGetDevicePointer(%p)", host_ptr);
  *out = d;
  return RS_OK;
}

rs_status rs_cuda_managed_alloc(rs_backend *b, size_t bytes, int attach_host, void **out) {
  RS_CUDA_ENTER(b);
  unsigned cf = attach_host ? cudaMemAttachHost : cudaMemAttachGlobal;
  void *p = NULL;
  RS_CUDA_CALL(cudaMallocManaged(&p, bytes, cf), "cudaMallocManaged(%zu bytes, %s)", bytes,
               attach_host ? "cudaMemAttachHost" : "cudaMemAttachGlobal");
  *out = p;
  return RS_OK;
}

rs_status rs_cuda_managed_free(rs_backend *b, void *ptr) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaFree(ptr), "cudaFree(%p, managed)", ptr);
  return RS_OK;
}
