// Does this build carry code the device can run? Asked once when a context opens, so an
// older GPU than the build supports gets a status and a message naming what was built,
// not a "no kernel image" error from the first copy or op.
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "backend/cuda/cuda_internal.h"

#ifndef RS_CUDA_ARCHITECTURES
#define RS_CUDA_ARCHITECTURES "unknown"
#endif

// Compiled for the same architecture list as every other library kernel: if the runtime
// finds no image of it for the device (machine code or PTX it can JIT), it finds none of
// the others either.
__global__ void rs_cuda_arch_probe(int *p) {
  if (p) *p = 0;
}

extern "C" rs_status rs_cuda_check_arch(int device) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, rs_cuda_arch_probe);
  if (err == cudaSuccess) return RS_OK;
  (void)cudaGetLastError();
  int major = 0, minor = 0;
  (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  (void)cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  // CUDA_FORCE_PTX_JIT=1 makes the driver skip machine code: only PTX for an architecture
  // up to the device's own can run (the default build's PTX is for the newest).
  const char *force_jit = getenv("CUDA_FORCE_PTX_JIT");
  if (force_jit && *force_jit && strcmp(force_jit, "0") != 0 &&
      (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction))
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "open: CUDA_FORCE_PTX_JIT is set and this build has no PTX that device %d "
                   "(compute capability %d.%d) can compile (kernels built for %s); rebuild with "
                   "-DRESIDENT_CUDA_ARCHITECTURES=%d%d for its PTX, or unset CUDA_FORCE_PTX_JIT",
                   device, major, minor, RS_CUDA_ARCHITECTURES, major, minor);
  if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction)
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "open: device %d has compute capability %d.%d, older than this build of "
                   "resident supports (kernels built for %s); rebuild with "
                   "-DRESIDENT_CUDA_ARCHITECTURES=%d%d-real or use the simulator "
                   "(RESIDENT_BACKEND=sim)",
                   device, major, minor, RS_CUDA_ARCHITECTURES, major, minor);
  if (err == cudaErrorUnsupportedPtxVersion)
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "open: device %d (compute capability %d.%d) can only run this build's "
                   "PTX (kernels built for %s), and the driver is too old to compile it; "
                   "update the driver or rebuild with -DRESIDENT_CUDA_ARCHITECTURES=%d%d-real",
                   device, major, minor, RS_CUDA_ARCHITECTURES, major, minor);
  return rs_cuda_fail(err, "open: cudaFuncGetAttributes(library kernel probe, device %d)", device);
}
