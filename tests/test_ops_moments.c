/* var / std in one read of the input (the "moments" op: on the GPU Welford states merged
 * with Chan's formula) against NumPy's two-pass var in float64: data with a large mean
 * and a small spread (1e8 + uniform(0, 1) in float64, 1e4 + uniform(0, 1) in float32,
 * where E[x^2] - E[x]^2 loses every digit), rows of 1, 31, 32, 33, 1000 and 200003
 * elements (a thread per row, a block per row, a row cut over many blocks) and 9000 rows
 * of 301 (a warp a row), one long row
 * (axis None), leading and middle axes (columns, cut into chunks when long; 16-byte loads
 * of several columns a lane where they fit), rows off 16-byte alignment, keepdims,
 * correction 0 and 1, and int32 (the composed path). */
#include "ops_testlib.h"
#include "resident/stats.h"

typedef struct shape_case {
  int ndim;
  int64_t shape[3];
  int naxes; /* 0: every axis */
  int axes[3];
  const char *np_axes;
} shape_case;

static const shape_case kShapes[] = {
    {2, {7, 1}, 1, {1}, "1"},           {2, {5, 31}, 1, {1}, "1"},          {2, {5, 32}, 1, {-1}, "-1"},
    {2, {5, 33}, 1, {1}, "1"},          {2, {40, 1000}, 1, {1}, "1"},       {2, {3, 200003}, 1, {1}, "1"},
    {1, {600011}, 0, {0}, "None"},      {2, {1000, 31}, 1, {0}, "0"},       {2, {70001, 3}, 1, {0}, "0"},
    {3, {4, 3001, 5}, 1, {1}, "1"},     {3, {3, 4, 50}, 2, {0, 1}, "(0, 1)"}, {3, {2, 300, 33}, 2, {1, 2}, "(1, 2)"},
    /* 16-byte loads: columns of 4 float / 2 double per lane (long: many chunks; across
     * outer slabs; a partial tile, float32 scalar), rows starting off 16-byte alignment */
    {2, {20003, 8}, 1, {0}, "0"},       {3, {5, 700, 12}, 1, {1}, "1"},     {2, {9, 1030}, 1, {0}, "0"},
    {2, {6, 1027}, 1, {1}, "1"},
    /* many rows of moderate length: a warp a row on the GPU (rows off alignment) */
    {2, {9000, 301}, 1, {1}, "1"},
};
#define NSHAPES ((int)(sizeof kShapes / sizeof kShapes[0]))

/* uniform(0, 1)-like, reproducible */
static double frac(int64_t i) { return (double)((uint64_t)(i * 2654435761LL) % 1000003u) / 1000003.0; }

static rs_status make_offset_pair(pair *p, ew_suite *s, rs_context *ctx, rs_dtype d, int ndim, const int64_t *shape) {
  p->dev = p->host = NULL;
  int64_t n = 1;
  for (int k = 0; k < ndim; k++) n *= shape[k];
  void *buf = malloc((size_t)n * rs_dtype_size(d));
  if (!buf) return RS_ERR_OUT_OF_MEMORY;
  for (int64_t i = 0; i < n; i++) {
    if (d == RS_FLOAT64) ((double *)buf)[i] = 1e8 + frac(i);
    else if (d == RS_FLOAT32) ((float *)buf)[i] = (float)(1e4 + frac(i));
    else ((int32_t *)buf)[i] = 1000000 + (int32_t)((i * 7919) % 2001) - 1000;
  }
  rs_status st = rs_empty(&p->host, ctx, RS_MEM_HOST, ndim, shape, d);
  if (st == RS_OK) st = rs_t_write_(p->host, buf);
  if (st == RS_OK) st = rs_empty(&p->dev, ctx, RS_MEM_DEVICE, ndim, shape, d);
  if (st == RS_OK) st = rs_t_write_(p->dev, buf);
  free(buf);
  if (st == RS_OK) p->np = tl_np_input(&s->np, p->host);
  return st;
}

static void test_var_large_mean(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[3] = {RS_FLOAT64, RS_FLOAT32, RS_INT32};
  for (int di = 0; di < 3; di++)
    for (int k = 0; k < NSHAPES; k++) {
      const shape_case *sc = &kShapes[k];
      if (ds[di] == RS_INT32 && k % 3 != 1) continue; /* a few shapes for the composed path */
      pair a;
      CHECK_OK(make_offset_pair(&a, s, ctx, ds[di], sc->ndim, sc->shape));
      int64_t count = 1;
      for (int j = 0; j < sc->ndim; j++) {
        int red = sc->naxes == 0;
        for (int q = 0; q < sc->naxes; q++) red |= (sc->axes[q] + sc->ndim) % sc->ndim == j;
        if (red) count *= sc->shape[j];
      }
      for (int sq = 0; sq < 2; sq++)
        for (int keep = 0; keep < 2; keep++) {
          double corr = count > 1 ? (double)((k + sq + keep) % 2) : 0.0;
          const char *fn = sq ? "std" : "var";
          ew_case *c = suite_add(s, "%s(%s %lld x .., 1e8/1e4 offset, axes %s, correction %g, keepdims %d)", fn,
                                 rs_dtype_name(ds[di]), (long long)sc->shape[0], sc->np_axes, corr, keep);
          rs_status (*f)(rs_array **, const rs_array *, int, const int *, double, int, rs_stream *) =
              sq ? rs_std : rs_var;
          const int *axes = sc->naxes ? sc->axes : NULL;
          c->sdev = f(&c->dev, a.dev, sc->naxes, axes, corr, keep, NULL);
          c->shost = f(&c->host, a.host, sc->naxes, axes, corr, keep, NULL);
          /* NumPy's two-pass var in float64 of the values less their offset (exact: the
           * variance is the same; NumPy sums a strided axis one by one, and the 1e8 offset's
           * rounding would cost it ~1e-11), cast to the result dtype */
          c->np = tl_np_expr(&s->np, "np.%s(a%d.astype(np.float64) - %s, axis=%s, ddof=%g, keepdims=%s).astype(np.%s)",
                             fn, a.np, ds[di] == RS_FLOAT64 ? "1e8" : ds[di] == RS_FLOAT32 ? "1e4" : "1e6",
                             sc->np_axes, corr, keep ? "True" : "False", ds[di] == RS_FLOAT32 ? "float32" : "float64");
          c->rtol = ds[di] == RS_FLOAT32 ? 1e-5 : 1e-12; /* the header's tolerances */
        }
      free_pair(&a);
    }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* The same shapes with values of mean 0 (no offset), at the header's tolerances, and a
 * plain double two-pass loop as the reference for one long column and one long row. */
static void test_var_shapes(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[2] = {RS_FLOAT64, RS_FLOAT32};
  for (int di = 0; di < 2; di++)
    for (int k = 0; k < NSHAPES; k++) {
      const shape_case *sc = &kShapes[k];
      pair a;
      CHECK_OK(make_pair(&a, s, ctx, ds[di], sc->ndim, sc->shape, 70 + (uint64_t)k, 0));
      ew_case *c = suite_add(s, "var(%s %lld x .., axes %s)", rs_dtype_name(ds[di]), (long long)sc->shape[0],
                             sc->np_axes);
      const int *axes = sc->naxes ? sc->axes : NULL;
      c->sdev = rs_var(&c->dev, a.dev, sc->naxes, axes, 0, 0, NULL);
      c->shost = rs_var(&c->host, a.host, sc->naxes, axes, 0, 0, NULL);
      c->np = tl_np_expr(&s->np, "np.var(a%d.astype(np.float64), axis=%s).astype(a%d.dtype)", a.np, sc->np_axes, a.np);
      c->rtol = ds[di] == RS_FLOAT32 ? 1e-5 : 1e-12;
      c->atol = ds[di] == RS_FLOAT32 ? 1e-6 : 1e-13;
      free_pair(&a);
    }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static const rs_test_case tests[] = {RS_TEST(test_var_large_mean), RS_TEST(test_var_shapes)};
RS_TEST_MAIN(tests)
