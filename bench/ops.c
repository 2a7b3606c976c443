/* bench/ops: resident's array operations on the seed workloads, timed the honest way
 * (rs_benchmark: warm-up excluded, device time from events, host time with a
 * synchronization), next to the device's measured copy bandwidth - the limit a
 * memory-bound kernel can approach. bench/ops.py runs this program and CuPy on the same
 * workloads in one process tree and prints them side by side.
 *
 *   ops [--quick] [--repeat N]
 *
 * Bandwidth workloads are timed twice, both medians:
 *   call:   rs_benchmark's event pair around one call after a synchronize. The GPU idles
 *           while the host prepares the launch, so this includes the host's latency
 *           (cupyx.profiler.benchmark times CuPy the same way).
 *   queued: QUEUED calls back to back between one event pair, divided by QUEUED: what
 *           each op costs in a loop where the host stays ahead of the GPU - the kernel's
 *           own time plus the GPU's gap between kernels. Kernel bandwidth targets are read
 *           on this one, against the copy timed the same way.
 *
 * Each workload prints a line for people and a "RESULT {json}" line for ops.py. --quick
 * shrinks every size (a smoke test, also on the simulator). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <resident.h>
#include "cli/normalize.h"

typedef struct work {
  rs_context *ctx;
  rs_array *x, *y, *z, *a, *u, *s, *vh;
  rs_expr *e;
  int root;
  rs_rng rng;
  int64_t n;
  double check;
} work;

#define QUEUED 20

/* read + write bytes per second of a device-to-device copy, per call and queued */
static double g_copy_gbs, g_copy_queued_gbs;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median over `repeat` samples of QUEUED back-to-back calls between two events, per call;
 * 0 where the device has no timing events (the host backend). */
static rs_status queued_ms(double *out, rs_context *ctx, rs_bench_fn fn, void *w, int repeat) {
  rs_event *a = NULL, *b = NULL;
  double *ms = calloc((size_t)repeat, sizeof *ms);
  rs_status st = ms ? RS_OK : RS_ERR_HOST_OUT_OF_MEMORY;
  *out = 0;
  if (st == RS_OK) st = rs_event_create(&a, ctx, 0);
  if (st == RS_OK) st = rs_event_create(&b, ctx, 0);
  for (int i = 0; i < QUEUED && st == RS_OK; i++) st = fn(w); /* warm-up */
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  for (int r = 0; r < repeat && st == RS_OK; r++) {
    st = rs_event_record(a, NULL);
    for (int i = 0; i < QUEUED && st == RS_OK; i++) st = fn(w);
    if (st == RS_OK) st = rs_event_record(b, NULL);
    if (st == RS_OK) st = rs_event_synchronize(b);
    float e = 0;
    if (st == RS_OK) st = rs_event_elapsed_ms(a, b, &e);
    ms[r] = e / QUEUED;
  }
  if (st == RS_OK) {
    qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
    *out = ms[repeat / 2];
  }
  rs_event_destroy(a);
  rs_event_destroy(b);
  free(ms);
  return st;
}

static void report(const char *name, const rs_bench_result *r, double queued, double bytes, const char *note) {
  double ms = r->device.median > 0 ? r->device.median : r->host.median;
  double gbs = bytes > 0 && ms > 0 ? bytes / (ms * 1e6) : 0;
  double qgbs = bytes > 0 && queued > 0 ? bytes / (queued * 1e6) : 0;
  printf("%-24s device %9.4f ms  host %9.4f ms", name, r->device.median, r->host.median);
  if (gbs > 0) printf("  %8.1f GB/s  %5.1f%% of copy", gbs, g_copy_gbs > 0 ? 100 * gbs / g_copy_gbs : 0);
  if (qgbs > 0)
    printf("  | queued %9.4f ms %8.1f GB/s %5.1f%% of copy", queued, qgbs,
           g_copy_queued_gbs > 0 ? 100 * qgbs / g_copy_queued_gbs : 0);
  if (note && note[0]) printf("  (%s)", note);
  printf("\n");
  printf("RESULT {\"name\": \"%s\", \"device_ms\": %.6f, \"host_ms\": %.6f, \"bytes\": %.0f, \"gbs\": %.3f, "
         "\"copy_gbs\": %.3f, \"queued_ms\": %.6f, \"queued_gbs\": %.3f, \"copy_queued_gbs\": %.3f, "
         "\"note\": \"%s\"}\n",
         name, r->device.median, r->host.median, bytes, gbs, g_copy_gbs, queued, qgbs, g_copy_queued_gbs,
         note ? note : "");
  fflush(stdout);
}

/* Times fn both ways (queued only for bandwidth workloads, bytes > 0); the figures in
 * *call_gbs / *queued_gbs when asked for. */
static int measure(const char *name, rs_bench_fn fn, work *w, double bytes, int repeat, const char *note,
                   double *call_gbs, double *queued_gbs) {
  rs_bench_result r = {0};
  rs_bench_options o = {3, repeat, NULL};
  rs_status st = rs_benchmark(w->ctx, name, fn, w, &o, &r);
  double queued = 0;
  if (st == RS_OK && bytes > 0 && r.device.median > 0) st = queued_ms(&queued, w->ctx, fn, w, repeat);
  if (st != RS_OK) {
    fprintf(stderr, "ops: %s: %s: %s\n", name, rs_status_name(st), rs_last_error());
    rs_bench_result_destroy(&r);
    return 1;
  }
  double ms = r.device.median > 0 ? r.device.median : r.host.median;
  if (call_gbs) *call_gbs = bytes > 0 && ms > 0 ? bytes / (ms * 1e6) : 0;
  if (queued_gbs) *queued_gbs = bytes > 0 && queued > 0 ? bytes / (queued * 1e6) : 0;
  report(name, &r, queued, bytes, note);
  rs_bench_result_destroy(&r);
  return 0;
}

static int run(const char *name, rs_bench_fn fn, work *w, double bytes, int repeat, const char *note) {
  return measure(name, fn, w, bytes, repeat, note, NULL, NULL);
}

static rs_status do_copy(void *p) {
  work *w = p;
  return rs_array_copy(w->y, w->x, NULL);
}
static rs_status do_ones_new(void *p) {
  work *w = p;
  rs_array_release(w->z);
  w->z = NULL;
  int64_t shape[3] = {50, 500, 500};
  return rs_ones(&w->z, w->ctx, RS_MEM_DEVICE, 3, shape, RS_FLOAT64, NULL);
}
static rs_status do_ones_into(void *p) { return rs_ones_into(((work *)p)->y, NULL); }
static rs_status do_scale(void *p) {
  work *w = p;
  return rs_multiply_scalar_into(w->y, w->x, rs_scalar_float(5), NULL);
}
static rs_status do_three(void *p) { /* x*5; x*x; x+x as three kernels */
  work *w = p;
  rs_status st = rs_multiply_scalar_into(w->y, w->x, rs_scalar_float(5), NULL);
  if (st == RS_OK) st = rs_multiply_into(w->y, w->y, w->y, NULL);
  if (st == RS_OK) st = rs_add_into(w->y, w->y, w->y, NULL);
  return st;
}
static rs_status do_fused(void *p) {
  work *w = p;
  return rs_expr_eval_into(w->y, w->e, w->root, NULL);
}
static rs_status do_sum(void *p) {
  work *w = p;
  /* the first (warm-up) call makes the result, later ones reuse it */
  return w->z ? rs_sum_into(w->z, w->x, 0, NULL, 0, NULL) : rs_sum(&w->z, w->x, 0, NULL, 0, NULL);
}
static rs_status do_rowsum(void *p) {
  work *w = p;
  int axis = 1;
  return w->z ? rs_sum_into(w->z, w->x, 1, &axis, 0, NULL) : rs_sum(&w->z, w->x, 1, &axis, 0, NULL);
}
static rs_status do_sort(void *p) {
  work *w = p;
  return rs_sort_into(w->y, w->x, NULL);
}
static rs_status do_normalize(void *p) { /* the seed exercise, all of it, one scalar back */
  work *w = p;
  rs_status st = rs_random_uniform_into(w->x, &w->rng, 0, 1, NULL);
  return st == RS_OK ? rs_normalize_exercise(w->x, &w->check) : st;
}
static rs_status do_svd(void *p) {
  work *w = p;
  if (w->s) return rs_svd_into(w->u, w->s, w->vh, w->a, 0, NULL);
  return rs_svd(&w->u, &w->s, &w->vh, w->a, 0, NULL);
}
static rs_status do_svd_full(void *p) {
  work *w = p;
  rs_array_release(w->u);
  rs_array_release(w->s);
  rs_array_release(w->vh);
  w->u = w->s = w->vh = NULL;
  return rs_svd(&w->u, &w->s, &w->vh, w->a, 1, NULL);
}

static void reset(work *w) {
  rs_array *all[] = {w->x, w->y, w->z, w->a, w->u, w->s, w->vh};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rs_array_release(all[i]);
  rs_expr_destroy(w->e);
  rs_context *ctx = w->ctx;
  memset(w, 0, sizeof *w);
  w->ctx = ctx;
  w->rng = rs_rng_seed(1);
}

/* SVD errors with the library's own ops: max |A - U S Vh| / max |A| and max |U^T U - I|. */
static void svd_errors(work *w, double *rec, double *orth) {
  rs_array *sx = NULL, *us = NULL, *back = NULL, *ut = NULL, *utu = NULL, *eye = NULL;
  rs_close_report r;
  *rec = *orth = NAN;
  int64_t k = rs_array_shape(w->s)[0];
  if (rs_array_expand_dims(&sx, w->s, 0) == RS_OK && rs_multiply(&us, w->u, sx, NULL) == RS_OK &&
      rs_matmul(&back, us, w->vh, NULL) == RS_OK && rs_allclose_report(back, w->a, 0, 0, 0, &r, NULL) == RS_OK)
    *rec = r.max_abs_diff;
  if (rs_array_transpose(&ut, w->u) == RS_OK && rs_matmul(&utu, ut, w->u, NULL) == RS_OK &&
      rs_eye(&eye, w->ctx, RS_MEM_DEVICE, k, k, 0, RS_FLOAT64, NULL) == RS_OK &&
      rs_allclose_report(utu, eye, 0, 0, 0, &r, NULL) == RS_OK)
    *orth = r.max_abs_diff;
  rs_array *all[] = {sx, us, back, ut, utu, eye};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rs_array_release(all[i]);
}

#define TRY(x)                                                                          \
  do {                                                                                  \
    rs_status s_ = (x);                                                                 \
    if (s_ != RS_OK) {                                                                  \
      fprintf(stderr, "ops: %s: %s: %s\n", #x, rs_status_name(s_), rs_last_error());    \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main(int argc, char **argv) {
  int quick = 0, repeat = 20;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0) quick = 1;
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
  }
  int64_t div = quick ? 100 : 1;
  work w = {0};
  TRY(rs_context_create(&w.ctx, RS_BACKEND_AUTO, 0));
  rs_device_props props;
  TRY(rs_context_get_props(w.ctx, &props));
  printf("bench/ops: resident %s on %s (%s backend)%s\n", rs_version(), props.name,
         rs_backend_name(rs_context_backend(w.ctx)), quick ? ", quick sizes" : "");
  int fails = 0;
  reset(&w);
  /* the limit: a device-to-device copy of 400 MB (bytes read + written) */
  int64_t ncopy = 50000000 / div;
  TRY(rs_empty(&w.x, w.ctx, RS_MEM_DEVICE, 1, &ncopy, RS_FLOAT64));
  TRY(rs_empty(&w.y, w.ctx, RS_MEM_DEVICE, 1, &ncopy, RS_FLOAT64));
  if (measure("d2d copy (the limit)", do_copy, &w, 16.0 * (double)ncopy, repeat, "read + write", &g_copy_gbs,
              &g_copy_queued_gbs))
    return 1;
  /* ones (50, 500, 500) float64: 100 MB written */
  reset(&w);
  int64_t oshape[3] = {50, 500 / (quick ? 10 : 1), 500 / (quick ? 10 : 1)};
  double obytes = 8.0 * (double)(oshape[0] * oshape[1] * oshape[2]);
  TRY(rs_empty(&w.y, w.ctx, RS_MEM_DEVICE, 3, oshape, RS_FLOAT64));
  fails += run("ones (new array)", do_ones_new, &w, quick ? 0 : obytes, repeat, "allocation through the pool");
  fails += run("ones_into", do_ones_into, &w, obytes, repeat, "into an existing array");
  /* x * 5 and the three-step chain over 100 MB of float64 */
  reset(&w);
  w.n = 12500000 / div;
  TRY(rs_random_uniform(&w.x, &w.rng, w.ctx, RS_MEM_DEVICE, 1, &w.n, RS_FLOAT64, 0, 1, NULL));
  TRY(rs_empty(&w.y, w.ctx, RS_MEM_DEVICE, 1, &w.n, RS_FLOAT64));
  double b = 8.0 * (double)w.n;
  fails += run("x*5", do_scale, &w, 2 * b, repeat, "into an existing array");
  fails += run("x*5; x*x; x+x unfused", do_three, &w, 6 * b, repeat, "three kernels");
  TRY(rs_expr_create(&w.e, w.ctx));
  int xv = rs_expr_array(w.e, w.x);
  int t = rs_expr_binary(w.e, RS_OP_MULTIPLY, xv, rs_expr_scalar(w.e, rs_scalar_float(5)));
  t = rs_expr_binary(w.e, RS_OP_MULTIPLY, t, t);
  w.root = rs_expr_binary(w.e, RS_OP_ADD, t, t);
  TRY(rs_expr_status(w.e));
  fails += run("x*5; x*x; x+x fused", do_fused, &w, 2 * b, repeat, "one kernel");
  /* sum of 100M float32 */
  reset(&w);
  w.n = 100000000 / div;
  TRY(rs_random_uniform(&w.x, &w.rng, w.ctx, RS_MEM_DEVICE, 1, &w.n, RS_FLOAT32, 0, 1, NULL));
  fails += run("sum 100M float32", do_sum, &w, 4.0 * (double)w.n, repeat, "accumulated in float64");
  /* sum along axis 1 of (10M, 5) float64 */
  reset(&w);
  int64_t rshape[2] = {10000000 / div, 5};
  TRY(rs_random_uniform(&w.x, &w.rng, w.ctx, RS_MEM_DEVICE, 2, rshape, RS_FLOAT64, 0, 1, NULL));
  fails += run("sum axis 1 of (10M, 5)", do_rowsum, &w, 8.0 * (double)(rshape[0] * 6), repeat, "");
  /* the normalize exercise, 50M */
  reset(&w);
  w.n = 50000000 / div;
  TRY(rs_empty(&w.x, w.ctx, RS_MEM_DEVICE, 1, &w.n, RS_FLOAT64));
  fails += run("normalize 50M", do_normalize, &w, 0, repeat / 2 > 0 ? repeat / 2 : 1, "random, sort, rows, divide, check");
  if (!(w.check < 1e-12)) {
    fprintf(stderr, "ops: normalize: worst |row sum - 1| = %g\n", w.check);
    fails++;
  }
  /* sort of 50M float64 */
  reset(&w);
  w.n = 50000000 / div;
  TRY(rs_random_uniform(&w.x, &w.rng, w.ctx, RS_MEM_DEVICE, 1, &w.n, RS_FLOAT64, 0, 1, NULL));
  TRY(rs_empty(&w.y, w.ctx, RS_MEM_DEVICE, 1, &w.n, RS_FLOAT64));
  fails += run("sort 50M float64", do_sort, &w, 0, repeat, "CUB radix sort");
  /* SVD of 3000 x 1000 float64 */
  reset(&w);
  int64_t ashape[2] = {3000 / (quick ? 10 : 1), 1000 / (quick ? 10 : 1)};
  TRY(rs_random_normal(&w.a, &w.rng, w.ctx, RS_MEM_DEVICE, 2, ashape, RS_FLOAT64, 0, 1, NULL));
  fails += run("svd 3000x1000 economy", do_svd, &w, 0, repeat / 4 > 0 ? repeat / 4 : 1, "");
  double rec, orth;
  svd_errors(&w, &rec, &orth);
  printf("svd errors: max |A - U S Vh| = %.3g, max |U^T U - I| = %.3g\n", rec, orth);
  printf("RESULT {\"name\": \"svd errors\", \"reconstruction\": %.6g, \"orthogonality\": %.6g}\n", rec, orth);
  if (!(rec < 1e-12 && orth < 1e-12)) fails++;
  fails += run("svd 3000x1000 full", do_svd_full, &w, 0, repeat / 4 > 0 ? repeat / 4 : 1, "");
  reset(&w);
  rs_context_destroy(w.ctx);
  return fails ? 1 : 0;
}
