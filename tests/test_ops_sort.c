/* sort and argsort against NumPy (kind="stable"): every integer and float dtype, NaN and
 * infinities (NaN last, whatever its sign), rows of a 2-d and 3-d array, long rows (radix
 * passes), short rows (insertion), views, in place, out; complex and 0-d refused. */
#include "ops_testlib.h"
#include "resident/allocator.h"

static void test_sort_values(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_INT16, RS_INT32, RS_INT64, RS_UINT8, RS_UINT16, RS_UINT32, RS_UINT64,
                         RS_FLOAT16, RS_FLOAT32, RS_FLOAT64};
  int64_t s1[1] = {257}, s2[2] = {9, 70}, s3[3] = {2, 3, 5};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    pair a, b, c3;
    CHECK_OK(make_pair(&a, s, ctx, d, 1, s1, 3 + di, 1));
    CHECK_OK(make_pair(&b, s, ctx, d, 2, s2, 30 + di, 1));
    CHECK_OK(make_pair(&c3, s, ctx, d, 3, s3, 60 + di, 1));
    pair *ins[3] = {&a, &b, &c3};
    for (int i = 0; i < 3; i++)
      for (int arg = 0; arg < 2; arg++) {
        ew_case *c = suite_add(s, "%s(%s, %dd)", arg ? "argsort" : "sort", rs_dtype_name(d), i + 1);
        if (arg) {
          c->sdev = rs_argsort(&c->dev, ins[i]->dev, NULL);
          c->shost = rs_argsort(&c->host, ins[i]->host, NULL);
          c->np = tl_np_expr(&s->np, "np.argsort(a%d, axis=-1, kind='stable')", ins[i]->np);
        } else {
          c->sdev = rs_sort(&c->dev, ins[i]->dev, NULL);
          c->shost = rs_sort(&c->host, ins[i]->host, NULL);
          c->np = tl_np_expr(&s->np, "np.sort(a%d, axis=-1, kind='stable')", ins[i]->np);
        }
      }
    free_pair(&a);
    free_pair(&b);
    free_pair(&c3);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* NaN with the sign bit set (what 0/0 gives on x86) still sorts last. */
static void test_negative_nan(rs_context *ctx) {
  double data[6] = {3, -NAN, -INFINITY, NAN, 0.5, INFINITY};
  uint64_t bits;
  memcpy(&bits, &data[1], 8);
  CHECK(bits >> 63); /* really negative */
  int64_t n = 6;
  rs_array *h = NULL, *d = NULL, *r = NULL, *ix = NULL;
  CHECK_OK(rs_host_array_wrap(&h, ctx, data, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_sort(&r, d, NULL));
  CHECK_OK(rs_argsort(&ix, d, NULL));
  double got[6];
  int64_t gi[6];
  CHECK_OK(rs_t_read_(r, got));
  CHECK_OK(rs_t_read_(ix, gi));
  CHECK(got[0] == -INFINITY && got[1] == 0.5 && got[2] == 3 && got[3] == INFINITY && isnan(got[4]) && isnan(got[5]));
  CHECK(gi[0] == 2 && gi[1] == 4 && gi[2] == 0 && gi[3] == 5 && gi[4] == 1 && gi[5] == 3);
  tl_release(4, h, d, r, ix);
}

static void test_sort_views_inplace(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {12, 40};
  pair a;
  CHECK_OK(make_pair(&a, s, ctx, RS_FLOAT32, 2, shape, 77, 1));
  for (int pl = 0; pl < 2; pl++) {
    rs_array *x = pl ? a.host : a.dev, *t = NULL, *sl = NULL, *r1 = NULL, *r2 = NULL, *copy = NULL, *view = NULL;
    CHECK_OK(rs_array_transpose(&t, x));
    rs_slice ss[2] = {{0, 12, 3}, {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -1}};
    CHECK_OK(rs_array_slice(&sl, x, 2, ss));
    CHECK_OK(rs_sort(&r1, t, NULL));  /* rows of the transposed view */
    CHECK_OK(rs_argsort(&r2, sl, NULL));
    CHECK_OK(rs_copy(&copy, x, NULL));
    CHECK_OK(rs_array_slice(&view, copy, 2, ss)); /* sort a strided view in place */
    CHECK_OK(rs_sort_into(view, view, NULL));
    if (!pl) {
      ew_case *c = suite_add(s, "sort transposed");
      c->dev = r1;
      c->np = tl_np_expr(&s->np, "np.sort(a%d.T, kind='stable')", a.np);
      c = suite_add(s, "argsort strided reversed");
      c->dev = r2;
      c->np = tl_np_expr(&s->np, "np.argsort(a%d[0:12:3, ::-1], kind='stable')", a.np);
      c = suite_add(s, "sort a view in place");
      c->dev = copy;
      c->np = tl_np_expr(&s->np, "(lambda z: (z.__setitem__((slice(0, 12, 3), slice(None, None, -1)), np.sort(z[0:12:3, ::-1])), z)[1])(a%d.copy())", a.np);
    } else {
      s->c[s->n - 3].host = r1;
      s->c[s->n - 2].host = r2;
      s->c[s->n - 1].host = copy;
    }
    tl_release(3, t, sl, view);
  }
  free_pair(&a);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_sort_bad(rs_context *ctx) {
  int64_t n = 5;
  rs_array *c = NULL, *z = NULL, *f = NULL, *r = NULL, *o = NULL, *e = NULL;
  CHECK_OK(rs_zeros(&c, ctx, RS_MEM_DEVICE, 1, &n, RS_COMPLEX128, NULL));
  CHECK_STATUS(rs_sort(&r, c, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("complex");
  CHECK_STATUS(rs_argsort(&r, c, NULL), RS_ERR_DTYPE);
  CHECK_OK(rs_zeros(&z, ctx, RS_MEM_DEVICE, 0, NULL, RS_FLOAT32, NULL));
  CHECK_STATUS(rs_sort(&r, z, NULL), RS_ERR_AXIS);
  CHECK_OK(rs_zeros(&f, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_zeros(&o, ctx, RS_MEM_DEVICE, 1, &n, RS_INT32, NULL));
  CHECK_STATUS(rs_argsort_into(o, f, NULL), RS_ERR_DTYPE);
  int64_t e0 = 0;
  CHECK_OK(rs_zeros(&e, ctx, RS_MEM_DEVICE, 1, &e0, RS_FLOAT32, NULL));
  CHECK_OK(rs_sort(&r, e, NULL)); /* empty: fine */
  CHECK_EQ_I64(rs_array_size(r), 0);
  tl_release(6, c, z, f, o, e, r);
}

/* The CUDA sort takes its buffers from the ops' scratch pool, which keeps them for the
 * next sort; rs_memory_release and the closing of a context give them back to the
 * device. The simulator keeps no such pool: 0 throughout. */
static int64_t scratch_held(rs_context *ctx) {
  rs_memory_stats st;
  if (rs_memory_get_stats(ctx, RS_SPACE_DEVICE, &st) != RS_OK) return -1;
  return st.ops_scratch_bytes;
}

static void test_scratch_given_back(rs_context *ctx) {
  int cuda = rs_context_backend(ctx) == RS_BACKEND_CUDA;
  int64_t n = 1 << 22; /* 32 MB of float64: the sort's second key buffer is as large */
  rs_rng rng = rs_rng_seed(3);
  rs_array *x = NULL, *y = NULL;
  CHECK_OK(rs_memory_release(ctx, RS_SPACE_DEVICE));
  CHECK_EQ_I64(scratch_held(ctx), 0);
  CHECK_OK(rs_random_uniform(&x, &rng, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, 0, 1, NULL));
  CHECK_OK(rs_sort(&y, x, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  int64_t held = scratch_held(ctx);
  if (cuda) CHECK_MSG(held >= n * 8, "after a sort of %lld float64 the scratch pool holds %lld bytes", (long long)n, (long long)held);
  else CHECK_EQ_I64(held, 0);
  CHECK_OK(rs_memory_release(ctx, RS_SPACE_DEVICE));
  CHECK_EQ_I64(scratch_held(ctx), 0);
  /* a second context sorts and closes: what it used comes back with it */
  rs_context *c2 = NULL;
  rs_array *x2 = NULL, *y2 = NULL;
  CHECK_OK(rs_context_create(&c2, rs_context_backend(ctx), rs_context_device(ctx)));
  CHECK_OK(rs_random_uniform(&x2, &rng, c2, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, 0, 1, NULL));
  CHECK_OK(rs_sort(&y2, x2, NULL));
  CHECK_OK(rs_context_synchronize(c2));
  if (cuda) CHECK(scratch_held(ctx) >= n * 8);
  tl_release(2, x2, y2);
  rs_context_destroy(c2);
  CHECK_EQ_I64(scratch_held(ctx), 0);
  /* the sorts were right */
  int64_t wrong = 0;
  double *h = malloc((size_t)n * sizeof *h);
  CHECK_OK(rs_t_read_(y, h));
  for (int64_t i = 1; i < n; i++) wrong += h[i - 1] > h[i];
  CHECK_EQ_I64(wrong, 0);
  free(h);
  tl_release(2, x, y);
}

static const rs_test_case tests[] = {RS_TEST(test_sort_values), RS_TEST(test_negative_nan), RS_TEST(test_sort_views_inplace),
                                     RS_TEST(test_sort_bad), RS_TEST(test_scratch_given_back)};
RS_TEST_MAIN(tests)
