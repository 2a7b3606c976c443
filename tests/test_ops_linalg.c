/* Linear algebra: matmul against NumPy (dtypes, batches, broadcasting, vectors, views);
 * SVD checked by reconstruction and orthogonality (here, with the library's own matmul,
 * and in NumPy) and its values against numpy.linalg.svd, full and economy, tall, wide,
 * square, rank-deficient, batched; solve against numpy.linalg.solve; bad inputs. */
#include "ops_testlib.h"

static void test_matmul_values(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[] = {RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
  struct {
    int na;
    int64_t a[4];
    int nb;
    int64_t b[4];
  } sh[] = {{2, {4, 3}, 2, {3, 5}},       {3, {2, 4, 3}, 2, {3, 5}}, {4, {2, 1, 4, 3}, 3, {3, 3, 2}},
            {1, {3}, 2, {3, 5}},          {2, {4, 3}, 1, {3}},       {1, {7}, 1, {7}},
            {3, {3, 1, 6}, 3, {3, 6, 1}}, {2, {1, 1}, 2, {1, 1}},    {2, {2, 0}, 2, {0, 3}}};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++)
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) {
      pair a, b;
      CHECK_OK(make_pair(&a, s, ctx, ds[di], sh[i].na, sh[i].a, 3 + i, 0));
      CHECK_OK(make_pair(&b, s, ctx, ds[di], sh[i].nb, sh[i].b, 30 + i, 0));
      ew_case *c = suite_add(s, "matmul %s case %zu", rs_dtype_name(ds[di]), i);
      c->sdev = rs_matmul(&c->dev, a.dev, b.dev, NULL);
      c->shost = rs_matmul(&c->host, a.host, b.host, NULL);
      c->np = tl_np_expr(&s->np, "a%d @ a%d", a.np, b.np);
      c->rtol = tl_rtol(ds[di]) * 4;
      c->atol = 1e-5;
      free_pair(&a);
      free_pair(&b);
    }
  /* views, mixed dtypes (int8 @ float32 -> float32) */
  int64_t s1[2] = {5, 4}, s2[2] = {6, 5};
  pair a, b, i8;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, 2, s1, 91, 0));
  CHECK_OK(make_pair(&b, s, ctx, RS_FLOAT64, 2, s2, 92, 0));
  CHECK_OK(make_pair(&i8, s, ctx, RS_INT8, 2, s2, 93, 0));
  for (int pl = 0; pl < 2; pl++) {
    rs_array *at = NULL, *bt = NULL, *bs = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL, *f = NULL;
    CHECK_OK(rs_array_transpose(&at, pl ? a.host : a.dev));
    CHECK_OK(rs_array_transpose(&bt, pl ? b.host : b.dev));
    rs_slice sl[2] = {{0, 5, 2}, RS_SLICE_ALL};
    CHECK_OK(rs_array_slice(&bs, pl ? a.host : a.dev, 2, sl));
    CHECK_OK(rs_matmul(&r1, at, bt, NULL)); /* (4,5) @ (5,6) both transposed */
    CHECK_OK(rs_matmul(&r2, bs, at, NULL)); /* strided rows */
    CHECK_OK(rs_astype(&f, pl ? b.host : b.dev, RS_FLOAT32, NULL));
    rs_array *ft = NULL;
    CHECK_OK(rs_array_transpose(&ft, f));
    CHECK_OK(rs_matmul(&r3, pl ? i8.host : i8.dev, ft, NULL)); /* int8 @ float32 */
    if (!pl) {
      ew_case *c = suite_add(s, "matmul transposed");
      c->dev = r1, c->np = tl_np_expr(&s->np, "a%d.T @ a%d.T", a.np, b.np), c->rtol = 1e-13;
      c = suite_add(s, "matmul strided");
      c->dev = r2, c->np = tl_np_expr(&s->np, "a%d[0:5:2] @ a%d.T", a.np, a.np), c->rtol = 1e-13;
      c = suite_add(s, "matmul int8 @ float32");
      c->dev = r3, c->np = tl_np_expr(&s->np, "a%d @ a%d.astype(np.float32).T", i8.np, b.np), c->rtol = 1e-6;
    } else {
      s->c[s->n - 3].host = r1, s->c[s->n - 2].host = r2, s->c[s->n - 1].host = r3;
    }
    tl_release(5, at, bt, bs, f, ft);
  }
  free_pair(&a);
  free_pair(&b);
  free_pair(&i8);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_matmul_bad(rs_context *ctx) {
  int64_t s34[2] = {3, 4}, s53[2] = {5, 3}, s3[1] = {3};
  rs_array *a = NULL, *b = NULL, *i = NULL, *z = NULL, *r = NULL, *o = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 2, s34, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_DEVICE, 2, s53, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&i, ctx, RS_MEM_DEVICE, 2, s34, RS_INT32, NULL));
  CHECK_OK(rs_ones(&z, ctx, RS_MEM_DEVICE, 0, NULL, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_matmul(&r, a, b, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("(3, 4)", "(5, 3)");
  rs_array *it = NULL;
  CHECK_OK(rs_array_transpose(&it, i));
  CHECK_STATUS(rs_matmul(&r, i, it, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("int32");
  rs_array_release(it);
  CHECK_STATUS(rs_matmul(&r, z, a, NULL), RS_ERR_SHAPE);
  CHECK_OK(rs_ones(&o, ctx, RS_MEM_DEVICE, 1, s3, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_matmul_into(o, b, a, NULL), RS_ERR_SHAPE); /* result (5, 4) into (3,) */
  tl_release(5, a, b, i, z, o);
}

/* max |x - y| over all elements, as a double */
static double max_abs_diff(const rs_array *x, const rs_array *y, rs_status *st) {
  rs_close_report r;
  *st = rs_allclose_report(x, y, 0, 0, 0, &r, NULL);
  return r.max_abs_diff;
}

/* ||A - U diag(s) Vh||, ||U^H U - I||, ||Vh Vh^H - I|| (with the library's own ops). */
static rs_status svd_errors(const rs_array *a, const rs_array *u, const rs_array *sv, const rs_array *vh, double *rec,
                            double *ortho) {
  rs_array *us = NULL, *rebuilt = NULL, *uh = NULL, *uhu = NULL, *vv = NULL, *vht = NULL, *eye = NULL, *eye2 = NULL,
           *sx = NULL, *uc = NULL;
  rs_status st;
  int nd = rs_array_ndim(u);
  int64_t k = rs_array_shape(sv)[rs_array_ndim(sv) - 1], ucols = rs_array_shape(u)[nd - 1];
  /* u[..., :, :k] * s[..., None, :] @ vh[..., :k, :] */
  rs_slice su[RS_MAX_DIMS], sh[RS_MAX_DIMS];
  for (int i = 0; i < nd; i++) su[i] = RS_SLICE_ALL, sh[i] = RS_SLICE_ALL;
  su[nd - 1] = (rs_slice){0, k, 1};
  sh[nd - 2] = (rs_slice){0, k, 1};
  rs_array *uk = NULL, *vk = NULL;
  H_OK(rs_array_slice(&uk, u, nd, su));
  H_OK(rs_array_slice(&vk, vh, nd, sh));
  H_OK(rs_array_expand_dims(&sx, sv, -2));
  H_OK(rs_multiply(&us, uk, sx, NULL));
  H_OK(rs_matmul(&rebuilt, us, vk, NULL));
  *rec = max_abs_diff(rebuilt, a, &st);
  H_OK(st);
  int perm[RS_MAX_DIMS];
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[nd - 1] = nd - 2, perm[nd - 2] = nd - 1;
  H_OK(rs_array_permute(&uh, u, perm));
  H_OK(rs_unary(&uc, RS_OP_CONJ, uh, NULL));
  H_OK(rs_matmul(&uhu, uc, u, NULL));
  H_OK(rs_eye(&eye, rs_array_context(a), rs_array_kind(a) == RS_MEM_DEVICE ? RS_MEM_DEVICE : RS_MEM_HOST, ucols, ucols,
              0, rs_array_dtype(u), NULL));
  double e1 = max_abs_diff(uhu, eye, &st);
  H_OK(st);
  int64_t vrows = rs_array_shape(vh)[nd - 2];
  rs_array *vhc = NULL;
  H_OK(rs_array_permute(&vht, vh, perm));
  H_OK(rs_unary(&vhc, RS_OP_CONJ, vht, NULL));
  H_OK(rs_matmul(&vv, vh, vhc, NULL));
  H_OK(rs_eye(&eye2, rs_array_context(a), rs_array_kind(a) == RS_MEM_DEVICE ? RS_MEM_DEVICE : RS_MEM_HOST, vrows, vrows,
              0, rs_array_dtype(u), NULL));
  double e2 = max_abs_diff(vv, eye2, &st);
  H_OK(st);
  *ortho = e1 > e2 ? e1 : e2;
  tl_release(13, us, rebuilt, uh, uhu, vv, vht, eye, eye2, sx, uc, uk, vk, vhc);
  return RS_OK;
}

static void test_svd(rs_context *ctx) {
  ew_suite *s = suite_new();
  struct {
    int nd;
    int64_t shape[3];
    rs_dtype d;
  } cs[] = {{2, {6, 4}, RS_FLOAT64},  {2, {4, 6}, RS_FLOAT64},   {2, {5, 5}, RS_FLOAT32},
            {2, {7, 3}, RS_COMPLEX128}, {3, {2, 5, 3}, RS_FLOAT64}, {2, {3, 8}, RS_COMPLEX64}, {2, {1, 4}, RS_FLOAT64}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
    for (int full = 0; full < 2; full++) {
      pair a;
      CHECK_OK(make_pair(&a, s, ctx, cs[i].d, cs[i].nd, cs[i].shape, 50 + i, 0));
      double tol = cs[i].d == RS_FLOAT32 || cs[i].d == RS_COMPLEX64 ? 5e-5 : 1e-12;
      for (int pl = 0; pl < 2; pl++) {
        rs_array *u = NULL, *sv = NULL, *vh = NULL;
        CHECK_OK(rs_svd(&u, &sv, &vh, pl ? a.host : a.dev, full, NULL));
        double rec = 0, orth = 0;
        CHECK_OK(svd_errors(pl ? a.host : a.dev, u, sv, vh, &rec, &orth));
        CHECK_MSG(rec < tol * 10 && orth < tol, "svd case %zu full=%d %s: reconstruction %g, orthogonality %g", i, full,
                  pl ? "host" : "device", rec, orth);
        if (!pl) {
          ew_case *c = suite_add(s, "svd values case %zu full=%d", i, full);
          c->dev = sv;
          c->np = tl_np_expr(&s->np, "np.linalg.svd(a%d, compute_uv=False)", a.np);
          c->rtol = tol, c->atol = tol;
        } else {
          s->c[s->n - 1].host = sv;
        }
        tl_release(2, u, vh);
      }
      free_pair(&a);
    }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* A rank-deficient matrix: zero singular values, and U still orthonormal. */
static void test_svd_rank_deficient(rs_context *ctx) {
  double data[12] = {1, 2, 0, 2, 4, 0, 3, 6, 0, 4, 8, 0}; /* 4 x 3, rank 1 */
  int64_t shape[2] = {4, 3};
  for (int pl = 0; pl < 2; pl++) {
    rs_array *h = NULL, *a = NULL, *u = NULL, *sv = NULL, *vh = NULL;
    CHECK_OK(rs_host_array_wrap(&h, ctx, data, 2, shape, RS_FLOAT64, NULL));
    if (pl) {
      CHECK_OK(rs_copy(&a, h, NULL));
    } else {
      CHECK_OK(rs_to_device(&a, h, 0, NULL));
    }
    CHECK_OK(rs_svd(&u, &sv, &vh, a, 1, NULL));
    double s[3], rec, orth;
    CHECK_OK(rs_t_read_(sv, s));
    CHECK_NEAR(s[0], sqrt(150.0), 1e-12);
    CHECK_NEAR(s[1], 0, 1e-12);
    CHECK_NEAR(s[2], 0, 1e-12);
    CHECK_OK(svd_errors(a, u, sv, vh, &rec, &orth));
    CHECK_MSG(rec < 1e-12 && orth < 1e-12, "rank 1: reconstruction %g, orthogonality %g", rec, orth);
    tl_release(5, h, a, u, sv, vh);
  }
}

static void test_svd_bad(rs_context *ctx) {
  int64_t e[2] = {0, 3}, v[1] = {3}, m[2] = {3, 3};
  rs_array *a = NULL, *b = NULL, *h = NULL, *u = NULL, *sv = NULL, *vh = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 2, e, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_svd(&u, &sv, &vh, a, 0, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("empty");
  CHECK_OK(rs_zeros(&b, ctx, RS_MEM_DEVICE, 1, v, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_svd(&u, &sv, &vh, b, 0, NULL), RS_ERR_SHAPE);
  CHECK_OK(rs_zeros(&h, ctx, RS_MEM_DEVICE, 2, m, RS_FLOAT16, NULL));
  CHECK_STATUS(rs_svd(&u, &sv, &vh, h, 0, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_svd(&u, NULL, &vh, h, 0, NULL), RS_ERR_NULL_POINTER);
  CHECK(u == NULL && sv == NULL && vh == NULL);
  /* values only */
  rs_array *f = NULL;
  CHECK_OK(rs_eye(&f, ctx, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT32, NULL));
  CHECK_OK(rs_svd(NULL, &sv, NULL, f, 0, NULL));
  CHECK_EQ_I64(rs_array_dtype(sv), RS_FLOAT32);
  tl_release(5, a, b, h, f, sv);
}

static void test_solve(rs_context *ctx) {
  ew_suite *s = suite_new();
  struct {
    int na;
    int64_t a[3];
    int nb;
    int64_t b[3];
    rs_dtype d;
  } cs[] = {{2, {4, 4}, 1, {4}, RS_FLOAT64},       {2, {4, 4}, 2, {4, 2}, RS_FLOAT64},
            {3, {3, 4, 4}, 3, {3, 4, 2}, RS_FLOAT32}, {3, {3, 4, 4}, 1, {4}, RS_FLOAT64},
            {2, {5, 5}, 2, {5, 3}, RS_COMPLEX128},  {3, {2, 3, 3}, 2, {3, 1}, RS_INT32}};
  for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++) {
    pair a, b;
    CHECK_OK(make_pair(&a, s, ctx, cs[i].d, cs[i].na, cs[i].a, 70 + i, 0));
    CHECK_OK(make_pair(&b, s, ctx, cs[i].d, cs[i].nb, cs[i].b, 80 + i, 0));
    ew_case *c = suite_add(s, "solve case %zu", i);
    c->sdev = rs_solve(&c->dev, a.dev, b.dev, NULL);
    c->shost = rs_solve(&c->host, a.host, b.host, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.solve(a%d, a%d)", a.np, b.np);
    c->rtol = cs[i].d == RS_FLOAT32 ? 1e-4 : 1e-10;
    c->atol = cs[i].d == RS_FLOAT32 ? 1e-4 : 1e-10;
    free_pair(&a);
    free_pair(&b);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
  /* singular */
  int64_t sq[2] = {3, 3}, n3[1] = {3}, n4[1] = {4};
  rs_array *z = NULL, *b = NULL, *x = NULL, *b4 = NULL;
  CHECK_OK(rs_ones(&z, ctx, RS_MEM_DEVICE, 2, sq, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_DEVICE, 1, n3, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_solve(&x, z, b, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("singular");
  CHECK_OK(rs_ones(&b4, ctx, RS_MEM_DEVICE, 1, n4, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_solve(&x, z, b4, NULL), RS_ERR_SHAPE);
  CHECK(x == NULL);
  tl_release(4, z, b, b4, x);
}

/* Stacks of many small systems: on the GPU one getrfBatched + getrsBatched (n <= 32),
 * against NumPy; a singular matrix inside the stack is refused with the status and
 * message of an unbatched singular solve, and nothing is written to the destination. */
static void test_solve_batched(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[] = {RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
  int64_t sa[3] = {300, 6, 6}, sb[3] = {300, 6, 2};
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    pair a, b;
    CHECK_OK(make_pair(&a, s, ctx, ds[i], 3, sa, 92, 0));
    CHECK_OK(make_pair(&b, s, ctx, ds[i], 3, sb, 93, 0));
    ew_case *c = suite_add(s, "batched solve %s", rs_dtype_name(ds[i]));
    c->sdev = rs_solve(&c->dev, a.dev, b.dev, NULL);
    c->shost = rs_solve(&c->host, a.host, b.host, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.solve(a%d, a%d)", a.np, b.np);
    int single = ds[i] == RS_FLOAT32 || ds[i] == RS_COMPLEX64;
    c->rtol = c->atol = single ? 1e-3 : 1e-10;
    free_pair(&a);
    free_pair(&b);
  }
  int bad = suite_check(s, ctx);
  CHECK(bad == 0);
  pair z;
  rs_array *b = NULL, *x = NULL, *dst = NULL;
  CHECK_OK(make_pair_singular(&z, NULL, ctx, RS_FLOAT64, 3, sa, 92, 17));
  CHECK_OK(tl_make(&b, ctx, RS_MEM_DEVICE, RS_FLOAT64, 3, sb, 93, 0));
  CHECK_STATUS(rs_solve(&x, z.dev, b, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("solve: singular matrix");
  CHECK(x == NULL);
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 3, sb, RS_FLOAT64, rs_scalar_float(7.0), NULL));
  CHECK_STATUS(rs_solve_into(dst, z.dev, b, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("singular matrix");
  CHECK_MSG(tl_all_f64(dst, 300 * 12, 7.0), "batched solve_into with a singular matrix wrote into the destination");
  free_pair(&z);
  tl_release(2, b, dst);
  suite_free(s);
}

static const rs_test_case tests[] = {RS_TEST(test_matmul_values), RS_TEST(test_matmul_bad),
                                     RS_TEST(test_svd),           RS_TEST(test_svd_rank_deficient),
                                     RS_TEST(test_svd_bad),       RS_TEST(test_solve),
                                     RS_TEST(test_solve_batched)};
RS_TEST_MAIN(tests)
