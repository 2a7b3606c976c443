/* Which backends this build can run user kernels on. */
#include "kernel/kernel_backend.h"

const rs_kernel_backend *rs_kernel_backend_for(rs_backend_kind kind) {
  switch (kind) {
    case RS_BACKEND_SIM:
      return &rs_kernel_backend_sim;
    case RS_BACKEND_CUDA:
#ifdef RS_HAVE_CUDA
      return &rs_kernel_backend_cuda;
#else
      return NULL;
#endif
    default:
      return NULL;
  }
}
