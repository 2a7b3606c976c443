// Small kernels of the CUDA linear algebra: the orthogonality check of the fast SVD and
// the folding of per-matrix solver flags into the plan's one flag.
#include <cstdint>
#include <cstring>
#include "backend/cuda/cuda_ops.h"

namespace {

// max |G - I| of an n x n column-major matrix, into *out (a non-negative double, so
// its bits order as unsigned integers and atomicMax finds the largest).
template <typename T>
__global__ void orth_error(const T *g, int64_t n, unsigned long long *out) {
  double worst = 0;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n * n; i += (int64_t)gridDim.x * blockDim.x) {
    double v = (double)g[i] - (i % n == i / n ? 1.0 : 0.0);
    v = fabs(v);
    if (!(v <= worst)) worst = v;  // NaN counts as the worst
  }
  if (worst != worst) worst = __longlong_as_double(0x7ff0000000000000LL);
  atomicMax(out, (unsigned long long)__double_as_longlong(worst));
}

__global__ void flags_any(const int *flags, int64_t n, int32_t *out) {
  int any = 0;
  for (int64_t i = 0; i < n; i++) any |= flags[i] != 0;
  *out = any;
}

}  // namespace

extern "C" rs_status rs_cuda_orth_error(rs_backend *b, int f64, const void *g, int64_t n, double *host_out, void *stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  void *d = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, sizeof(unsigned long long), stream, &d));
  rs_status st = RS_OK;
  cudaError_t err = cudaMemsetAsync(d, 0, sizeof(unsigned long long), s);
  if (err == cudaSuccess) {
    unsigned grid = rs_cuda_ops_grid(b, n * n, 4, 4);
    if (f64)
      orth_error<double><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const double *>(g), n, static_cast<unsigned long long *>(d));
    else
      orth_error<float><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const float *>(g), n, static_cast<unsigned long long *>(d));
    err = cudaGetLastError();
  }
  unsigned long long bits = 0;
  if (err == cudaSuccess) err = cudaMemcpyAsync(&bits, d, sizeof bits, cudaMemcpyDeviceToHost, s);
  if (err == cudaSuccess) err = cudaStreamSynchronize(s);
  if (err != cudaSuccess) st = rs_cuda_fail(err, "svd: orthogonality check");
  rs_cuda_ops_scratch_free(d, stream);
  if (st == RS_OK) memcpy(host_out, &bits, sizeof bits);
  return st;
}

extern "C" rs_status rs_cuda_flags_any(const int *flags, int64_t n, int32_t *out, void *stream) {
  flags_any<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(flags, n, out);
  RS_CUDA_CALL(cudaGetLastError(), "linear algebra: folding the flags");
  return RS_OK;
}
