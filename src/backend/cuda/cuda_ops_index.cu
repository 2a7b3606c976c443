// Indexing on the GPU: gathers and scatters along an axis (one small kernel over the
// result's elements), compaction of flags through CUB's DeviceSelect::Flagged, and
// searchsorted (a binary search per value; CUB has none to offer).
//
// A scatter lets the last writer in C order win, as on the host: one pass takes, per
// destination element, the largest position writing it (atomicMax), a second writes only
// from that position - so repeated indices give what the host path gives.
#include <cstdint>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_ops_index.h"
#include "backend/cuda/cuda_ops_index.cuh"

namespace {

// Offsets of element e of the plan: data (axis index included), vals, and the data
// element's number.
struct where_t {
  int64_t data, vals, id;
};

__device__ where_t locate(const rs_index_plan &p, int64_t e) {
  where_t w = {0, 0, 0};
  int64_t ioff = 0;
  for (int k = p.ndim - 1; k >= 0; k--) {
    int64_t c = e % p.shape[k];
    e /= p.shape[k];
    w.data += c * p.data_strides[k];
    w.vals += c * p.vals_strides[k];
    w.id += c * p.data_ids[k];
    ioff += c * p.idx_strides[k];
  }
  int64_t i = *reinterpret_cast<const int64_t *>(p.idx + ioff);
  if (i < 0) i += p.axis_len;
  w.data += i * p.axis_stride;
  w.id += i * p.axis_id;
  return w;
}

__device__ __forceinline__ void move(char *dst, const char *src, int size) {
  switch (size) {
    case 1: *dst = *src; break;
    case 2: *reinterpret_cast<uint16_t *>(dst) = *reinterpret_cast<const uint16_t *>(src); break;
    case 4: *reinterpret_cast<uint32_t *>(dst) = *reinterpret_cast<const uint32_t *>(src); break;
    case 8: *reinterpret_cast<uint64_t *>(dst) = *reinterpret_cast<const uint64_t *>(src); break;
    default:  // 16: complex128, 8-byte aligned
      reinterpret_cast<uint64_t *>(dst)[0] = reinterpret_cast<const uint64_t *>(src)[0];
      reinterpret_cast<uint64_t *>(dst)[1] = reinterpret_cast<const uint64_t *>(src)[1];
      break;
  }
}

// mode 0: gather; 1: claim (winner[id] = max position + 1); 2: scatter from the winner;
// 3: scatter to distinct elements
__global__ void index_kernel(const rs_index_plan p, int mode, unsigned long long *winner) {
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < p.count; e += (int64_t)gridDim.x * blockDim.x) {
    where_t w = locate(p, e);
    if (mode == 0)
      move(p.vals + w.vals, p.data + w.data, p.itemsize);
    else if (mode == 1)
      atomicMax(winner + w.id, (unsigned long long)e + 1);
    else if (mode == 3 || winner[w.id] == (unsigned long long)e + 1)
      move(p.data + w.data, p.vals + w.vals, p.itemsize);
  }
}

template <typename T>
__global__ void search_kernel(const T *sorted, int64_t n, const T *v, int64_t m, int right, int64_t *out) {
  for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < m; j += (int64_t)gridDim.x * blockDim.x) {
    T x = v[j];
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      bool go_right = right ? !rs_index::less(x, sorted[mid]) : rs_index::less(sorted[mid], x);
      if (go_right)
        lo = mid + 1;
      else
        hi = mid;
    }
    out[j] = lo;
  }
}

}  // namespace

extern "C" rs_status rs_cuda_ops_index(rs_backend *b, const rs_index_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  unsigned grid = rs_cuda_ops_grid(b, p->count, 1, 8);
  if (p->scatter != 1) {
    index_kernel<<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(*p, p->scatter ? 3 : 0, nullptr);
    RS_CUDA_CALL(cudaGetLastError(), "gather / scatter kernel (%lld elements)", (long long)p->count);
    return RS_OK;
  }
  void *win = nullptr;
  size_t bytes = (size_t)p->data_size * sizeof(unsigned long long);
  RS_TRY(rs_cuda_ops_scratch(b, bytes, stream, &win));
  cudaError_t err = cudaMemsetAsync(win, 0, bytes, s);
  if (err == cudaSuccess) {
    index_kernel<<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(*p, 1, static_cast<unsigned long long *>(win));
    index_kernel<<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(*p, 2, static_cast<unsigned long long *>(win));
    err = cudaGetLastError();
  }
  rs_cuda_ops_scratch_free(win, stream);
  if (err != cudaSuccess) return rs_cuda_fail(err, "scatter kernels (%lld elements)", (long long)p->count);
  return RS_OK;
}

namespace {

struct alignas(8) bytes16 {  // complex128, moved as it is
  uint64_t lo, hi;
};

// DeviceSelect::Flagged of `in` (positions or elements) to `out`.
template <typename In, typename Out>
rs_status flagged(rs_backend *b, const rs_select_plan *p, In in, Out *out, cudaStream_t s) {
  size_t bytes = 0;
  RS_CUDA_CALL(cub::DeviceSelect::Flagged(nullptr, bytes, in, p->flags, out, p->count, p->n, s),
               "cub::DeviceSelect::Flagged (size query)");
  void *tmp = nullptr;
  RS_TRY(rs_cuda_ops_scratch(b, bytes, s, &tmp));
  cudaError_t err = cub::DeviceSelect::Flagged(tmp, bytes, in, p->flags, out, p->count, p->n, s);
  rs_cuda_ops_scratch_free(tmp, s);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cub::DeviceSelect::Flagged(%lld flags)", (long long)p->n);
  return RS_OK;
}

template <typename T>
rs_status select_values(rs_backend *b, const rs_select_plan *p, cudaStream_t s) {
  return flagged(b, p, reinterpret_cast<const T *>(p->values), reinterpret_cast<T *>(p->out), s);
}

}  // namespace

extern "C" rs_status rs_cuda_ops_select(rs_backend *b, const rs_select_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (!p->values) return flagged(b, p, thrust::counting_iterator<int64_t>(0), p->positions, s);
  switch (p->itemsize) {
    case 1: return select_values<uint8_t>(b, p, s);
    case 2: return select_values<uint16_t>(b, p, s);
    case 4: return select_values<uint32_t>(b, p, s);
    case 8: return select_values<uint64_t>(b, p, s);
    default: return select_values<bytes16>(b, p, s);
  }
}

extern "C" rs_status rs_cuda_ops_search(rs_backend *b, const rs_search_plan *p, void *stream) {
  RS_TRY(rs_cuda_enter(b));
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  unsigned grid = rs_cuda_ops_grid(b, p->m, 1, 8);
  bool ok = rs_index::dispatch(p->dtype, [&](auto t) {
    using T = decltype(t);
    search_kernel<T><<<grid, RS_CUDA_OPS_BLOCK, 0, s>>>(static_cast<const T *>(p->sorted), p->n,
                                                         static_cast<const T *>(p->v), p->m, p->right, p->out);
  });
  if (!ok) return rs_fail(RS_ERR_DTYPE, "searchsorted: %s is not ordered", rs_dtype_name(p->dtype));
  RS_CUDA_CALL(cudaGetLastError(), "searchsorted kernel (%lld values)", (long long)p->m);
  return RS_OK;
}
