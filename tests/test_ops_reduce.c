/* Reductions against NumPy: every op for many dtypes over all axes, one axis, several,
 * negative axes and keepdims (NaN among the floats); views; reductions large enough to be
 * split over threads (the result must not depend on the split); outer reductions; out of
 * another dtype; empty and 0-d arrays; and bad axes. */
#include "ops_testlib.h"

static const char *np_name(rs_reduce_op op) { return rs_reduce_op_name(op); }

/* Python spelling of an axes selection. */
static const char *py_axes(int naxes, const int *axes, char *buf, size_t len) {
  if (!axes) return "None";
  size_t used = (size_t)snprintf(buf, len, "(");
  for (int i = 0; i < naxes; i++) used += (size_t)snprintf(buf + used, len - used, "%d,", axes[i]);
  snprintf(buf + used, len - used, ")");
  return buf;
}

static double reduce_rtol(rs_dtype in, rs_reduce_op op) {
  if (op == RS_REDUCE_ARGMIN || op == RS_REDUCE_ARGMAX || op == RS_REDUCE_ALL || op == RS_REDUCE_ANY) return 0;
  if (in == RS_FLOAT16) return 4e-3;
  if (in == RS_FLOAT32 || in == RS_COMPLEX64) return 4e-6;
  if (in == RS_FLOAT64 || in == RS_COMPLEX128 || op == RS_REDUCE_MEAN) return 1e-13;
  return 0;
}

static void test_reduce_values(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_UINT8, RS_INT32, RS_INT64, RS_UINT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
  int64_t shape[3] = {3, 4, 5};
  static const int ax0[] = {0}, ax1[] = {1}, ax02[] = {0, 2}, axm1[] = {-1}, ax21[] = {2, 1};
  struct {
    int n;
    const int *axes;
    int keep;
  } sel[] = {{0, NULL, 0}, {1, ax0, 0}, {1, ax1, 1}, {2, ax02, 0}, {1, axm1, 0}, {2, ax21, 1}, {0, NULL, 1}};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    for (int special = 0; special < 2; special++) {
      if (special && !tl_is_float(d)) continue;
      pair a;
      CHECK_OK(make_pair(&a, s, ctx, d, 3, shape, 7 + di, special));
      for (int op = 0; op < RS_REDUCE_COUNT; op++) {
        if (tl_is_complex(d) && op >= RS_REDUCE_MIN && op <= RS_REDUCE_ARGMAX) continue;
        for (size_t k = 0; k < sizeof sel / sizeof sel[0]; k++) {
          int arg = op == RS_REDUCE_ARGMIN || op == RS_REDUCE_ARGMAX;
          if (arg && sel[k].n > 1) continue;
          char ab[64];
          ew_case *c = suite_add(s, "%s(%s%s, axis=%s, keepdims=%d)", np_name((rs_reduce_op)op), rs_dtype_name(d),
                                 special ? " with nan/inf" : "", py_axes(sel[k].n, sel[k].axes, ab, sizeof ab), sel[k].keep);
          c->sdev = rs_reduce(&c->dev, (rs_reduce_op)op, a.dev, sel[k].n, sel[k].axes, sel[k].keep, NULL);
          c->shost = rs_reduce(&c->host, (rs_reduce_op)op, a.host, sel[k].n, sel[k].axes, sel[k].keep, NULL);
          const char *axis = sel[k].axes && arg ? (sel[k].axes[0] == 0 ? "0" : sel[k].axes[0] == 1 ? "1" : "-1")
                                                 : py_axes(sel[k].n, sel[k].axes, ab, sizeof ab);
          c->np = tl_np_expr(&s->np, "np.%s(a%d, axis=%s, keepdims=%s)", np_name((rs_reduce_op)op), a.np, axis,
                             sel[k].keep ? "True" : "False");
          c->rtol = reduce_rtol(d, (rs_reduce_op)op);
          c->atol = d == RS_FLOAT16 ? 2e-2 : tl_is_float(d) || tl_is_complex(d) ? 1e-12 : 0;
        }
      }
      free_pair(&a);
    }
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* Views, large (split) reductions, outer reductions. */
static void test_reduce_layouts(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s3[3] = {6, 4, 5}, big[1] = {200003}, wide[2] = {3, 70001}, tall[2] = {1000, 64}, rows[2] = {40000, 5};
  pair a, b, w, t, r;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, 3, s3, 31, 0));
  CHECK_OK(make_pair(&b, s, ctx, RS_FLOAT32, 1, big, 32, 0));
  CHECK_OK(make_pair(&w, s, ctx, RS_INT32, 2, wide, 33, 0));
  CHECK_OK(make_pair(&t, s, ctx, RS_FLOAT64, 2, tall, 34, 0));
  CHECK_OK(make_pair(&r, s, ctx, RS_FLOAT64, 2, rows, 35, 0));
  rs_slice sl[3] = {{RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -2}, RS_SLICE_ALL, {1, 5, 2}};
  for (int pl = 0; pl < 2; pl++) {
    rs_array *x = pl ? a.host : a.dev, *xt = NULL, *xs = NULL;
    CHECK_OK(rs_array_transpose(&xt, x));
    CHECK_OK(rs_array_slice(&xs, x, 3, sl));
    int ax1 = 1, ax0 = 0, axes2[2] = {0, 2};
    ew_case *c[10];
    rs_array *res[10] = {0};
    CHECK_OK(rs_sum(&res[0], xt, 1, &ax1, 0, NULL));
    CHECK_OK(rs_max(&res[1], xs, 2, axes2, 1, NULL));
    CHECK_OK(rs_argmin(&res[2], xt, 0, 0, NULL));
    CHECK_OK(rs_sum(&res[3], pl ? b.host : b.dev, 0, NULL, 0, NULL));
    CHECK_OK(rs_mean(&res[4], pl ? b.host : b.dev, 0, NULL, 0, NULL));
    CHECK_OK(rs_sum(&res[5], pl ? w.host : w.dev, 1, &ax1, 0, NULL));
    CHECK_OK(rs_argmax(&res[6], pl ? b.host : b.dev, RS_ALL_AXES, 0, NULL));
    CHECK_OK(rs_sum(&res[7], pl ? t.host : t.dev, 1, &ax0, 0, NULL));
    CHECK_OK(rs_min(&res[8], pl ? t.host : t.dev, 1, &ax0, 1, NULL));
    CHECK_OK(rs_sum(&res[9], pl ? r.host : r.dev, 1, &ax1, 0, NULL));
    if (!pl) {
      const char *exprs[10] = {"np.sum(a%d.T, axis=1)", "np.max(a%d[::-2, :, 1:5:2], axis=(0, 2), keepdims=True)",
                               "np.argmin(a%d.T, axis=0)", "np.sum(a%d.astype(np.float64)).astype(np.float32)",
                               "np.mean(a%d.astype(np.float64)).astype(np.float32)", "np.sum(a%d, axis=1)",
                               "np.argmax(a%d)", "np.sum(a%d, axis=0)", "np.min(a%d, axis=0, keepdims=True)",
                               "np.sum(a%d, axis=1)"};
      const int ins[10] = {a.np, a.np, a.np, b.np, b.np, w.np, b.np, t.np, t.np, r.np};
      for (int i = 0; i < 10; i++) {
        c[i] = suite_add(s, "layout case %d", i);
        c[i]->dev = res[i];
        c[i]->np = tl_np_expr(&s->np, exprs[i], ins[i]);
        c[i]->rtol = i == 3 || i == 4 ? 1e-6 : 1e-12;
      }
    } else {
      for (int i = 0; i < 10; i++) s->c[s->n - 10 + i].host = res[i];
    }
    tl_release(2, xt, xs);
  }
  free_pair(&a);
  free_pair(&b);
  free_pair(&w);
  free_pair(&t);
  free_pair(&r);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_reduce_out_and_empty(rs_context *ctx) {
  int64_t n = 6, e0[1] = {0}, e30[2] = {3, 0}, e03[2] = {0, 3};
  for (int pl = 0; pl < 2; pl++) {
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_array *x = NULL, *o = NULL, *r = NULL, *e = NULL, *e2 = NULL, *e3 = NULL, *z = NULL;
    CHECK_OK(rs_arange(&x, ctx, where, 1, 7, 1, RS_INT32, NULL));
    CHECK_OK(rs_empty(&o, ctx, where, 0, NULL, RS_FLOAT64));
    CHECK_OK(rs_sum_into(o, x, 0, NULL, 0, NULL)); /* int64 result into a float64 out */
    double v;
    CHECK_OK(rs_array_item_double(o, NULL, &v, NULL));
    CHECK_NEAR(v, 21, 0);
    CHECK_STATUS(rs_mean_into(x, x, 0, NULL, 0, NULL), RS_ERR_SHAPE); /* (6,) out for a 0-d result */
    rs_array *o8 = NULL;
    CHECK_OK(rs_empty(&o8, ctx, where, 0, NULL, RS_INT8));
    CHECK_STATUS(rs_mean_into(o8, x, 0, NULL, 0, NULL), RS_ERR_DTYPE); /* float64 into int8 */
    rs_array_release(o8);
    /* empty reductions: identities, or an error where there is none */
    CHECK_OK(rs_empty(&e, ctx, where, 1, e0, RS_FLOAT32));
    CHECK_OK(rs_sum(&r, e, 0, NULL, 0, NULL));
    CHECK_OK(rs_array_item_double(r, NULL, &v, NULL));
    CHECK_NEAR(v, 0, 0);
    rs_array_release(r), r = NULL;
    CHECK_OK(rs_prod(&r, e, 0, NULL, 0, NULL));
    CHECK_OK(rs_array_item_double(r, NULL, &v, NULL));
    CHECK_NEAR(v, 1, 0);
    rs_array_release(r), r = NULL;
    CHECK_OK(rs_mean(&r, e, 0, NULL, 0, NULL));
    CHECK_OK(rs_array_item_double(r, NULL, &v, NULL));
    CHECK(isnan(v));
    rs_array_release(r), r = NULL;
    CHECK_OK(rs_all(&r, e, 0, NULL, 0, NULL));
    CHECK_OK(rs_array_item_double(r, NULL, &v, NULL));
    CHECK_NEAR(v, 1, 0);
    rs_array_release(r), r = NULL;
    CHECK_STATUS(rs_min(&r, e, 0, NULL, 0, NULL), RS_ERR_SHAPE);
    CHECK_STATUS(rs_argmax(&r, e, RS_ALL_AXES, 0, NULL), RS_ERR_SHAPE);
    CHECK_OK(rs_empty(&e2, ctx, where, 2, e30, RS_FLOAT64));
    int ax1 = 1, ax0 = 0;
    CHECK_OK(rs_sum(&r, e2, 1, &ax1, 0, NULL));
    CHECK_EQ_I64(rs_array_size(r), 3);
    CHECK_OK(rs_array_item_double(r, (int64_t[]){2}, &v, NULL));
    CHECK_NEAR(v, 0, 0);
    rs_array_release(r), r = NULL;
    CHECK_STATUS(rs_max(&r, e2, 1, &ax1, 0, NULL), RS_ERR_SHAPE);
    CHECK_OK(rs_max(&r, e2, 1, &ax0, 0, NULL)); /* (0,) result: nothing to reduce, no error */
    CHECK_EQ_I64(rs_array_size(r), 0);
    rs_array_release(r), r = NULL;
    CHECK_OK(rs_empty(&e3, ctx, where, 2, e03, RS_FLOAT64));
    CHECK_STATUS(rs_min(&r, e3, 1, &ax0, 0, NULL), RS_ERR_SHAPE);
    /* 0-d input */
    CHECK_OK(rs_full(&z, ctx, where, 0, NULL, RS_FLOAT32, rs_scalar_float(2.5), NULL));
    CHECK_OK(rs_sum(&r, z, 0, NULL, 0, NULL));
    CHECK_EQ_I64(rs_array_ndim(r), 0);
    CHECK_OK(rs_array_item_double(r, NULL, &v, NULL));
    CHECK_NEAR(v, 2.5, 0);
    rs_array_release(r), r = NULL;
    CHECK_OK(rs_argmax(&r, z, RS_ALL_AXES, 0, NULL));
    rs_array_release(r), r = NULL;
    CHECK_STATUS(rs_sum(&r, z, 1, &ax0, 0, NULL), RS_ERR_AXIS);
    (void)n;
    tl_release(6, x, o, e, e2, e3, z);
  }
}

static void test_bad_axes(rs_context *ctx) {
  int64_t shape[3] = {2, 3, 4};
  rs_array *a = NULL, *r = NULL, *c = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 3, shape, RS_FLOAT32, NULL));
  int ax3 = 3, axm4 = -4, dup[2] = {1, -2}, two[2] = {0, 1};
  CHECK_STATUS(rs_sum(&r, a, 1, &ax3, 0, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("axis 3", "dimension 3");
  CHECK_STATUS(rs_sum(&r, a, 1, &axm4, 0, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_sum(&r, a, 2, dup, 0, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("duplicate");
  CHECK_STATUS(rs_reduce(&r, RS_REDUCE_ARGMAX, a, 2, two, 0, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_reduce(&r, (rs_reduce_op)42, a, 0, NULL, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_OK(rs_zeros(&c, ctx, RS_MEM_DEVICE, 3, shape, RS_COMPLEX64, NULL));
  CHECK_STATUS(rs_max(&r, c, 0, NULL, 0, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_argmin(&r, c, 0, 0, NULL), RS_ERR_DTYPE);
  CHECK(r == NULL);
  tl_release(2, a, c);
}

static const rs_test_case tests[] = {RS_TEST(test_reduce_values), RS_TEST(test_reduce_layouts),
                                     RS_TEST(test_reduce_out_and_empty), RS_TEST(test_bad_axes)};
RS_TEST_MAIN(tests)
