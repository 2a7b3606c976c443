/* The seed workloads of `resident bench`, each one call of the array operations, so the
 * same code runs on the host (arrays in host memory: C loops, NumPy's role) and on the
 * device (arrays in device memory). */
#include <math.h>
#include "cli/bench_work.h"
#include "cli/normalize.h"

#define RS_TRY_CLI(e)                \
  do {                               \
    rs_status rs_s_ = (e);           \
    if (rs_s_ != RS_OK) return rs_s_; \
  } while (0)

void rs_bw_teardown(rs_bw_state *s) {
  rs_array_release(s->x);
  rs_array_release(s->y);
  rs_array_release(s->z);
  s->x = s->y = s->z = NULL;
}

static rs_status random_x(rs_bw_state *s) {
  s->rng = rs_rng_seed(42);
  return rs_random_uniform(&s->x, &s->rng, s->ctx, s->where, 1, &s->n, RS_FLOAT64, 0, 1, NULL);
}

/* normalize: the seed exercise - random numbers, sort, rows of 5, each row over its sum,
 * and the worst |row sum - 1| as the one value that comes back. */
static rs_status normalize_setup(rs_bw_state *s) {
  s->rng = rs_rng_seed(42);
  return RS_OK;
}

static rs_status normalize_run(void *state) {
  rs_bw_state *s = state;
  rs_status st = s->x ? rs_random_uniform_into(s->x, &s->rng, 0, 1, NULL)
                      : rs_random_uniform(&s->x, &s->rng, s->ctx, s->where, 1, &s->n, RS_FLOAT64, 0, 1, NULL);
  return st == RS_OK ? rs_normalize_exercise(s->x, &s->check) : st;
}

static int normalize_ok(const rs_bw_state *s) { return s->check < 1e-12; }

/* scale: x * 5 into an existing array (the memory-bound elementwise kernel). */
static rs_status scale_setup(rs_bw_state *s) {
  RS_TRY_CLI(random_x(s));
  return rs_empty(&s->y, s->ctx, s->where, 1, &s->n, RS_FLOAT64);
}

static rs_status scale_run(void *state) {
  rs_bw_state *s = state;
  return rs_multiply_scalar_into(s->y, s->x, rs_scalar_float(5), NULL);
}

static int scale_ok(const rs_bw_state *s) {
  double a = 0, b = 0;
  int64_t last = s->n - 1;
  if (rs_array_item_double(s->x, &last, &a, NULL) != RS_OK || rs_array_item_double(s->y, &last, &b, NULL) != RS_OK) return 0;
  return b == a * 5;
}

/* sum: a whole-array reduction to a 0-d array. */
static rs_status sum_setup(rs_bw_state *s) { return random_x(s); }

static rs_status sum_run(void *state) {
  rs_bw_state *s = state;
  /* the first (warm-up) call makes the 0-d result, later ones reuse it */
  return s->z ? rs_sum_into(s->z, s->x, 0, NULL, 0, NULL) : rs_sum(&s->z, s->x, 0, NULL, 0, NULL);
}

static int sum_ok(const rs_bw_state *s) {
  double v = 0;
  if (rs_array_item_double(s->z, NULL, &v, NULL) != RS_OK) return 0;
  return fabs(v - 0.5 * (double)s->n) < 10 * sqrt((double)s->n) + 1;
}

/* sort: float64, into an existing array. */
static rs_status sort_setup(rs_bw_state *s) {
  RS_TRY_CLI(random_x(s));
  return rs_empty(&s->y, s->ctx, s->where, 1, &s->n, RS_FLOAT64);
}

static rs_status sort_run(void *state) {
  rs_bw_state *s = state;
  return rs_sort_into(s->y, s->x, NULL);
}

static int sort_ok(const rs_bw_state *s) {
  double a = 0, b = 0;
  int64_t first = 0, last = s->n - 1;
  if (rs_array_item_double(s->y, &first, &a, NULL) != RS_OK || rs_array_item_double(s->y, &last, &b, NULL) != RS_OK) return 0;
  return a <= b;
}

const rs_bw_workload rs_bw_workloads[] = {
    {"normalize", "random numbers, sort, rows of 5, each row over its sum, check", 5, normalize_setup, normalize_run, normalize_ok},
    {"scale", "y = x * 5 (float64, into an existing array)", 1, scale_setup, scale_run, scale_ok},
    {"sum", "sum of every element (float64)", 1, sum_setup, sum_run, sum_ok},
    {"sort", "sort (float64, into an existing array)", 1, sort_setup, sort_run, sort_ok},
};
const int rs_bw_nworkloads = (int)(sizeof rs_bw_workloads / sizeof rs_bw_workloads[0]);
