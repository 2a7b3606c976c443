/* bench/launch: the cost of launching an empty user kernel through resident, per launch,
 * side by side with raw CUDA C <<<>>> in the same process (bench/launch_py.py measures
 * CuPy's RawKernel and Numba the same way).
 *
 * Each figure is the host wall time of n back-to-back launches plus one synchronize,
 * divided by n (as the project's anchor limits.cu measured the 4.4 us raw figure), the
 * median of several repeats after a warm-up. resident is measured in its default setting
 * (kernels counted by the ledger, not event-timed) and with RS_TIME_ALL (two events recorded
 * around every kernel), each with a fixed and a computed (occupancy) configuration. The target is 1.3x of raw CUDA C.
 *
 * Then graphs (resident/graph.h): 10 and 100 launches captured once and replayed, per
 * kernel, against direct launches on the same stream (target: at most half).
 *
 *   bench/launch [launches per repeat, default 100000]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "resident.h"

double rs_bench_raw_launch_us(int n); /* launch_raw.cu */

#define REPEATS 5

static const char *empty_source = "extern \"C\" __global__ void empty_k(float *p) {}\n";

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

static int fail(const char *what, rs_status st) {
  fprintf(stderr, "launch: %s: %s: %s\n", what, rs_status_name(st), rs_last_error());
  return 1;
}

/* Microseconds per kernel of a graph of `per` launches of k captured on stream s, replayed
 * n / per times, median of REPEATS; -1 on error. */
static double graph_us(rs_context *ctx, rs_kernel *k, rs_array *d, rs_stream *s, int per, int n) {
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .stream = s};
  rs_graph *g = NULL;
  if (rs_graph_begin_capture(s) != RS_OK) return -1;
  for (int i = 0; i < per; i++)
    if (rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(d))) != RS_OK) {
      rs_graph_end_capture(&g, s);
      rs_graph_destroy(g);
      return -1;
    }
  if (rs_graph_end_capture(&g, s) != RS_OK) return -1;
  double t[REPEATS];
  int replays = n / per > 0 ? n / per : 1;
  for (int r = -1; r < REPEATS; r++) {
    if (rs_ledger_reset(ctx) != RS_OK) return -1;
    double t0 = now_s();
    for (int i = 0; i < replays; i++)
      if (rs_graph_launch(g, s) != RS_OK) return -1;
    if (rs_stream_synchronize(s) != RS_OK) return -1;
    if (r >= 0) t[r] = (now_s() - t0) / ((double)replays * per) * 1e6;
  }
  rs_graph_destroy(g);
  return median(t, REPEATS);
}

/* The same n launches directly on stream s, per launch. */
static double direct_us(rs_context *ctx, rs_kernel *k, rs_array *d, rs_stream *s, int n) {
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .stream = s};
  double t[REPEATS];
  for (int r = -1; r < REPEATS; r++) {
    if (rs_ledger_reset(ctx) != RS_OK) return -1;
    double t0 = now_s();
    for (int i = 0; i < n; i++)
      if (rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(d))) != RS_OK) return -1;
    if (rs_stream_synchronize(s) != RS_OK) return -1;
    if (r >= 0) t[r] = (now_s() - t0) / n * 1e6;
  }
  return median(t, REPEATS);
}

/* Microseconds per launch of k over n launches, median of REPEATS; -1 on error. */
static double resident_us(rs_context *ctx, rs_kernel *k, rs_array *d, const rs_launch_config *cfg, int n) {
  double t[REPEATS];
  for (int r = -1; r < REPEATS; r++) {
    if (rs_ledger_reset(ctx) != RS_OK) return -1; /* keep the ledger's pending list short */
    double t0 = now_s();
    for (int i = 0; i < n; i++)
      if (rs_kernel_launch(k, cfg, RS_ARGS(rs_arg_array(d))) != RS_OK) return -1;
    if (rs_context_synchronize(ctx) != RS_OK) return -1;
    if (r >= 0) t[r] = (now_s() - t0) / n * 1e6;
  }
  return median(t, REPEATS);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  if (n <= 0) n = 100000;
  rs_context *ctx = NULL;
  rs_status st = rs_context_create(&ctx, RS_BACKEND_CUDA, 0);
  if (st != RS_OK) return fail("rs_context_create(cuda)", st);
  rs_device_props props;
  if ((st = rs_context_get_props(ctx, &props)) != RS_OK) return fail("rs_context_get_props", st);
  rs_kernel *k = NULL;
  if ((st = rs_kernel_create(&k, ctx, empty_source, "empty_k", NULL)) != RS_OK) return fail("rs_kernel_create", st);
  int64_t one = 1;
  rs_array *d = NULL;
  if ((st = rs_device_array(&d, ctx, 1, &one, RS_FLOAT32, NULL, RS_ORDER_C)) != RS_OK) return fail("rs_device_array", st);

  double raw[REPEATS];
  rs_bench_raw_launch_us(n / 10 + 1); /* warm-up */
  for (int r = 0; r < REPEATS; r++) raw[r] = rs_bench_raw_launch_us(n);
  double raw_us = median(raw, REPEATS);

  rs_launch_config fixed = {.grid = {1}, .block = {1}};
  rs_launch_config computed = {.elements = 1}; /* grid and block from occupancy (cached) */
  rs_ledger_set_timing(ctx, RS_TIME_COPIES); /* the default: kernels counted, not event-timed */
  double off_fixed = resident_us(ctx, k, d, &fixed, n);
  double off_computed = resident_us(ctx, k, d, &computed, n);
  rs_ledger_set_timing(ctx, RS_TIME_ALL);
  double on_fixed = resident_us(ctx, k, d, &fixed, n);
  double on_computed = resident_us(ctx, k, d, &computed, n);
  if (raw_us <= 0 || off_fixed < 0 || off_computed < 0 || on_fixed < 0 || on_computed < 0) {
    fprintf(stderr, "launch: a measurement failed: %s\n", rs_last_error());
    return 1;
  }

  printf("device: %s, %d launches per repeat, median of %d\n", props.name, n, REPEATS);
  printf("%-58s %9s %9s\n", "empty kernel, one pointer argument, per launch", "us", "x raw");
  printf("%-58s %9.3f %9.2f\n", "raw CUDA C <<<1,1>>>", raw_us, 1.0);
  printf("%-58s %9.3f %9.2f\n", "resident, default (kernels not event-timed), grid 1 x 1", off_fixed, off_fixed / raw_us);
  printf("%-58s %9.3f %9.2f\n", "resident, default, computed grid/block", off_computed, off_computed / raw_us);
  printf("%-58s %9.3f %9.2f\n", "resident, kernel timing on (RS_TIME_ALL), grid 1 x 1", on_fixed, on_fixed / raw_us);
  printf("%-58s %9.3f %9.2f\n", "resident, kernel timing on (RS_TIME_ALL), computed", on_computed, on_computed / raw_us);
  printf("target: within 1.3x of raw CUDA C: default %s, with kernel timing %s\n", off_fixed <= 1.3 * raw_us ? "met" : "NOT met",
         on_fixed <= 1.3 * raw_us ? "met" : "NOT met");
  /* Graph replay (issue 16): the 10-kernel sequence captured once, replayed; per kernel,
   * against direct launches on the same stream. Target: at most half the direct cost. */
  rs_ledger_set_timing(ctx, RS_TIME_COPIES);
  rs_stream *s = NULL;
  if ((st = rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING)) != RS_OK) return fail("rs_stream_create", st);
  double direct = direct_us(ctx, k, d, s, n);
  double g10 = graph_us(ctx, k, d, s, 10, n);
  double g100 = graph_us(ctx, k, d, s, 100, n);
  if (direct < 0 || g10 < 0 || g100 < 0) {
    fprintf(stderr, "launch: a graph measurement failed: %s\n", rs_last_error());
    return 1;
  }
  printf("%-58s %9s %9s\n", "graphs: per kernel, on one non-blocking stream", "us", "x direct");
  printf("%-58s %9.3f %9.2f\n", "resident, direct launches", direct, 1.0);
  printf("%-58s %9.3f %9.2f\n", "resident, graph of 10 launches replayed", g10, g10 / direct);
  printf("%-58s %9.3f %9.2f\n", "resident, graph of 100 launches replayed", g100, g100 / direct);
  printf("target: graph of 10 at most 0.5x direct: %s\n", g10 <= 0.5 * direct ? "met" : "NOT met");
  rs_stream_destroy(s);
  rs_array_release(d);
  rs_kernel_destroy(k);
  rs_context_destroy(ctx);
  return 0;
}
