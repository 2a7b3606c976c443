/* Random numbers: reproducible from the seed (same seed, same numbers; the generator's
 * position advances call by call), independent of the layout written to and of the
 * thread count, within bounds, with the right moments; refilling in place allocates
 * nothing new; bad bounds refused. */
#include "ops_testlib.h"

static rs_status stats(const rs_array *a, double *mean, double *var, double *lo, double *hi) {
  int64_t n = rs_array_size(a);
  double *v = malloc((size_t)n * sizeof *v);
  rs_array *d = NULL;
  H_OK(rs_astype(&d, a, RS_FLOAT64, NULL));
  H_OK(rs_t_read_(d, v));
  rs_array_release(d);
  double s = 0, s2 = 0;
  *lo = INFINITY, *hi = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    s += v[i];
    s2 += v[i] * v[i];
    if (v[i] < *lo) *lo = v[i];
    if (v[i] > *hi) *hi = v[i];
  }
  *mean = s / (double)n;
  *var = s2 / (double)n - *mean * *mean;
  free(v);
  return RS_OK;
}

static void test_uniform_normal_integers(rs_context *ctx) {
  int64_t n = 200000;
  for (int pl = 0; pl < 2; pl++) {
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_rng rng = rs_rng_seed(123);
    rs_array *u = NULL, *g = NULL, *k = NULL, *u32 = NULL;
    double m, v, lo, hi;
    CHECK_OK(rs_random_uniform(&u, &rng, ctx, where, 1, &n, RS_FLOAT64, -2, 3, NULL));
    CHECK_OK(stats(u, &m, &v, &lo, &hi));
    CHECK_NEAR(m, 0.5, 0.02);
    CHECK_NEAR(v, 25.0 / 12, 0.03);
    CHECK(lo >= -2 && hi < 3);
    CHECK_OK(rs_random_uniform(&u32, &rng, ctx, where, 1, &n, RS_FLOAT32, 0, 1, NULL));
    CHECK_OK(stats(u32, &m, &v, &lo, &hi));
    CHECK(lo >= 0 && hi < 1);
    CHECK_NEAR(m, 0.5, 0.01);
    CHECK_OK(rs_random_normal(&g, &rng, ctx, where, 1, &n, RS_FLOAT64, 10, 2, NULL));
    CHECK_OK(stats(g, &m, &v, &lo, &hi));
    CHECK_NEAR(m, 10, 0.02);
    CHECK_NEAR(v, 4, 0.06);
    CHECK_OK(rs_random_integers(&k, &rng, ctx, where, 1, &n, RS_INT16, -5, 7, NULL));
    CHECK_OK(stats(k, &m, &v, &lo, &hi));
    CHECK(lo == -5 && hi == 6);
    CHECK_NEAR(m, 0.5, 0.03);
    CHECK(rng.offset == (uint64_t)(4 * n));
    tl_release(4, u, g, k, u32);
  }
}

/* Same seed: same numbers; next call: different numbers; in any layout. */
static void test_reproducible(rs_context *ctx) {
  int64_t shape[2] = {50, 40};
  for (int pl = 0; pl < 2; pl++) {
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_rng r1 = rs_rng_seed(7), r2 = rs_rng_seed(7), r3 = rs_rng_seed(8);
    rs_array *a = NULL, *b = NULL, *c = NULL, *d = NULL, *f = NULL, *ft = NULL;
    CHECK_OK(rs_random_normal(&a, &r1, ctx, where, 2, shape, RS_FLOAT64, 0, 1, NULL));
    CHECK_OK(rs_random_normal(&b, &r2, ctx, where, 2, shape, RS_FLOAT64, 0, 1, NULL));
    CHECK_OK(rs_random_normal(&c, &r3, ctx, where, 2, shape, RS_FLOAT64, 0, 1, NULL));
    int eq = 0;
    CHECK_OK(rs_array_equal(a, b, &eq, NULL));
    CHECK(eq);
    CHECK_OK(rs_array_equal(a, c, &eq, NULL));
    CHECK(!eq);
    /* refill in place: new numbers, same array */
    rs_array *before = NULL;
    CHECK_OK(rs_copy(&before, a, NULL));
    CHECK_OK(rs_random_normal_into(a, &r1, 0, 1, NULL));
    CHECK_OK(rs_array_equal(a, before, &eq, NULL));
    CHECK(!eq);
    /* element i in C order takes block offset + i, whatever the memory layout */
    rs_rng r4 = rs_rng_seed(7);
    int64_t tshape[2] = {40, 50};
    CHECK_OK(rs_empty(&f, ctx, where, 2, tshape, RS_FLOAT64));
    CHECK_OK(rs_array_transpose(&ft, f)); /* a (50, 40) F-ordered view */
    CHECK_OK(rs_random_normal_into(ft, &r4, 0, 1, NULL));
    CHECK_OK(rs_array_equal(ft, b, &eq, NULL));
    CHECK(eq);
    /* bounds */
    CHECK_STATUS(rs_random_uniform_into(a, &r1, 1, 1, NULL), RS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rs_random_uniform_into(a, &r1, 0, INFINITY, NULL), RS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rs_random_normal_into(a, &r1, 0, -1, NULL), RS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rs_random_integers_into(a, &r1, 0, 5, NULL), RS_ERR_DTYPE);
    CHECK_STATUS(rs_random_uniform_into(a, NULL, 0, 1, NULL), RS_ERR_NULL_POINTER);
    rs_array *i8 = NULL;
    CHECK_OK(rs_empty(&i8, ctx, where, 2, shape, RS_INT8));
    CHECK_STATUS(rs_random_integers_into(i8, &r1, -200, 5, NULL), RS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(rs_random_uniform_into(i8, &r1, 0, 1, NULL), RS_ERR_DTYPE);
    tl_release(8, a, b, c, d, f, ft, before, i8);
  }
}

/* The device and the host use the same counter layout and conversions: uniform and
 * integer numbers are the same bits (on the simulator the same code; on a GPU cuRAND's
 * Philox core), normal ones agree to rounding. */
static void test_host_matches_device(rs_context *ctx) {
  int64_t n = 100000;
  const rs_dtype ds[] = {RS_FLOAT32, RS_FLOAT64, RS_FLOAT16, RS_COMPLEX64};
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    rs_rng r1 = rs_rng_seed(99 + i), r2 = rs_rng_seed(99 + i);
    rs_array *a = NULL, *b = NULL;
    CHECK_OK(rs_random_uniform(&a, &r1, ctx, RS_MEM_DEVICE, 1, &n, ds[i], -1, 3, NULL));
    CHECK_OK(rs_random_uniform(&b, &r2, ctx, RS_MEM_HOST, 1, &n, ds[i], -1, 3, NULL));
    CHECK_CLOSE_ARR(a, b, 0, 0);
    tl_release(2, a, b);
  }
  rs_rng r1 = rs_rng_seed(5), r2 = rs_rng_seed(5);
  rs_array *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(rs_random_integers(&a, &r1, ctx, RS_MEM_DEVICE, 1, &n, RS_INT64, -1000000007, 999999937, NULL));
  CHECK_OK(rs_random_integers(&b, &r2, ctx, RS_MEM_HOST, 1, &n, RS_INT64, -1000000007, 999999937, NULL));
  CHECK_CLOSE_ARR(a, b, 0, 0);
  CHECK_OK(rs_random_normal(&c, &r1, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, 1, 2, NULL));
  CHECK_OK(rs_random_normal(&d, &r2, ctx, RS_MEM_HOST, 1, &n, RS_FLOAT64, 1, 2, NULL));
  CHECK_CLOSE_ARR(c, d, 1e-13, 1e-13);
  tl_release(4, a, b, c, d);
}

static const rs_test_case tests[] = {RS_TEST(test_uniform_normal_integers), RS_TEST(test_reproducible),
                                     RS_TEST(test_host_matches_device)};
RS_TEST_MAIN(tests)
