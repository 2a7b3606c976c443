// Small kernels of the linalg extension's factorizations (cuda_ops_factor.c): zeroing the
// triangle LAPACK leaves untouched (Cholesky, the R of QR) and det / sign / log|det| of
// LU factors (one block per matrix, a tree reduction over its diagonal).
#include <cstdint>
#include "backend/cuda/cuda_ops.h"

namespace {

struct alignas(16) elem16 {
  unsigned long long lo, hi;
};

// Only the element's size matters to zeroing: 4, 8 or 16 bytes.
// Only rows below `rows` are written (the reduced QR's R is the top rows).
template <typename E>
__global__ void zero_triangle(E *a, int64_t m, int64_t n, int64_t rows, int64_t total, int upper) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t e = i % (m * n), col = e / m, row = e % m;
    if (row < rows && (upper ? row < col : row > col)) a[i] = E{};
  }
}

struct acc {
  double pr, pi;   // the product of the diagonal
  double sr, si;   // the product of its phases (0 once a pivot is 0)
  double logsum;   // sum of log |d|
  int flips;       // parity of the row interchanges
};

__device__ acc combine(acc a, const acc &b) {
  double pr = a.pr * b.pr - a.pi * b.pi, pi = a.pr * b.pi + a.pi * b.pr;
  double sr = a.sr * b.sr - a.si * b.si, si = a.sr * b.si + a.si * b.sr;
  return acc{pr, pi, sr, si, a.logsum + b.logsum, a.flips ^ b.flips};
}

// P: the pivots' type, int64_t from cusolverDnXgetrf, int from cuBLAS's getrfBatched.
// info (NULL or one per matrix): > 0 marks an exactly zero pivot; such a matrix gets the
// zero-pivot result (det 0, sign 0, log|det| -inf) whatever the rest of its factors hold
// (getrfBatched does not document its factors after a zero pivot as finite; its flag is
// what it promises), which is what the per-matrix path computes from its diagonal.
template <typename R, bool CPLX, typename P>
__global__ void lu_det(const R *lu, const P *ipiv, const int *info, int64_t n, R *det, R *sign, R *logabs) {
  __shared__ acc part[RS_CUDA_OPS_BLOCK];
  int64_t q = blockIdx.x;
  const R *a = lu + q * n * n * (CPLX ? 2 : 1);
  const P *piv = ipiv + q * n;
  bool zero = info && info[q] > 0;
  acc s{1, 0, 1, 0, 0, 0};
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    int64_t k = i * (n + 1);
    double re = zero ? 0.0 : CPLX ? (double)a[2 * k] : (double)a[k], im = zero ? 0.0 : CPLX ? (double)a[2 * k + 1] : 0.0;
    double ad = hypot(re, im);
    acc d{re, im, ad > 0 ? re / ad : 0.0, ad > 0 ? im / ad : 0.0, log(ad), (int64_t)piv[i] != i + 1};
    s = combine(s, d);
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] = combine(part[threadIdx.x], part[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x != 0) return;
  acc t = part[0];
  double f = t.flips ? -1.0 : 1.0;
  if (det) {
    det[q * (CPLX ? 2 : 1)] = (R)(f * t.pr);
    if (CPLX) det[2 * q + 1] = (R)(f * t.pi);
  }
  if (sign) {
    sign[q * (CPLX ? 2 : 1)] = (R)(f * t.sr);
    if (CPLX) sign[2 * q + 1] = (R)(f * t.si);
  }
  if (logabs) logabs[q] = (R)t.logsum;
}

__global__ void pointer_array(char **out, char *base, size_t stride, int64_t count) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < count; i += (int64_t)gridDim.x * blockDim.x)
    out[i] = base + i * stride;
}

}  // namespace

extern "C" rs_status rs_cuda_pointer_array(void *out, void *base, size_t stride, int64_t count, void *stream) {
  if (count == 0) return RS_OK;
  unsigned grid = static_cast<unsigned>((count + RS_CUDA_OPS_BLOCK - 1) / RS_CUDA_OPS_BLOCK);
  if (grid > 65535) grid = 65535;
  pointer_array<<<grid, RS_CUDA_OPS_BLOCK, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<char **>(out),
                                                                                   static_cast<char *>(base), stride, count);
  RS_CUDA_CALL(cudaGetLastError(), "linear algebra: pointer array");
  return RS_OK;
}

extern "C" rs_status rs_cuda_zero_triangle(rs_backend *b, size_t item, void *a, int64_t batch, int64_t m, int64_t n,
                                           int64_t rows, int upper, void *stream) {
  int64_t total = batch * m * n;
  if (total == 0) return RS_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  unsigned grid = rs_cuda_ops_grid(b, total, 4, 4);
  if (item == 4) zero_triangle<uint32_t><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<uint32_t *>(a), m, n, rows, total, upper);
  else if (item == 8) zero_triangle<uint64_t><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<uint64_t *>(a), m, n, rows, total, upper);
  else zero_triangle<elem16><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<elem16 *>(a), m, n, rows, total, upper);
  RS_CUDA_CALL(cudaGetLastError(), "linear algebra: zeroing a triangle");
  return RS_OK;
}

namespace {

template <typename P>
void launch_lu_det(rs_dtype dt, const void *lu, const P *ipiv, const int *info, int64_t n, void *det, void *sign,
                   void *logabs, unsigned grid, cudaStream_t s) {
  switch (dt) {
    case RS_FLOAT32:
      lu_det<float, false, P><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const float *>(lu), ipiv, info, n, static_cast<float *>(det),
                                                                static_cast<float *>(sign), static_cast<float *>(logabs));
      break;
    case RS_FLOAT64:
      lu_det<double, false, P><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const double *>(lu), ipiv, info, n, static_cast<double *>(det),
                                                                 static_cast<double *>(sign), static_cast<double *>(logabs));
      break;
    case RS_COMPLEX64:
      lu_det<float, true, P><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const float *>(lu), ipiv, info, n, static_cast<float *>(det),
                                                               static_cast<float *>(sign), static_cast<float *>(logabs));
      break;
    default:
      lu_det<double, true, P><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const double *>(lu), ipiv, info, n, static_cast<double *>(det),
                                                                static_cast<double *>(sign), static_cast<double *>(logabs));
      break;
  }
}

}  // namespace

extern "C" rs_status rs_cuda_lu_det(rs_dtype dt, const void *lu, const void *ipiv, int piv32, const int *info, int64_t batch,
                                    int64_t n, void *det, void *sign, void *logabs, void *stream) {
  if (batch == 0) return RS_OK;
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  unsigned grid = static_cast<unsigned>(batch);
  if (piv32) launch_lu_det(dt, lu, static_cast<const int *>(ipiv), info, n, det, sign, logabs, grid, s);
  else launch_lu_det(dt, lu, static_cast<const int64_t *>(ipiv), info, n, det, sign, logabs, grid, s);
  RS_CUDA_CALL(cudaGetLastError(), "linear algebra: det from LU factors");
  return RS_OK;
}
