/* Private to the CUDA sort files: the CUB radix sorts (one translation unit for keys,
 * one for pairs, so the two heavy instantiation sets compile in parallel). Keys are
 * float, double, uint32 or uint64 (every other dtype is mapped onto uint32/uint64 keys
 * of the same order first); values are int64 indices. The result is in buffer
 * *selector (0 or 1) afterwards, as CUB's DoubleBuffer leaves it. */
#ifndef RS_BACKEND_CUDA_OPS_SORT_H
#define RS_BACKEND_CUDA_OPS_SORT_H

#include <cstdint>
#include <cuda_runtime_api.h>

enum rs_cub_key { RS_CUB_F32 = 0, RS_CUB_F64 = 1, RS_CUB_U32 = 2, RS_CUB_U64 = 3 };

/* With tmp NULL, *bytes receives the temporary storage needed. */
cudaError_t rs_cub_sort_keys(int key, void *tmp, size_t *bytes, void *k0, void *k1, int *selector, int64_t n,
                             int end_bit, cudaStream_t s);
cudaError_t rs_cub_sort_pairs(int key, void *tmp, size_t *bytes, void *k0, void *k1, int64_t *v0, int64_t *v1,
                              int *selector, int64_t n, int end_bit, cudaStream_t s);

#endif
