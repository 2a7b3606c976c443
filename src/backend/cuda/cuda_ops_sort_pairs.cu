// CUB radix sort of keys with int64 values (see cuda_ops_sort.h): four instantiations.
#include <cub/device/device_radix_sort.cuh>
#include "backend/cuda/cuda_ops_sort.h"

namespace {
template <typename K>
cudaError_t sort_pairs(void *tmp, size_t *bytes, void *k0, void *k1, int64_t *v0, int64_t *v1, int *selector,
                       int64_t n, int end_bit, cudaStream_t s) {
  cub::DoubleBuffer<K> keys(static_cast<K *>(k0), static_cast<K *>(k1));
  cub::DoubleBuffer<int64_t> values(v0, v1);
  cudaError_t err = cub::DeviceRadixSort::SortPairs(tmp, *bytes, keys, values, n, 0, end_bit, s);
  if (selector) *selector = values.selector;
  return err;
}
}  // namespace

cudaError_t rs_cub_sort_pairs(int key, void *tmp, size_t *bytes, void *k0, void *k1, int64_t *v0, int64_t *v1,
                              int *selector, int64_t n, int end_bit, cudaStream_t s) {
  switch (key) {
    case RS_CUB_F32: return sort_pairs<float>(tmp, bytes, k0, k1, v0, v1, selector, n, end_bit, s);
    case RS_CUB_F64: return sort_pairs<double>(tmp, bytes, k0, k1, v0, v1, selector, n, end_bit, s);
    case RS_CUB_U32: return sort_pairs<uint32_t>(tmp, bytes, k0, k1, v0, v1, selector, n, end_bit, s);
    default: return sort_pairs<uint64_t>(tmp, bytes, k0, k1, v0, v1, selector, n, end_bit, s);
  }
}
