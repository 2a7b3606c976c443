/* Reductions whose reduced elements are not one contiguous run per output - over a leading
 * axis, over several non-adjacent axes (0 and 2 of a 3-d array), over short inner axes -
 * which the GPU reduces with a thread per (output, chunk) over consecutive outputs (the
 * column scheme, chunked and combined in order when long), against NumPy: sum, prod,
 * mean, min, max, all, any, argmin, argmax; float32, float64, int32, bool; keepdims;
 * shapes small enough for one chunk and long enough for many. Float sums and means along
 * a middle axis go through a kernel of their own on the GPU (cuda_ops_col_sum.cu). */
#include "ops_testlib.h"
#include "resident/reduce.h"

typedef struct red_case {
  int ndim;
  int64_t shape[3];
  int naxes;
  int axes[3];
  const char *np_axes;
} red_case;

static const red_case kCases[] = {
    {3, {200, 300, 7}, 2, {0, 2}, "(0, 2)"}, {3, {50, 60, 3}, 2, {2, 0}, "(2, 0)"}, {2, {3000, 40}, 1, {0}, "(0,)"},
    {2, {70001, 3}, 1, {0}, "(0,)"},          {3, {40, 33, 31}, 2, {0, 2}, "(0, 2)"}, {3, {9, 5000, 2}, 2, {0, 2}, "(0, 2)"},
    {3, {30, 20, 10}, 1, {1}, "(1,)"},        {2, {4000, 17}, 1, {1}, "(1,)"},      {3, {64, 2000, 5}, 2, {0, 2}, "(0, 2)"},
    {2, {2000, 300}, 1, {0}, "(0,)"},         {3, {300, 40, 3}, 2, {2, 0}, "(2, 0)"},
    /* the middle axis with the kept ones innermost and a warp wide at least: float sums
     * and means take the GPU's column-sum tile (16-byte loads: inner 64; single: 66) */
    {3, {3, 500, 66}, 1, {1}, "(1,)"},        {3, {2, 4000, 64}, 1, {1}, "(1,)"},
};
#define NCASES ((int)(sizeof kCases / sizeof kCases[0]))

static void test_reduce_cols(rs_context *ctx) {
  ew_suite *s = suite_new();
  const char *names[7] = {"sum", "prod", "mean", "min", "max", "all", "any"};
  rs_status (*fs[7])(rs_array **, const rs_array *, int, const int *, int, rs_stream *) = {
      rs_sum, rs_prod, rs_mean, rs_min, rs_max, rs_all, rs_any};
  const rs_dtype ds[4] = {RS_FLOAT32, RS_FLOAT64, RS_INT32, RS_BOOL};
  for (int di = 0; di < 4; di++)
    for (int k = 0; k < NCASES; k++) {
      const red_case *rc = &kCases[k];
      pair a;
      CHECK_OK(make_pair(&a, s, ctx, ds[di], rc->ndim, rc->shape, 300 + 10 * (uint64_t)k + (uint64_t)di, 0));
      for (int f = 0; f < 7; f++) {
        /* a float prod of thousands of values under- or overflows in an order-dependent way;
         * int prod wraps (exact in any order) */
        if (f == 1 && ds[di] != RS_INT32) continue;
        if ((f == 5 || f == 6) && ds[di] != RS_BOOL && ds[di] != RS_INT32) continue;
        for (int keep = 0; keep < 2; keep++) {
          if (keep && (k + f) % 2) continue;
          ew_case *c = suite_add(s, "%s(%s %lldx%lldx%lld, axes %s, keepdims %d)", names[f], rs_dtype_name(ds[di]),
                                 (long long)rc->shape[0], (long long)rc->shape[1],
                                 (long long)(rc->ndim > 2 ? rc->shape[2] : 1), rc->np_axes, keep);
          c->sdev = fs[f](&c->dev, a.dev, rc->naxes, rc->axes, keep, NULL);
          c->shost = fs[f](&c->host, a.host, rc->naxes, rc->axes, keep, NULL);
          c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=%s, keepdims=%s)", names[f], a.np, rc->np_axes,
                             keep ? "True" : "False");
          /* values are quarters: float sums are exact in any order; means round once */
          c->rtol = tl_rtol(ds[di]) * 10;
        }
      }
      if (rc->naxes == 1 && ds[di] != RS_BOOL)
        for (int arg = 0; arg < 2; arg++) {
          ew_case *c = suite_add(s, "%s(%s, axis %d)", arg ? "argmax" : "argmin", rs_dtype_name(ds[di]), rc->axes[0]);
          rs_status (*g)(rs_array **, const rs_array *, int, int, rs_stream *) = arg ? rs_argmax : rs_argmin;
          c->sdev = g(&c->dev, a.dev, rc->axes[0], 0, NULL);
          c->shost = g(&c->host, a.host, rc->axes[0], 0, NULL);
          c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=%d)", arg ? "argmax" : "argmin", a.np, rc->axes[0]);
        }
      free_pair(&a);
    }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* Non-contiguous input: a transposed view reduced over two axes; column windows at every
 * alignment. */
static void test_reduce_cols_views(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t sh[3] = {60, 70, 8};
  pair a;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, 3, sh, 77, 0));
  const int perm[3] = {2, 0, 1}, axes[2] = {0, 2};
  rs_array *tv = NULL, *th = NULL;
  CHECK_OK(rs_array_permute(&tv, a.dev, perm));
  CHECK_OK(rs_array_permute(&th, a.host, perm));
  ew_case *c = suite_add(s, "sum(permuted (2, 0, 1) view, axes (0, 2))");
  c->sdev = rs_sum(&c->dev, tv, 2, axes, 0, NULL);
  c->shost = rs_sum(&c->host, th, 2, axes, 0, NULL);
  c->np = tl_np_expr(&s->np, "np.sum(np.transpose(a%d, (2, 0, 1)), axis=(0, 2))", a.np);
  c->rtol = 1e-12;
  c = suite_add(s, "max(permuted (2, 0, 1) view, axes (0, 2), keepdims)");
  c->sdev = rs_max(&c->dev, tv, 2, axes, 1, NULL);
  c->shost = rs_max(&c->host, th, 2, axes, 1, NULL);
  c->np = tl_np_expr(&s->np, "np.max(np.transpose(a%d, (2, 0, 1)), axis=(0, 2), keepdims=True)", a.np);
  tl_release(2, tv, th);
  free_pair(&a);
  /* Column windows starting 0, 1, 2 and 4 float32 elements into each row (views at every
   * alignment a vectorized column load would care about), summed and searched down the
   * columns: the sums, and argmax's first index of the maximum, as NumPy's. */
  int64_t wsh[2] = {3001, 72};
  pair w;
  CHECK_OK(make_pair(&w, s, ctx, RS_FLOAT32, 2, wsh, 78, 0));
  const int64_t starts[4] = {0, 1, 2, 4};
  for (int k = 0; k < 4; k++) {
    rs_slice cols[2] = {RS_SLICE_ALL, {starts[k], starts[k] + 64, 1}};
    rs_array *vd = NULL, *vh = NULL;
    CHECK_OK(rs_array_slice(&vd, w.dev, 2, cols));
    CHECK_OK(rs_array_slice(&vh, w.host, 2, cols));
    const int axis0[1] = {0};
    c = suite_add(s, "sum(a[:, %lld:%lld], axis 0)", (long long)starts[k], (long long)starts[k] + 64);
    c->sdev = rs_sum(&c->dev, vd, 1, axis0, 0, NULL);
    c->shost = rs_sum(&c->host, vh, 1, axis0, 0, NULL);
    c->np = tl_np_expr(&s->np, "np.sum(a%d[:, %lld:%lld], axis=0)", w.np, (long long)starts[k], (long long)starts[k] + 64);
    c->rtol = 1e-6;
    c = suite_add(s, "argmax(a[:, %lld:%lld], axis 0)", (long long)starts[k], (long long)starts[k] + 64);
    c->sdev = rs_argmax(&c->dev, vd, 0, 0, NULL);
    c->shost = rs_argmax(&c->host, vh, 0, 0, NULL);
    c->np = tl_np_expr(&s->np, "np.argmax(a%d[:, %lld:%lld], axis=0)", w.np, (long long)starts[k], (long long)starts[k] + 64);
    tl_release(2, vd, vh);
  }
  free_pair(&w);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static const rs_test_case tests[] = {RS_TEST(test_reduce_cols), RS_TEST(test_reduce_cols_views)};
RS_TEST_MAIN(tests)
