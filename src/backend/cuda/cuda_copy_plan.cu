// The strided copy's planner: one description of a copy turned into the smallest
// equivalent one, which the kernels of cuda_copy.cu and cuda_copy_rows.cu run.
#include "backend/cuda/cuda_copy_plan.h"
#include "core/checked.h"

namespace {

int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

uintptr_t alignment_bits(const RsCopyPlan &p, int skip) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(p.dst) | reinterpret_cast<uintptr_t>(p.src);
  for (int k = 0; k < p.ndim; ++k)
    if (k != skip) bits |= static_cast<uintptr_t>(abs64(p.ds[k]) | abs64(p.ss[k]));
  return bits;
}

}  // namespace

bool rs_cuda_copy_span(const RsCopyPlan &p, const int64_t *strides, int64_t *out) {
  int64_t total = 0;
  for (int k = 0; k < p.ndim; ++k) {
    int64_t part;
    if (rs_mul_i64(p.shape[k] - 1, abs64(strides[k]), &part) || rs_add_i64(total, part, &total))
      return false;
  }
  *out = total;
  return true;
}

// Build the smallest equivalent copy: drop unit dims, make dst strides positive, split
// items the pointers are not aligned for, order dims by dst stride so writes coalesce,
// fuse dims contiguous in both views, widen a contiguous inner run to bigger words.
rs_status rs_cuda_copy_plan(const rs_strided_copy *c, RsCopyPlan &p) {
  p.dst = static_cast<char *>(c->dst);
  p.src = static_cast<const char *>(c->src);
  p.itemsize = c->itemsize;
  p.ndim = 0;
  p.count = 1;
  for (int k = 0; k < c->ndim; ++k) {
    const int64_t n = c->shape[k];
    if (n < 0) return rs_fail(RS_ERR_SHAPE, "copy_strided_async: shape[%d] = %lld is negative", k, (long long)n);
    if (rs_mul_i64(p.count, n, &p.count))
      return rs_fail(RS_ERR_OVERFLOW, "copy_strided_async: element count overflows int64");
  }
  if (p.count == 0) return RS_OK;
  for (int k = 0; k < c->ndim; ++k) {
    int64_t n = c->shape[k], d = c->dst_strides[k], s = c->src_strides[k];
    if (n == 1) continue;
    if (d == 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "copy_strided_async: dst stride 0 on axis %d of length %lld writes one "
                     "element many times",
                     k, (long long)n);
    if (d < 0) {  // walk the axis backwards in both views: same pairs, positive dst stride
      p.dst += (n - 1) * d;
      p.src += (n - 1) * s;
      d = -d;
      s = -s;
    }
    p.shape[p.ndim] = n;
    p.ds[p.ndim] = d;
    p.ss[p.ndim] = s;
    ++p.ndim;
  }
  int64_t span;
  if (!rs_cuda_copy_span(p, p.ds, &span) || !rs_cuda_copy_span(p, p.ss, &span))
    return rs_fail(RS_ERR_OVERFLOW, "copy_strided_async: strides reach beyond 2^63 bytes");

  size_t align = p.itemsize;
  const uintptr_t bits = alignment_bits(p, -1);
  while (bits & (align - 1)) align >>= 1;
  if (align < p.itemsize) {
    p.shape[p.ndim] = static_cast<int64_t>(p.itemsize / align);
    p.ds[p.ndim] = p.ss[p.ndim] = static_cast<int64_t>(align);
    ++p.ndim;
    p.count *= static_cast<int64_t>(p.itemsize / align);
    p.itemsize = align;
  }

  for (int k = 1; k < p.ndim; ++k) {  // insertion sort: few dims, stable
    const int64_t n = p.shape[k], d = p.ds[k], s = p.ss[k];
    int j = k - 1;
    while (j >= 0 && (p.ds[j] < d || (p.ds[j] == d && abs64(p.ss[j]) < abs64(s)))) {
      p.shape[j + 1] = p.shape[j];
      p.ds[j + 1] = p.ds[j];
      p.ss[j + 1] = p.ss[j];
      --j;
    }
    p.shape[j + 1] = n;
    p.ds[j + 1] = d;
    p.ss[j + 1] = s;
  }

  int out = 0;
  for (int k = 0; k < p.ndim; ++k) {
    if (out > 0 && rs_stride_follows(p.ds[out - 1], p.ds[k], p.shape[k]) &&
        rs_stride_follows(p.ss[out - 1], p.ss[k], p.shape[k])) {
      p.shape[out - 1] *= p.shape[k];
      p.ds[out - 1] = p.ds[k];
      p.ss[out - 1] = p.ss[k];
    } else {
      p.shape[out] = p.shape[k];
      p.ds[out] = p.ds[k];
      p.ss[out] = p.ss[k];
      ++out;
    }
  }
  p.ndim = out;
  if (p.ndim == 0) {  // a single element
    p.ndim = 1;
    p.shape[0] = 1;
    p.ds[0] = p.ss[0] = static_cast<int64_t>(p.itemsize);
  }

  const int in = p.ndim - 1;
  const int64_t item = static_cast<int64_t>(p.itemsize);
  if (p.ds[in] == item && p.ss[in] == item) {
    const int64_t bytes = p.shape[in] * item;
    const uintptr_t rest = alignment_bits(p, in);
    for (int64_t w = 16; w > item; w >>= 1) {
      if (bytes % w == 0 && (rest & static_cast<uintptr_t>(w - 1)) == 0) {
        p.count = p.count / p.shape[in] * (bytes / w);
        p.shape[in] = bytes / w;
        p.ds[in] = p.ss[in] = w;
        p.itemsize = static_cast<size_t>(w);
        break;
      }
    }
    if (p.shape[in] == 1 && p.ndim > 1) --p.ndim;  // a row became one word: no axis left
  }
  return RS_OK;
}

