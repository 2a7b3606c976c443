/* Fused expressions: the same values as the unfused ops (x*5; x*x; x+x, mixed dtypes with
 * scalars, where, astype, int8 wrap-around and float16 rounding kept as NumPy's), one
 * kernel record in the ledger for a whole chain, re-evaluation with rebound arrays, a
 * root that uses only some of the arrays, and the sticky errors of the builder. */
#include "ops_testlib.h"

static void test_seed_chain(rs_context *ctx) {
  int64_t n = 100003;
  for (int pl = 0; pl < 2; pl++) {
    rs_mem_kind where = pl ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_array *x = NULL, *fused = NULL, *t = NULL;
    CHECK_OK(tl_make(&x, ctx, where, RS_FLOAT32, 1, &n, 1, 0));
    /* unfused: three kernels */
    CHECK_OK(rs_multiply_scalar(&t, x, rs_scalar_float(5), NULL));
    CHECK_OK(rs_multiply_into(t, t, t, NULL));
    CHECK_OK(rs_add_into(t, t, t, NULL));
    /* fused: one */
    rs_expr *e = NULL;
    CHECK_OK(rs_expr_create(&e, ctx));
    int xv = rs_expr_array(e, x);
    int v = rs_expr_binary(e, RS_OP_MULTIPLY, xv, rs_expr_scalar(e, rs_scalar_float(5)));
    v = rs_expr_binary(e, RS_OP_MULTIPLY, v, v);
    v = rs_expr_binary(e, RS_OP_ADD, v, v);
    CHECK_OK(rs_expr_status(e));
    CHECK_OK(rs_ledger_begin(ctx));
    CHECK_OK(rs_expr_eval(&fused, e, v, NULL));
    rs_ledger_stats st;
    CHECK_OK(rs_ledger_end(ctx, &st));
    CHECK_EQ_I64(st.kernels, pl ? 0 : 1); /* host work is not a kernel */
    CHECK_EQ_I64(rs_ledger_copies(&st, -1), 0);
    CHECK_EQ_I64(rs_array_dtype(fused), RS_FLOAT32);
    CHECK_CLOSE_ARR(fused, t, 0, 0); /* float32 all along: bit for bit */
    /* evaluate again into the same array: no allocation, same values */
    CHECK_OK(rs_expr_eval_into(fused, e, v, NULL));
    CHECK_CLOSE_ARR(fused, t, 0, 0);
    rs_expr_destroy(e);
    tl_release(3, x, fused, t);
  }
}

static void test_mixed_expression(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t sa[2] = {4, 6}, sb[1] = {6};
  pair a, b, i8, h;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, 2, sa, 11, 0));
  CHECK_OK(make_pair(&b, s, ctx, RS_INT32, 1, sb, 12, 0));
  CHECK_OK(make_pair(&i8, s, ctx, RS_INT8, 2, sa, 13, 0));
  CHECK_OK(make_pair(&h, s, ctx, RS_FLOAT16, 2, sa, 14, 0));
  for (int pl = 0; pl < 2; pl++) {
    rs_expr *e = NULL;
    CHECK_OK(rs_expr_create(&e, ctx));
    int xa = rs_expr_array(e, pl ? a.host : a.dev), xb = rs_expr_array(e, pl ? b.host : b.dev);
    int xi = rs_expr_array(e, pl ? i8.host : i8.dev), xh = rs_expr_array(e, pl ? h.host : h.dev);
    /* where(A > B, sqrt(|A|) * 2, B // 3) + 0.5 */
    int cond = rs_expr_binary(e, RS_OP_GREATER, xa, xb);
    int left = rs_expr_binary(e, RS_OP_MULTIPLY, rs_expr_unary(e, RS_OP_SQRT, rs_expr_unary(e, RS_OP_ABS, xa)),
                              rs_expr_scalar(e, rs_scalar_int(2)));
    int right = rs_expr_binary(e, RS_OP_FLOOR_DIVIDE, xb, rs_expr_scalar(e, rs_scalar_int(3)));
    int r1 = rs_expr_binary(e, RS_OP_ADD, rs_expr_where(e, cond, left, right), rs_expr_scalar(e, rs_scalar_float(0.5)));
    /* int8 wraps in the middle: (I * 7 + 100) as int8, then to float32 */
    int r2 = rs_expr_astype(e, rs_expr_binary(e, RS_OP_ADD, rs_expr_binary(e, RS_OP_MULTIPLY, xi, rs_expr_scalar(e, rs_scalar_int(7))),
                                              rs_expr_scalar(e, rs_scalar_int(100))),
                            RS_FLOAT32);
    /* float16 rounds at every step: H * 1.1 + H */
    int r3 = rs_expr_binary(e, RS_OP_ADD, rs_expr_binary(e, RS_OP_MULTIPLY, xh, rs_expr_scalar(e, rs_scalar_float(1.1))), xh);
    /* a root using only B: the result has B's shape */
    int r4 = rs_expr_unary(e, RS_OP_NEGATIVE, xb);
    CHECK_OK(rs_expr_status(e));
    rs_array *res[4] = {0};
    int roots[4] = {r1, r2, r3, r4};
    for (int i = 0; i < 4; i++) CHECK_OK(rs_expr_eval(&res[i], e, roots[i], NULL));
    if (!pl) {
      const char *ex[4] = {"np.where(a%d > a%d, np.sqrt(np.abs(a%d)) * 2, a%d // 3) + 0.5", "(a%d * 7 + 100).astype(np.float32)",
                           "a%d * 1.1 + a%d", "-a%d"};
      ew_case *c = suite_add(s, "fused where/sqrt/floor_divide");
      c->dev = res[0], c->np = tl_np_expr(&s->np, ex[0], a.np, b.np, a.np, b.np), c->rtol = 1e-15;
      c = suite_add(s, "fused int8 wrap");
      c->dev = res[1], c->np = tl_np_expr(&s->np, ex[1], i8.np);
      c = suite_add(s, "fused float16");
      c->dev = res[2], c->np = tl_np_expr(&s->np, ex[2], h.np, h.np), c->rtol = 1e-3;
      c = suite_add(s, "fused partial root");
      c->dev = res[3], c->np = tl_np_expr(&s->np, ex[3], b.np);
    } else {
      for (int i = 0; i < 4; i++) s->c[s->n - 4 + i].host = res[i];
    }
    rs_expr_destroy(e);
  }
  free_pair(&a);
  free_pair(&b);
  free_pair(&i8);
  free_pair(&h);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_rebind(rs_context *ctx) {
  int64_t n = 1000;
  rs_array *x = NULL, *y = NULL, *r = NULL, *z = NULL;
  CHECK_OK(rs_arange(&x, ctx, RS_MEM_DEVICE, 0, 1000, 1, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&y, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, NULL));
  rs_expr *e = NULL;
  CHECK_OK(rs_expr_create(&e, ctx));
  int X = rs_expr_array(e, x);
  int v = rs_expr_binary(e, RS_OP_MULTIPLY, X, X);
  CHECK_OK(rs_expr_eval(&r, e, v, NULL));
  double d;
  int64_t i = 30;
  CHECK_OK(rs_array_item_double(r, &i, &d, NULL));
  CHECK_NEAR(d, 900, 0);
  CHECK_OK(rs_expr_rebind(e, X, y));
  CHECK_OK(rs_expr_eval_into(r, e, v, NULL)); /* into the same result */
  CHECK_OK(rs_array_item_double(r, &i, &d, NULL));
  CHECK_NEAR(d, 1, 0);
  int64_t m = 10;
  CHECK_OK(rs_ones(&z, ctx, RS_MEM_DEVICE, 1, &m, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_expr_rebind(e, X, z), RS_ERR_SHAPE);
  CHECK_STATUS(rs_expr_rebind(e, v, y), RS_ERR_INVALID_ARGUMENT);
  rs_expr_destroy(e);
  tl_release(4, x, y, r, z);
}

static void test_builder_errors(rs_context *ctx) {
  int64_t s3[1] = {3}, s4[1] = {4};
  rs_array *a = NULL, *b = NULL, *f = NULL, *r = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 1, s3, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_DEVICE, 1, s4, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&f, ctx, RS_MEM_DEVICE, 1, s3, RS_FLOAT64, NULL));
  rs_expr *e = NULL;
  CHECK_OK(rs_expr_create(&e, ctx));
  int A = rs_expr_array(e, a), B = rs_expr_array(e, b);
  int bad = rs_expr_binary(e, RS_OP_ADD, A, B); /* (3,) + (4,) */
  CHECK(bad == -1);
  int later = rs_expr_unary(e, RS_OP_SQRT, bad); /* the first error sticks */
  CHECK(later == -1);
  CHECK_STATUS(rs_expr_status(e), RS_ERR_BROADCAST);
  CHECK_STATUS(rs_expr_eval(&r, e, A, NULL), RS_ERR_BROADCAST);
  CHECK_ERRMSG("(3,)", "(4,)");
  rs_expr_destroy(e);
  e = NULL;
  CHECK_OK(rs_expr_create(&e, ctx));
  int F = rs_expr_array(e, f);
  CHECK(rs_expr_binary(e, RS_OP_BITWISE_AND, F, F) == -1);
  CHECK_STATUS(rs_expr_status(e), RS_ERR_DTYPE);
  rs_expr_destroy(e);
  e = NULL;
  CHECK_OK(rs_expr_create(&e, ctx));
  int x = rs_expr_array(e, f);
  for (int i = 0; i < 70 && x >= 0; i++) x = rs_expr_binary(e, RS_OP_ADD, x, x);
  CHECK(x == -1);
  CHECK_STATUS(rs_expr_status(e), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("operations");
  rs_expr_destroy(e);
  CHECK_STATUS(rs_expr_create(NULL, ctx), RS_ERR_NULL_POINTER);
  CHECK(r == NULL);
  tl_release(3, a, b, f);
}

static const rs_test_case tests[] = {RS_TEST(test_seed_chain), RS_TEST(test_mixed_expression), RS_TEST(test_rebind),
                                     RS_TEST(test_builder_errors)};
RS_TEST_MAIN(tests)
