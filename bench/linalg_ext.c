/* bench/linalg_ext: the linalg extension's two large factorizations on the GPU - eigh of a
 * symmetric 4096 x 4096 float64 matrix and the reduced QR of 8192 x 1024 float64 - timed
 * per call (wall clock around the call, which returns after reading the solver's flag, so
 * the device work is inside; a synchronize after it), median of --repeat after a warm-up,
 * and checked: the eigen-equation residual max |A V - V diag(w)| / max |A| and the
 * reconstruction max |Q R - A| / max |A| with orthogonality max |Q^T Q - I|. Then a stack
 * of 10000 small systems (issue 18, batched LU): det of (10000, 8, 8) float64, checked
 * as max |det(A) det(A^-1) - 1|, and solve of (10000, 8, 8) x (10000, 8, 1) float64,
 * checked as max |A x - b| / max |b|; A = X + 8 I with X standard normal.
 * bench/linalg_ext.py runs this and CuPy on the same sizes and prints them side by side.
 *
 *   linalg_ext [--repeat N] [--quick]   (--quick: 512, 1024 x 256, a stack of 1000; any backend)
 *
 * Prints a line per workload and a "RESULT {json}" line for linalg_ext.py. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <resident.h>

#define TRY(x)                                                                               \
  do {                                                                                       \
    rs_status s_ = (x);                                                                      \
    if (s_ != RS_OK) {                                                                       \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, rs_status_name(s_), rs_last_error()); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double max_abs(const rs_array *x) {
  rs_array *m = NULL;
  double v = 0;
  TRY(rs_vector_norm(&m, x, 0, NULL, 0, INFINITY, NULL));
  TRY(rs_array_item_double(m, NULL, &v, NULL));
  rs_array_release(m);
  return v;
}

/* max |x - y| */
static double max_diff(const rs_array *x, const rs_array *y) {
  rs_array *d = NULL;
  TRY(rs_subtract(&d, x, y, NULL));
  double v = max_abs(d);
  rs_array_release(d);
  return v;
}

/* One call of a stack workload: det of a, or solve a x = b; the last result kept in out. */
typedef struct stack_work {
  const rs_array *a, *b;
  rs_array *out;
  int solve;
} stack_work;

static void stack_call(stack_work *w) {
  rs_array_release(w->out);
  w->out = NULL;
  if (w->solve) TRY(rs_solve(&w->out, w->a, w->b, NULL));
  else TRY(rs_det(&w->out, w->a, NULL));
}

/* Median ms of `repeat` calls (after a warm-up call), each between synchronizes. */
static double stack_time(rs_context *ctx, stack_work *w, int repeat, double *ms) {
  stack_call(w);
  for (int r = 0; r < repeat; r++) {
    TRY(rs_context_synchronize(ctx));
    double t0 = now_ms();
    stack_call(w);
    TRY(rs_context_synchronize(ctx));
    ms[r] = now_ms() - t0;
  }
  qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
  return ms[repeat / 2];
}

/* det and solve of a stack of 8 x 8 float64 systems (cuBLAS's batched LU on the GPU);
 * returns the worst check. */
static double stacks(rs_context *ctx, rs_rng *rng, int64_t count, int repeat, double *ms) {
  int64_t sa[3] = {count, 8, 8}, sb[3] = {count, 8, 1};
  rs_array *x = NULL, *eye = NULL, *e8 = NULL, *a = NULL, *b = NULL, *ai = NULL, *dai = NULL, *prod = NULL, *one = NULL;
  TRY(rs_random_normal(&x, rng, ctx, RS_MEM_DEVICE, 3, sa, RS_FLOAT64, 0, 1, NULL));
  TRY(rs_random_normal(&b, rng, ctx, RS_MEM_DEVICE, 3, sb, RS_FLOAT64, 0, 1, NULL));
  TRY(rs_eye(&eye, ctx, RS_MEM_DEVICE, 8, 8, 0, RS_FLOAT64, NULL));
  TRY(rs_multiply_scalar(&e8, eye, rs_scalar_float(8.0), NULL));
  TRY(rs_add(&a, x, e8, NULL));
  stack_work w = {a, b, NULL, 0};
  double det_ms = stack_time(ctx, &w, repeat, ms);
  TRY(rs_inv(&ai, a, NULL));
  TRY(rs_det(&dai, ai, NULL));
  TRY(rs_multiply(&prod, w.out, dai, NULL));
  TRY(rs_ones_like(&one, prod, RS_MEM_DEVICE, NULL));
  double det_err = max_diff(prod, one);
  printf("det %lld x 8 x 8 float64: %.3f ms (median of %d), max |det(A) det(A^-1) - 1| %.2e\n", (long long)count, det_ms,
         repeat, det_err);
  printf("RESULT {\"name\": \"det\", \"batch\": %lld, \"ms\": %.4f, \"error\": %.3e}\n", (long long)count, det_ms, det_err);
  w.solve = 1;
  double solve_ms = stack_time(ctx, &w, repeat, ms);
  rs_array *ax = NULL;
  TRY(rs_matmul(&ax, a, w.out, NULL));
  double solve_err = max_diff(ax, b) / max_abs(b);
  printf("solve %lld x 8 x 8 by %lld x 8 x 1 float64: %.3f ms (median of %d), residual %.2e\n", (long long)count,
         (long long)count, solve_ms, repeat, solve_err);
  printf("RESULT {\"name\": \"solve\", \"batch\": %lld, \"ms\": %.4f, \"error\": %.3e}\n", (long long)count, solve_ms,
         solve_err);
  rs_array_release(w.out), rs_array_release(ax);
  rs_array_release(x), rs_array_release(eye), rs_array_release(e8), rs_array_release(a), rs_array_release(b);
  rs_array_release(ai), rs_array_release(dai), rs_array_release(prod), rs_array_release(one);
  return det_err > solve_err ? det_err : solve_err;
}

int main(int argc, char **argv) {
  int repeat = 5, quick = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) quick = 1;
  }
  if (repeat < 1) repeat = 1;
  rs_context *ctx = NULL;
  TRY(rs_context_create(&ctx, RS_BACKEND_AUTO, 0));
  rs_rng rng = rs_rng_seed(42);
  int64_t n = quick ? 512 : 4096, qm = quick ? 1024 : 8192, qn = quick ? 256 : 1024;
  double *ms = calloc((size_t)repeat, sizeof *ms);

  /* eigh: A = X + X^T */
  rs_array *x = NULL, *xt = NULL, *a = NULL, *w = NULL, *v = NULL;
  int64_t sq[2] = {n, n};
  TRY(rs_random_normal(&x, &rng, ctx, RS_MEM_DEVICE, 2, sq, RS_FLOAT64, 0, 1, NULL));
  TRY(rs_array_transpose(&xt, x));
  TRY(rs_add(&a, x, xt, NULL));
  TRY(rs_eigh(&w, &v, a, NULL)); /* warm-up: libraries loaded, workspaces cached */
  for (int r = 0; r < repeat; r++) {
    rs_array_release(w), rs_array_release(v);
    TRY(rs_context_synchronize(ctx));
    double t0 = now_ms();
    TRY(rs_eigh(&w, &v, a, NULL));
    TRY(rs_context_synchronize(ctx));
    ms[r] = now_ms() - t0;
  }
  qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
  double eigh_ms = ms[repeat / 2];
  rs_array *av = NULL, *wx = NULL, *vw = NULL;
  TRY(rs_matmul(&av, a, v, NULL));
  TRY(rs_array_expand_dims(&wx, w, 0));
  TRY(rs_multiply(&vw, v, wx, NULL));
  double eig_res = max_diff(av, vw) / max_abs(a);
  printf("eigh %lld x %lld float64: %.2f ms (median of %d), residual %.2e\n", (long long)n, (long long)n, eigh_ms, repeat,
         eig_res);
  printf("RESULT {\"name\": \"eigh\", \"n\": %lld, \"ms\": %.4f, \"error\": %.3e}\n", (long long)n, eigh_ms, eig_res);
  rs_array_release(x), rs_array_release(xt), rs_array_release(a), rs_array_release(w), rs_array_release(v);
  rs_array_release(av), rs_array_release(wx), rs_array_release(vw);

  /* qr, reduced */
  rs_array *b = NULL, *q = NULL, *rr = NULL, *qr = NULL, *qt = NULL, *qtq = NULL, *eye = NULL;
  int64_t tall[2] = {qm, qn};
  TRY(rs_random_normal(&b, &rng, ctx, RS_MEM_DEVICE, 2, tall, RS_FLOAT64, 0, 1, NULL));
  TRY(rs_qr(&q, &rr, b, 0, NULL));
  for (int r = 0; r < repeat; r++) {
    rs_array_release(q), rs_array_release(rr);
    TRY(rs_context_synchronize(ctx));
    double t0 = now_ms();
    TRY(rs_qr(&q, &rr, b, 0, NULL));
    TRY(rs_context_synchronize(ctx));
    ms[r] = now_ms() - t0;
  }
  qsort(ms, (size_t)repeat, sizeof *ms, cmp_double);
  double qr_ms = ms[repeat / 2];
  TRY(rs_matmul(&qr, q, rr, NULL));
  double rec = max_diff(qr, b) / max_abs(b);
  TRY(rs_array_transpose(&qt, q));
  TRY(rs_matmul(&qtq, qt, q, NULL));
  TRY(rs_eye(&eye, ctx, RS_MEM_DEVICE, qn, qn, 0, RS_FLOAT64, NULL));
  double orth = max_diff(qtq, eye);
  printf("qr %lld x %lld float64 (reduced): %.2f ms (median of %d), reconstruction %.2e, orthogonality %.2e\n",
         (long long)qm, (long long)qn, qr_ms, repeat, rec, orth);
  printf("RESULT {\"name\": \"qr\", \"m\": %lld, \"n\": %lld, \"ms\": %.4f, \"error\": %.3e}\n", (long long)qm,
         (long long)qn, qr_ms, rec > orth ? rec : orth);
  rs_array_release(b), rs_array_release(q), rs_array_release(rr), rs_array_release(qr), rs_array_release(qt);
  rs_array_release(qtq), rs_array_release(eye);
  double stack_err = stacks(ctx, &rng, quick ? 1000 : 10000, repeat, ms);
  free(ms);
  rs_context_destroy(ctx);
  return eig_res < 1e-10 && rec < 1e-12 && orth < 1e-12 && stack_err < 1e-10 ? 0 : 2;
}
