/* The linalg extension's composed operations against NumPy on both placements: diagonal
 * and trace (offsets, batches, views), outer, vecdot (axes, broadcasting, complex
 * conjugation), tensordot (pairs of axes), matrix_power (positive, zero, negative),
 * vector_norm (every ord, axes, keepdims), matrix_norm (every ord), svdvals,
 * matrix_rank, pinv and lstsq (full-rank and rank-deficient). */
#include "ops_testlib.h"

static const rs_dtype fdt[] = {RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
#define NDT (sizeof fdt / sizeof fdt[0])

static double tol_of(rs_dtype d) { return d == RS_FLOAT32 || d == RS_COMPLEX64 ? 1e-4 : 1e-10; }

#define BOTH(c, call_dev, call_host) ((c)->sdev = (call_dev), (c)->shost = (call_host))

static void test_diag_trace_outer_vecdot(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s45[2] = {4, 5}, s234[3] = {2, 3, 4}, s4[1] = {4}, s3[1] = {3}, s14[2] = {1, 4};
  for (size_t di = 0; di < NDT; di++) {
    rs_dtype d = fdt[di];
    const char *dn = rs_dtype_name(d);
    double tol = tol_of(d);
    pair a, b, v, w, r;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, s45, 1, 0));
    CHECK_OK(make_pair(&b, s, ctx, d, 3, s234, 2, 0));
    CHECK_OK(make_pair(&v, s, ctx, d, 1, s4, 3, 0));
    CHECK_OK(make_pair(&w, s, ctx, d, 1, s3, 4, 0));
    CHECK_OK(make_pair(&r, s, ctx, d, 2, s14, 5, 0));
    static const int64_t offs[] = {0, 1, -2, 4, -4, 7};
    for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++) {
      ew_case *c = suite_add(s, "diagonal %s offset %lld", dn, (long long)offs[k]);
      BOTH(c, rs_diagonal(&c->dev, a.dev, offs[k], NULL), rs_diagonal(&c->host, a.host, offs[k], NULL));
      c->np = tl_np_expr(&s->np, "np.diagonal(a%d, %lld, -2, -1)", a.np, (long long)offs[k]);
      c = suite_add(s, "trace %s offset %lld (batched)", dn, (long long)offs[k]);
      BOTH(c, rs_trace(&c->dev, b.dev, offs[k], NULL), rs_trace(&c->host, b.host, offs[k], NULL));
      c->np = tl_np_expr(&s->np, "np.trace(a%d, %lld, -2, -1)", b.np, (long long)offs[k]);
      c->rtol = c->atol = tol;
    }
    ew_case *c = suite_add(s, "outer %s", dn);
    BOTH(c, rs_outer(&c->dev, v.dev, w.dev, NULL), rs_outer(&c->host, v.host, w.host, NULL));
    c->np = tl_np_expr(&s->np, "np.outer(a%d, a%d)", v.np, w.np);
    c->rtol = c->atol = tol;
    c = suite_add(s, "vecdot %s last axis, broadcast", dn);
    BOTH(c, rs_vecdot(&c->dev, b.dev, v.dev, -1, NULL), rs_vecdot(&c->host, b.host, v.host, -1, NULL));
    c->np = tl_np_expr(&s->np, "np.sum(np.conj(a%d) * a%d, axis=-1)", b.np, v.np);
    c->rtol = c->atol = tol;
    c = suite_add(s, "vecdot %s axis -2", dn);
    rs_array *wd = NULL, *wh = NULL;
    CHECK_OK(rs_array_expand_dims(&wd, w.dev, 1));
    CHECK_OK(rs_array_expand_dims(&wh, w.host, 1));
    BOTH(c, rs_vecdot(&c->dev, b.dev, wd, -2, NULL), rs_vecdot(&c->host, b.host, wh, -2, NULL));
    c->np = tl_np_expr(&s->np, "np.sum(np.conj(a%d) * a%d[:, None], axis=-2)", b.np, w.np);
    c->rtol = c->atol = tol;
    /* tensordot: b (2,3,4) with a (4,5) over (2,)x(0,); b with b over (0,1)x(0,1) */
    int ta[1] = {2}, tb[1] = {0}, ua[2] = {0, 1}, ub[2] = {0, 1};
    if (d != RS_COMPLEX64) {
      c = suite_add(s, "tensordot %s axes 1", dn);
      BOTH(c, rs_tensordot(&c->dev, b.dev, a.dev, 1, ta, tb, NULL), rs_tensordot(&c->host, b.host, a.host, 1, ta, tb, NULL));
      c->np = tl_np_expr(&s->np, "np.tensordot(a%d, a%d, axes=([2], [0]))", b.np, a.np);
      c->rtol = c->atol = tol;
      c = suite_add(s, "tensordot %s axes 2", dn);
      BOTH(c, rs_tensordot(&c->dev, b.dev, b.dev, 2, ua, ub, NULL), rs_tensordot(&c->host, b.host, b.host, 2, ua, ub, NULL));
      c->np = tl_np_expr(&s->np, "np.tensordot(a%d, a%d, axes=([0, 1], [0, 1]))", b.np, b.np);
      c->rtol = c->atol = tol;
    }
    tl_release(2, wd, wh);
    free_pair(&a), free_pair(&b), free_pair(&v), free_pair(&w), free_pair(&r);
  }
  /* a view: the transpose's diagonal and trace of int32 (int64 sum) */
  pair i;
  int64_t s33[2] = {3, 3};
  CHECK_OK(make_pair(&i, s, ctx, RS_INT32, 2, s33, 9, 0));
  ew_case *c = suite_add(s, "trace int32 of a transpose");
  rs_array *td = NULL, *th = NULL;
  CHECK_OK(rs_array_transpose(&td, i.dev));
  CHECK_OK(rs_array_transpose(&th, i.host));
  BOTH(c, rs_trace(&c->dev, td, 1, NULL), rs_trace(&c->host, th, 1, NULL));
  c->np = tl_np_expr(&s->np, "np.trace(a%d.T, 1)", i.np);
  tl_release(2, td, th);
  free_pair(&i);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_power_norms(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s44[2] = {4, 4}, s234[3] = {2, 3, 4}, s253[3] = {2, 5, 3};
  for (size_t di = 0; di < NDT; di++) {
    rs_dtype d = fdt[di];
    const char *dn = rs_dtype_name(d);
    double tol = tol_of(d) * 10;
    pair a, b, t;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, s44, 11, 0));
    CHECK_OK(make_pair(&b, s, ctx, d, 3, s234, 12, 0));
    CHECK_OK(make_pair(&t, s, ctx, d, 3, s253, 13, 0));
    static const int64_t pw[] = {0, 1, 2, 5, -1, -3};
    for (size_t k = 0; k < sizeof pw / sizeof pw[0]; k++) {
      ew_case *c = suite_add(s, "matrix_power %s %lld", dn, (long long)pw[k]);
      BOTH(c, rs_matrix_power(&c->dev, a.dev, pw[k], NULL), rs_matrix_power(&c->host, a.host, pw[k], NULL));
      c->np = tl_np_expr(&s->np, "np.linalg.matrix_power(a%d, %lld)", a.np, (long long)pw[k]);
      c->rtol = c->atol = tol * 100;
    }
    static const double ords[] = {2, 1, 0, 3, 0.5, INFINITY, -INFINITY};
    static const char *const onp[] = {"2", "1", "0", "3", "0.5", "np.inf", "-np.inf"};
    int ax1[1] = {-1}, ax2[2] = {0, 2};
    for (size_t k = 0; k < sizeof ords / sizeof ords[0]; k++) {
      ew_case *c = suite_add(s, "vector_norm %s ord %s all", dn, onp[k]);
      BOTH(c, rs_vector_norm(&c->dev, b.dev, 0, NULL, 0, ords[k], NULL), rs_vector_norm(&c->host, b.host, 0, NULL, 0, ords[k], NULL));
      c->np = tl_np_expr(&s->np, "np.linalg.vector_norm(a%d, ord=%s)", b.np, onp[k]);
      c->rtol = c->atol = tol;
      c = suite_add(s, "vector_norm %s ord %s axis -1", dn, onp[k]);
      BOTH(c, rs_vector_norm(&c->dev, b.dev, 1, ax1, 0, ords[k], NULL), rs_vector_norm(&c->host, b.host, 1, ax1, 0, ords[k], NULL));
      c->np = tl_np_expr(&s->np, "np.linalg.vector_norm(a%d, axis=-1, ord=%s)", b.np, onp[k]);
      c->rtol = c->atol = tol;
      c = suite_add(s, "vector_norm %s ord %s axes (0, 2) keepdims", dn, onp[k]);
      BOTH(c, rs_vector_norm(&c->dev, b.dev, 2, ax2, 1, ords[k], NULL), rs_vector_norm(&c->host, b.host, 2, ax2, 1, ords[k], NULL));
      c->np = tl_np_expr(&s->np, "np.linalg.vector_norm(a%d, axis=(0, 2), keepdims=True, ord=%s)", b.np, onp[k]);
      c->rtol = c->atol = tol;
    }
    static const rs_matrix_norm_ord mo[] = {RS_NORM_FRO, RS_NORM_NUC, RS_NORM_1, RS_NORM_NEG1,
                                            RS_NORM_2,   RS_NORM_NEG2, RS_NORM_INF, RS_NORM_NEG_INF};
    static const char *const mnp[] = {"'fro'", "'nuc'", "1", "-1", "2", "-2", "np.inf", "-np.inf"};
    for (size_t k = 0; k < sizeof mo / sizeof mo[0]; k++)
      for (int keep = 0; keep < 2; keep++) {
        ew_case *c = suite_add(s, "matrix_norm %s ord %s keepdims %d", dn, mnp[k], keep);
        BOTH(c, rs_matrix_norm(&c->dev, t.dev, mo[k], keep, NULL), rs_matrix_norm(&c->host, t.host, mo[k], keep, NULL));
        c->np = tl_np_expr(&s->np, "np.linalg.matrix_norm(a%d, ord=%s, keepdims=%s)", t.np, mnp[k], keep ? "True" : "False");
        c->rtol = c->atol = tol;
      }
    ew_case *c = suite_add(s, "svdvals %s", dn);
    BOTH(c, rs_svdvals(&c->dev, t.dev, NULL), rs_svdvals(&c->host, t.host, NULL));
    c->np = tl_np_expr(&s->np, "np.linalg.svdvals(a%d)", t.np);
    c->rtol = c->atol = tol;
    c = suite_add(s, "matrix_rank %s", dn);
    BOTH(c, rs_matrix_rank(&c->dev, t.dev, -1, NULL), rs_matrix_rank(&c->host, t.host, -1, NULL));
    c->np = tl_np_expr(&s->np, "np.linalg.matrix_rank(a%d).astype(np.int64)", t.np);
    c = suite_add(s, "pinv %s", dn);
    BOTH(c, rs_pinv(&c->dev, t.dev, -1, NULL), rs_pinv(&c->host, t.host, -1, NULL));
    c->np = tl_np_expr(&s->np, "np.linalg.pinv(a%d)", t.np);
    c->rtol = c->atol = tol * 10;
    free_pair(&a), free_pair(&b), free_pair(&t);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_rank_deficient_lstsq(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t s64[2] = {6, 4}, s6[1] = {6}, s62[2] = {6, 2}, s46[2] = {4, 6}, s4[1] = {4};
  for (size_t di = 1; di < NDT; di += 2) { /* float64, complex128 */
    rs_dtype d = fdt[di];
    const char *dn = rs_dtype_name(d);
    pair a, b, b2, w, bw;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, s64, 21, 0));
    CHECK_OK(make_pair(&b, s, ctx, d, 1, s6, 22, 0));
    CHECK_OK(make_pair(&b2, s, ctx, d, 2, s62, 23, 0));
    CHECK_OK(make_pair(&w, s, ctx, d, 2, s46, 24, 0));
    CHECK_OK(make_pair(&bw, s, ctx, d, 1, s4, 25, 0));
    rs_array *x[2] = {0}, *res[2] = {0}, *rk[2] = {0}, *sv[2] = {0};
    for (int pl = 0; pl < 2; pl++) CHECK_OK(rs_lstsq(&x[pl], &res[pl], &rk[pl], &sv[pl], pl ? a.host : a.dev, pl ? b.host : b.dev, -1, NULL));
    const char *part[4] = {"x", "residuals", "rank", "s"};
    rs_array **outs[4] = {x, res, rk, sv};
    for (int k = 0; k < 4; k++) {
      ew_case *c = suite_add(s, "lstsq %s tall, 1-d b: %s", dn, part[k]);
      c->dev = outs[k][0], c->host = outs[k][1];
      c->np = tl_np_expr(&s->np, k == 2 ? "np.int64(np.linalg.lstsq(a%d, a%d)[%d])" : "np.linalg.lstsq(a%d, a%d)[%d]", a.np, b.np, k);
      c->rtol = c->atol = 1e-9;
    }
    ew_case *c = suite_add(s, "lstsq %s tall, 2-d b", dn);
    BOTH(c, rs_lstsq(&c->dev, NULL, NULL, NULL, a.dev, b2.dev, -1, NULL), rs_lstsq(&c->host, NULL, NULL, NULL, a.host, b2.host, -1, NULL));
    c->np = tl_np_expr(&s->np, "np.linalg.lstsq(a%d, a%d)[0]", a.np, b2.np);
    c->rtol = c->atol = 1e-9;
    rs_array *xw[2] = {0}, *rw[2] = {0};
    for (int pl = 0; pl < 2; pl++) CHECK_OK(rs_lstsq(&xw[pl], &rw[pl], NULL, NULL, pl ? w.host : w.dev, pl ? bw.host : bw.dev, -1, NULL));
    c = suite_add(s, "lstsq %s wide (minimum norm)", dn);
    c->dev = xw[0], c->host = xw[1], c->np = tl_np_expr(&s->np, "np.linalg.lstsq(a%d, a%d)[0]", w.np, bw.np);
    c->rtol = c->atol = 1e-9;
    c = suite_add(s, "lstsq %s wide: empty residuals", dn);
    c->dev = rw[0], c->host = rw[1], c->np = tl_np_expr(&s->np, "np.linalg.lstsq(a%d, a%d)[1]", w.np, bw.np);
    free_pair(&a), free_pair(&b), free_pair(&b2), free_pair(&w), free_pair(&bw);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
  /* rank 1 (closed form): rank 1, pinv of the outer product u v^T is v u^T / (|u|^2 |v|^2) */
  double data[12] = {1, 2, 0, 2, 4, 0, 3, 6, 0, 4, 8, 0}; /* 4 x 3 = (1,2,3,4)^T (1,2,0) */
  int64_t shape[2] = {4, 3};
  rs_array *h = NULL, *dv = NULL, *rk = NULL, *pi = NULL;
  CHECK_OK(rs_host_array_wrap(&h, ctx, data, 2, shape, RS_FLOAT64, NULL));
  CHECK_OK(rs_to_device(&dv, h, 0, NULL));
  CHECK_OK(rs_matrix_rank(&rk, dv, -1, NULL));
  int64_t r = 0;
  CHECK_OK(rs_array_item_int64(rk, NULL, &r, NULL));
  CHECK_EQ_I64(r, 1);
  CHECK_OK(rs_pinv(&pi, dv, -1, NULL));
  double p[12];
  CHECK_OK(rs_t_read_(pi, p)); /* (3, 4): p[i][j] = v_i u_j / (30 * 5) */
  const double u[4] = {1, 2, 3, 4}, v[3] = {1, 2, 0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) CHECK_NEAR(p[i * 4 + j], v[i] * u[j] / 150.0, 1e-13);
  tl_release(4, h, dv, rk, pi);
}

static const rs_test_case tests[] = {RS_TEST(test_diag_trace_outer_vecdot), RS_TEST(test_power_norms),
                                     RS_TEST(test_rank_deficient_lstsq)};
RS_TEST_MAIN(tests)
