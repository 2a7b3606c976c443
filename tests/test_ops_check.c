/* Checks: allclose (rtol, atol, NaN, infinities, broadcasting), assert_allclose's message
 * naming the worst element and its index, array_equal; and the values that reach the
 * host doing so through the ledger. */
#include "ops_testlib.h"

static rs_status from(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim, const int64_t *shape,
                      const double *data) {
  H_OK(rs_empty(out, ctx, where, ndim, shape, RS_FLOAT64));
  return rs_t_write_(*out, data);
}

static void test_allclose(rs_context *ctx) {
  int64_t n = 5;
  double a[5] = {1, 2, 3, INFINITY, NAN}, b[5] = {1, 2.0000001, 3.1, INFINITY, NAN};
  for (int pl = 0; pl < 2; pl++) {
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_array *x = NULL, *y = NULL;
    CHECK_OK(from(&x, ctx, where, 1, &n, a));
    CHECK_OK(from(&y, ctx, where, 1, &n, b));
    int r = -1;
    CHECK_OK(rs_allclose(x, y, 1e-5, 0, 1, &r, NULL));
    CHECK(r == 0); /* 3 vs 3.1 */
    CHECK_OK(rs_allclose(x, y, 0.05, 0, 1, &r, NULL));
    CHECK(r == 1);
    CHECK_OK(rs_allclose(x, y, 0.05, 0, 0, &r, NULL));
    CHECK(r == 0); /* NaN != NaN without equal_nan */
    rs_close_report rep;
    CHECK_OK(rs_allclose_report(x, y, 1e-5, 0, 1, &rep, NULL));
    CHECK_EQ_I64(rep.mismatched, 1);
    CHECK_EQ_I64(rep.total, 5);
    CHECK_EQ_I64(rep.worst_index[0], 2);
    CHECK_NEAR(rep.worst_actual, 3, 0);
    CHECK_NEAR(rep.worst_desired, 3.1, 0);
    CHECK_NEAR(rep.max_abs_diff, 0.1, 1e-12);
    /* assert_allclose: the message gives the worst element and where it is */
    CHECK_STATUS(rs_assert_allclose(x, y, 1e-5, 0, NULL), RS_ERR_NOT_CLOSE);
    CHECK_ERRMSG("index (2)");
    CHECK_ERRMSG("Not equal to tolerance rtol=1e-05");
    CHECK_ERRMSG("mismatched elements 1 / 5");
    CHECK_OK(rs_assert_allclose(x, y, 0.05, 0, NULL));
    CHECK_OK(rs_assert_allclose(x, y, 0, 0.11, NULL));
    /* an infinity against a finite number is never close */
    double c[5] = {1, 2, 3, 1e300, NAN};
    rs_array *z = NULL;
    CHECK_OK(from(&z, ctx, where, 1, &n, c));
    CHECK_OK(rs_allclose(x, z, 1, 1, 1, &r, NULL));
    CHECK(r == 0);
    tl_release(3, x, y, z);
  }
}

static void test_broadcast_and_2d(rs_context *ctx) {
  int64_t s23[2] = {2, 3}, s3[1] = {3};
  double a[6] = {1, 2, 3, 1, 2, 3.5}, b[3] = {1, 2, 3};
  rs_array *x = NULL, *y = NULL;
  CHECK_OK(from(&x, ctx, RS_MEM_DEVICE, 2, s23, a));
  CHECK_OK(from(&y, ctx, RS_MEM_DEVICE, 1, s3, b));
  rs_close_report rep;
  CHECK_OK(rs_allclose_report(x, y, 1e-7, 0, 0, &rep, NULL));
  CHECK(!rep.close);
  CHECK_EQ_I64(rep.worst_index[0], 1);
  CHECK_EQ_I64(rep.worst_index[1], 2);
  CHECK_NEAR(rep.worst_desired, 3, 0);
  CHECK_STATUS(rs_assert_allclose(x, y, 1e-7, 0, NULL), RS_ERR_SHAPE); /* assert needs equal shapes */
  rs_array *r = NULL;
  CHECK_STATUS(rs_allclose(x, y, 1, 1, 0, NULL, NULL), RS_ERR_NULL_POINTER);
  int ok = 0;
  CHECK_STATUS(rs_allclose(x, y, -1, 0, 0, &ok, NULL), RS_ERR_INVALID_ARGUMENT);
  int64_t s4[1] = {4};
  CHECK_OK(rs_zeros(&r, ctx, RS_MEM_DEVICE, 1, s4, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_allclose(x, r, 1, 1, 0, &ok, NULL), RS_ERR_BROADCAST);
  tl_release(3, x, y, r);
}

static void test_array_equal(rs_context *ctx) {
  int64_t n = 4, m = 3;
  rs_array *a = NULL, *b = NULL, *c = NULL, *d = NULL, *i = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 4, 1, RS_FLOAT32, NULL));
  CHECK_OK(rs_arange(&b, ctx, RS_MEM_DEVICE, 0, 4, 1, RS_FLOAT32, NULL));
  CHECK_OK(rs_arange(&i, ctx, RS_MEM_HOST, 0, 4, 1, RS_INT64, NULL)); /* mixed placement and dtype */
  CHECK_OK(rs_arange(&c, ctx, RS_MEM_DEVICE, 0, 3, 1, RS_FLOAT32, NULL));
  CHECK_OK(rs_full(&d, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, rs_scalar_float(NAN), NULL));
  int eq = -1;
  CHECK_OK(rs_array_equal(a, b, &eq, NULL));
  CHECK(eq == 1);
  CHECK_OK(rs_array_equal(a, i, &eq, NULL));
  CHECK(eq == 1);
  CHECK_OK(rs_array_equal(a, c, &eq, NULL));
  CHECK(eq == 0); /* different shapes: 0, no error */
  CHECK_OK(rs_array_equal(d, d, &eq, NULL));
  CHECK(eq == 0); /* NaN != NaN */
  (void)m;
  tl_release(5, a, b, c, d, i);
}

/* A check on device data brings only its verdict and a few values to the host, each an
 * explicit, recorded copy. */
static void test_ledger(rs_context *ctx) {
  int64_t n = 100000;
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_ledger_begin(ctx));
  int r = 0;
  CHECK_OK(rs_allclose(a, b, 1e-7, 0, 0, &r, NULL));
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_end(ctx, &st));
  CHECK(r == 1);
  CHECK(rs_ledger_copies(&st, 1) == 0);                   /* nothing implicit */
  CHECK(rs_ledger_bytes(&st, -1) < 100);                  /* a few scalars, not the arrays */
  CHECK(st.copies[RS_D2H][0] >= 1 && st.copies[RS_H2D][0] == 0);
  tl_release(2, a, b);
}

static const rs_test_case tests[] = {RS_TEST(test_allclose), RS_TEST(test_broadcast_and_2d), RS_TEST(test_array_equal),
                                     RS_TEST(test_ledger)};
RS_TEST_MAIN(tests)
