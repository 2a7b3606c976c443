// Data movement on the CUDA backend: flat copies, memset, and the strided copy (planned
// in cuda_copy_plan.cu; a destination contiguous along its inner axis goes to the row
// kernel of cuda_copy_rows.cu, any other layout to the general kernel here).
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>
#include "backend/cuda/cuda_copy_plan.h"
#include "core/checked.h"

// Flat copies use cudaMemcpyDefault rather than a kind derived from rs_copy_dir. With UVA
// (every 64-bit platform CUDA 13 supports) the runtime knows what each pointer is, while
// an explicit kind can contradict the pointers the shared layer hands down: managed
// memory on either side, a mapped host pointer instead of its device alias, a registered
// pageable buffer. A contradicting kind is an error or a slow path; the pointer lookup
// costs well under a microsecond. rs_copy_dir still matters to the ledger, above us.
extern "C" rs_status rs_cuda_copy_async(rs_backend *b, void *dst, const void *src, size_t bytes,
                                        rs_copy_dir dir, void *stream) {
  static const char *const names[] = {"H2D", "D2H", "D2D", "H2H"};
  if ((int)dir < 0 || (int)dir > 3)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "copy_async: direction %d is not an rs_copy_dir", (int)dir);
  if (bytes == 0) return RS_OK;
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, static_cast<cudaStream_t>(stream)),
               "cudaMemcpyAsync(%p <- %p, %zu bytes, %s, stream %p)", dst, src, bytes, names[dir], stream);
  return RS_OK;
}

extern "C" rs_status rs_cuda_memset_async(rs_backend *b, void *dst, int value, size_t bytes,
                                          void *stream) {
  if (bytes == 0) return RS_OK;
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)),
               "cudaMemsetAsync(%p, %d, %zu bytes, stream %p)", dst, value, bytes, stream);
  return RS_OK;
}

namespace {

constexpr int kBlock = 256;
constexpr int kBlocksPerSm = 2048 / kBlock;  // enough resident threads to hide latency
constexpr int kPlanDims = kRsCopyPlanDims;

// U indexes elements, S holds signed byte offsets; both 32-bit when the copy allows.
template <int N, typename U, typename S>
struct Geometry {
  U shape[N];
  S dst_stride[N];
  S src_stride[N];
};

template <typename U, typename S, int N, bool Fixed>
__host__ __device__ __forceinline__ void element_offsets(const Geometry<N, U, S> &g, int ndim, U i, S &d,
                                                S &s) {
  const int nd = Fixed ? N : ndim;
  d = 0;
  s = 0;
#ifdef __CUDA_ARCH__  // host-callable too (planner tests); only nvcc's device pass knows the pragma
#pragma unroll
#endif
  for (int k = N - 1; k >= 1; --k) {
    if (k < nd) {
      const U q = i / g.shape[k];
      const S idx = static_cast<S>(i - q * g.shape[k]);
      d += idx * g.dst_stride[k];
      s += idx * g.src_stride[k];
      i = q;
    }
  }
  // The outermost index is what is left: no division for it.
  d += static_cast<S>(i) * g.dst_stride[0];
  s += static_cast<S>(i) * g.src_stride[0];
}

template <typename T, typename U, typename S, int N, bool Fixed>
__global__ void __launch_bounds__(kBlock)
    strided_copy_kernel(char *__restrict__ dst, const char *__restrict__ src, Geometry<N, U, S> g,
                        int ndim, U count) {
  const U step = static_cast<U>(gridDim.x) * blockDim.x;
  for (U i = static_cast<U>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    S d, s;
    element_offsets<U, S, N, Fixed>(g, ndim, i, d, s);
    *reinterpret_cast<T *>(dst + d) = *reinterpret_cast<const T *>(src + s);
  }
}

template <typename T, typename U, typename S, int N, bool Fixed>
cudaError_t launch(const RsCopyPlan &p, unsigned blocks, cudaStream_t stream) {
  Geometry<N, U, S> g;
  std::memset(&g, 0, sizeof g);
  for (int k = 0; k < p.ndim; ++k) {
    g.shape[k] = static_cast<U>(p.shape[k]);
    g.dst_stride[k] = static_cast<S>(p.ds[k]);
    g.src_stride[k] = static_cast<S>(p.ss[k]);
  }
  strided_copy_kernel<T, U, S, N, Fixed>
      <<<blocks, kBlock, 0, stream>>>(p.dst, p.src, g, p.ndim, static_cast<U>(p.count));
  return cudaGetLastError();
}

template <typename T, typename U, typename S>
cudaError_t launch_dims(const RsCopyPlan &p, unsigned blocks, cudaStream_t stream) {
  switch (p.ndim) {
    case 1: return launch<T, U, S, 1, true>(p, blocks, stream);
    case 2: return launch<T, U, S, 2, true>(p, blocks, stream);
    case 3: return launch<T, U, S, 3, true>(p, blocks, stream);
    default: return launch<T, U, S, kPlanDims, false>(p, blocks, stream);
  }
}

template <typename T>
cudaError_t launch_item(const RsCopyPlan &p, bool narrow, unsigned blocks, cudaStream_t stream) {
  return narrow ? launch_dims<T, uint32_t, int32_t>(p, blocks, stream)
                : launch_dims<T, uint64_t, int64_t>(p, blocks, stream);
}

}  // namespace

extern "C" rs_status rs_cuda_copy_strided_async(rs_backend *b, const rs_strided_copy *c, void *stream) {
  if (!c) return rs_fail(RS_ERR_NULL_POINTER, "copy_strided_async: NULL description");
  if (c->ndim < 0 || c->ndim > RS_MAX_DIMS)
    return rs_fail(RS_ERR_TOO_MANY_DIMS, "copy_strided_async: %d dims (0..%d)", c->ndim, RS_MAX_DIMS);
  const size_t is = c->itemsize;
  if (is != 1 && is != 2 && is != 4 && is != 8 && is != 16)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "copy_strided_async: itemsize %zu (1, 2, 4, 8 or 16)", is);
  RsCopyPlan p;
  RS_TRY(rs_cuda_copy_plan(c, p));
  if (p.count == 0) return RS_OK;
  RS_CUDA_ENTER(b);
  cudaStream_t st = static_cast<cudaStream_t>(stream);

  // One contiguous run whose two ends share their alignment: the driver's copy is the
  // fastest there is. Runs misaligned to each other go to the row kernel, which writes
  // aligned words (cudaMemcpyAsync of such pointers reaches ~75% of the bandwidth).
  const uintptr_t rel = reinterpret_cast<uintptr_t>(p.dst) ^ reinterpret_cast<uintptr_t>(p.src);
  if (p.ndim == 1 && p.ds[0] == static_cast<int64_t>(p.itemsize) && p.ss[0] == p.ds[0] && (rel & 15) == 0) {
    const size_t bytes = static_cast<size_t>(p.count) * p.itemsize;
    RS_CUDA_CALL(cudaMemcpyAsync(p.dst, p.src, bytes, cudaMemcpyDefault, st),
                 "copy_strided_async: cudaMemcpyAsync(%p <- %p, %zu contiguous bytes, stream %p)",
                 static_cast<void *>(p.dst), static_cast<const void *>(p.src), bytes, stream);
    return RS_OK;
  }

  (void)cudaGetLastError();  // so the checks below see this launch, not an older call
  bool used = false;
  unsigned blocks = 0;
  cudaError_t err = rs_cuda_copy_rows(p, b->multiprocessors, st, &used, &blocks);
  if (used) {
    if (err != cudaSuccess)
      return rs_cuda_fail(err, "copy_strided_async: row copy kernel <<<%u, 256>>> (%lld items of %zu bytes, "
                               "%d dims after fusing, stream %p)",
                          blocks, (long long)p.count, p.itemsize, p.ndim, stream);
    return RS_OK;
  }

  int64_t dspan = 0, sspan = 0;
  rs_cuda_copy_span(p, p.ds, &dspan);
  rs_cuda_copy_span(p, p.ss, &sspan);
  const bool narrow = p.count <= INT32_MAX && dspan <= INT32_MAX && sspan <= INT32_MAX;
  const int64_t want = (p.count + kBlock - 1) / kBlock;
  const int64_t cap = static_cast<int64_t>(b->multiprocessors) * kBlocksPerSm;
  blocks = static_cast<unsigned>(want < cap ? want : cap);

  switch (p.itemsize) {
    case 1: err = launch_item<uint8_t>(p, narrow, blocks, st); break;
    case 2: err = launch_item<uint16_t>(p, narrow, blocks, st); break;
    case 4: err = launch_item<uint32_t>(p, narrow, blocks, st); break;
    case 8: err = launch_item<uint64_t>(p, narrow, blocks, st); break;
    default: err = launch_item<uint4>(p, narrow, blocks, st); break;
  }
  if (err != cudaSuccess)
    return rs_cuda_fail(err, "copy_strided_async: strided copy kernel <<<%u, %d>>> (%lld items of %zu "
                             "bytes, %d dims after fusing, %s index, stream %p)",
                        blocks, kBlock, (long long)p.count, p.itemsize, p.ndim,
                        narrow ? "32-bit" : "64-bit", stream);
  return RS_OK;
}
