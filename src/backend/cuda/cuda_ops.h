/* Private to the CUDA backend's array-operation files (cuda_ops*.c, cuda_ops*.cu): the
 * per-device state they share (scratch memory, generated kernels, library handles) and
 * the entry points of the op table. C and C++ clean. */
#ifndef RS_BACKEND_CUDA_OPS_H
#define RS_BACKEND_CUDA_OPS_H

#include <stddef.h>
#include <stdint.h>
#include "backend/cuda/cuda_internal.h"
#include "backend/jit.h"
#include "backend/ops_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of the library's own kernels. */
#define RS_CUDA_OPS_BLOCK 256

/* What every op needs to know about b's device (filled once per device). */
typedef struct rs_cuda_ops_device {
  int device;
  int cc_major, cc_minor;
  int multiprocessors;
} rs_cuda_ops_device;

rs_status rs_cuda_ops_device_info(rs_backend *b, rs_cuda_ops_device *out);

/* A grid for n elements, `per_thread` each, at most `waves` blocks per multiprocessor
 * (grid-stride loops cover the rest). At least 1. */
unsigned rs_cuda_ops_grid(rs_backend *b, int64_t n, int per_thread, int waves);

/* Scratch memory ordered on a stream, from a pool private to the ops (kept between calls
 * so large sorts do not pay for cudaMalloc every time; trimmed and retried when the
 * device runs out). */
rs_status rs_cuda_ops_scratch(rs_backend *b, size_t bytes, void *stream, void **out);
void rs_cuda_ops_scratch_free(void *ptr, void *stream);
/* The scratch pool of b's device: bytes held, and a trim (see rs_backend_vtable's
 * ops_scratch_held / ops_scratch_release). A device whose ops never ran holds 0. */
rs_status rs_cuda_ops_scratch_held(rs_backend *b, size_t *bytes);
rs_status rs_cuda_ops_scratch_release(rs_backend *b, int wait);

/* A generated kernel: `key` (key_len bytes) identifies it in this process; on a miss
 * make_source() writes the CUDA C (malloc'ed), which is compiled by this backend's NVRTC
 * path through the jit service of the plan (src/backend/jit.h: the kernel cache, in
 * memory and cache_dir on disk). *fn is a cudaKernel_t. */
typedef rs_status (*rs_cuda_source_fn)(char **source, void *arg);
rs_status rs_cuda_ops_kernel(rs_backend *b, const void *key, size_t key_len, const char *name, int uses_barrier,
                             const rs_jit_service *jit, const char *cache_dir, size_t cache_max,
                             rs_cuda_source_fn make_source, void *arg, void **fn);

/* The device code every generated kernel starts with: value classes, loads and stores of
 * each dtype, conversions and every op (cuda_ops_prelude.cuh, embedded at build time). */
extern const char rs_cuda_ops_prelude[];

/* What an elementwise kernel is specialized for besides its program. */
typedef struct rs_cuda_ew_shape {
  int ndim, narrays;
  int idx32;          /* every index fits 32 bits */
  int lanes;          /* > 0: the contiguous variant (ndim 1, every array flat and aligned to
                         lanes x its itemsize), `lanes` elements per thread as vectors */
  unsigned broadcast; /* contiguous variant: bit a set when input a is one element read by all */
} rs_cuda_ew_shape;

/* Source of the elementwise kernel "rs_ew" for program p in shape s. */
rs_status rs_cuda_ew_source(char **out, const rs_ew_program *p, const rs_cuda_ew_shape *s);

/* The parameter block the generated kernel takes (8-byte words, see the source). */
size_t rs_cuda_ew_params(uint64_t *words, size_t max_words, const rs_ew_program *p, const rs_ew_geom *g);

/* Reduction kernels: "rs_reduce" (one thread per output, or a block per output in
 * `split` chunks writing partials) and "rs_reduce_final" (partials to outputs). */
rs_status rs_cuda_reduce_source(char **out, const rs_reduce_plan *p, int mode);

/* Sum and mean of float32 / float64 along the middle axis of a contiguous outer x n x
 * inner block, the kept axes innermost and at least a warp wide (cuda_ops_col_sum.cu):
 * whether plan p is such a case, and the reduction (RS_ERR_UNSUPPORTED when it is not). */
int rs_cuda_col_sum_fits(const rs_reduce_plan *p);
rs_status rs_cuda_col_sum(rs_backend *b, const rs_reduce_plan *p, void *stream);

/* Whole-array reductions of a contiguous input through CUB (cuda_ops_cub.cu): sum, min
 * and max of float32, float64, int32, int64 (sums accumulate in double / int64). The
 * result (accumulator type) goes to acc; RS_ERR_UNSUPPORTED for other cases. */
rs_status rs_cuda_cub_reduce(rs_backend *b, int op, rs_dtype dtype, const void *in, int64_t n, void *acc,
                             void *stream);
/* acc (the accumulator of rs_cuda_cub_reduce) converted into out (dtype out_dtype), divided
 * by `count` for a mean. */
rs_status rs_cuda_cub_finish(rs_backend *b, int op, rs_dtype dtype, const void *acc, void *out, rs_dtype out_dtype,
                             int64_t count, void *stream);

/* Linear algebra helpers (cuda_ops_linalg_kernels.cu): max |G - I| of an n x n matrix
 * (float64 or float32) brought to the host (the call waits); and *out = 1 if any of n
 * device flags is nonzero, else 0 (ordered on stream). */
rs_status rs_cuda_orth_error(rs_backend *b, int f64, const void *g, int64_t n, double *host_out, void *stream);
rs_status rs_cuda_flags_any(const int *flags, int64_t n, int32_t *out, void *stream);
/* linalg extension (cuda_ops_factor_kernels.cu): zero the strict upper (upper = 1) or
 * lower triangle of batch column-major m x n matrices of item-byte elements, in their
 * first `rows` rows; det, sign and
 * log|det| (each may be NULL) of batch LU-factored n x n matrices with 1-based pivots;
 * out[i] = base + i * stride (void *, count of them), the pointer arrays of batched calls. */
rs_status rs_cuda_zero_triangle(rs_backend *b, size_t item, void *a, int64_t batch, int64_t m, int64_t n, int64_t rows,
                                int upper, void *stream);
rs_status rs_cuda_pointer_array(void *out, void *base, size_t stride, int64_t count, void *stream);
/* ipiv: int32 pivots (cuBLAS's batched LU) when piv32, else int64 (cusolverDnXgetrf);
 * info: NULL, or per-matrix flags whose > 0 marks an exactly singular matrix. */
rs_status rs_cuda_lu_det(rs_dtype dt, const void *lu, const void *ipiv, int piv32, const int *info, int64_t batch, int64_t n,
                         void *det, void *sign, void *logabs, void *stream);

/* The op table's entries, one file per concern. */
rs_status rs_cuda_ops_ew(rs_backend *b, const rs_ew_program *p, const rs_ew_geom *g, void *stream);
rs_status rs_cuda_ops_reduce(rs_backend *b, const rs_reduce_plan *p, void *stream);
rs_status rs_cuda_ops_sort(rs_backend *b, const rs_sort_plan *p, void *stream);
rs_status rs_cuda_ops_random(rs_backend *b, const rs_random_plan *p, void *stream);
rs_status rs_cuda_ops_matmul(rs_backend *b, const rs_matmul_plan *p, void *stream);
rs_status rs_cuda_ops_svd(rs_backend *b, const rs_svd_plan *p, void *stream);
rs_status rs_cuda_ops_solve(rs_backend *b, const rs_solve_plan *p, void *stream);
/* stats: cumulative sums and products through CUB (cuda_ops_scan.cu) */
rs_status rs_cuda_ops_scan(rs_backend *b, const rs_scan_plan *p, void *stream);
/* stats: var / std of contiguous rows through CUB's reductions (cuda_ops_moments.cu) */
rs_status rs_cuda_ops_moments(rs_backend *b, const rs_moments_plan *p, void *stream);
/* linalg extension (cuda_ops_factor.c) */
rs_status rs_cuda_ops_factor(rs_backend *b, const rs_factor_plan *p, void *stream);
/* *done = 1 when a batched cuSOLVER call did the plan (cuda_ops_factor_batched.c) */
rs_status rs_cuda_factor_batched(rs_backend *b, const rs_factor_plan *p, void *stream, int *done);

#ifdef __cplusplus
}
#endif
#endif
