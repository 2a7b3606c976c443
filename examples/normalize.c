/* examples/normalize.c - the seed exercise: 50 million random numbers, sorted, seen as
 * rows of 5, each row divided by its sum (broadcasting), and every row checked to sum to 1.
 *
 * Everything stays where the numbers were created: on the device by default (the GPU, or
 * the simulator without one), or on the host with --host (the same calls then run as C
 * loops, NumPy's role). The only values that reach the host are the worst row error and
 * the timings; the ledger at the end shows it: no copy of the data, in either direction.
 *
 *   cc normalize.c $(pkg-config --cflags --libs resident) -o normalize
 *   ./normalize              # 50M on the device
 *   ./normalize 1000000 --host
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <resident.h>

/* The exercise on n numbers (a multiple of 5) created in `where`; *worst gets the largest
 * |row sum - 1|. The ledger of the run is added to *stats when not NULL. */
rs_status example_normalize(rs_context *ctx, int64_t n, rs_mem_kind where, uint64_t seed, double *worst,
                            rs_ledger_stats *stats) {
  rs_rng rng = rs_rng_seed(seed);
  rs_array *x = NULL, *rows = NULL, *sums = NULL, *err = NULL, *maxerr = NULL;
  int64_t shape[2] = {-1, 5};
  int axis = 1;
  rs_status st = stats ? rs_ledger_begin(ctx) : RS_OK;
  if (st != RS_OK) return st;
  /* x = random(n); x.sort(); rows = x.reshape(-1, 5) */
  if (st == RS_OK) st = rs_random_uniform(&x, &rng, ctx, where, 1, &n, RS_FLOAT64, 0, 1, NULL);
  if (st == RS_OK) st = rs_sort_into(x, x, NULL); /* in place */
  if (st == RS_OK) st = rs_array_reshape(&rows, x, 2, shape);
  /* rows /= rows.sum(axis=1, keepdims=True) */
  if (st == RS_OK) st = rs_sum(&sums, rows, 1, &axis, 1, NULL);
  if (st == RS_OK) st = rs_divide_into(rows, rows, sums, NULL); /* in place, (n/5, 5) / (n/5, 1) */
  /* every row sums to 1: max |rows.sum(axis=1) - 1| */
  if (st == RS_OK) st = rs_sum_into(sums, rows, 1, &axis, 1, NULL); /* into the same array */
  if (st == RS_OK) st = rs_add_scalar(&err, sums, rs_scalar_float(-1), NULL);
  if (st == RS_OK) st = rs_unary_into(err, RS_OP_ABS, err, NULL);
  if (st == RS_OK) st = rs_max(&maxerr, err, 0, NULL, 0, NULL);
  if (st == RS_OK) st = rs_array_item_double(maxerr, NULL, worst, NULL); /* the one value to the host */
  if (stats) {
    rs_ledger_stats s;
    rs_status st2 = rs_ledger_end(ctx, &s);
    if (st == RS_OK) st = st2;
    if (st == RS_OK) *stats = s;
  }
  rs_array_release(x);
  rs_array_release(rows);
  rs_array_release(sums);
  rs_array_release(err);
  rs_array_release(maxerr);
  return st;
}

#ifndef RS_EXAMPLE_NO_MAIN
#include <time.h>

static double now_ms(void) { /* C11's clock: this file builds with plain -std=c11 */
  struct timespec t;
  timespec_get(&t, TIME_UTC);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  int64_t n = 50000000;
  rs_mem_kind where = RS_MEM_DEVICE;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--host") == 0)
      where = RS_MEM_HOST;
    else
      n = strtoll(argv[i], NULL, 10) / 5 * 5;
  }
  rs_context *ctx = NULL;
  rs_status st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  double worst = NAN, t0 = now_ms();
  rs_ledger_stats stats;
  if (st == RS_OK) st = example_normalize(ctx, n, where, 42, &worst, &stats);
  double ms = now_ms() - t0;
  if (st != RS_OK) {
    fprintf(stderr, "normalize: %s: %s\n", rs_status_name(st), rs_last_error());
    rs_context_destroy(ctx);
    return 1;
  }
  printf("normalize: %lld numbers on the %s (%s backend): worst |row sum - 1| = %.3g, %.1f ms\n", (long long)n,
         where == RS_MEM_HOST ? "host" : "device", rs_backend_name(rs_context_backend(ctx)), worst, ms);
  rs_ledger_print(&stats, ms, RS_DEFAULT_PCIE_GBS, stdout);
  rs_context_destroy(ctx);
  return worst < 1e-12 ? 0 : 1;
}
#endif
