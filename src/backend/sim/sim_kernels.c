/* The backend's built-in kernels, as native loops run by the stream's worker over the
 * thread pool. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* Below this many elements the pool's hand-off costs more than the loop. */
#define SIM_PAR_ELEMENTS 65536

typedef struct axpb_task {
  rs_backend *b;
  void *x;
  int64_t n;
  double a, c;
  int f32;
} axpb_task;

/* fma, because nvcc contracts x * a + c into one fused instruction by default: the two
 * backends then round the same way and agree bit for bit. */
static void axpb_range(int64_t begin, int64_t end, void *arg) {
  const axpb_task *t = arg;
  if (t->f32) {
    float *x = t->x, a = (float)t->a, c = (float)t->c;
    for (int64_t i = begin; i < end; i++) x[i] = fmaf(x[i], a, c);
  } else {
    double *x = t->x, a = t->a, c = t->c;
    for (int64_t i = begin; i < end; i++) x[i] = fma(x[i], a, c);
  }
}

static void run_axpb(void *arg) {
  axpb_task *t = arg;
  if (t->n >= SIM_PAR_ELEMENTS)
    rs_sim_parallel_for(t->b, t->n, axpb_range, t);
  else
    axpb_range(0, t->n, t);
}

rs_status sim_kernel_axpb(rs_backend *b, rs_dtype dtype, void *x, int64_t n, double a, double c,
                          void *stream) {
  if (dtype != RS_FLOAT32 && dtype != RS_FLOAT64)
    return rs_fail(RS_ERR_DTYPE, "sim kernel_axpb: dtype %d is not float32 or float64", (int)dtype);
  if (n < 0) return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim kernel_axpb: n = %lld", (long long)n);
  if (n == 0) return RS_OK;
  if (!x) return rs_fail(RS_ERR_NULL_POINTER, "sim kernel_axpb: x is NULL");
  size_t item = dtype == RS_FLOAT32 ? 4 : 8;
  if ((uint64_t)n > (uint64_t)INT64_MAX / item)
    return rs_fail(RS_ERR_OVERFLOW, "sim kernel_axpb: %lld elements overflow", (long long)n);
  RS_TRY(sim_check_device_range(b, x, 0, n * (int64_t)item, "sim kernel_axpb"));
  axpb_task *t = malloc(sizeof *t);
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim kernel_axpb: out of host memory");
  *t = (axpb_task){b, rs_sim_translate(x), n, a, c, dtype == RS_FLOAT32};
  rs_status st = sim_submit(b, stream, "sim kernel_axpb", run_axpb, t, free, 0);
  if (st != RS_OK) free(t);
  return st;
}

typedef struct sleep_task {
  double ms;
} sleep_task;

static void run_sleep(void *arg) {
  const sleep_task *t = arg;
  double s = t->ms / 1000.0;
  struct timespec left = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  if (left.tv_nsec > 999999999) left.tv_nsec = 999999999; /* rounding at the top end */
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

rs_status sim_kernel_sleep(rs_backend *b, double ms, void *stream) {
  if (!(ms >= 0 && ms <= 86400000.0))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim kernel_sleep: %g ms is not a valid delay", ms);
  sleep_task *t = malloc(sizeof *t);
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim kernel_sleep: out of host memory");
  t->ms = ms;
  rs_status st = sim_submit(b, stream, "sim kernel_sleep", run_sleep, t, free, 0);
  if (st != RS_OK) free(t);
  return st;
}
