/* cumulative_sum and cumulative_prod against NumPy 2 (np.cumulative_sum / _prod): every
 * dtype (accumulator dtypes int64 / uint64 / own), each axis of 1-d to 3-d arrays,
 * include_initial, non-contiguous views, empty and one-element axes, _into a strided
 * view; a long row (the GPU's single scan) and many rows (scan by key) against a plain
 * loop; bad axes refused with nothing written. */
#include "ops_testlib.h"
#include "resident/stats.h"

/* float sums on the GPU associate differently from NumPy's sequential loop */
static double scan_rtol(rs_dtype d) {
  if (d == RS_FLOAT16) return 2e-3;
  if (d == RS_FLOAT32 || d == RS_COMPLEX64) return 2e-5;
  if (d == RS_FLOAT64 || d == RS_COMPLEX128) return 1e-12;
  return 0;
}

static void test_scan_values(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s1[1] = {37}, s2[2] = {5, 9}, s3[3] = {3, 4, 6};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a, b, c3;
    CHECK_OK(make_pair(&a, s, ctx, d, 1, s1, 3 + di, 0));
    CHECK_OK(make_pair(&b, s, ctx, d, 2, s2, 30 + di, 0));
    CHECK_OK(make_pair(&c3, s, ctx, d, 3, s3, 60 + di, 0));
    pair *ins[3] = {&a, &b, &c3};
    for (int i = 0; i < 3; i++)
      for (int ax = -1; ax <= i; ax++)
        for (int prod = 0; prod < 2; prod++)
          for (int init = 0; init < 2; init++) {
            if (prod && i == 0 && ax == 0) continue; /* the same as axis -1 */
            const char *fn = prod ? "cumulative_prod" : "cumulative_sum";
            ew_case *c = suite_add(s, "%s(%s, %dd, axis %d, init %d)", fn, rs_dtype_name(d), i + 1, ax, init);
            int (*f)(rs_array **, const rs_array *, int, int, rs_stream *) = prod ? rs_cumulative_prod : rs_cumulative_sum;
            c->sdev = f(&c->dev, ins[i]->dev, ax, init, NULL);
            c->shost = f(&c->host, ins[i]->host, ax, init, NULL);
            c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=%d, include_initial=%s)", fn, ins[i]->np, ax,
                               init ? "True" : "False");
            c->rtol = prod ? (d == RS_FLOAT16 ? 2e-2 : 4 * scan_rtol(d)) : scan_rtol(d);
            c->atol = d == RS_FLOAT16 ? 1e-2 : 0;
          }
    free_pair(&a);
    free_pair(&b);
    free_pair(&c3);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* views in, a strided view out, empty axes, a 1-d array without an axis */
static void test_scan_views(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {8, 12}, e1[2] = {0, 4}, e2[2] = {4, 0};
  pair a, z1, z2;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, 2, shape, 5, 1));
  CHECK_OK(make_pair(&z1, s, ctx, RS_INT32, 2, e1, 6, 0));
  CHECK_OK(make_pair(&z2, s, ctx, RS_INT32, 2, e2, 7, 0));
  for (int pl = 0; pl < 2; pl++) {
    rs_array *x = pl ? a.host : a.dev, *t = NULL, *sl = NULL, *r[6] = {0}, *big = NULL, *dv = NULL;
    rs_slice ss[2] = {{0, 8, 3}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1}};
    CHECK_OK(rs_array_transpose(&t, x));
    CHECK_OK(rs_array_slice(&sl, x, 2, ss));
    CHECK_OK(rs_cumulative_sum(&r[0], t, 0, 0, NULL));
    CHECK_OK(rs_cumulative_prod(&r[1], sl, 1, 1, NULL));
    /* into every other row of a bigger array */
    int64_t bs[2] = {6, 12};
    CHECK_OK(rs_zeros(&big, ctx, pl ? RS_MEM_HOST : RS_MEM_DEVICE, 2, bs, RS_FLOAT64, NULL));
    rs_slice every[1] = {{0, 6, 2}};
    CHECK_OK(rs_array_slice(&dv, big, 1, every));
    CHECK_OK(rs_cumulative_sum_into(dv, sl, 0, 0, NULL));
    r[2] = big;
    CHECK_OK(rs_cumulative_sum(&r[3], pl ? z1.host : z1.dev, 0, 1, NULL));
    CHECK_OK(rs_cumulative_sum(&r[4], pl ? z2.host : z2.dev, 1, 1, NULL));
    CHECK_OK(rs_cumulative_prod(&r[5], pl ? z2.host : z2.dev, 0, 0, NULL));
    const char *np[6] = {"np.cumulative_sum(a%d.T, axis=0)",
                         "np.cumulative_prod(a%d[0:8:3, ::-1], axis=1, include_initial=True)",
                         "(lambda z: (z.__setitem__(slice(0, 6, 2), np.cumulative_sum(a%d[0:8:3, ::-1], axis=0)), z)[1])(np.zeros((6, 12)))",
                         "np.cumulative_sum(a%d, axis=0, include_initial=True)",
                         "np.cumulative_sum(a%d, axis=1, include_initial=True)",
                         "np.cumulative_prod(a%d, axis=0)"};
    int in[6] = {a.np, a.np, a.np, z1.np, z2.np, z2.np};
    for (int k = 0; k < 6; k++) {
      if (!pl) {
        ew_case *c = suite_add(s, "scan view case %d", k);
        c->dev = r[k];
        c->np = tl_np_expr(&s->np, np[k], in[k]);
        c->rtol = 1e-12;
      } else {
        s->c[s->n - 6 + k].host = r[k];
      }
    }
    tl_release(3, t, sl, dv);
  }
  free_pair(&a);
  free_pair(&z1);
  free_pair(&z2);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* int32 against a plain loop, exact: a long row (one CUB scan), many short rows (scan by
 * key), and axes that are not the last (the GPU's column scans: chunked, or a block per
 * strip of columns). */
static void test_scan_long(rs_context *ctx) {
  /* the last: enough long rows for a block per row on the GPU (a ragged last tile) */
  /* the middle axis of wide arrays: a block per strip of 32 columns on the GPU (from 2
   * strips a multiprocessor: 316 and 282 here), ragged in both directions */
  const int64_t shapes[8][3] = {{1, 1, 3000001}, {1, 20001, 37}, {1, 5000, 300}, {3, 40000, 5}, {2, 7, 70001},
                                {1, 1100, 2500},  {4, 600, 2500}, {1, 300, 9000}};
  const int axes[8] = {2, 2, 1, 1, 1, 2, 1, 1};
  for (int k = 0; k < 8; k++) {
    int64_t outer = shapes[k][0] * (axes[k] == 2 ? shapes[k][1] : 1), n = shapes[k][axes[k]];
    int64_t inner = axes[k] == 2 ? 1 : shapes[k][2], total = shapes[k][0] * shapes[k][1] * shapes[k][2];
    int32_t *h = malloc((size_t)total * sizeof *h);
    int64_t *want = malloc((size_t)total * sizeof *want), *got = malloc((size_t)total * sizeof *got);
    for (int64_t i = 0; i < total; i++) h[i] = (int32_t)((i * 7919) % 2001) - 1000;
    for (int64_t o = 0; o < outer; o++)
      for (int64_t j = 0; j < inner; j++) {
        int64_t acc = 0;
        for (int64_t i = 0; i < n; i++) want[(o * n + i) * inner + j] = acc += h[(o * n + i) * inner + j];
      }
    rs_array *hx = NULL, *dx = NULL, *y = NULL;
    CHECK_OK(rs_host_array_wrap(&hx, ctx, h, 3, shapes[k], RS_INT32, NULL));
    CHECK_OK(rs_to_device(&dx, hx, 0, NULL));
    CHECK_OK(rs_cumulative_sum(&y, dx, axes[k], 0, NULL));
    CHECK_EQ_I64(rs_array_dtype(y), RS_INT64);
    CHECK_OK(rs_t_read_(y, got));
    int64_t wrong = 0;
    for (int64_t i = 0; i < total; i++) wrong += got[i] != want[i];
    CHECK_MSG(wrong == 0, "shape %d: %lld wrong", k, (long long)wrong);
    tl_release(3, hx, dx, y);
    free(h);
    free(want);
    free(got);
  }
}

/* Floats along the middle axis of wide arrays, exactly: values k / 64 with |k| <= 1000,
 * so every partial sum of up to 2^14 of them is a float32 whatever the order. On the GPU
 * (132 multiprocessors): tiles of rows looking up strips of 32 columns (float32 pairs, inner
 * even: 160 and 141 strips; float64 and complex64, whose imaginary parts are -re / 2:
 * 316, 282 and 237 strips, inner odd too), a block per strip (float32, inner odd: 237),
 * and the chunked scheme (64 strips, fewer than the multiprocessors), in place too. */
static void scan_columns_exact(rs_context *ctx, rs_dtype dt, const int64_t shape[3]) {
  const int64_t outer = shape[0], n = shape[1], inner = shape[2], total = outer * n * inner;
  const int parts = dt == RS_COMPLEX64 ? 2 : 1; /* real values a element */
  const size_t item = dt == RS_FLOAT32 ? 4 : 8, real = dt == RS_FLOAT64 ? 8 : 4;
  char *h = malloc((size_t)total * item), *want = malloc((size_t)total * item), *got = malloc((size_t)total * item);
  CHECK(h && want && got);
  for (int64_t i = 0; i < total * parts; i++) {
    /* (+ 0.0: no -0.0 imaginary part, which a scan keeps as its column's first value) */
    double x = (double)((i / parts * 7919) % 2001 - 1000) / 64.0 * (i % parts ? -0.5 : 1.0) + 0.0;
    if (real == 4) ((float *)h)[i] = (float)x;
    else ((double *)h)[i] = x;
  }
  for (int64_t o = 0; o < outer; o++)
    for (int64_t j = 0; j < inner; j++)
      for (int p = 0; p < parts; p++) {
        double acc = 0;
        for (int64_t i = 0; i < n; i++) {
          const int64_t at = ((o * n + i) * inner + j) * parts + p;
          acc += real == 4 ? (double)((float *)h)[at] : ((double *)h)[at];
          if (real == 4) ((float *)want)[at] = (float)acc;
          else ((double *)want)[at] = acc;
        }
      }
  rs_array *hx = NULL, *dx = NULL, *y = NULL;
  CHECK_OK(rs_host_array_wrap(&hx, ctx, h, 3, shape, dt, NULL));
  CHECK_OK(rs_to_device(&dx, hx, 0, NULL));
  CHECK_OK(rs_cumulative_sum(&y, dx, 1, 0, NULL));
  CHECK_OK(rs_t_read_(y, got));
  CHECK_MSG(memcmp(got, want, (size_t)total * item) == 0, "%s %lldx%lldx%lld: not exact", rs_dtype_name(dt),
            (long long)outer, (long long)n, (long long)inner);
  CHECK_OK(rs_cumulative_sum_into(dx, dx, 1, 0, NULL)); /* in place */
  CHECK_OK(rs_t_read_(dx, got));
  CHECK_MSG(memcmp(got, want, (size_t)total * item) == 0, "%s %lldx%lldx%lld in place: not exact",
            rs_dtype_name(dt), (long long)outer, (long long)n, (long long)inner);
  tl_release(3, hx, dx, y);
  free(h);
  free(want);
  free(got);
}

static void test_scan_float_columns(rs_context *ctx) {
  const int64_t shapes[4][3] = {{4, 600, 2500}, {1, 300, 9000}, {3, 700, 2501}, {2, 700, 1001}};
  const rs_dtype dts[3] = {RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64};
  for (int d = 0; d < 3; d++)
    for (int k = 0; k < 4; k++) scan_columns_exact(ctx, dts[d], shapes[k]);
}

/* in place, and into a shifted view of the input (computed as if the input were read
 * first) */
static void test_scan_inplace(rs_context *ctx) {
  double h[6] = {1, 2, 3, 4, 5, 6}, got[6];
  int64_t n = 6;
  for (int pl = 0; pl < 2; pl++) {
    rs_array *hx = NULL, *x = NULL, *lo = NULL, *hi = NULL;
    CHECK_OK(rs_host_array_wrap(&hx, ctx, h, 1, &n, RS_FLOAT64, NULL));
    if (pl) CHECK_OK(rs_copy(&x, hx, NULL));
    else CHECK_OK(rs_to_device(&x, hx, 0, NULL));
    CHECK_OK(rs_cumulative_sum_into(x, x, 0, 0, NULL));
    CHECK_OK(rs_t_read_(x, got));
    CHECK(got[0] == 1 && got[1] == 3 && got[2] == 6 && got[5] == 21);
    rs_slice a[1] = {{1, 6, 1}}, b[1] = {{0, 5, 1}};
    CHECK_OK(rs_array_slice(&hi, x, 1, a));
    CHECK_OK(rs_array_slice(&lo, x, 1, b));
    CHECK_OK(rs_cumulative_sum_into(hi, lo, 0, 0, NULL)); /* x[1:] = cumsum(x[:-1]) */
    CHECK_OK(rs_t_read_(x, got));
    CHECK_MSG(got[0] == 1 && got[1] == 1 && got[2] == 4 && got[3] == 10 && got[4] == 20 && got[5] == 35,
              "got %g %g %g %g %g %g", got[0], got[1], got[2], got[3], got[4], got[5]);
    tl_release(4, hx, x, lo, hi);
  }
}

static void test_scan_bad(rs_context *ctx) {
  int64_t sh[2] = {3, 4}, three = 3;
  rs_array *a = NULL, *z = NULL, *dst = NULL, *r = NULL, *one = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 2, sh, RS_FLOAT32, NULL));
  CHECK_OK(rs_zeros(&z, ctx, RS_MEM_DEVICE, 0, NULL, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&one, ctx, RS_MEM_DEVICE, 1, &three, RS_INT8, NULL));
  CHECK_STATUS(rs_cumulative_sum(&r, a, 2, 0, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("axis");
  CHECK_STATUS(rs_cumulative_sum(&r, a, -3, 0, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_cumulative_prod(&r, a, RS_ALL_AXES, 0, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("required");
  CHECK_STATUS(rs_cumulative_sum(&r, z, 0, 0, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("0-d");
  CHECK(r == NULL);
  CHECK_OK(rs_cumulative_sum(&r, one, RS_ALL_AXES, 1, NULL)); /* 1-d: no axis needed */
  int64_t got[4];
  CHECK_OK(rs_t_read_(r, got));
  CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 3);
  /* dst of the wrong shape (no include_initial room) or dtype: refused, untouched */
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 2, sh, RS_INT8, rs_scalar_int(7), NULL));
  CHECK_STATUS(rs_cumulative_sum_into(dst, a, 1, 1, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_cumulative_sum_into(dst, a, 1, 0, NULL), RS_ERR_DTYPE);
  int8_t d8[12];
  CHECK_OK(rs_t_read_(dst, d8));
  for (int i = 0; i < 12; i++) CHECK(d8[i] == 7);
  tl_release(5, a, z, dst, r, one);
}

static const rs_test_case tests[] = {RS_TEST(test_scan_values), RS_TEST(test_scan_views), RS_TEST(test_scan_long), RS_TEST(test_scan_float_columns),
                                     RS_TEST(test_scan_inplace), RS_TEST(test_scan_bad)};
RS_TEST_MAIN(tests)
