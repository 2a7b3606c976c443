/* var / std, clip, diff and sort / argsort along any axis (descending too) against NumPy
 * 2: every dtype each takes, several axes with keepdims, correction, views, empty and
 * 0-d arrays, _into forms; bad input (axes out of range or repeated, correction out of
 * range, mismatched prepend) refused with a status and a message, nothing written. */
#include "ops_testlib.h"
#include "resident/stats.h"

static void test_var_std(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s1[1] = {29}, s3[3] = {3, 4, 5};
  static const int ax_list[6][3] = {{0}, {0}, {0, 2}, {-1, 1}, {-2}, {0, 1, 2}};
  const int ax_n[6] = {0, 1, 2, 2, 1, 3};
  const char *np_axes[] = {"None", "(0,)", "(0, 2)", "(-1, 1)", "(-2,)", "(0, 1, 2)"};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a, b;
    CHECK_OK(make_pair(&a, s, ctx, d, 1, s1, 3 + di, 0));
    CHECK_OK(make_pair(&b, s, ctx, d, 3, s3, 40 + di, 0));
    for (int sq = 0; sq < 2; sq++)
      for (int k = 0; k < 6; k++)
        for (int keep = 0; keep < 2; keep++) {
          const pair *in = k < 2 ? &a : &b;
          if (k == 1 && keep) continue;
          double corr = (k + keep) % 2 ? 1.0 : 0.0;
          const char *fn = sq ? "std" : "var";
          ew_case *c = suite_add(s, "%s(%s, axes %s, correction %g, keepdims %d)", fn, rs_dtype_name(d), np_axes[k],
                                 corr, keep);
          rs_status (*f)(rs_array **, const rs_array *, int, const int *, double, int, rs_stream *) = sq ? rs_std : rs_var;
          const int *axes = k == 0 ? NULL : ax_list[k];
          int naxes = ax_n[k];
          c->sdev = f(&c->dev, in->dev, naxes, axes, corr, keep, NULL);
          c->shost = f(&c->host, in->host, naxes, axes, corr, keep, NULL);
          c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=%s, correction=%g, keepdims=%s)", fn, in->np, np_axes[k], corr,
                             keep ? "True" : "False");
          c->rtol = d == RS_FLOAT16 ? 2e-3 : (d == RS_FLOAT32 || d == RS_COMPLEX64) ? 1e-5 : 1e-12;
        }
    free_pair(&a);
    free_pair(&b);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* Large offset: the two-pass method keeps the variance of 1e8 + small deviations. */
static void test_var_offset(rs_context *ctx) {
  int64_t n = 1000;
  double *h = malloc((size_t)n * sizeof *h), mean = 0, ss = 0;
  for (int64_t i = 0; i < n; i++) mean += h[i] = 1e8 + (double)(i % 10) * 0.1;
  mean /= (double)n;
  for (int64_t i = 0; i < n; i++) ss += (h[i] - mean) * (h[i] - mean);
  rs_array *hx = NULL, *dx = NULL, *v = NULL, *sd = NULL;
  CHECK_OK(rs_host_array_wrap(&hx, ctx, h, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_to_device(&dx, hx, 0, NULL));
  CHECK_OK(rs_var(&v, dx, 0, NULL, 1, 0, NULL));
  CHECK_OK(rs_std(&sd, hx, 0, NULL, 1, 0, NULL));
  double got = 0, gsd = 0;
  CHECK_OK(rs_array_item_double(v, NULL, &got, NULL));
  CHECK_OK(rs_array_item_double(sd, NULL, &gsd, NULL));
  CHECK_MSG(fabs(got - ss / 999) <= 1e-6 * (ss / 999), "var %.17g, want %.17g", got, ss / 999);
  CHECK_MSG(fabs(gsd - sqrt(ss / 999)) <= 1e-6 * sqrt(ss / 999), "std %.17g", gsd);
  tl_release(4, hx, dx, v, sd);
  free(h);
}

/* Larger blocks than the NumPy cases, against a plain two-pass loop in double: one long
 * row (the GPU's DeviceReduce), many rows (DeviceSegmentedReduce), a few rows, and a
 * leading and a middle axis long enough to be cut into chunks on the GPU. */
static void test_var_blocks(rs_context *ctx) {
  const int64_t shapes[5][3] = {{1, 1, 2000003}, {1, 300, 1000}, {1, 5, 70001}, {1, 20000, 30}, {2, 5000, 40}};
  const int64_t outer_of[5] = {1, 300, 5, 1, 2}, inner_of[5] = {1, 1, 1, 30, 40};
  for (int k = 0; k < 5; k++) {
    int64_t total = shapes[k][0] * shapes[k][1] * shapes[k][2], outer = outer_of[k], inner = inner_of[k];
    int64_t n = total / outer / inner;
    double *h = malloc((size_t)total * sizeof *h), *want = malloc((size_t)(outer * inner) * sizeof *want);
    double *got = malloc((size_t)(outer * inner) * sizeof *got);
    for (int64_t i = 0; i < total; i++) h[i] = 1000.0 + (double)((i * 7919) % 1999) / 7.0;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < inner; j++) {
        double m = 0, ss = 0;
        for (int64_t i = 0; i < n; i++) m += h[(o * n + i) * inner + j];
        m /= (double)n;
        for (int64_t i = 0; i < n; i++) ss += (h[(o * n + i) * inner + j] - m) * (h[(o * n + i) * inner + j] - m);
        want[o * inner + j] = sqrt(ss / (double)(n - 1));
      }
    rs_array *hx = NULL, *dx = NULL, *y = NULL;
    CHECK_OK(rs_host_array_wrap(&hx, ctx, h, 3, shapes[k], RS_FLOAT64, NULL));
    CHECK_OK(rs_to_device(&dx, hx, 0, NULL));
    int ax = k < 3 ? 2 : 1;
    CHECK_OK(rs_std(&y, dx, 1, &ax, 1, 0, NULL));
    CHECK_OK(rs_t_read_(y, got));
    int64_t wrong = 0;
    for (int64_t i = 0; i < outer * inner; i++) wrong += !(fabs(got[i] - want[i]) <= 1e-9 * want[i]);
    CHECK_MSG(wrong == 0, "block %d: %lld wrong (first %.17g, want %.17g)", k, (long long)wrong, got[0], want[0]);
    tl_release(3, hx, dx, y);
    free(h);
    free(want);
    free(got);
  }
}

/* _into: a float64 destination of a float32 var (the fast path through a temporary) and a
 * strided view (the composed path), against NumPy */
static void test_var_into(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t sh[2] = {6, 50}, o6[1] = {6}, o12[1] = {12};
  pair a;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT32, 2, sh, 91, 0));
  for (int pl = 0; pl < 2; pl++) {
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_array *x = pl ? a.host : a.dev, *d64 = NULL, *big = NULL, *view = NULL;
    const int ax1[1] = {1};
    CHECK_OK(rs_zeros(&d64, ctx, where, 1, o6, RS_FLOAT64, NULL));
    CHECK_OK(rs_std_into(d64, x, 1, ax1, 1, 0, NULL));
    CHECK_OK(rs_zeros(&big, ctx, where, 1, o12, RS_FLOAT32, NULL));
    rs_slice every[1] = {{0, 12, 2}};
    CHECK_OK(rs_array_slice(&view, big, 1, every));
    CHECK_OK(rs_var_into(view, x, 1, ax1, 0, 0, NULL));
    if (!pl) {
      ew_case *c = suite_add(s, "std into float64");
      c->dev = d64;
      c->np = tl_np_expr(&s->np, "np.std(a%d, axis=1, ddof=1).astype(np.float64)", a.np);
      c->rtol = 1e-5;
      c = suite_add(s, "var into every other element");
      c->dev = big;
      c->np = tl_np_expr(&s->np, "(lambda z: (z.__setitem__(slice(0, 12, 2), np.var(a%d, axis=1)), z)[1])(np.zeros(12, np.float32))", a.np);
      c->rtol = 1e-5;
    } else {
      s->c[s->n - 2].host = d64;
      s->c[s->n - 1].host = big;
    }
    rs_array_release(view);
  }
  free_pair(&a);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* sum / prod / mean / min / max over several axes with keepdims meet the standard */
static void test_reductions_axes(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s3[3] = {3, 4, 5};
  const char *names[5] = {"sum", "prod", "mean", "min", "max"};
  rs_status (*fs[5])(rs_array **, const rs_array *, int, const int *, int, rs_stream *) = {rs_sum, rs_prod, rs_mean,
                                                                                          rs_min, rs_max};
  const rs_dtype ds[] = {RS_INT8, RS_UINT16, RS_INT32, RS_FLOAT32, RS_FLOAT64};
  const int axes[2] = {2, 0};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, ds[di], 3, s3, 9 + di, 0));
    for (int f = 0; f < 5; f++)
      for (int keep = 0; keep < 2; keep++) {
        ew_case *c = suite_add(s, "%s(%s, axes (2, 0), keepdims %d)", names[f], rs_dtype_name(ds[di]), keep);
        c->sdev = fs[f](&c->dev, a.dev, 2, axes, keep, NULL);
        c->shost = fs[f](&c->host, a.host, 2, axes, keep, NULL);
        c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=(2, 0), keepdims=%s)", names[f], a.np, keep ? "True" : "False");
        c->rtol = tl_rtol(ds[di]) * 10;
      }
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_var_bad(rs_context *ctx) {
  int64_t sh[2] = {3, 4}, one = 1;
  rs_array *a = NULL, *r = NULL, *dst = NULL, *i8 = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 2, sh, RS_FLOAT32, NULL));
  const int rep[2] = {1, -1}, far[1] = {2};
  CHECK_STATUS(rs_var(&r, a, 2, rep, 0, 0, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("duplicate");
  CHECK_STATUS(rs_std(&r, a, 1, far, 0, 0, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_var(&r, a, 0, NULL, -1, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("correction");
  CHECK_STATUS(rs_var(&r, a, 0, NULL, 12, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("degrees of freedom");
  CHECK_STATUS(rs_std(&r, a, 0, NULL, NAN, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK(r == NULL);
  /* dst: wrong shape, a dtype the float result cannot be cast to: untouched */
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 1, &one, RS_FLOAT32, rs_scalar_float(7), NULL));
  CHECK_STATUS(rs_var_into(dst, a, 0, NULL, 0, 0, NULL), RS_ERR_SHAPE);
  CHECK_OK(rs_full(&i8, ctx, RS_MEM_DEVICE, 0, NULL, RS_INT8, rs_scalar_int(7), NULL));
  CHECK_STATUS(rs_std_into(i8, a, 0, NULL, 0, 0, NULL), RS_ERR_DTYPE);
  float f = 0;
  int8_t b = 0;
  CHECK_OK(rs_t_read_(dst, &f));
  CHECK_OK(rs_t_read_(i8, &b));
  CHECK(f == 7 && b == 7);
  tl_release(4, a, r, dst, i8);
}

static void test_clip(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t sh[2] = {6, 7}, row[1] = {7};
  const rs_dtype ds[] = {RS_INT8, RS_UINT8, RS_INT32, RS_INT64, RS_UINT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    pair a, lo, hi;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, sh, 11 + di, 1));
    CHECK_OK(make_pair(&lo, s, ctx, d, 1, row, 21 + di, 0));
    CHECK_OK(make_pair(&hi, s, ctx, d, 2, sh, 31 + di, 1));
    rs_scalar l = rs_scalar_int(-3), h = rs_scalar_int(12);
    ew_case *c = suite_add(s, "clip(%s, -3, 12)", rs_dtype_name(d));
    c->sdev = rs_clip_scalar(&c->dev, a.dev, &l, &h, NULL);
    c->shost = rs_clip_scalar(&c->host, a.host, &l, &h, NULL);
    c->np = tl_np_expr(&s->np, "np.clip(a%d, -3, 12)", a.np);
    c = suite_add(s, "clip(%s, None, 12)", rs_dtype_name(d));
    c->sdev = rs_clip_scalar(&c->dev, a.dev, NULL, &h, NULL);
    c->shost = rs_clip_scalar(&c->host, a.host, NULL, &h, NULL);
    c->np = tl_np_expr(&s->np, "np.clip(a%d, None, 12)", a.np);
    c = suite_add(s, "clip(%s, lo row, hi array)", rs_dtype_name(d));
    c->sdev = rs_clip(&c->dev, a.dev, lo.dev, hi.dev, NULL);
    c->shost = rs_clip(&c->host, a.host, lo.host, hi.host, NULL);
    c->np = tl_np_expr(&s->np, "np.clip(a%d, a%d, a%d)", a.np, lo.np, hi.np);
    c = suite_add(s, "clip(%s, lo row)", rs_dtype_name(d));
    c->sdev = rs_clip(&c->dev, a.dev, lo.dev, NULL, NULL);
    c->shost = rs_clip(&c->host, a.host, lo.host, NULL, NULL);
    c->np = tl_np_expr(&s->np, "np.clip(a%d, a%d, None)", a.np, lo.np);
    free_pair(&a);
    free_pair(&lo);
    free_pair(&hi);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_clip_bad(rs_context *ctx) {
  int64_t n = 4, m = 3;
  rs_array *a = NULL, *c = NULL, *w = NULL, *r = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 1, &n, RS_INT8, NULL));
  CHECK_OK(rs_ones(&c, ctx, RS_MEM_DEVICE, 1, &n, RS_COMPLEX64, NULL));
  CHECK_OK(rs_ones(&w, ctx, RS_MEM_DEVICE, 1, &m, RS_INT8, NULL));
  rs_scalar big = rs_scalar_int(1000), small = rs_scalar_int(-1000);
  CHECK_STATUS(rs_clip(&r, c, NULL, NULL, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("complex");
  CHECK_STATUS(rs_clip(&r, a, w, NULL, NULL), RS_ERR_BROADCAST);
  CHECK(r == NULL);
  /* integer bounds outside int8: clamped to its range (NumPy 2), the result stays int8 */
  CHECK_OK(rs_clip_scalar(&r, a, &big, NULL, NULL));
  CHECK_EQ_I64(rs_array_dtype(r), RS_INT8);
  int8_t got[4];
  CHECK_OK(rs_t_read_(r, got));
  CHECK(got[0] == 127 && got[3] == 127);
  rs_array_release(r);
  r = NULL;
  CHECK_OK(rs_clip_scalar(&r, a, &small, &small, NULL));
  CHECK_OK(rs_t_read_(r, got));
  CHECK(got[0] == -128 && got[3] == -128);
  tl_release(4, a, c, w, r);
}

static void test_diff(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t sh[2] = {5, 8}, p1[2] = {5, 2}, p0[2] = {1, 8};
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_UINT16, RS_INT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    pair a, pre, app;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, sh, 13 + di, 0));
    CHECK_OK(make_pair(&pre, s, ctx, d, 2, p1, 23 + di, 0));
    CHECK_OK(make_pair(&app, s, ctx, d, 2, p0, 33 + di, 0));
    for (int n = 0; n <= 3; n++)
      for (int ax = -1; ax <= 1; ax++) {
        ew_case *c = suite_add(s, "diff(%s, n %d, axis %d)", rs_dtype_name(d), n, ax);
        c->sdev = rs_diff(&c->dev, a.dev, n, ax, NULL, NULL, NULL);
        c->shost = rs_diff(&c->host, a.host, n, ax, NULL, NULL, NULL);
        c->np = tl_np_expr(&s->np, "np.diff(a%d, n=%d, axis=%d)", a.np, n, ax);
        c->rtol = tl_rtol(d);
      }
    ew_case *c = suite_add(s, "diff(%s, prepend along 1)", rs_dtype_name(d));
    c->sdev = rs_diff(&c->dev, a.dev, 2, 1, pre.dev, NULL, NULL);
    c->shost = rs_diff(&c->host, a.host, 2, 1, pre.host, NULL, NULL);
    c->np = tl_np_expr(&s->np, "np.diff(a%d, n=2, axis=1, prepend=a%d)", a.np, pre.np);
    c = suite_add(s, "diff(%s, append along 0)", rs_dtype_name(d));
    c->sdev = rs_diff(&c->dev, a.dev, 1, 0, NULL, app.dev, NULL);
    c->shost = rs_diff(&c->host, a.host, 1, 0, NULL, app.host, NULL);
    c->np = tl_np_expr(&s->np, "np.diff(a%d, n=1, axis=0, append=a%d)", a.np, app.np);
    c = suite_add(s, "diff(%s, n 9 > length)", rs_dtype_name(d));
    c->sdev = rs_diff(&c->dev, a.dev, 9, 1, NULL, NULL, NULL);
    c->shost = rs_diff(&c->host, a.host, 9, 1, NULL, NULL, NULL);
    c->np = tl_np_expr(&s->np, "np.diff(a%d, n=9, axis=1)", a.np);
    free_pair(&a);
    free_pair(&pre);
    free_pair(&app);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_diff_bad(rs_context *ctx) {
  int64_t sh[2] = {3, 4}, wrong[2] = {2, 2};
  rs_array *a = NULL, *z = NULL, *p = NULL, *r = NULL, *dst = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 2, sh, RS_FLOAT32, NULL));
  CHECK_OK(rs_zeros(&z, ctx, RS_MEM_DEVICE, 0, NULL, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&p, ctx, RS_MEM_DEVICE, 2, wrong, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_diff(&r, z, 1, 0, NULL, NULL, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_diff(&r, a, -1, 0, NULL, NULL, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_diff(&r, a, 1, 2, NULL, NULL, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_diff(&r, a, 1, 1, p, NULL, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("prepend");
  CHECK(r == NULL);
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 2, sh, RS_FLOAT32, rs_scalar_float(7), NULL));
  CHECK_STATUS(rs_diff_into(dst, a, 1, 1, NULL, NULL, NULL), RS_ERR_SHAPE);
  float f[12];
  CHECK_OK(rs_t_read_(dst, f));
  for (int i = 0; i < 12; i++) CHECK(f[i] == 7);
  tl_release(4, a, z, p, dst);
}

/* sort and argsort on every axis, ascending and descending, against NumPy's stable sort
 * (descending: array_api_compat's flip(sort(flip(x)))): special values, every ordered
 * dtype. */
static void test_sort_axes(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s3[3] = {4, 7, 5};
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_INT16, RS_UINT32, RS_INT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, d, 3, s3, 5 + di, 1));
    for (int ax = -3; ax < 3; ax++)
      for (int desc = 0; desc < 2; desc++)
        for (int arg = 0; arg < 2; arg++) {
          ew_case *c = suite_add(s, "%s(%s, axis %d, descending %d)", arg ? "argsort" : "sort", rs_dtype_name(d), ax, desc);
          rs_status (*f)(rs_array **, const rs_array *, int, int, int, rs_stream *) = arg ? rs_argsort_axis : rs_sort_axis;
          c->sdev = f(&c->dev, a.dev, ax, desc, 1, NULL);
          c->shost = f(&c->host, a.host, ax, desc, 1, NULL);
          if (!desc)
            c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=%d, kind='stable')", arg ? "argsort" : "sort", a.np, ax);
          else if (!arg)
            c->np = tl_np_expr(&s->np, "np.flip(np.sort(np.flip(a%d, axis=%d), axis=%d, kind='stable'), axis=%d)", a.np,
                               ax, ax, ax);
          else
            c->np = tl_np_expr(&s->np,
                               "a%d.shape[%d] - 1 - np.flip(np.argsort(np.flip(a%d, axis=%d), axis=%d, kind='stable'), "
                               "axis=%d)",
                               a.np, ax, a.np, ax, ax, ax);
        }
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* in place along axis 0, descending; out of range axis refused */
static void test_sort_axis_inplace_bad(rs_context *ctx) {
  int64_t sh[2] = {4, 3};
  int32_t h[12] = {5, 1, 9, 2, 8, 3, 7, 7, 1, 0, 4, 6}, got[12];
  const int32_t want[12] = {7, 8, 9, 5, 7, 6, 2, 4, 3, 0, 1, 1};
  rs_array *hx = NULL, *dx = NULL, *r = NULL;
  CHECK_OK(rs_host_array_wrap(&hx, ctx, h, 2, sh, RS_INT32, NULL));
  CHECK_OK(rs_to_device(&dx, hx, 0, NULL));
  CHECK_OK(rs_sort_axis_into(dx, dx, 0, 1, 1, NULL));
  CHECK_OK(rs_t_read_(dx, got));
  CHECK(memcmp(got, want, sizeof got) == 0);
  CHECK_STATUS(rs_sort_axis(&r, dx, 2, 0, 1, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_argsort_axis(&r, dx, -3, 1, 1, NULL), RS_ERR_AXIS);
  CHECK(r == NULL);
  tl_release(2, hx, dx);
}

static const rs_test_case tests[] = {
    RS_TEST(test_var_std),    RS_TEST(test_var_offset), RS_TEST(test_var_blocks), RS_TEST(test_var_into), RS_TEST(test_reductions_axes), RS_TEST(test_var_bad),
    RS_TEST(test_clip),       RS_TEST(test_clip_bad),   RS_TEST(test_diff),            RS_TEST(test_diff_bad),
    RS_TEST(test_sort_axes),  RS_TEST(test_sort_axis_inplace_bad)};
RS_TEST_MAIN(tests)
