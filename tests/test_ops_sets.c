/* unique_values / _counts / _inverse / _all against NumPy 2's functions of those names
 * (every NaN distinct, -0.0 == 0.0, inverse of x's shape, first-occurrence indices), and
 * device against host: every orderable dtype, views, empty and 0-d arrays, a long array;
 * complex refused; the _into forms checked before anything is written. */
#include "ops_testlib.h"
#include "resident/sets.h"

/* Every result of each function on one input pair, as suite cases. */
static void add_cases(ew_suite *s, const char *label, rs_array *xd, rs_array *xh, int np) {
  rs_array *d[4] = {NULL}, *h[4] = {NULL};
  rs_status sd = rs_unique_all(&d[0], &d[1], &d[2], &d[3], xd, NULL);
  rs_status sh = rs_unique_all(&h[0], &h[1], &h[2], &h[3], xh, NULL);
  static const char *field[4] = {"values", "indices", "inverse_indices", "counts"};
  for (int k = 0; k < 4; k++) {
    ew_case *c = suite_add(s, "unique_all(%s).%s", label, field[k]);
    c->dev = d[k], c->host = h[k], c->sdev = sd, c->shost = sh;
    c->np = tl_np_expr(&s->np, "np.unique_all(a%d).%s", np, field[k]);
  }
  ew_case *c = suite_add(s, "unique_values(%s)", label);
  c->sdev = rs_unique_values(&c->dev, xd, NULL);
  c->shost = rs_unique_values(&c->host, xh, NULL);
  /* NumPy 2.3+ may return unique_values unsorted (a hash table); the standard allows any
   * order, resident's is ascending */
  c->np = tl_np_expr(&s->np, "np.sort(np.unique_values(a%d))", np);
  rs_array *cd = NULL, *ch = NULL;
  ew_case *cv = suite_add(s, "unique_counts(%s).values", label);
  ew_case *cc = suite_add(s, "unique_counts(%s).counts", label);
  cv->sdev = cc->sdev = rs_unique_counts(&cv->dev, &cd, xd, NULL);
  cv->shost = cc->shost = rs_unique_counts(&cv->host, &ch, xh, NULL);
  cc->dev = cd, cc->host = ch;
  cv->np = tl_np_expr(&s->np, "np.unique_counts(a%d).values", np);
  cc->np = tl_np_expr(&s->np, "np.unique_counts(a%d).counts", np);
  ew_case *iv = suite_add(s, "unique_inverse(%s).values", label);
  ew_case *ii = suite_add(s, "unique_inverse(%s).inverse", label);
  iv->sdev = ii->sdev = rs_unique_inverse(&iv->dev, &cd, xd, NULL);
  iv->shost = ii->shost = rs_unique_inverse(&iv->host, &ch, xh, NULL);
  ii->dev = cd, ii->host = ch;
  iv->np = tl_np_expr(&s->np, "np.unique_inverse(a%d).values", np);
  /* which NaN maps to which NaN value is the order of the sort: NumPy's unique_inverse
   * sorts unstably, its unique_all stably (resident sorts stably for both) */
  ii->np = tl_np_expr(&s->np, "np.unique_all(a%d).inverse_indices", np);
}

static void test_unique_every_dtype(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {9, 13};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    if (tl_is_complex(d)) continue;
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, shape, 500 + di, 1)); /* NaN, -0.0, inf among them */
    add_cases(s, rs_dtype_name(d), a.dev, a.host, a.np);
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_unique_views_empty_0d_long(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {12, 10}, e[2] = {3, 0}, big = 200000;
  pair a, em, lg;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, 2, shape, 600, 1));
  CHECK_OK(make_pair(&em, s, ctx, RS_INT32, 2, e, 601, 0));
  CHECK_OK(make_pair(&lg, s, ctx, RS_INT64, 1, &big, 602, 0));
  rs_array *td = NULL, *th = NULL, *vd = NULL, *vh = NULL;
  CHECK_OK(rs_array_transpose(&td, a.dev));
  CHECK_OK(rs_array_transpose(&th, a.host));
  rs_slice sl[2] = {{1, 12, 3}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -2}};
  CHECK_OK(rs_array_slice(&vd, a.dev, 2, sl));
  CHECK_OK(rs_array_slice(&vh, a.host, 2, sl));
  int npt = tl_np_input(&s->np, th), npv = tl_np_input(&s->np, vh);
  add_cases(s, "transposed", td, th, npt);
  add_cases(s, "strided", vd, vh, npv);
  add_cases(s, "empty", em.dev, em.host, em.np);
  add_cases(s, "200000 int64", lg.dev, lg.host, lg.np);
  rs_array *zd = NULL, *zh = NULL;
  CHECK_OK(rs_full(&zd, ctx, RS_MEM_DEVICE, 0, NULL, RS_UINT8, rs_scalar_int(7), NULL));
  CHECK_OK(rs_full(&zh, ctx, RS_MEM_HOST, 0, NULL, RS_UINT8, rs_scalar_int(7), NULL));
  int npz = tl_np_input(&s->np, zh);
  add_cases(s, "0-d", zd, zh, npz);
  int bad = suite_check(s, ctx);
  tl_release(6, td, th, vd, vh, zd, zh);
  free_pair(&a);
  free_pair(&em);
  free_pair(&lg);
  suite_free(s);
  CHECK(bad == 0);
}

/* NaNs: each its own value with count 1, inverse pointing at each (plain values). */
static void test_unique_nan(rs_context *ctx) {
  double x[7] = {1, NAN, 0.0, NAN, -0.0, 1, -INFINITY};
  int64_t n = 7;
  rs_array *h = NULL, *d = NULL, *v = NULL, *i = NULL, *inv = NULL, *c = NULL;
  CHECK_OK(rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_unique_all(&v, &i, &inv, &c, d, NULL));
  CHECK_EQ_I64(rs_array_shape(v)[0], 5);
  double gv[5];
  int64_t gi[5], ginv[7], gc[5];
  CHECK_OK(rs_t_read_(v, gv));
  CHECK_OK(rs_t_read_(i, gi));
  CHECK_OK(rs_t_read_(inv, ginv));
  CHECK_OK(rs_t_read_(c, gc));
  CHECK(gv[0] == -INFINITY && gv[1] == 0 && gv[2] == 1 && isnan(gv[3]) && isnan(gv[4]));
  CHECK(gi[0] == 6 && gi[1] == 2 && gi[2] == 0 && gi[3] == 1 && gi[4] == 3);
  CHECK(gc[0] == 1 && gc[1] == 2 && gc[2] == 2 && gc[3] == 1 && gc[4] == 1);
  const int64_t want_inv[7] = {2, 3, 1, 4, 1, 2, 0};
  for (int k = 0; k < 7; k++) CHECK_EQ_I64(ginv[k], want_inv[k]);
  tl_release(6, h, d, v, i, inv, c);
}

static void test_unique_into_and_bad(rs_context *ctx) {
  int64_t n = 6, three = 3, four = 4;
  int32_t x[6] = {5, 1, 5, 3, 1, 5};
  rs_array *h = NULL, *d = NULL, *v3 = NULL, *c3 = NULL, *v4 = NULL, *cx = NULL, *o = NULL;
  CHECK_OK(rs_host_array_wrap(&h, ctx, x, 1, &n, RS_INT32, NULL));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_full(&v3, ctx, RS_MEM_DEVICE, 1, &three, RS_INT32, rs_scalar_int(-1), NULL));
  CHECK_OK(rs_full(&c3, ctx, RS_MEM_DEVICE, 1, &three, RS_INT64, rs_scalar_int(-1), NULL));
  CHECK_OK(rs_full(&v4, ctx, RS_MEM_DEVICE, 1, &four, RS_INT32, rs_scalar_int(-1), NULL));
  CHECK_OK(rs_unique_counts_into(v3, c3, d, NULL));
  int32_t gv[4];
  int64_t gc[3];
  CHECK_OK(rs_t_read_(v3, gv));
  CHECK_OK(rs_t_read_(c3, gc));
  CHECK(gv[0] == 1 && gv[1] == 3 && gv[2] == 5 && gc[0] == 2 && gc[1] == 1 && gc[2] == 3);
  /* a destination of the wrong length or dtype: refused, nothing written */
  CHECK_OK(rs_full_into(c3, rs_scalar_int(-1), NULL));
  CHECK_STATUS(rs_unique_counts_into(v4, c3, d, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_unique_counts_into(v3, v3, d, NULL), RS_ERR_DTYPE);
  CHECK_OK(rs_t_read_(v4, gv));
  CHECK_OK(rs_t_read_(c3, gc));
  for (int k = 0; k < 4; k++) CHECK(gv[k] == -1);
  for (int k = 0; k < 3; k++) CHECK(gc[k] == -1);
  CHECK_OK(rs_astype(&cx, d, RS_COMPLEX64, NULL));
  CHECK_STATUS(rs_unique_values(&o, cx, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("complex");
  CHECK_STATUS(rs_unique_values(NULL, d, NULL), RS_ERR_NULL_POINTER);
  CHECK(o == NULL);
  tl_release(6, h, d, v3, c3, v4, cx);
}

static const rs_test_case tests[] = {RS_TEST(test_unique_every_dtype), RS_TEST(test_unique_views_empty_0d_long),
                                     RS_TEST(test_unique_nan), RS_TEST(test_unique_into_and_bad)};
RS_TEST_MAIN(tests)
