/* tests/known_kernels.h - known device work for the tests, as user kernels (the library
 * has no demo kernels of its own):
 *
 *   rs_t_sleep(ctx, ms, stream)  keeps `stream` busy for ms milliseconds of device time
 *                                (a busy wait on the device clock), the kernel "busy_sleep";
 *   rs_t_axpb(x, a, c, stream)   x = x * a + c for float32 / float64 through the launch
 *                                path, the kernel "axpb": a host x is copied in and back
 *                                implicitly, recorded by the ledger, subject to the guard.
 *
 * They are compiled once per context and kept until the context is destroyed (the
 * rs_context_destroy below forgets them first, so a new context at the same address never
 * sees a dead one's kernels). Thread-safe.
 */
#ifndef RS_TEST_KNOWN_KERNELS_H
#define RS_TEST_KNOWN_KERNELS_H

#include <pthread.h>
#include "resident/kernel.h"

/* The simulator compiles with the host compiler and refuses inline PTX, so each backend
 * gets its own clock: %globaltimer (nanoseconds, independent of the SM clock) on CUDA,
 * the shim's clock64() (monotonic nanoseconds) on the simulator. */
#define RS_T_SLEEP_BODY                                                  \
  "extern \"C\" __global__ void busy_sleep(unsigned long long ns) {\n"   \
  "  unsigned long long t0 = now_ns();\n"                                \
  "  while (now_ns() - t0 < ns) __nanosleep(1000);\n"                    \
  "}\n"
static const char *const rs_t_sleep_src_cuda_ =
    "__device__ unsigned long long now_ns() {\n"
    "  unsigned long long t;\n"
    "  asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));\n"
    "  return t;\n"
    "}\n" RS_T_SLEEP_BODY;
static const char *const rs_t_sleep_src_sim_ =
    "__device__ unsigned long long now_ns() { return (unsigned long long)clock64(); }\n" RS_T_SLEEP_BODY;

/* REAL is float or double (-DREAL=...); a grid-stride loop, so a few blocks cover any size. */
static const char *const rs_t_axpb_src_ =
    "extern \"C\" __global__ void axpb(REAL *x, long long n, REAL a, REAL c) {\n"
    "  long long step = (long long)gridDim.x * blockDim.x;\n"
    "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)\n"
    "    x[i] = x[i] * a + c;\n"
    "}\n";

typedef struct rs_t_kernel_set_ {
  rs_context *ctx;
  rs_kernel *sleep, *axpb_f32, *axpb_f64;
} rs_t_kernel_set_;

#define RS_T_KERNEL_CONTEXTS 16
static rs_t_kernel_set_ rs_t_kernels_table_[RS_T_KERNEL_CONTEXTS];
static pthread_mutex_t rs_t_kernels_lock_ = PTHREAD_MUTEX_INITIALIZER;

static inline rs_status rs_t_kernels_build_(rs_t_kernel_set_ *k, rs_context *ctx) {
  const char *f32[] = {"-DREAL=float"}, *f64[] = {"-DREAL=double"};
  rs_kernel_options o32 = {.noptions = 1, .options = f32}, o64 = {.noptions = 1, .options = f64};
  const char *sleep_src = rs_context_backend(ctx) == RS_BACKEND_CUDA ? rs_t_sleep_src_cuda_ : rs_t_sleep_src_sim_;
  rs_status st = rs_kernel_create(&k->sleep, ctx, sleep_src, "busy_sleep", NULL);
  if (st == RS_OK) st = rs_kernel_create(&k->axpb_f32, ctx, rs_t_axpb_src_, "axpb", &o32);
  if (st == RS_OK) st = rs_kernel_create(&k->axpb_f64, ctx, rs_t_axpb_src_, "axpb", &o64);
  if (st == RS_OK) k->ctx = ctx;
  return st;
}

/* ctx's kernels, compiled on first use. */
static inline rs_status rs_t_kernels_(rs_t_kernel_set_ **out, rs_context *ctx) {
  rs_status st = RS_OK;
  pthread_mutex_lock(&rs_t_kernels_lock_);
  rs_t_kernel_set_ *free_slot = NULL;
  *out = NULL;
  for (int i = 0; i < RS_T_KERNEL_CONTEXTS && !*out; i++) {
    if (rs_t_kernels_table_[i].ctx == ctx) *out = &rs_t_kernels_table_[i];
    else if (!rs_t_kernels_table_[i].ctx && !free_slot) free_slot = &rs_t_kernels_table_[i];
  }
  if (!*out) {
    if (!free_slot) {
      st = RS_ERR_STATE; /* more live contexts than the table holds */
    } else {
      rs_t_kernel_set_ k = {0};
      st = rs_t_kernels_build_(&k, ctx);
      if (st == RS_OK) {
        *free_slot = k;
        *out = free_slot;
      } else {
        rs_kernel_destroy(k.sleep);
        rs_kernel_destroy(k.axpb_f32);
        rs_kernel_destroy(k.axpb_f64);
      }
    }
  }
  pthread_mutex_unlock(&rs_t_kernels_lock_);
  return st;
}

static inline void rs_t_kernels_forget_(rs_context *ctx) {
  pthread_mutex_lock(&rs_t_kernels_lock_);
  for (int i = 0; i < RS_T_KERNEL_CONTEXTS; i++) {
    rs_t_kernel_set_ *k = &rs_t_kernels_table_[i];
    if (!ctx || k->ctx != ctx) continue;
    rs_kernel_destroy(k->sleep);
    rs_kernel_destroy(k->axpb_f32);
    rs_kernel_destroy(k->axpb_f64);
    memset(k, 0, sizeof *k);
  }
  pthread_mutex_unlock(&rs_t_kernels_lock_);
}

static inline rs_status rs_t_context_destroy_(rs_context *ctx) {
  rs_t_kernels_forget_(ctx);
  return (rs_context_destroy)(ctx);
}
#define rs_context_destroy(ctx) rs_t_context_destroy_(ctx)

/* Compile ctx's kernels now, outside any timed or counted region. */
static inline rs_status rs_t_kernels_warm(rs_context *ctx) {
  rs_t_kernel_set_ *k = NULL;
  return rs_t_kernels_(&k, ctx);
}

static inline rs_status rs_t_sleep(rs_context *ctx, double ms, rs_stream *stream) {
  if (!ctx) return RS_ERR_NULL_POINTER;
  if (!(ms >= 0 && ms <= 60000)) return RS_ERR_INVALID_ARGUMENT;
  rs_t_kernel_set_ *k = NULL;
  rs_status st = rs_t_kernels_(&k, ctx);
  if (st != RS_OK) return st;
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .stream = stream};
  return rs_kernel_launch(k->sleep, &cfg, RS_ARGS(rs_arg_u64((unsigned long long)(ms * 1e6))));
}

static inline rs_status rs_t_axpb(rs_array *x, double a, double c, rs_stream *stream) {
  rs_dtype dt = rs_array_dtype(x);
  if (dt != RS_FLOAT32 && dt != RS_FLOAT64) return RS_ERR_DTYPE;
  rs_t_kernel_set_ *k = NULL;
  rs_status st = rs_t_kernels_(&k, rs_array_context(x));
  if (st != RS_OK) return st;
  long long n = (long long)rs_array_size(x);
  rs_launch_config cfg = {.grid = {(unsigned)(n / 256 + 1 < 64 ? n / 256 + 1 : 64)}, .block = {256}, .stream = stream};
  if (dt == RS_FLOAT32)
    return rs_kernel_launch(k->axpb_f32, &cfg,
                            RS_ARGS(rs_arg_array(x), rs_arg_i64(n), rs_arg_f32((float)a), rs_arg_f32((float)c)));
  return rs_kernel_launch(k->axpb_f64, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i64(n), rs_arg_f64(a), rs_arg_f64(c)));
}

#endif
