/* The linalg extension's factorizations against NumPy (numpy.linalg) on both placements:
 * cholesky (lower and upper), eigh / eigvalsh (eigenvectors compared as |v|, invariant
 * under each column's sign or phase, and through the residual a v - v diag(w)), qr
 * reduced and complete (|q|, |r| and the reconstruction q r = a), det, slogdet and inv;
 * every float and complex dtype, batched; singular and not positive-definite input; bad
 * input. */
#include "ops_testlib.h"

static const rs_dtype fdt[] = {RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
#define NDT (sizeof fdt / sizeof fdt[0])

/* A build without LAPACKE factors nothing on the host or the simulator: it must say so
 * (RS_ERR_UNSUPPORTED naming LAPACK, test_without_lapack), and the value tests are skipped. */
static int without_lapack(void) { return strncmp(rs_linalg_host_library(NULL), "C loops", 7) == 0; }

static void test_without_lapack(rs_context *ctx) {
  if (!without_lapack()) return;
  printf("    note: no LAPACKE in this build - factorization values not tested\n");
  rs_array *a = NULL, *r = NULL;
  CHECK_OK(rs_eye(&a, ctx, RS_MEM_HOST, 2, 2, 0, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_cholesky(&r, a, 0, NULL), RS_ERR_UNSUPPORTED);
  CHECK_ERRMSG("LAPACK");
  rs_array_release(a);
}

static double tol_of(rs_dtype d) { return d == RS_FLOAT32 || d == RS_COMPLEX64 ? 2e-4 : 1e-10; }

/* x^H with the library's ops (last two axes swapped, conjugated). */
static rs_status herm(rs_array **out, const rs_array *x) {
  int nd = rs_array_ndim(x), perm[RS_MAX_DIMS];
  for (int i = 0; i < nd; i++) perm[i] = i;
  perm[nd - 1] = nd - 2, perm[nd - 2] = nd - 1;
  rs_array *t = NULL;
  H_OK(rs_array_permute(&t, x, perm));
  rs_status st = rs_unary(out, RS_OP_CONJ, t, NULL);
  rs_array_release(t);
  return st;
}

/* x @ x^H + n I: Hermitian positive definite. */
static rs_status hpd(rs_array **out, const rs_array *x) {
  int nd = rs_array_ndim(x);
  int64_t n = rs_array_shape(x)[nd - 1];
  rs_array *c = NULL, *p = NULL, *eye = NULL, *ne = NULL;
  H_OK(herm(&c, x));
  H_OK(rs_matmul(&p, x, c, NULL));
  H_OK(rs_eye(&eye, rs_array_context(x), rs_array_kind(x) == RS_MEM_DEVICE ? RS_MEM_DEVICE : RS_MEM_HOST, n, n, 0,
              rs_array_dtype(x), NULL));
  H_OK(rs_multiply_scalar(&ne, eye, rs_scalar_float((double)n), NULL));
  rs_status st = rs_add(out, p, ne, NULL);
  tl_release(4, c, p, eye, ne);
  return st;
}

#define HPD_NP "(lambda x: x @ x.conj().swapaxes(-1, -2) + x.shape[-1] * np.eye(x.shape[-1], dtype=x.dtype))(a%d)"

static const struct {
  int nd;
  int64_t shape[4];
} sq[] = {{2, {1, 1}}, {2, {4, 4}}, {3, {3, 5, 5}}, {4, {2, 1, 3, 3}}};
#define NSQ (sizeof sq / sizeof sq[0])

static void test_cholesky(rs_context *ctx) {
  if (without_lapack()) return;
  ew_suite *s = suite_new();
  for (size_t di = 0; di < NDT; di++)
    for (size_t i = 0; i < NSQ; i++)
      for (int upper = 0; upper < 2; upper++) {
        pair a;
        CHECK_OK(make_pair(&a, s, ctx, fdt[di], sq[i].nd, sq[i].shape, 11 + i, 0));
        rs_array *hd = NULL, *hh = NULL;
        CHECK_OK(hpd(&hd, a.dev));
        CHECK_OK(hpd(&hh, a.host));
        ew_case *c = suite_add(s, "cholesky %s case %zu upper=%d", rs_dtype_name(fdt[di]), i, upper);
        c->sdev = rs_cholesky(&c->dev, hd, upper, NULL);
        c->shost = rs_cholesky(&c->host, hh, upper, NULL);
        c->np = upper ? tl_np_expr(&s->np, "np.linalg.cholesky(" HPD_NP ").conj().swapaxes(-1, -2)", a.np)
                      : tl_np_expr(&s->np, "np.linalg.cholesky(" HPD_NP ")", a.np);
        c->rtol = c->atol = tol_of(fdt[di]);
        tl_release(2, hd, hh);
        free_pair(&a);
      }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
  /* not positive definite: -I; nothing written into dst */
  rs_array *m = NULL, *dst = NULL, *r = NULL;
  CHECK_OK(rs_eye(&m, ctx, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT64, NULL));
  CHECK_OK(rs_multiply_scalar(&r, m, rs_scalar_float(-1.0), NULL));
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 2, (int64_t[]){3, 3}, RS_FLOAT64, rs_scalar_float(7.0), NULL));
  CHECK_STATUS(rs_cholesky_into(dst, r, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("cholesky", "positive definite");
  double back[9];
  CHECK_OK(rs_t_read_(dst, back));
  for (int i = 0; i < 9; i++) CHECK_NEAR(back[i], 7.0, 0);
  tl_release(3, m, dst, r);
}

/* c[q] * I for a batch (3, 4, 4), on the device: the batched cuSOLVER paths (n <= 32). */
static rs_status scaled_eyes(rs_array **out, rs_context *ctx, double *c) {
  int64_t s311[3] = {3, 1, 1};
  rs_array *h = NULL, *d = NULL, *eye = NULL;
  H_OK(rs_host_array_wrap(&h, ctx, c, 3, s311, RS_FLOAT64, NULL));
  H_OK(rs_to_device(&d, h, 0, NULL));
  H_OK(rs_eye(&eye, ctx, RS_MEM_DEVICE, 4, 4, 0, RS_FLOAT64, NULL));
  rs_status st = rs_multiply(out, d, eye, NULL);
  tl_release(3, h, d, eye);
  return st;
}

static void test_batched_closed_forms(rs_context *ctx) {
  if (without_lapack()) return;
  double good[3] = {1, 4, 9}, bad[3] = {1, -1, 1};
  rs_array *a = NULL, *b = NULL, *l = NULL, *w = NULL, *v = NULL, *dst = NULL;
  CHECK_OK(scaled_eyes(&a, ctx, good));
  CHECK_OK(rs_cholesky(&l, a, 0, NULL));
  double lv[48], wv[12];
  CHECK_OK(rs_t_read_(l, lv));
  for (int q = 0; q < 3; q++)
    for (int i = 0; i < 16; i++) CHECK_NEAR(lv[q * 16 + i], i % 5 == 0 ? sqrt(good[q]) : 0.0, 1e-14);
  CHECK_OK(rs_eigh(&w, &v, a, NULL));
  CHECK_OK(rs_t_read_(w, wv));
  for (int q = 0; q < 3; q++)
    for (int i = 0; i < 4; i++) CHECK_NEAR(wv[q * 4 + i], good[q], 1e-13);
  /* one matrix of the batch not positive definite: refused, dst untouched */
  CHECK_OK(scaled_eyes(&b, ctx, bad));
  CHECK_OK(rs_zeros_like(&dst, b, RS_MEM_DEVICE, NULL));
  CHECK_STATUS(rs_cholesky_into(dst, b, 1, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("positive definite");
  CHECK_OK(rs_t_read_(dst, lv));
  for (int i = 0; i < 48; i++) CHECK_NEAR(lv[i], 0, 0);
  tl_release(6, a, b, l, w, v, dst);
}

static void test_eigh(rs_context *ctx) {
  if (without_lapack()) return;
  ew_suite *s = suite_new();
  for (size_t di = 0; di < NDT; di++)
    for (size_t i = 0; i < NSQ; i++) {
      pair a;
      CHECK_OK(make_pair(&a, s, ctx, fdt[di], sq[i].nd, sq[i].shape, 21 + i, 0));
      rs_array *hd = NULL, *hh = NULL, *w[2] = {NULL, NULL}, *v[2] = {NULL, NULL};
      CHECK_OK(hpd(&hd, a.dev));
      CHECK_OK(hpd(&hh, a.host));
      double tol = tol_of(fdt[di]) * 10;
      /* eigvalsh of the raw (non-symmetric) real input: the lower triangle is what counts
       * (complex input with a non-real diagonal is not Hermitian at all: libraries differ) */
      ew_case *c;
      if (fdt[di] == RS_FLOAT32 || fdt[di] == RS_FLOAT64) {
        c = suite_add(s, "eigvalsh %s case %zu (lower triangle)", rs_dtype_name(fdt[di]), i);
        c->sdev = rs_eigvalsh(&c->dev, a.dev, NULL);
        c->shost = rs_eigvalsh(&c->host, a.host, NULL);
        c->np = tl_np_expr(&s->np, "np.linalg.eigvalsh(a%d)", a.np);
        c->rtol = c->atol = tol;
      }
      for (int pl = 0; pl < 2; pl++) CHECK_OK(rs_eigh(&w[pl], &v[pl], pl ? hh : hd, NULL));
      c = suite_add(s, "eigh w %s case %zu", rs_dtype_name(fdt[di]), i);
      c->dev = w[0], c->host = w[1];
      c->np = tl_np_expr(&s->np, "np.linalg.eigh(" HPD_NP ")[0]", a.np);
      c->rtol = c->atol = tol;
      c = suite_add(s, "eigh |v| %s case %zu", rs_dtype_name(fdt[di]), i);
      CHECK_OK(rs_unary(&c->dev, RS_OP_ABS, v[0], NULL));
      CHECK_OK(rs_unary(&c->host, RS_OP_ABS, v[1], NULL));
      c->np = tl_np_expr(&s->np, "np.abs(np.linalg.eigh(" HPD_NP ")[1])", a.np);
      c->rtol = c->atol = tol * 10;
      /* residual: a v - v diag(w), against zeros */
      for (int pl = 0; pl < 2; pl++) {
        rs_array *av = NULL, *wx = NULL, *vw = NULL, *res = NULL, *z = NULL;
        CHECK_OK(rs_matmul(&av, pl ? hh : hd, v[pl], NULL));
        CHECK_OK(rs_array_expand_dims(&wx, w[pl], -2));
        CHECK_OK(rs_multiply(&vw, v[pl], wx, NULL));
        CHECK_OK(rs_subtract(&res, av, vw, NULL));
        CHECK_OK(rs_zeros_like(&z, res, rs_array_kind(res), NULL));
        double scale = (double)sq[i].shape[sq[i].nd - 1] * 60;
        CHECK_CLOSE_ARR(res, z, 0, tol * scale);
        tl_release(5, av, wx, vw, res, z);
      }
      tl_release(4, hd, hh, v[0], v[1]);
      free_pair(&a);
    }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_qr(rs_context *ctx) {
  if (without_lapack()) return;
  ew_suite *s = suite_new();
  static const struct {
    int nd;
    int64_t shape[3];
  } cs[] = {{2, {6, 4}}, {2, {4, 6}}, {2, {5, 5}}, {3, {2, 5, 3}}, {2, {1, 3}}};
  for (size_t di = 0; di < NDT; di++)
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
      for (int complete = 0; complete < 2; complete++) {
        pair a;
        CHECK_OK(make_pair(&a, s, ctx, fdt[di], cs[i].nd, cs[i].shape, 31 + i, 0));
        rs_array *q[2] = {NULL, NULL}, *r[2] = {NULL, NULL};
        for (int pl = 0; pl < 2; pl++) CHECK_OK(rs_qr(&q[pl], &r[pl], pl ? a.host : a.dev, complete, NULL));
        const char *mode = complete ? "complete" : "reduced";
        double tol = tol_of(fdt[di]) * 10;
        ew_case *c = suite_add(s, "qr |q| %s case %zu %s", rs_dtype_name(fdt[di]), i, mode);
        CHECK_OK(rs_unary(&c->dev, RS_OP_ABS, q[0], NULL));
        CHECK_OK(rs_unary(&c->host, RS_OP_ABS, q[1], NULL));
        c->np = tl_np_expr(&s->np, "np.abs(np.linalg.qr(a%d, mode='%s')[0])", a.np, mode);
        c->rtol = c->atol = tol;
        c = suite_add(s, "qr |r| %s case %zu %s", rs_dtype_name(fdt[di]), i, mode);
        CHECK_OK(rs_unary(&c->dev, RS_OP_ABS, r[0], NULL));
        CHECK_OK(rs_unary(&c->host, RS_OP_ABS, r[1], NULL));
        c->np = tl_np_expr(&s->np, "np.abs(np.linalg.qr(a%d, mode='%s')[1])", a.np, mode);
        c->rtol = c->atol = tol;
        c = suite_add(s, "qr q @ r %s case %zu %s", rs_dtype_name(fdt[di]), i, mode);
        CHECK_OK(rs_matmul(&c->dev, q[0], r[0], NULL));
        CHECK_OK(rs_matmul(&c->host, q[1], r[1], NULL));
        c->np = tl_np_expr(&s->np, "a%d", a.np);
        c->rtol = c->atol = tol;
        tl_release(4, q[0], q[1], r[0], r[1]);
        free_pair(&a);
      }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
  /* r only */
  rs_array *a = NULL, *r = NULL;
  CHECK_OK(rs_eye(&a, ctx, RS_MEM_DEVICE, 4, 3, 0, RS_FLOAT64, NULL));
  CHECK_OK(rs_qr(NULL, &r, a, 0, NULL));
  CHECK_EQ_I64(rs_array_shape(r)[0], 3);
  tl_release(2, a, r);
}

/* A complete Q (m > n) in memory that held NaN before: LAPACKE checks orgqr's whole input
 * for NaN, and the columns past n were left as the memory was (the host path failed now and
 * then on the H200, "QR factorization failed"). The pool hands the NaN blocks back. */
static void test_qr_complete_reused_memory(rs_context *ctx) {
  if (without_lapack()) return;
  const int64_t sq[2] = {6, 6}, sa[2] = {6, 2};
  rs_array *junk[8] = {0};
  for (int i = 0; i < 8; i++) CHECK_OK(rs_full(&junk[i], ctx, RS_MEM_DEVICE, 2, sq, RS_FLOAT64, rs_scalar_float(NAN), NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  for (int i = 0; i < 8; i++) rs_array_release(junk[i]);
  double av[12];
  for (int i = 0; i < 12; i++) av[i] = (double)((i * 7) % 5) + 0.25 * i;
  rs_array *ah = NULL, *a = NULL, *q = NULL, *r = NULL, *qr = NULL;
  CHECK_OK(rs_host_array_wrap(&ah, ctx, av, 2, sa, RS_FLOAT64, NULL));
  CHECK_OK(rs_to_device(&a, ah, 0, NULL));
  CHECK_OK(rs_qr(&q, &r, a, 1, NULL));
  CHECK_OK(rs_matmul(&qr, q, r, NULL));
  CHECK_CLOSE_ARR(qr, a, 1e-12, 1e-12);
  rs_array *arrs[5] = {ah, a, q, r, qr};
  for (int i = 0; i < 5; i++) rs_array_release(arrs[i]);
}

/* slogdet's sign and log|det| on both sides against NumPy's */
static void add_slogdet(ew_suite *s, const pair *a, const char *what, double tol) {
  rs_array *sg[2] = {NULL, NULL}, *la[2] = {NULL, NULL};
  for (int pl = 0; pl < 2; pl++) CHECK_OK(rs_slogdet(&sg[pl], &la[pl], pl ? a->host : a->dev, NULL));
  ew_case *c = suite_add(s, "slogdet sign %s", what);
  c->dev = sg[0], c->host = sg[1], c->np = tl_np_expr(&s->np, "np.linalg.slogdet(a%d)[0]", a->np);
  c->rtol = c->atol = tol;
  c = suite_add(s, "slogdet logabsdet %s", what);
  c->dev = la[0], c->host = la[1], c->np = tl_np_expr(&s->np, "np.linalg.slogdet(a%d)[1]", a->np);
  c->rtol = c->atol = tol;
}

static void test_det_inv(rs_context *ctx) {
  if (without_lapack()) return;
  ew_suite *s = suite_new();
  for (size_t di = 0; di < NDT; di++)
    for (size_t i = 0; i < NSQ; i++) {
      pair a;
      CHECK_OK(make_pair(&a, s, ctx, fdt[di], sq[i].nd, sq[i].shape, 41 + i, 0));
      double tol = tol_of(fdt[di]) * 10;
      const char *dn = rs_dtype_name(fdt[di]);
      ew_case *c = suite_add(s, "det %s case %zu", dn, i);
      c->sdev = rs_det(&c->dev, a.dev, NULL);
      c->shost = rs_det(&c->host, a.host, NULL);
      c->np = tl_np_expr(&s->np, "np.linalg.det(a%d)", a.np);
      c->rtol = c->atol = tol;
      char what[64];
      snprintf(what, sizeof what, "%s case %zu", dn, i);
      add_slogdet(s, &a, what, tol);
      c = suite_add(s, "inv %s case %zu", dn, i);
      c->sdev = rs_inv(&c->dev, a.dev, NULL);
      c->shost = rs_inv(&c->host, a.host, NULL);
      c->np = tl_np_expr(&s->np, "np.linalg.inv(a%d)", a.np);
      c->rtol = c->atol = tol * 100;
      free_pair(&a);
    }
  /* integers decompose in float64 */
  pair ai;
  int64_t s33[2] = {3, 3};
  CHECK_OK(make_pair(&ai, s, ctx, RS_INT32, 2, s33, 77, 0));
  ew_case *c = suite_add(s, "det int32");
  c->sdev = rs_det(&c->dev, ai.dev, NULL);
  c->shost = rs_det(&c->host, ai.host, NULL);
  c->np = tl_np_expr(&s->np, "np.linalg.det(a%d)", ai.np);
  c->rtol = c->atol = 1e-9;
  free_pair(&ai);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
  /* singular: det 0, slogdet (0, -inf), inv refused and nothing written */
  rs_array *o = NULL, *d = NULL, *sg = NULL, *la = NULL, *x = NULL, *dst = NULL;
  CHECK_OK(rs_ones(&o, ctx, RS_MEM_DEVICE, 2, s33, RS_FLOAT64, NULL));
  CHECK_OK(rs_det(&d, o, NULL));
  CHECK_OK(rs_slogdet(&sg, &la, o, NULL));
  double dv = 1, sv = 1, lv = 0;
  CHECK_OK(rs_t_read_(d, &dv));
  CHECK_OK(rs_t_read_(sg, &sv));
  CHECK_OK(rs_t_read_(la, &lv));
  CHECK_NEAR(dv, 0, 0);
  CHECK_NEAR(sv, 0, 0);
  CHECK(isinf(lv) && lv < 0);
  CHECK_STATUS(rs_inv(&x, o, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("inv", "singular");
  CHECK(x == NULL);
  CHECK_OK(rs_zeros(&dst, ctx, RS_MEM_DEVICE, 2, s33, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_inv_into(dst, o, NULL), RS_ERR_INVALID_ARGUMENT);
  double back[9];
  CHECK_OK(rs_t_read_(dst, back));
  for (int i = 0; i < 9; i++) CHECK_NEAR(back[i], 0, 0);
  tl_release(5, o, d, sg, la, dst);
}

/* Stacks of many small matrices: on the GPU one batched LU (cuBLAS getrfBatched, n <= 32)
 * for det / slogdet and inv, against NumPy; matrix 17 of a second stack is exactly
 * singular: det 0, sign 0, log|det| -inf there and the others right; inv refused as for
 * one matrix, nothing written. (The simulator runs the native path: the same answers.) */
static void test_lu_batched(rs_context *ctx) {
  if (without_lapack()) return;
  ew_suite *s = suite_new();
  int64_t s5[3] = {300, 5, 5}, s4[3] = {300, 4, 4};
  for (size_t di = 0; di < NDT; di++) {
    const char *dn = rs_dtype_name(fdt[di]);
    double tol = tol_of(fdt[di]) * 10;
    for (int sing = 0; sing < 2; sing++) {
      pair a;
      if (sing) CHECK_OK(make_pair_singular(&a, s, ctx, fdt[di], 3, s5, 94, 17));
      else CHECK_OK(make_pair(&a, s, ctx, fdt[di], 3, s5, 94, 0));
      ew_case *c = suite_add(s, "batched det %s singular=%d", dn, sing);
      c->sdev = rs_det(&c->dev, a.dev, NULL);
      c->shost = rs_det(&c->host, a.host, NULL);
      c->np = tl_np_expr(&s->np, "np.linalg.det(a%d)", a.np);
      c->rtol = c->atol = tol;
      if (sing && c->sdev == RS_OK) { /* exactly 0, not just close */
        double re = 1, im = 1;
        void *buf = malloc(300 * rs_dtype_size(fdt[di]));
        CHECK_OK(rs_t_read_(c->dev, buf));
        tl_get(buf, fdt[di], 17, &re, &im);
        CHECK_MSG(re == 0 && im == 0, "batched det %s: singular matrix gives %g%+gj", dn, re, im);
        free(buf);
      }
      char what[64];
      snprintf(what, sizeof what, "%s singular=%d (batched)", dn, sing);
      add_slogdet(s, &a, what, tol);
      free_pair(&a);
    }
    pair a4;
    CHECK_OK(make_pair(&a4, s, ctx, fdt[di], 3, s4, 91, 0));
    ew_case *c = suite_add(s, "batched inv %s", dn);
    c->sdev = rs_inv(&c->dev, a4.dev, NULL);
    c->shost = rs_inv(&c->host, a4.host, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.inv(a%d)", a4.np);
    c->rtol = c->atol = tol * 100;
    free_pair(&a4);
  }
  int bad = suite_check(s, ctx);
  CHECK(bad == 0);
  /* one singular matrix in a batched inv: the status and message of an unbatched one */
  pair z;
  CHECK_OK(make_pair_singular(&z, NULL, ctx, RS_FLOAT64, 3, s4, 91, 17));
  rs_array *x = NULL, *dst = NULL;
  CHECK_STATUS(rs_inv(&x, z.dev, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("inv", "singular");
  CHECK(x == NULL);
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 3, s4, RS_FLOAT64, rs_scalar_float(7.0), NULL));
  CHECK_STATUS(rs_inv_into(dst, z.dev, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("inv", "singular");
  CHECK_MSG(tl_all_f64(dst, 300 * 16, 7.0), "batched inv_into of a singular stack wrote into the destination");
  free_pair(&z);
  rs_array_release(dst);
  suite_free(s);
}

static void test_factor_bad(rs_context *ctx) {
  int64_t s34[2] = {3, 4}, s3[1] = {3}, s00[2] = {0, 0}, s33[2] = {3, 3};
  rs_array *a = NULL, *v = NULL, *e = NULL, *h = NULL, *r = NULL, *r2 = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 2, s34, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&v, ctx, RS_MEM_DEVICE, 1, s3, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&e, ctx, RS_MEM_DEVICE, 2, s00, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&h, ctx, RS_MEM_DEVICE, 2, s33, RS_FLOAT16, NULL));
  CHECK_STATUS(rs_cholesky(&r, a, 0, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("cholesky", "(3, 4)", "square");
  CHECK_STATUS(rs_eigh(&r, &r2, a, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("not square");
  CHECK_STATUS(rs_eigvalsh(&r, a, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_det(&r, a, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_slogdet(&r, &r2, a, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_inv(&r, a, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("inv", "square");
  CHECK_STATUS(rs_qr(&r, &r2, v, 0, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("1-dimensional");
  CHECK_STATUS(rs_cholesky(&r, h, 0, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_qr(&r, NULL, a, 0, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_eigh(NULL, &r2, a, NULL), RS_ERR_NULL_POINTER);
  CHECK(r == NULL && r2 == NULL);
  /* a destination of the wrong shape */
  rs_array *d = NULL;
  CHECK_OK(rs_zeros(&d, ctx, RS_MEM_DEVICE, 1, s3, RS_FLOAT64, NULL));
  rs_array *sq3 = NULL;
  CHECK_OK(rs_eye(&sq3, ctx, RS_MEM_DEVICE, 3, 3, 0, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_cholesky_into(d, sq3, 0, NULL), RS_ERR_SHAPE);
  tl_release(6, a, v, e, h, d, sq3);
}

/* Empty matrices as NumPy answers them, and non-contiguous views as input. */
static void test_factor_empty_and_views(rs_context *ctx) {
  if (without_lapack()) return;
  ew_suite *s = suite_new();
  static const struct {
    int nd;
    int64_t shape[3];
  } es[] = {{2, {0, 0}}, {3, {2, 0, 0}}, {3, {0, 3, 3}}};
  for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, es[i].nd, es[i].shape, 5, 0));
    ew_case *c = suite_add(s, "det empty case %zu", i);
    c->sdev = rs_det(&c->dev, a.dev, NULL), c->shost = rs_det(&c->host, a.host, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.det(a%d)", a.np);
    c = suite_add(s, "cholesky empty case %zu", i);
    c->sdev = rs_cholesky(&c->dev, a.dev, 0, NULL), c->shost = rs_cholesky(&c->host, a.host, 0, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.cholesky(a%d)", a.np);
    c = suite_add(s, "eigvalsh empty case %zu", i);
    c->sdev = rs_eigvalsh(&c->dev, a.dev, NULL), c->shost = rs_eigvalsh(&c->host, a.host, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.eigvalsh(a%d)", a.np);
    c = suite_add(s, "inv empty case %zu", i);
    c->sdev = rs_inv(&c->dev, a.dev, NULL), c->shost = rs_inv(&c->host, a.host, NULL);
    c->np = tl_np_expr(&s->np, "np.linalg.inv(a%d)", a.np);
    free_pair(&a);
  }
  /* qr of (3, 0): complete Q is the identity */
  int64_t s30[2] = {3, 0};
  pair z;
  CHECK_OK(make_pair(&z, s, ctx, RS_FLOAT64, 2, s30, 6, 0));
  for (int complete = 0; complete < 2; complete++) {
    rs_array *q[2] = {0}, *r[2] = {0};
    for (int pl = 0; pl < 2; pl++) CHECK_OK(rs_qr(&q[pl], &r[pl], pl ? z.host : z.dev, complete, NULL));
    ew_case *c = suite_add(s, "qr (3, 0) q complete=%d", complete);
    c->dev = q[0], c->host = q[1];
    c->np = tl_np_expr(&s->np, "np.linalg.qr(a%d, mode='%s')[0]", z.np, complete ? "complete" : "reduced");
    c = suite_add(s, "qr (3, 0) r complete=%d", complete);
    c->dev = r[0], c->host = r[1];
    c->np = tl_np_expr(&s->np, "np.linalg.qr(a%d, mode='%s')[1]", z.np, complete ? "complete" : "reduced");
  }
  free_pair(&z);
  /* views: a transposed batch and a strided slice */
  int64_t s255[3] = {2, 5, 5};
  pair v;
  CHECK_OK(make_pair(&v, s, ctx, RS_FLOAT64, 3, s255, 7, 0));
  int perm[3] = {0, 2, 1};
  rs_array *td = NULL, *th = NULL, *sd = NULL, *sh = NULL;
  CHECK_OK(rs_array_permute(&td, v.dev, perm));
  CHECK_OK(rs_array_permute(&th, v.host, perm));
  rs_slice sl[3] = {RS_SLICE_ALL, {0, 5, 2}, {1, 5, 2}}; /* (2, 3, 2) */
  CHECK_OK(rs_array_slice(&sd, v.dev, 3, sl));
  CHECK_OK(rs_array_slice(&sh, v.host, 3, sl));
  ew_case *c = suite_add(s, "det of a transposed view");
  c->sdev = rs_det(&c->dev, td, NULL), c->shost = rs_det(&c->host, th, NULL);
  c->np = tl_np_expr(&s->np, "np.linalg.det(np.swapaxes(a%d, 1, 2))", v.np);
  c->rtol = c->atol = 1e-10;
  c = suite_add(s, "eigvalsh of a transposed view");
  c->sdev = rs_eigvalsh(&c->dev, td, NULL), c->shost = rs_eigvalsh(&c->host, th, NULL);
  c->np = tl_np_expr(&s->np, "np.linalg.eigvalsh(np.swapaxes(a%d, 1, 2))", v.np);
  c->rtol = c->atol = 1e-10;
  c = suite_add(s, "qr |r| of a strided slice");
  rs_array *q = NULL, *r = NULL;
  CHECK_OK(rs_qr(&q, &r, sd, 1, NULL));
  CHECK_OK(rs_unary(&c->dev, RS_OP_ABS, r, NULL));
  tl_release(2, q, r);
  CHECK_OK(rs_qr(&q, &r, sh, 1, NULL));
  CHECK_OK(rs_unary(&c->host, RS_OP_ABS, r, NULL));
  tl_release(2, q, r);
  c->np = tl_np_expr(&s->np, "np.abs(np.linalg.qr(a%d[:, 0:5:2, 1:5:2], mode='complete')[1])", v.np);
  c->rtol = c->atol = 1e-10;
  tl_release(4, td, th, sd, sh);
  free_pair(&v);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static const rs_test_case tests[] = {RS_TEST(test_cholesky), RS_TEST(test_eigh), RS_TEST(test_qr), RS_TEST(test_qr_complete_reused_memory),
                                     RS_TEST(test_det_inv), RS_TEST(test_factor_bad),
                                     RS_TEST(test_factor_empty_and_views), RS_TEST(test_batched_closed_forms),
                                     RS_TEST(test_without_lapack), RS_TEST(test_lu_batched)};
RS_TEST_MAIN(tests)
