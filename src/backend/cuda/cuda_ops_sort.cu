// Sort and argsort on the GPU with CUB's radix sort.
//
// float32 / float64 are sorted as CUB's own float keys, after a pass that makes every
// NaN the positive quiet NaN (CUB would put NaNs with the sign bit set first; NumPy puts
// every NaN last) - that pass is the copy into the output a sort needs anyway. argsort
// also makes -0.0 equal to +0.0 (NumPy's stable order). Other dtypes become unsigned keys
// in the same order (sign bit flipped; float16 by its sign-magnitude bits) sorted on
// only the key's bits (1 pass for 8-bit dtypes), and back.
//
// More than one row: two stable sorts of the whole array - by key carrying the element's
// position, then by row carrying the position - leave each row in key order; values are
// gathered from the positions. Two flat sorts are far faster on a GPU than a sort per
// row, and need no segmented instantiations.
#include <cstdint>
#include <cstring>
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_ops_sort.h"

namespace {

constexpr int kBlock = RS_CUDA_OPS_BLOCK;

__global__ void canon_f32(const float *src, float *dst, int64_t n, int zero) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    float v = src[i];
    if (v != v) v = __int_as_float(0x7fc00000);
    if (zero && v == 0.0f) v = 0.0f;  // -0.0 == 0.0: the comparison is true for both
    dst[i] = v;
  }
}

__global__ void canon_f64(const double *src, double *dst, int64_t n, int zero) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    double v = src[i];
    if (v != v) v = __longlong_as_double(0x7ff8000000000000LL);
    if (zero && v == 0.0) v = 0.0;
    dst[i] = v;
  }
}

// An order-preserving unsigned key of element i of dtype dt; NaN largest.
template <typename K>
__device__ K ukey(const char *src, int dt, int64_t i, int zero) {
  switch (dt) {
    case RS_BOOL: return reinterpret_cast<const unsigned char *>(src)[i] != 0;
    case RS_INT8: return (K)(uint8_t)(reinterpret_cast<const uint8_t *>(src)[i] ^ 0x80u);
    case RS_INT16: return (K)(uint16_t)(reinterpret_cast<const uint16_t *>(src)[i] ^ 0x8000u);
    case RS_INT32: return (K)(reinterpret_cast<const uint32_t *>(src)[i] ^ 0x80000000u);
    case RS_INT64: return (K)(reinterpret_cast<const uint64_t *>(src)[i] ^ 0x8000000000000000ull);
    case RS_UINT8: return reinterpret_cast<const uint8_t *>(src)[i];
    case RS_UINT16: return reinterpret_cast<const uint16_t *>(src)[i];
    case RS_UINT32: return reinterpret_cast<const uint32_t *>(src)[i];
    case RS_UINT64: return (K)reinterpret_cast<const uint64_t *>(src)[i];
    default: {  // float16
      uint16_t h = reinterpret_cast<const uint16_t *>(src)[i];
      if ((h & 0x7fffu) > 0x7c00u) return 0xffffu;
      if (zero && (h & 0x7fffu) == 0) h = 0;
      return (h & 0x8000u) ? (uint16_t)~h : (uint16_t)(h | 0x8000u);
    }
  }
}

template <typename K>
__global__ void to_ukeys(const char *src, int dt, K *dst, int64_t n, int zero) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = ukey<K>(src, dt, i, zero);
}

template <typename K>
__global__ void from_ukeys(const K *keys, int dt, char *dst, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    K k = keys[i];
    switch (dt) {
      case RS_BOOL: reinterpret_cast<unsigned char *>(dst)[i] = (unsigned char)k; break;
      case RS_INT8: reinterpret_cast<uint8_t *>(dst)[i] = (uint8_t)(k ^ 0x80u); break;
      case RS_INT16: reinterpret_cast<uint16_t *>(dst)[i] = (uint16_t)(k ^ 0x8000u); break;
      case RS_INT32: reinterpret_cast<uint32_t *>(dst)[i] = (uint32_t)(k ^ 0x80000000u); break;
      case RS_INT64: reinterpret_cast<uint64_t *>(dst)[i] = (uint64_t)k ^ 0x8000000000000000ull; break;
      case RS_UINT8: reinterpret_cast<uint8_t *>(dst)[i] = (uint8_t)k; break;
      case RS_UINT16: reinterpret_cast<uint16_t *>(dst)[i] = (uint16_t)k; break;
      case RS_UINT32: reinterpret_cast<uint32_t *>(dst)[i] = (uint32_t)k; break;
      case RS_UINT64: reinterpret_cast<uint64_t *>(dst)[i] = (uint64_t)k; break;
      default: {  // float16
        uint16_t h = (uint16_t)k;
        reinterpret_cast<uint16_t *>(dst)[i] = h == 0xffffu ? (uint16_t)0x7e00u : (h & 0x8000u) ? (uint16_t)(h ^ 0x8000u) : (uint16_t)~h;
      }
    }
  }
}

__global__ void iota(int64_t *v, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) v[i] = i;
}

template <typename R>
__global__ void row_of(const int64_t *pos, R *row, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    row[i] = (R)(pos[i] / cols);
}

__global__ void column_of(const int64_t *pos, int64_t *out, int64_t n, int64_t cols) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    out[i] = pos[i] % cols;
}

template <typename T>
__global__ void gather(const T *src, const int64_t *pos, T *dst, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = src[pos[i]];
}

// Carves aligned pieces out of one scratch allocation.
struct Carve {
  char *base;
  size_t used;
  void *take(size_t bytes) {
    void *p = base ? base + used : nullptr;
    used += (bytes + 255) & ~(size_t)255;
    return p;
  }
};

int key_kind(rs_dtype dt) {
  if (dt == RS_FLOAT32) return RS_CUB_F32;
  if (dt == RS_FLOAT64) return RS_CUB_F64;
  return rs_dtype_size(dt) == 8 ? RS_CUB_U64 : RS_CUB_U32;
}

int bits_for(int64_t v) {  // bits needed to hold 0 .. v
  int b = 1;
  while (b < 64 && (v >> b) != 0) b++;
  return b;
}

struct Sort {
  rs_backend *b;
  const rs_sort_plan *p;
  cudaStream_t s;
  unsigned grid;
};

// The key pass: keys of src into k (native floats canonicalised, others to unsigned).
rs_status make_keys(const Sort &st, const void *src, void *k, int64_t n, int zero) {
  const rs_sort_plan *p = st.p;
  int kind = key_kind(p->dtype);
  if (kind == RS_CUB_F32)
    canon_f32<<<st.grid, kBlock, 0, st.s>>>(static_cast<const float *>(src), static_cast<float *>(k), n, zero);
  else if (kind == RS_CUB_F64)
    canon_f64<<<st.grid, kBlock, 0, st.s>>>(static_cast<const double *>(src), static_cast<double *>(k), n, zero);
  else if (kind == RS_CUB_U32)
    to_ukeys<uint32_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<const char *>(src), p->dtype, static_cast<uint32_t *>(k), n, zero);
  else
    to_ukeys<uint64_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<const char *>(src), p->dtype, static_cast<uint64_t *>(k), n, zero);
  RS_CUDA_CALL(cudaGetLastError(), "sort: key pass");
  return RS_OK;
}

int key_bits(rs_dtype dt) { return (int)rs_dtype_size(dt) * 8; }  // a key holds the value's bits, no more

// One row (or a 1-d array): sort keys, or keys with positions.
rs_status sort_one_row(const Sort &st) {
  const rs_sort_plan *p = st.p;
  int64_t n = p->n;
  int kind = key_kind(p->dtype);
  size_t ksize = kind == RS_CUB_F32 || kind == RS_CUB_U32 ? 4 : 8;
  int native = kind == RS_CUB_F32 || kind == RS_CUB_F64, bits = key_bits(p->dtype), sel = 0;
  size_t tmp_bytes = 0;
  cudaError_t err;
  if (!p->argsort)
    err = rs_cub_sort_keys(kind, nullptr, &tmp_bytes, nullptr, nullptr, nullptr, n, bits, st.s);
  else
    err = rs_cub_sort_pairs(kind, nullptr, &tmp_bytes, nullptr, nullptr, nullptr, nullptr, nullptr, n, bits, st.s);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cub radix sort (size query, %lld keys)", (long long)n);
  // scratch: sort of a native float: the other key buffer; else two key buffers; argsort
  // also the other index buffer
  Carve c{nullptr, 0};
  c.take(tmp_bytes);
  c.take((size_t)n * ksize);
  if (!native || p->argsort) c.take((size_t)n * ksize);
  if (p->argsort) c.take((size_t)n * 8);
  void *scratch = nullptr;
  RS_TRY(rs_cuda_ops_scratch(st.b, c.used, st.s, &scratch));
  c = Carve{static_cast<char *>(scratch), 0};
  void *tmp = c.take(tmp_bytes), *k1 = c.take((size_t)n * ksize);
  void *k0 = (!native || p->argsort) ? c.take((size_t)n * ksize) : p->dst;
  int64_t *v1 = p->argsort ? static_cast<int64_t *>(c.take((size_t)n * 8)) : nullptr;
  rs_status rs = make_keys(st, p->src, k0, n, p->argsort);
  if (rs == RS_OK && !p->argsort) {
    err = rs_cub_sort_keys(kind, tmp, &tmp_bytes, k0, k1, &sel, n, bits, st.s);
    if (err != cudaSuccess) rs = rs_cuda_fail(err, "cub radix sort (%lld keys)", (long long)n);
    void *sorted = sel ? k1 : k0;
    if (rs == RS_OK && native && sorted != p->dst)
      rs = cudaMemcpyAsync(p->dst, sorted, (size_t)n * ksize, cudaMemcpyDeviceToDevice, st.s) == cudaSuccess
               ? RS_OK
               : rs_cuda_fail(cudaGetLastError(), "sort: copying the result");
    if (rs == RS_OK && !native) {
      if (kind == RS_CUB_U32)
        from_ukeys<uint32_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<uint32_t *>(sorted), p->dtype, static_cast<char *>(p->dst), n);
      else
        from_ukeys<uint64_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<uint64_t *>(sorted), p->dtype, static_cast<char *>(p->dst), n);
      cudaError_t e2 = cudaGetLastError();
      if (e2 != cudaSuccess) rs = rs_cuda_fail(e2, "sort: value pass");
    }
  } else if (rs == RS_OK) {
    iota<<<st.grid, kBlock, 0, st.s>>>(p->indices, n);
    err = rs_cub_sort_pairs(kind, tmp, &tmp_bytes, k0, k1, p->indices, v1, &sel, n, bits, st.s);
    if (err != cudaSuccess) rs = rs_cuda_fail(err, "cub radix sort (%lld pairs)", (long long)n);
    if (rs == RS_OK && sel &&
        cudaMemcpyAsync(p->indices, v1, (size_t)n * 8, cudaMemcpyDeviceToDevice, st.s) != cudaSuccess)
      rs = rs_cuda_fail(cudaGetLastError(), "argsort: copying the result");
  }
  rs_cuda_ops_scratch_free(scratch, st.s);
  return rs;
}

// Several rows: by key, then by row, both stable, positions carried along.
rs_status sort_rows(const Sort &st) {
  const rs_sort_plan *p = st.p;
  int64_t n = p->rows * p->n;
  int kind = key_kind(p->dtype), rkind = p->rows <= (int64_t)UINT32_MAX ? RS_CUB_U32 : RS_CUB_U64;
  size_t ksize = kind == RS_CUB_F32 || kind == RS_CUB_U32 ? 4 : 8, rsize = rkind == RS_CUB_U32 ? 4 : 8;
  int bits = key_bits(p->dtype), rbits = bits_for(p->rows - 1), sel = 0;
  size_t b1 = 0, b2 = 0;
  cudaError_t err = rs_cub_sort_pairs(kind, nullptr, &b1, nullptr, nullptr, nullptr, nullptr, nullptr, n, bits, st.s);
  if (err == cudaSuccess) err = rs_cub_sort_pairs(rkind, nullptr, &b2, nullptr, nullptr, nullptr, nullptr, nullptr, n, rbits, st.s);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cub radix sort (size query, %lld pairs)", (long long)n);
  size_t tmp_bytes = b1 > b2 ? b1 : b2, item = rs_dtype_size(p->dtype);
  Carve c{nullptr, 0};
  c.take(tmp_bytes);
  c.take((size_t)n * ksize), c.take((size_t)n * ksize);
  c.take((size_t)n * 8), c.take((size_t)n * 8);
  c.take((size_t)n * rsize), c.take((size_t)n * rsize);
  if (!p->argsort) c.take((size_t)n * item); /* the values, when sorting in place */
  void *scratch = nullptr;
  RS_TRY(rs_cuda_ops_scratch(st.b, c.used, st.s, &scratch));
  c = Carve{static_cast<char *>(scratch), 0};
  void *tmp = c.take(tmp_bytes), *k0 = c.take((size_t)n * ksize), *k1 = c.take((size_t)n * ksize);
  int64_t *v0 = static_cast<int64_t *>(c.take((size_t)n * 8)), *v1 = static_cast<int64_t *>(c.take((size_t)n * 8));
  void *r0 = c.take((size_t)n * rsize), *r1 = c.take((size_t)n * rsize);
  void *values = p->argsort ? nullptr : c.take((size_t)n * item);
  rs_status rs = make_keys(st, p->src, k0, n, 1);
  if (rs == RS_OK) {
    iota<<<st.grid, kBlock, 0, st.s>>>(v0, n);
    err = rs_cub_sort_pairs(kind, tmp, &tmp_bytes, k0, k1, v0, v1, &sel, n, bits, st.s);
    if (err != cudaSuccess) rs = rs_cuda_fail(err, "cub radix sort by key (%lld pairs)", (long long)n);
  }
  int64_t *pos = sel ? v1 : v0, *other = sel ? v0 : v1;
  if (rs == RS_OK) {
    if (rkind == RS_CUB_U32)
      row_of<uint32_t><<<st.grid, kBlock, 0, st.s>>>(pos, static_cast<uint32_t *>(r0), n, p->n);
    else
      row_of<uint64_t><<<st.grid, kBlock, 0, st.s>>>(pos, static_cast<uint64_t *>(r0), n, p->n);
    err = rs_cub_sort_pairs(rkind, tmp, &tmp_bytes, r0, r1, pos, other, &sel, n, rbits, st.s);
    if (err != cudaSuccess) rs = rs_cuda_fail(err, "cub radix sort by row (%lld pairs)", (long long)n);
    pos = sel ? other : pos;
  }
  if (rs == RS_OK && p->argsort) {
    column_of<<<st.grid, kBlock, 0, st.s>>>(pos, p->indices, n, p->n);
  } else if (rs == RS_OK) {
    // gather from a copy: src may be dst (in place)
    if (cudaMemcpyAsync(values, p->src, (size_t)n * item, cudaMemcpyDeviceToDevice, st.s) != cudaSuccess)
      rs = rs_cuda_fail(cudaGetLastError(), "sort: copying the values");
    else if (item == 1)
      gather<uint8_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<uint8_t *>(values), pos, static_cast<uint8_t *>(p->dst), n);
    else if (item == 2)
      gather<uint16_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<uint16_t *>(values), pos, static_cast<uint16_t *>(p->dst), n);
    else if (item == 4)
      gather<uint32_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<uint32_t *>(values), pos, static_cast<uint32_t *>(p->dst), n);
    else
      gather<uint64_t><<<st.grid, kBlock, 0, st.s>>>(static_cast<uint64_t *>(values), pos, static_cast<uint64_t *>(p->dst), n);
  }
  if (rs == RS_OK) {
    cudaError_t e2 = cudaGetLastError();
    if (e2 != cudaSuccess) rs = rs_cuda_fail(e2, "sort: row passes");
  }
  rs_cuda_ops_scratch_free(scratch, st.s);
  return rs;
}

}  // namespace

extern "C" rs_status rs_cuda_ops_sort(rs_backend *b, const rs_sort_plan *p, void *stream) {
  if (p->rows <= 0 || p->n <= 0) return RS_OK;
  if (p->dtype == RS_COMPLEX64 || p->dtype == RS_COMPLEX128)
    return rs_fail(RS_ERR_DTYPE, "sort: complex numbers are not ordered");
  RS_TRY(rs_cuda_enter(b));
  Sort st{b, p, static_cast<cudaStream_t>(stream), rs_cuda_ops_grid(b, p->rows * p->n, 4, 16)};
  return p->rows == 1 ? sort_one_row(st) : sort_rows(st);
}
