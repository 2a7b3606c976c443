/* The CUDA backend's descriptor: what the registry (src/backend/registry.c) hands out. */
#include "backend/cuda/cuda_internal.h"

const rs_backend_desc rs_backend_cuda = {
    .version = RS_BACKEND_DESC_VERSION,
    .name = "cuda",
    .kind = RS_BACKEND_CUDA,
    .runtime = &rs_cuda_vtable,
    .kernels = &rs_cuda_kernels,
    .ops = &rs_cuda_ops,
};
