/* CUDA error codes -> rs_status and the thread-local message. */
#include <stdarg.h>
#include <stdio.h>
#include "backend/cuda/cuda_internal.h"

int rs_cuda_is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchTimeout:
      return 1;
    default:
      return 0;
  }
}

rs_status rs_cuda_status(cudaError_t err) {
  if (rs_cuda_is_sticky(err)) return RS_ERR_KERNEL_FAULT;
  switch (err) {
    case cudaSuccess:
      return RS_OK;
    case cudaErrorMemoryAllocation:
      return RS_ERR_OUT_OF_MEMORY;
    /* Every way of "there is no usable GPU here", so callers can fall back to sim. */
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInitializationError:
      return RS_ERR_NO_DEVICE;
    case cudaErrorNotReady:
      return RS_ERR_NOT_READY;
    /* cudaEventElapsedTime answers this for an unrecorded or timing-disabled event. */
    case cudaErrorInvalidResourceHandle:
      return RS_ERR_STATE;
    case cudaErrorHostMemoryAlreadyRegistered:
    case cudaErrorHostMemoryNotRegistered:
      return RS_ERR_STATE;
    case cudaErrorNotSupported:
      return RS_ERR_UNSUPPORTED;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidDevice:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
      return RS_ERR_INVALID_ARGUMENT;
    default:
      return RS_ERR_DEVICE;
  }
}

rs_status rs_cuda_fail(cudaError_t err, const char *fmt, ...) {
  char call[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(call, sizeof call, fmt, ap);
  va_end(ap);
  int sticky = rs_cuda_is_sticky(err);
  if (!sticky) (void)cudaGetLastError(); /* a sticky error cannot be cleared anyway */
  const char *name = cudaGetErrorName(err);
  const char *text = cudaGetErrorString(err);
  return rs_fail(rs_cuda_status(err), "%s: %s: %s%s", call, name ? name : "?", text ? text : "?",
                 sticky ? " (a kernel faulted: the CUDA context is no longer usable; every later "
                          "CUDA call in this process fails - destroy the context and restart the "
                          "process)"
                        : "");
}

rs_status rs_cuda_enter(const rs_backend *b) {
  RS_CUDA_CALL(cudaSetDevice(b->device), "cudaSetDevice(%d)", b->device);
  return RS_OK;
}
