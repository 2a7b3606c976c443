/* bench/host_ops: resident's host-path array operations (arrays in host memory, so the
 * ops run on this CPU, spread over the host thread pool) - x * 5 over 100 MB of float32,
 * the sum of 100M float32, the sort of 10M float64 - timed as the median of a few calls
 * after a warm-up. Each call makes a new output array, as NumPy's x * 5 and np.sort do.
 * bench/host_ops.py runs this program and NumPy on the same sizes and prints them side by
 * side. Public API only.
 *
 *   host_ops [--repeat N] [--only OP]
 *
 * Prints one "RESULT {json}" line per workload (median wall and CPU milliseconds) and one
 * "HOST {json}" line naming the host thread count and BLAS. */
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

/* CPU time of every thread of the process: on a loaded machine it shows the work done
 * where the wall clock also shows the waiting. */
static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct workload {
  const char *op;
  int64_t n;
  rs_dtype dtype;
  const char *dtype_name;
} workload;

static const workload WORK[] = {
    {"mul5", 100 * 1024 * 1024 / 4, RS_FLOAT32, "float32"},
    {"sum", 100 * 1000 * 1000, RS_FLOAT32, "float32"},
    {"sort", 10 * 1000 * 1000, RS_FLOAT64, "float64"},
};

static rs_status run_once(const char *op, const rs_array *x) {
  rs_array *y = NULL;
  rs_status st;
  if (strcmp(op, "mul5") == 0) st = rs_multiply_scalar(&y, x, rs_scalar_int(5), NULL);
  else if (strcmp(op, "sum") == 0) st = rs_sum(&y, x, 0, NULL, 0, NULL);
  else st = rs_sort(&y, x, NULL);
  rs_array_release(y);
  return st;
}

static int bench(rs_context *ctx, const workload *w, int repeat) {
  rs_rng rng = rs_rng_seed(42);
  rs_array *x = NULL;
  rs_status st = rs_random_uniform(&x, &rng, ctx, RS_MEM_HOST, 1, &w->n, w->dtype, 0, 1, NULL);
  double ms[MAXREP], cpu[MAXREP];
  if (st == RS_OK) st = run_once(w->op, x); /* warm-up: the pool's threads, first touches */
  for (int r = 0; r < repeat && st == RS_OK; r++) {
    double t0 = now_ms(), c0 = cpu_ms();
    st = run_once(w->op, x);
    ms[r] = now_ms() - t0;
    cpu[r] = cpu_ms() - c0;
  }
  rs_array_release(x);
  if (st != RS_OK) {
    fprintf(stderr, "host_ops: %s: %s: %s\n", w->op, rs_status_name(st), rs_last_error());
    return 1;
  }
  qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
  qsort(cpu, (size_t)repeat, sizeof *cpu, cmp_double);
  printf("RESULT {\"op\": \"%s\", \"n\": %lld, \"dtype\": \"%s\", \"median_ms\": %.4f, \"cpu_ms\": %.4f}\n", w->op,
         (long long)w->n, w->dtype_name, ms[repeat / 2], cpu[repeat / 2]);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  int repeat = 5;
  const char *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: host_ops [--repeat N] [--only mul5|sum|sort]\n");
      return 2;
    }
  }
  if (repeat < 1 || repeat > MAXREP) repeat = 5;
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK) {
    fprintf(stderr, "host_ops: no context: %s\n", rs_last_error());
    return 1;
  }
  int blas_threads = 0;
  const char *lib = rs_linalg_host_library(&blas_threads);
  printf("HOST {\"threads\": %d, \"blas\": \"%s\", \"blas_threads\": %d}\n", rs_host_threads(), lib, blas_threads);
  int bad = 0;
  for (size_t i = 0; i < sizeof WORK / sizeof WORK[0]; i++)
    if (!only || strcmp(only, WORK[i].op) == 0) bad |= bench(ctx, &WORK[i], repeat);
  rs_context_destroy(ctx);
  return bad;
}
