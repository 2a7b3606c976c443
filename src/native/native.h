/* Internal: the native loops of the array operations. Written once, they run in two
 * places: as the simulator's device work (queued on a stream, spread over its thread
 * pool) and as the host path (ops on host arrays, run at once on the calling thread).
 * `pool` is the thread pool to spread the work over, or NULL for the calling thread only.
 * All pointers are host-usable (the simulator translates device pointers before the work
 * runs). The loops cannot fail: whatever may fail is checked or allocated by the caller
 * beforehand.
 */
#ifndef RS_NATIVE_H
#define RS_NATIVE_H

#include <complex.h>
/* glibc defines CMPLX/CMPLXF for GCC >= 4.7 only; clang (the fuzz build) has the builtin. */
#if !defined(CMPLX) && defined(__clang__)
#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))
#endif
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "core/error.h"
#include "core/host_pages.h"
#include "core/thread_pool.h"
#include "native/plans.h"

/* The C type of each value class. */
typedef uint8_t rs_vb;
typedef int64_t rs_vi;
typedef uint64_t rs_vu;
typedef float rs_vf;
typedef double rs_vd;
typedef float _Complex rs_vc;
typedef double _Complex rs_vz;

/* Elements per block of the blocked loops: small enough that the registers of a 64-node
 * program (64 x 64 x 16 bytes) fit on a thread's stack. */
#define RS_NAT_BLOCK 64

size_t rs_cls_size(rs_cls c);

/* body over [0, n) in chunks: on the pool, or here when pool is NULL. */
static inline void rs_native_for(rs_thread_pool *pool, int64_t n,
                                 void (*body)(int64_t begin, int64_t end, void *arg), void *arg) {
  if (pool)
    rs_thread_pool_run(pool, n, body, arg);
  else
    body(0, n, arg);
}

/* Worth spreading over threads? Below this much work the pool's hand-off costs more than
 * it saves. */
static inline int rs_native_parallel(rs_thread_pool *pool, int64_t work) {
  return pool && work >= 65536 && rs_thread_pool_threads(pool) > 1;
}

/* Scratch memory for a loop that asks for it (*out NULL when bytes is 0), allocated
 * before the work so the work cannot fail. `who` names the caller in the message. */
static inline rs_status rs_native_scratch(void **out, size_t bytes, const char *who) {
  *out = NULL;
  if (bytes == 0) return RS_OK;
  *out = malloc(bytes);
  if (!*out) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: no host memory for %zu bytes of scratch", who, bytes);
  rs_host_advise_huge(*out, bytes); /* a sort's scatter over it misses the TLB far less */
  return RS_OK;
}

/* A batch of independent matrices: body over [0, batch) (on the pool when `work` is worth
 * it), then *info is 1 if any matrix raised its flag, else 0. */
static inline void rs_native_batch(rs_thread_pool *pool, int64_t batch, int64_t work,
                                   void (*body)(int64_t begin, int64_t end, void *arg), void *job,
                                   const int32_t *flags, int32_t *info) {
  if (batch > 1 && rs_native_parallel(pool, work))
    rs_native_for(pool, batch, body, job);
  else
    body(0, batch, job);
  int32_t any = 0;
  for (int64_t q = 0; q < batch; q++)
    if (flags[q]) any = 1;
  *info = any;
}

/* ---- the host path's thread pool (native_pool.c) ---- */
/* The count the pool starts with (0: one per online CPU, at most RS_HOST_MAX_THREADS,
 * core/config.h); called at every context creation, the first call sets it. */
void rs_native_host_threads_request(int threads);
/* Threads the host ops use (the pool's, or what it will start with). */
int rs_native_host_threads(void);
/* The pool, started on first call; *out NULL when one thread is asked for (the caller's
 * own). Fails only when a thread cannot be started. */
rs_status rs_native_host_pool(rs_thread_pool **out);
/* Tests only, while no host op runs: stop the pool; the next use starts `threads`. */
void rs_native_host_pool_restart(int threads);

/* ---- values (native_convert.c) ---- */
/* n elements of dtype dt at base + i * stride (or base + offs[i] when offs is given)
 * into dt's class / from dt's class. */
void rs_nat_load(rs_dtype dt, const char *base, int64_t stride, const int64_t *offs, int n, void *dst);
void rs_nat_store(rs_dtype dt, const void *src, char *base, int64_t stride, const int64_t *offs, int n);
/* Between classes (values as astype converts them). */
void rs_nat_convert(rs_cls from, const void *src, rs_cls to, void *dst, int n);
/* Round / wrap values in dt's class to what dt holds (int8 wraps, float16 rounds). */
void rs_nat_normalize(rs_dtype dt, void *buf, int n);
/* n copies of a scalar as dt (in dt's class). */
void rs_nat_const(rs_scalar s, rs_dtype dt, void *dst, int n);

/* ---- math (native_math.c): operands in arg's class, results in res's class ---- */
void rs_nat_unary(int op, rs_dtype arg, rs_dtype res, const void *x, void *r, int n);
void rs_nat_binary(int op, rs_dtype arg, rs_dtype res, const void *x, const void *y, void *r, int n);

/* Sums of n contiguous values in double, pairwise as NumPy sums (native_pairwise.c). */
double rs_nat_pairwise_f(const float *x, int64_t n);
double rs_nat_pairwise_d(const double *x, int64_t n);

/* ---- the operations ---- */
void rs_native_ew(rs_thread_pool *pool, const rs_ew_program *p, const rs_ew_geom *g);

size_t rs_native_reduce_scratch(const rs_reduce_plan *p);
void rs_native_reduce(rs_thread_pool *pool, const rs_reduce_plan *p, void *scratch);

size_t rs_native_sort_scratch(const rs_sort_plan *p);
void rs_native_sort(rs_thread_pool *pool, const rs_sort_plan *p, void *scratch);

void rs_native_random(rs_thread_pool *pool, const rs_random_plan *p);

void rs_native_matmul(rs_thread_pool *pool, const rs_matmul_plan *p);

size_t rs_native_svd_scratch(const rs_svd_plan *p);
void rs_native_svd(rs_thread_pool *pool, const rs_svd_plan *p, void *scratch);

size_t rs_native_solve_scratch(const rs_solve_plan *p);
void rs_native_solve(rs_thread_pool *pool, const rs_solve_plan *p, void *scratch);

/* Inclusive scans, row by row (native_scan.c; rows spread over the pool). */
void rs_native_scan(rs_thread_pool *pool, const rs_scan_plan *p);
/* var / std of contiguous rows (native_moments.c; rows spread over the pool). */
void rs_native_moments(rs_thread_pool *pool, const rs_moments_plan *p);
/* linalg extension (native_factor.c): the factorizations of rs_factor_plan, through
 * LAPACKE; rs_native_factor_supported is 0 in a build without it, or for matrices beyond
 * LAPACK's 32-bit indices (the backends refuse the plan then). Zeroing a triangle and det
 * from LU factors are shared helpers. */
int rs_native_factor_supported(void);
int rs_native_factor_fits(const rs_factor_plan *p);
/* Both, as a status naming the missing library or the size (who: "host", "sim"). */
rs_status rs_native_factor_check(const rs_factor_plan *p, const char *who);
size_t rs_native_factor_scratch(const rs_factor_plan *p);
void rs_native_factor(const rs_factor_plan *p, void *scratch);
void rs_native_zero_triangle(rs_dtype dt, void *a, int64_t m, int64_t n, int64_t rows, int upper);
void rs_native_lu_det(rs_dtype dt, const void *lu, const int64_t *ipiv, int64_t n, void *det, void *sign, void *logabs,
                      int64_t q);

/* Philox4x32-10 (Salmon et al., SC'11): four 32-bit words of counter block `ctr` under
 * a 64-bit key. */
void rs_philox4x32(uint64_t key, uint64_t ctr, uint32_t out[4]);

#endif
