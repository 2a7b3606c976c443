/* bench/host_linalg: resident's host-path linear algebra (arrays in host memory, so the
 * ops run on this CPU) - matmul 1024x1024 float64, SVD 512x512 float64, solve 512x512
 * with one right-hand side - timed as the median of a few calls after a warm-up.
 * matmul_into writes into an existing array: the product without the new output's
 * allocation and first touch.
 * bench/host_linalg.py runs this program and NumPy on the same sizes and prints them side
 * by side. Public API only.
 *
 *   host_linalg [--repeat N]
 *
 * Prints one "RESULT {json}" line per workload and one naming the host library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <resident.h>

#define MAXREP 64

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct work {
  const char *op;
  rs_array *a, *b, *c; /* c: matmul_into's existing output */
} work;

static rs_status run_once(const work *w) {
  rs_array *x = NULL, *y = NULL, *z = NULL;
  rs_status st;
  if (strcmp(w->op, "matmul") == 0) st = rs_matmul(&x, w->a, w->b, NULL);
  else if (strcmp(w->op, "matmul_into") == 0) st = rs_matmul_into(w->c, w->a, w->b, NULL);
  else if (strcmp(w->op, "svd") == 0) st = rs_svd(&x, &y, &z, w->a, 0, NULL);
  else st = rs_solve(&x, w->a, w->b, NULL);
  rs_array_release(x);
  rs_array_release(y);
  rs_array_release(z);
  return st;
}

static int bench(rs_context *ctx, const char *op, int64_t n, int repeat) {
  rs_rng rng = rs_rng_seed(42);
  int64_t sq[2] = {n, n}, vec[1] = {n};
  work w = {op, NULL, NULL, NULL};
  int is_mm = strncmp(op, "matmul", 6) == 0;
  rs_status st = rs_random_normal(&w.a, &rng, ctx, RS_MEM_HOST, 2, sq, RS_FLOAT64, 0, 1, NULL);
  if (st == RS_OK && strcmp(op, "svd") != 0)
    st = rs_random_normal(&w.b, &rng, ctx, RS_MEM_HOST, is_mm ? 2 : 1, is_mm ? sq : vec, RS_FLOAT64, 0, 1, NULL);
  if (st == RS_OK && is_mm) st = rs_empty(&w.c, ctx, RS_MEM_HOST, 2, sq, RS_FLOAT64);
  double ms[MAXREP];
  if (st == RS_OK) st = run_once(&w); /* warm-up: first-touch pages, BLAS threads */
  for (int r = 0; r < repeat && st == RS_OK; r++) {
    double t0 = now_ms();
    st = run_once(&w);
    ms[r] = now_ms() - t0;
  }
  rs_array_release(w.a);
  rs_array_release(w.b);
  rs_array_release(w.c);
  if (st != RS_OK) {
    fprintf(stderr, "host_linalg: %s %lld: %s: %s\n", op, (long long)n, rs_status_name(st), rs_last_error());
    return 1;
  }
  qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
  printf("RESULT {\"op\": \"%s\", \"n\": %lld, \"dtype\": \"float64\", \"median_ms\": %.4f}\n", op, (long long)n,
         ms[repeat / 2]);
  return 0;
}

int main(int argc, char **argv) {
  int repeat = 5;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: host_linalg [--repeat N]\n");
      return 2;
    }
  }
  if (repeat < 1 || repeat > MAXREP) repeat = 5;
  int threads = 0;
  const char *lib = rs_linalg_host_library(&threads);
  printf("LIBRARY {\"library\": \"%s\", \"threads\": %d}\n", lib, threads);
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK) {
    fprintf(stderr, "host_linalg: no context: %s\n", rs_last_error());
    return 1;
  }
  int bad = bench(ctx, "matmul", 1024, repeat) | bench(ctx, "matmul_into", 1024, repeat) | bench(ctx, "svd", 512, repeat) | bench(ctx, "solve", 512, repeat);
  rs_context_destroy(ctx);
  return bad;
}
