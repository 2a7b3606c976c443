/* Elementwise ops against NumPy: values of every binary and unary op for every dtype (with
 * 0, -0, inf, nan among the floats), mixed dtypes, scalars, broadcasting corners,
 * transposed / sliced / reversed views, in place, out of another dtype or larger shape,
 * empty and 0-d arrays, astype and where - each on the device and on the host path.
 * And the bad inputs: shapes that do not broadcast, dtypes an op refuses, wrong out. */
#include "ops_testlib.h"

/* tolerances for an op on a dtype: transcendental ops get a few ulps more */
static double op_rtol(rs_dtype res, rs_op op) {
  double r = tl_rtol(res);
  if (op == RS_OP_POWER || op == RS_OP_TAN || op == RS_OP_TANH) r *= 8;
  return r;
}

static void test_binary_same_dtype(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {3, 7};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a, b, babs;
    CHECK_OK(make_pair(&a, s, ctx, d, 2, shape, 1, 1));
    CHECK_OK(make_pair(&b, s, ctx, d, 2, shape, 2, 1));
    /* integer power: NumPy refuses negative exponents, so raise to |b| */
    babs.dev = babs.host = NULL;
    CHECK_OK(rs_unary(&babs.dev, (d == RS_BOOL || tl_is_complex(d)) ? RS_OP_POSITIVE : RS_OP_ABS, b.dev, NULL));
    CHECK_OK(rs_unary(&babs.host, (d == RS_BOOL || tl_is_complex(d)) ? RS_OP_POSITIVE : RS_OP_ABS, b.host, NULL));
    babs.np = tl_np_input(&s->np, babs.host);
    for (int op = 0; op < RS_OP_COUNT; op++) {
      if (rs_op_arity((rs_op)op) != 2) continue;
      int ord = op == RS_OP_MAXIMUM || op == RS_OP_MINIMUM || op == RS_OP_FMAX || op == RS_OP_FMIN ||
                (op >= RS_OP_LESS && op <= RS_OP_GREATER_EQUAL);
      if (ord && tl_is_complex(d)) continue; /* complex is not ordered here (documented) */
      pair *y = (op == RS_OP_POWER && tl_is_int(d)) ? &babs : &b;
      ew_case *c = suite_add(s, "%s(%s, %s)", rs_op_name((rs_op)op), rs_dtype_name(d), rs_dtype_name(d));
      c->sdev = rs_binary(&c->dev, (rs_op)op, a.dev, y->dev, NULL);
      c->shost = rs_binary(&c->host, (rs_op)op, a.host, y->host, NULL);
      c->np = tl_np_expr(&s->np, "np.%s(a%d, a%d)", rs_op_name((rs_op)op), a.np, y->np);
      rs_dtype rd = c->dev ? rs_array_dtype(c->dev) : d;
      c->rtol = op_rtol(rd, (rs_op)op);
      c->atol = rd == RS_FLOAT16 ? 1e-3 : tl_is_float(rd) || tl_is_complex(rd) ? 1e-12 : 0;
    }
    free_pair(&a);
    free_pair(&b);
    free_pair(&babs);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_unary_all(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[1] = {29};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, d, 1, shape, 3, 1));
    for (int op = 0; op < RS_OP_COUNT; op++) {
      if (rs_op_arity((rs_op)op) != 1) continue;
      ew_case *c = suite_add(s, "%s(%s)", rs_op_name((rs_op)op), rs_dtype_name(d));
      c->sdev = rs_unary(&c->dev, (rs_op)op, a.dev, NULL);
      c->shost = rs_unary(&c->host, (rs_op)op, a.host, NULL);
      if (c->sdev != RS_OK && c->shost != RS_OK && tl_is_complex(d)) { /* complex functions not offered here */
        tl_release(2, c->dev, c->host);
        s->n--;
        continue;
      }
      if (op == RS_OP_POSITIVE && d == RS_BOOL) { /* NumPy 2 refuses, resident allows */
        tl_release(2, c->dev, c->host);
        s->n--;
        continue;
      }
      c->np = tl_np_expr(&s->np, "np.%s(a%d)", rs_op_name((rs_op)op), a.np);
      rs_dtype rd = c->dev ? rs_array_dtype(c->dev) : d;
      c->rtol = op_rtol(rd, (rs_op)op) * (tl_is_complex(d) ? 4 : 1);
      c->atol = rd == RS_FLOAT16 ? 1e-3 : (tl_is_float(rd) || tl_is_complex(rd)) ? (tl_is_complex(d) ? 1e-6 : 1e-12) : 0;
    }
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_mixed_dtypes(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[1] = {13};
  const rs_op ops[] = {RS_OP_ADD, RS_OP_SUBTRACT, RS_OP_MULTIPLY, RS_OP_DIVIDE, RS_OP_FLOOR_DIVIDE, RS_OP_LESS, RS_OP_EQUAL,
                       RS_OP_MAXIMUM, RS_OP_ARCTAN2, RS_OP_BITWISE_OR};
  pair in[TL_NDTYPES];
  for (int i = 0; i < TL_NDTYPES; i++) CHECK_OK(make_pair(&in[i], s, ctx, tl_all_dtypes[i], 1, shape, 10 + i, 0));
  for (int i = 0; i < TL_NDTYPES; i++)
    for (int j = 0; j < TL_NDTYPES; j++) {
      if (i == j || (i * 7 + j * 3) % 4 != 0) continue; /* a spread of pairs */
      for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        rs_dtype a = tl_all_dtypes[i], b = tl_all_dtypes[j];
        int ord = ops[o] == RS_OP_LESS || ops[o] == RS_OP_MAXIMUM;
        if (ord && (tl_is_complex(a) || tl_is_complex(b))) continue;
        ew_case *c = suite_add(s, "%s(%s, %s)", rs_op_name(ops[o]), rs_dtype_name(a), rs_dtype_name(b));
        c->sdev = rs_binary(&c->dev, ops[o], in[i].dev, in[j].host == NULL ? NULL : in[j].dev, NULL);
        c->shost = rs_binary(&c->host, ops[o], in[i].host, in[j].host, NULL);
        c->np = tl_np_expr(&s->np, "np.%s(a%d, a%d)", rs_op_name(ops[o]), in[i].np, in[j].np);
        rs_dtype rd = c->dev ? rs_array_dtype(c->dev) : a;
        c->rtol = op_rtol(rd, ops[o]);
        c->atol = rd == RS_FLOAT16 ? 1e-3 : 0;
      }
    }
  for (int i = 0; i < TL_NDTYPES; i++) free_pair(&in[i]);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_scalars(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[1] = {11};
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_UINT16, RS_INT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64};
  const rs_scalar vals[] = {rs_scalar_int(3), rs_scalar_float(2.5), rs_scalar_complex(1, -2), rs_scalar_bool(1)};
  const char *py[] = {"3", "2.5", "(1-2j)", "True"};
  const rs_op ops[] = {RS_OP_ADD, RS_OP_SUBTRACT, RS_OP_MULTIPLY, RS_OP_DIVIDE, RS_OP_POWER, RS_OP_EQUAL, RS_OP_REMAINDER};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    pair a;
    CHECK_OK(make_pair(&a, s, ctx, ds[di], 1, shape, 5, 0));
    for (int v = 0; v < 4; v++)
      for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int rev = 0; rev < 2; rev++) {
          /* integer powers with negative exponents: NumPy raises, resident gives 0 (documented) */
          if (ops[o] == RS_OP_POWER && tl_is_int(ds[di]) && (rev || v == 1)) continue;
          ew_case *c = suite_add(s, "%s(%s%s, %s)", rs_op_name(ops[o]), rev ? "scalar, " : "", rs_dtype_name(ds[di]), py[v]);
          if (rev) {
            c->sdev = rs_scalar_binary(&c->dev, ops[o], vals[v], a.dev, NULL);
            c->shost = rs_scalar_binary(&c->host, ops[o], vals[v], a.host, NULL);
            c->np = tl_np_expr(&s->np, "np.%s(%s, a%d)", rs_op_name(ops[o]), py[v], a.np);
          } else {
            c->sdev = rs_binary_scalar(&c->dev, ops[o], a.dev, vals[v], NULL);
            c->shost = rs_binary_scalar(&c->host, ops[o], a.host, vals[v], NULL);
            c->np = tl_np_expr(&s->np, "np.%s(a%d, %s)", rs_op_name(ops[o]), a.np, py[v]);
          }
          rs_dtype rd = c->dev ? rs_array_dtype(c->dev) : ds[di];
          c->rtol = op_rtol(rd, ops[o]) * 4;
          c->atol = rd == RS_FLOAT16 ? 2e-3 : 1e-12;
        }
    free_pair(&a);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_broadcasting(rs_context *ctx) {
  ew_suite *s = suite_new();
  struct {
    int na;
    int64_t a[4];
    int nb;
    int64_t b[4];
  } shapes[] = {
      {2, {3, 1}, 2, {1, 4}}, {1, {4}, 2, {3, 4}},       {3, {2, 1, 3}, 2, {4, 1}}, {0, {0}, 1, {3}},
      {1, {1}, 1, {0}},       {2, {0, 3}, 2, {1, 3}},    {0, {0}, 0, {0}},          {4, {2, 1, 3, 1}, 3, {1, 5, 1}},
      {1, {5}, 2, {5, 1}},    {3, {1, 1, 1}, 1, {7}},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    pair a, b;
    CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT64, shapes[i].na, shapes[i].a, 20 + i, 0));
    CHECK_OK(make_pair(&b, s, ctx, RS_INT32, shapes[i].nb, shapes[i].b, 40 + i, 0));
    ew_case *c = suite_add(s, "broadcast case %zu", i);
    c->sdev = rs_multiply(&c->dev, a.dev, b.dev, NULL);
    c->shost = rs_multiply(&c->host, a.host, b.host, NULL);
    c->np = tl_np_expr(&s->np, "a%d * a%d", a.np, b.np);
    c->rtol = 1e-15;
    free_pair(&a);
    free_pair(&b);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
  /* shapes that do not broadcast */
  rs_array *x = NULL, *y = NULL, *r = NULL;
  int64_t s34[2] = {3, 4}, s5[1] = {5}, s43[2] = {4, 3};
  CHECK_OK(rs_zeros(&x, ctx, RS_MEM_DEVICE, 2, s34, RS_FLOAT32, NULL));
  CHECK_OK(rs_zeros(&y, ctx, RS_MEM_DEVICE, 1, s5, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_add(&r, x, y, NULL), RS_ERR_BROADCAST);
  CHECK_ERRMSG("(3, 4)", "(5,)");
  rs_array_release(y);
  y = NULL;
  CHECK_OK(rs_zeros(&y, ctx, RS_MEM_HOST, 2, s43, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_add(&r, x, y, NULL), RS_ERR_BROADCAST);
  CHECK(r == NULL);
  tl_release(2, x, y);
}

/* Views: transposed, sliced with steps, reversed; results written into views. */
static void test_views(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {6, 8};
  pair a, b;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT32, 2, shape, 7, 0));
  CHECK_OK(make_pair(&b, s, ctx, RS_FLOAT64, 2, shape, 8, 0));
  rs_slice sl[2] = {{1, 6, 2}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -3}};
  for (int placement = 0; placement < 2; placement++) {
    rs_array *x = placement ? a.host : a.dev, *y = placement ? b.host : b.dev;
    rs_array *xt = NULL, *ys = NULL, *yt = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL;
    CHECK_OK(rs_array_transpose(&xt, x));
    CHECK_OK(rs_array_slice(&ys, y, 2, sl));
    CHECK_OK(rs_array_transpose(&yt, y));
    CHECK_OK(rs_add(&r1, xt, yt, NULL));   /* two transposed inputs */
    CHECK_OK(rs_multiply(&r2, ys, ys, NULL)); /* a strided, reversed view */
    CHECK_OK(rs_unary(&r3, RS_OP_SIN, xt, NULL));
    ew_case *c1 = &s->c[placement ? s->n - 3 : s->n], *c2, *c3;
    if (!placement) {
      c1 = suite_add(s, "transposed add");
      c2 = suite_add(s, "sliced multiply");
      c3 = suite_add(s, "transposed sin");
      c1->dev = r1, c2->dev = r2, c3->dev = r3;
      c1->np = tl_np_expr(&s->np, "a%d.T + a%d.T", a.np, b.np);
      c2->np = tl_np_expr(&s->np, "a%d[1:6:2, ::-3] * a%d[1:6:2, ::-3]", b.np, b.np);
      c3->np = tl_np_expr(&s->np, "np.sin(a%d.T)", a.np);
      c1->rtol = 1e-15, c2->rtol = 1e-15, c3->rtol = 2e-6;
    } else {
      c1->host = r1, s->c[s->n - 2].host = r2, s->c[s->n - 1].host = r3;
    }
    tl_release(3, xt, ys, yt);
  }
  /* out = a view: write into every second column of a transposed host/device array */
  for (int placement = 0; placement < 2; placement++) {
    int64_t os[2] = {8, 12};
    rs_array *big = NULL, *view = NULL, *x = placement ? a.host : a.dev;
    CHECK_OK(rs_zeros(&big, ctx, placement ? RS_MEM_HOST : RS_MEM_DEVICE, 2, os, RS_FLOAT64, NULL));
    rs_slice cols[2] = {RS_SLICE_ALL, {0, 12, 2}};
    CHECK_OK(rs_array_slice(&view, big, 2, cols));
    rs_array *xt = NULL;
    CHECK_OK(rs_array_transpose(&xt, x));
    CHECK_OK(rs_multiply_scalar_into(view, xt, rs_scalar_float(2), NULL));
    if (!placement) {
      ew_case *c = suite_add(s, "into a strided view");
      c->dev = big;
      c->np = tl_np_expr(&s->np, "(lambda z: (z.__setitem__((slice(None), slice(0, 12, 2)), a%d.T * 2), z)[1])(np.zeros((8, 12)))", a.np);
      c->rtol = 1e-15;
    } else {
      s->c[s->n - 1].host = big;
    }
    tl_release(2, view, xt);
  }
  free_pair(&a);
  free_pair(&b);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* In place, overlap of out with a shifted input, and out of another dtype / larger shape. */
static void test_out(rs_context *ctx) {
  int64_t n = 10;
  for (int placement = 0; placement < 2; placement++) {
    rs_mem_kind where = placement ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_array *x = NULL, *head = NULL, *tail = NULL, *f64 = NULL, *i8 = NULL, *big = NULL;
    CHECK_OK(rs_arange(&x, ctx, where, 0, 10, 1, RS_FLOAT64, NULL));
    /* in place: x = x * 3 + 1 */
    CHECK_OK(rs_multiply_scalar_into(x, x, rs_scalar_float(3), NULL));
    CHECK_OK(rs_add_scalar_into(x, x, rs_scalar_float(1), NULL));
    double v;
    int64_t i9 = 9;
    CHECK_OK(rs_array_item_double(x, &i9, &v, NULL));
    CHECK_NEAR(v, 28, 0);
    /* overlapping: x[1:] = x[:-1] + x[1:] reads every input before writing (NumPy's copy) */
    rs_slice sh[1] = {{0, 9, 1}}, st[1] = {{1, 10, 1}};
    CHECK_OK(rs_array_slice(&head, x, 1, sh));
    CHECK_OK(rs_array_slice(&tail, x, 1, st));
    CHECK_OK(rs_add_into(tail, head, tail, NULL));
    int64_t i1 = 1, i2 = 2;
    CHECK_OK(rs_array_item_double(x, &i1, &v, NULL));
    CHECK_NEAR(v, 1 + 4, 0); /* old x[0] + old x[1] */
    CHECK_OK(rs_array_item_double(x, &i2, &v, NULL));
    CHECK_NEAR(v, 4 + 7, 0);
    /* out of another dtype: int8 + int8 into float64 (same_kind), float into int8 refused */
    CHECK_OK(rs_full(&i8, ctx, where, 1, &n, RS_INT8, rs_scalar_int(100), NULL));
    CHECK_OK(rs_empty(&f64, ctx, where, 1, &n, RS_FLOAT64));
    CHECK_OK(rs_add_into(f64, i8, i8, NULL)); /* wraps in int8 first: 200 -> -56, as NumPy */
    CHECK_OK(rs_array_item_double(f64, &i1, &v, NULL));
    CHECK_NEAR(v, -56, 0);
    CHECK_STATUS(rs_multiply_scalar_into(i8, f64, rs_scalar_float(2), NULL), RS_ERR_DTYPE);
    /* out larger than the inputs' shape: broadcast into it */
    int64_t bs[2] = {3, 10};
    CHECK_OK(rs_empty(&big, ctx, where, 2, bs, RS_FLOAT64));
    CHECK_OK(rs_add_into(big, f64, f64, NULL));
    int64_t idx[2] = {2, 1};
    CHECK_OK(rs_array_item_double(big, idx, &v, NULL));
    CHECK_NEAR(v, -112, 0);
    /* out of the wrong shape */
    CHECK_STATUS(rs_add_into(head, f64, f64, NULL), RS_ERR_SHAPE);
    tl_release(6, x, head, tail, f64, i8, big);
  }
  /* out of another context */
  rs_context *other = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  rs_array *a = NULL, *o2 = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_zeros(&o2, other, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_add_into(o2, a, a, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("context");
  tl_release(2, a, o2);
  rs_context_destroy(other);
}

static void test_empty_and_0d(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t e1[1] = {0}, e3[3] = {2, 0, 3};
  pair z0, z1, e, f;
  CHECK_OK(make_pair(&z0, s, ctx, RS_FLOAT32, 0, NULL, 3, 0));
  CHECK_OK(make_pair(&z1, s, ctx, RS_INT16, 0, NULL, 4, 0));
  CHECK_OK(make_pair(&e, s, ctx, RS_FLOAT64, 1, e1, 5, 0));
  CHECK_OK(make_pair(&f, s, ctx, RS_FLOAT64, 3, e3, 6, 0));
  struct {
    pair *x, *y;
    const char *label;
  } cs[] = {{&z0, &z1, "0-d + 0-d"}, {&z0, &e, "0-d + (0,)"}, {&f, &z0, "(2,0,3) + 0-d"}, {&f, &e, "(2,0,3) + (0,)"}};
  for (int i = 0; i < 4; i++) {
    ew_case *c = suite_add(s, "%s", cs[i].label);
    c->sdev = rs_add(&c->dev, cs[i].x->dev, cs[i].y->dev, NULL);
    c->shost = rs_add(&c->host, cs[i].x->host, cs[i].y->host, NULL);
    c->np = tl_np_expr(&s->np, "a%d + a%d", cs[i].x->np, cs[i].y->np);
    c->rtol = 1e-6;
  }
  ew_case *c = suite_add(s, "exp(0-d)");
  c->sdev = rs_exp(&c->dev, z0.dev, NULL);
  c->shost = rs_exp(&c->host, z0.host, NULL);
  c->np = tl_np_expr(&s->np, "np.exp(a%d)", z0.np);
  c->rtol = 2e-6;
  free_pair(&z0);
  free_pair(&z1);
  free_pair(&e);
  free_pair(&f);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_astype_where(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[1] = {21};
  pair in[TL_NDTYPES];
  for (int i = 0; i < TL_NDTYPES; i++) CHECK_OK(make_pair(&in[i], s, ctx, tl_all_dtypes[i], 1, shape, 60 + i, 0));
  for (int i = 0; i < TL_NDTYPES; i++)
    for (int j = 0; j < TL_NDTYPES; j++) {
      ew_case *c = suite_add(s, "astype %s -> %s", rs_dtype_name(tl_all_dtypes[i]), rs_dtype_name(tl_all_dtypes[j]));
      c->sdev = rs_astype(&c->dev, in[i].dev, tl_all_dtypes[j], NULL);
      c->shost = rs_astype(&c->host, in[i].host, tl_all_dtypes[j], NULL);
      c->np = tl_np_expr(&s->np, "a%d.astype(np.%s)", in[i].np, rs_dtype_name(tl_all_dtypes[j]));
      c->rtol = tl_rtol(tl_all_dtypes[j]);
    }
  /* where: bool condition from int, float and complex pair, broadcasting */
  int64_t cshape[2] = {2, 21};
  pair cond;
  CHECK_OK(make_pair(&cond, s, ctx, RS_INT8, 2, cshape, 99, 0));
  ew_case *c = suite_add(s, "where(int8 cond (2,21), float32, complex64)");
  c->sdev = rs_where(&c->dev, cond.dev, in[10].dev, in[12].dev, NULL);
  c->shost = rs_where(&c->host, cond.host, in[10].host, in[12].host, NULL);
  c->np = tl_np_expr(&s->np, "np.where(a%d, a%d, a%d)", cond.np, in[10].np, in[12].np);
  c->rtol = 1e-7;
  free_pair(&cond);
  for (int i = 0; i < TL_NDTYPES; i++) free_pair(&in[i]);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* NaN-producing casts follow NumPy on x86: NaN to int64 is INT64_MIN, to int32 INT32_MIN. */
static void test_astype_nan(rs_context *ctx) {
  int64_t n = 4;
  double data[4] = {NAN, INFINITY, -1e20, 3.7};
  rs_array *w = NULL, *d = NULL, *r64 = NULL, *r32 = NULL, *r8 = NULL;
  CHECK_OK(rs_host_array_wrap(&w, ctx, data, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_to_device(&d, w, 0, NULL));
  CHECK_OK(rs_astype(&r64, d, RS_INT64, NULL));
  CHECK_OK(rs_astype(&r32, d, RS_INT32, NULL));
  CHECK_OK(rs_astype(&r8, d, RS_UINT8, NULL));
  int64_t v64[4];
  int32_t v32[4];
  uint8_t v8[4];
  CHECK_OK(rs_t_read_(r64, v64));
  CHECK_OK(rs_t_read_(r32, v32));
  CHECK_OK(rs_t_read_(r8, v8));
  CHECK_EQ_I64(v64[0], INT64_MIN);
  CHECK_EQ_I64(v64[1], INT64_MIN);
  CHECK_EQ_I64(v64[3], 3);
  CHECK_EQ_I64(v32[0], INT32_MIN);
  CHECK_EQ_I64(v32[2], INT32_MIN);
  CHECK_EQ_I64(v32[3], 3);
  CHECK_EQ_I64(v8[0], 0);
  CHECK_EQ_I64(v8[3], 3);
  tl_release(5, w, d, r64, r32, r8);
}

/* Element i of a (host copy in buf) must be close to want (re, im). */
static int edge_close(const void *buf, rs_dtype d, int64_t i, double want_re, double want_im) {
  double re, im;
  tl_get(buf, d, i, &re, &im);
  return tl_close1(re, want_re, tl_rtol(d), 0) && tl_close1(im, want_im, tl_rtol(d), 0);
}

/* The contiguous CUDA variant moves up to 16 bytes per thread: lengths around every vector
 * and block multiple (the ragged last thread), views that start one element in (not
 * aligned: the general variant), a 0-d array broadcast to all, in place, mixed widths -
 * each against a plain loop over the inputs' values. */
static void test_vector_edges(rs_context *ctx) {
  static const rs_dtype dts[] = {RS_INT8, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
  static const int64_t lens[] = {1, 3, 15, 16, 17, 1023, 4096, 4097, 100003};
  for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
    rs_dtype d = dts[di];
    size_t isz = rs_dtype_size(d);
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
      for (int off = 0; off < 2; off++) {
        int64_t n = lens[li], whole = n + off, zero_d[1] = {0};
        rs_array *base = NULL, *a = NULL, *two = NULL, *obase = NULL, *out = NULL, *dbl = NULL;
        CHECK_OK(tl_make(&base, ctx, RS_MEM_DEVICE, d, 1, &whole, 11, 0));
        rs_slice sl = {off, RS_SLICE_DEFAULT, 1};
        CHECK_OK(rs_array_slice(&a, base, 1, &sl));
        CHECK_OK(rs_full(&two, ctx, RS_MEM_DEVICE, 0, zero_d, d, rs_scalar_float(2), NULL));
        CHECK_OK(rs_empty(&obase, ctx, RS_MEM_DEVICE, 1, &whole, d));
        CHECK_OK(rs_array_slice(&out, obase, 1, &sl));
        CHECK_OK(rs_add_into(out, a, two, NULL)); /* broadcast 0-d, out possibly misaligned */
        CHECK_OK(rs_add(&dbl, a, a, NULL));
        char *ha = malloc((size_t)whole * isz), *hs = malloc((size_t)n * isz), *hd = malloc((size_t)n * isz);
        CHECK_OK(rs_t_read_(base, ha));
        CHECK_OK(rs_t_read_(out, hs));
        CHECK_OK(rs_t_read_(dbl, hd));
        int bad = 0;
        for (int64_t i = 0; i < n && !bad; i++) {
          double re, im;
          tl_get(ha, d, i + off, &re, &im);
          if (!edge_close(hs, d, i, re + 2, im) || !edge_close(hd, d, i, 2 * re, 2 * im)) {
            bad = 1;
            rs_t_fail_(__FILE__, __LINE__, "%s n=%lld off=%d: a+2 or a+a wrong at %lld", rs_dtype_name(d), (long long)n, off, (long long)i);
          }
        }
        /* in place: a += 2, then the element before the view (off 1) must be untouched */
        CHECK_OK(rs_add_into(a, a, two, NULL));
        char *hb = malloc((size_t)whole * isz);
        CHECK_OK(rs_t_read_(base, hb));
        for (int64_t i = 0; i < whole && !bad; i++) {
          double re, im;
          tl_get(ha, d, i, &re, &im);
          double want = i < off ? re : re + 2;
          if (!edge_close(hb, d, i, want, im)) {
            bad = 1;
            rs_t_fail_(__FILE__, __LINE__, "%s n=%lld off=%d: in place wrong at %lld", rs_dtype_name(d), (long long)n, off, (long long)i);
          }
        }
        free(ha), free(hs), free(hd), free(hb);
        tl_release(6, base, a, two, obase, out, dbl);
      }
    }
  }
  /* mixed widths: float32 > a float64 0-d array, into bool (4-byte vectors of bool) */
  int64_t n = 4099, zero_d[1] = {0};
  rs_array *f = NULL, *lim = NULL, *gt = NULL;
  CHECK_OK(tl_make(&f, ctx, RS_MEM_DEVICE, RS_FLOAT32, 1, &n, 5, 0));
  CHECK_OK(rs_full(&lim, ctx, RS_MEM_DEVICE, 0, zero_d, RS_FLOAT64, rs_scalar_float(0.25), NULL));
  CHECK_OK(rs_binary(&gt, RS_OP_GREATER, f, lim, NULL));
  CHECK(rs_array_dtype(gt) == RS_BOOL);
  float *hf = malloc((size_t)n * sizeof *hf);
  unsigned char *hg = malloc((size_t)n);
  CHECK_OK(rs_t_read_(f, hf));
  CHECK_OK(rs_t_read_(gt, hg));
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; i++) wrong += hg[i] != (hf[i] > 0.25);
  CHECK_EQ_I64(wrong, 0);
  free(hf), free(hg);
  tl_release(3, f, lim, gt);
}

static void test_bad_inputs(rs_context *ctx) {
  int64_t n = 4;
  rs_array *f = NULL, *i = NULL, *b = NULL, *r = NULL;
  CHECK_OK(rs_ones(&f, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&i, ctx, RS_MEM_DEVICE, 1, &n, RS_INT32, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_DEVICE, 1, &n, RS_BOOL, NULL));
  CHECK_STATUS(rs_binary(&r, RS_OP_BITWISE_AND, f, i, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("bitwise_and", "float");
  CHECK_STATUS(rs_unary(&r, RS_OP_INVERT, f, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_subtract(&r, b, b, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_unary(&r, RS_OP_NEGATIVE, b, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_binary(&r, RS_OP_SQRT, f, f, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_unary(&r, RS_OP_ADD, f, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_unary(&r, (rs_op)999, f, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_add(&r, f, NULL, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_add(NULL, f, f, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_astype(&r, f, (rs_dtype)77, NULL), RS_ERR_DTYPE);
  CHECK(r == NULL);
  rs_array *dead = NULL;
  CHECK_OK(rs_ones(&dead, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_array_release(dead));
  CHECK_STATUS(rs_add(&r, f, dead, NULL), RS_ERR_RELEASED);
  tl_release(3, f, i, b);
}

static const rs_test_case tests[] = {
    RS_TEST(test_binary_same_dtype), RS_TEST(test_unary_all),   RS_TEST(test_mixed_dtypes),
    RS_TEST(test_scalars),           RS_TEST(test_broadcasting), RS_TEST(test_views),
    RS_TEST(test_out),               RS_TEST(test_empty_and_0d), RS_TEST(test_astype_where),
    RS_TEST(test_astype_nan),        RS_TEST(test_vector_edges), RS_TEST(test_bad_inputs),
};
RS_TEST_MAIN(tests)
