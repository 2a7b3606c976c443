/* Creation against NumPy: zeros, ones, full, arange, linspace, eye for several dtypes on
 * the device and the host, each also into existing arrays (views included); bad inputs. */
#include "ops_testlib.h"

static void test_create_values(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_INT32, RS_UINT16, RS_INT64, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
  int64_t shape[3] = {2, 3, 4};
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    rs_dtype d = ds[i];
    const char *nm = rs_dtype_name(d);
    ew_case *c = suite_add(s, "zeros %s", nm);
    c->sdev = rs_zeros(&c->dev, ctx, RS_MEM_DEVICE, 3, shape, d, NULL);
    c->shost = rs_zeros(&c->host, ctx, RS_MEM_HOST, 3, shape, d, NULL);
    c->np = tl_np_expr(&s->np, "np.zeros((2, 3, 4), np.%s)", nm);
    c = suite_add(s, "ones %s", nm);
    c->sdev = rs_ones(&c->dev, ctx, RS_MEM_DEVICE, 3, shape, d, NULL);
    c->shost = rs_ones(&c->host, ctx, RS_MEM_HOST, 3, shape, d, NULL);
    c->np = tl_np_expr(&s->np, "np.ones((2, 3, 4), np.%s)", nm);
    c = suite_add(s, "full %s", nm);
    rs_scalar v = tl_is_float(d) || tl_is_complex(d) ? rs_scalar_float(-2.5) : rs_scalar_int(d == RS_BOOL ? 1 : 7);
    c->sdev = rs_full(&c->dev, ctx, RS_MEM_DEVICE, 3, shape, d, v, NULL);
    c->shost = rs_full(&c->host, ctx, RS_MEM_HOST, 3, shape, d, v, NULL);
    c->np = tl_np_expr(&s->np, "np.full((2, 3, 4), %s, np.%s)", tl_is_float(d) || tl_is_complex(d) ? "-2.5" : d == RS_BOOL ? "True" : "7", nm);
    if (d == RS_BOOL) continue;
    c = suite_add(s, "arange %s", nm);
    c->sdev = rs_arange(&c->dev, ctx, RS_MEM_DEVICE, -3, 17, 2, d, NULL);
    c->shost = rs_arange(&c->host, ctx, RS_MEM_HOST, -3, 17, 2, d, NULL);
    c->np = tl_np_expr(&s->np, "np.arange(-3, 17, 2, dtype=np.%s)", nm);
    if (d == RS_UINT16) { /* NumPy refuses a negative start for an unsigned dtype */
      tl_release(2, c->dev, c->host);
      c->dev = c->host = NULL;
      s->n--;
    }
    c = suite_add(s, "linspace %s", nm);
    c->sdev = rs_linspace(&c->dev, ctx, RS_MEM_DEVICE, -1.5, 4, 12, 1, d, NULL);
    c->shost = rs_linspace(&c->host, ctx, RS_MEM_HOST, -1.5, 4, 12, 1, d, NULL);
    c->np = tl_np_expr(&s->np, "np.linspace(-1.5, 4, 12, dtype=np.%s)", nm);
    c->rtol = tl_rtol(d);
    if (d == RS_UINT16) {
      tl_release(2, c->dev, c->host);
      c->dev = c->host = NULL;
      s->n--;
    }
    c = suite_add(s, "eye %s", nm);
    c->sdev = rs_eye(&c->dev, ctx, RS_MEM_DEVICE, 4, 6, 1, d, NULL);
    c->shost = rs_eye(&c->host, ctx, RS_MEM_HOST, 4, 6, 1, d, NULL);
    c->np = tl_np_expr(&s->np, "np.eye(4, 6, 1, dtype=np.%s)", nm);
  }
  /* float arange with a fractional step, linspace without the endpoint, eye below */
  ew_case *c = suite_add(s, "arange 0.1 steps");
  c->sdev = rs_arange(&c->dev, ctx, RS_MEM_DEVICE, 0, 1, 0.1, RS_FLOAT64, NULL);
  c->shost = rs_arange(&c->host, ctx, RS_MEM_HOST, 0, 1, 0.1, RS_FLOAT64, NULL);
  c->np = tl_np_expr(&s->np, "np.arange(0, 1, 0.1)");
  c->rtol = 1e-15;
  c = suite_add(s, "linspace no endpoint");
  c->sdev = rs_linspace(&c->dev, ctx, RS_MEM_DEVICE, 2, 3, 5, 0, RS_FLOAT64, NULL);
  c->shost = rs_linspace(&c->host, ctx, RS_MEM_HOST, 2, 3, 5, 0, RS_FLOAT64, NULL);
  c->np = tl_np_expr(&s->np, "np.linspace(2, 3, 5, endpoint=False)");
  c = suite_add(s, "linspace 1 and 0 samples");
  c->sdev = rs_linspace(&c->dev, ctx, RS_MEM_DEVICE, 2, 3, 1, 1, RS_FLOAT64, NULL);
  c->shost = rs_linspace(&c->host, ctx, RS_MEM_HOST, 2, 3, 1, 1, RS_FLOAT64, NULL);
  c->np = tl_np_expr(&s->np, "np.linspace(2, 3, 1)");
  c = suite_add(s, "linspace 0 samples");
  c->sdev = rs_linspace(&c->dev, ctx, RS_MEM_DEVICE, 2, 3, 0, 1, RS_FLOAT64, NULL);
  c->shost = rs_linspace(&c->host, ctx, RS_MEM_HOST, 2, 3, 0, 1, RS_FLOAT64, NULL);
  c->np = tl_np_expr(&s->np, "np.linspace(2, 3, 0)");
  c = suite_add(s, "eye k=-2 square");
  c->sdev = rs_eye(&c->dev, ctx, RS_MEM_DEVICE, 5, -1, -2, RS_FLOAT32, NULL);
  c->shost = rs_eye(&c->host, ctx, RS_MEM_HOST, 5, -1, -2, RS_FLOAT32, NULL);
  c->np = tl_np_expr(&s->np, "np.eye(5, k=-2, dtype=np.float32)");
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* The _into forms on views: a transposed array and every other row. */
static void test_into_views(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t shape[2] = {6, 5};
  for (int placement = 0; placement < 2; placement++) {
    rs_mem_kind where = placement ? RS_MEM_HOST : RS_MEM_DEVICE;
    rs_array *base = NULL, *t = NULL, *rows = NULL, *base2 = NULL, *base3 = NULL, *col = NULL;
    CHECK_OK(rs_full(&base, ctx, where, 2, shape, RS_FLOAT64, rs_scalar_float(-1), NULL));
    CHECK_OK(rs_array_transpose(&t, base));
    CHECK_OK(rs_arange_into(t, 10, 0.5, NULL)); /* C order of the (5, 6) view */
    CHECK_OK(rs_full(&base2, ctx, where, 2, shape, RS_INT32, rs_scalar_int(9), NULL));
    rs_slice every_other[1] = {{0, 6, 2}};
    CHECK_OK(rs_array_slice(&rows, base2, 1, every_other));
    CHECK_OK(rs_eye_into(rows, 1, NULL));
    CHECK_OK(rs_full(&base3, ctx, where, 2, shape, RS_FLOAT32, rs_scalar_float(0), NULL));
    rs_slice c2[2] = {RS_SLICE_ALL, {2, 3, 1}};
    rs_array *c2v = NULL;
    CHECK_OK(rs_array_slice(&c2v, base3, 2, c2));
    CHECK_OK(rs_array_squeeze(&col, c2v, 1));
    CHECK_OK(rs_linspace_into(col, 0, 1, 1, NULL));
    if (!placement) {
      ew_case *c = suite_add(s, "arange_into transposed");
      c->dev = base;
      c->np = tl_np_expr(&s->np, "(lambda z: (z.T.__setitem__(Ellipsis, (10 + 0.5 * np.arange(30)).reshape(5, 6)), z)[1])(np.full((6, 5), -1.0))");
      c = suite_add(s, "eye_into every other row");
      c->dev = base2;
      c->np = tl_np_expr(&s->np, "(lambda z: (z.__setitem__(slice(0, 6, 2), np.eye(3, 5, 1, dtype=np.int32)), z)[1])(np.full((6, 5), 9, np.int32))");
      c = suite_add(s, "linspace_into a column");
      c->dev = base3;
      c->np = tl_np_expr(&s->np, "(lambda z: (z.__setitem__((slice(None), 2), np.linspace(0, 1, 6)), z)[1])(np.zeros((6, 5), np.float32))");
      c->rtol = 1e-7;
    } else {
      s->c[s->n - 3].host = base;
      s->c[s->n - 2].host = base2;
      s->c[s->n - 1].host = base3;
    }
    tl_release(4, t, rows, c2v, col);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_bad_creation(rs_context *ctx) {
  rs_array *a = NULL;
  int64_t shape[2] = {2, 3}, neg[1] = {-1};
  CHECK_STATUS(rs_linspace(&a, ctx, RS_MEM_DEVICE, 0, 1, -1, 1, RS_FLOAT64, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("non-negative");
  CHECK_STATUS(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 1, 0, RS_FLOAT64, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, NAN, 1, RS_FLOAT64, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, neg, RS_FLOAT64, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_zeros(&a, ctx, (rs_mem_kind)42, 2, shape, RS_FLOAT64, NULL), RS_ERR_MEMORY_KIND);
  CHECK_STATUS(rs_zeros(&a, ctx, RS_MEM_DEVICE, 2, shape, (rs_dtype)99, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_full(&a, ctx, RS_MEM_DEVICE, 2, shape, RS_INT8, rs_scalar_int(300), NULL), RS_ERR_OVERFLOW);
  CHECK_STATUS(rs_eye(&a, ctx, RS_MEM_DEVICE, -2, 3, 0, RS_FLOAT64, NULL), RS_ERR_SHAPE);
  CHECK(a == NULL);
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 2, shape, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_linspace_into(a, 0, 1, 1, NULL), RS_ERR_SHAPE);
  rs_array *v = NULL;
  CHECK_OK(rs_array_ravel(&v, a));
  CHECK_STATUS(rs_eye_into(v, 0, NULL), RS_ERR_SHAPE);
  tl_release(2, a, v);
}

static const rs_test_case tests[] = {RS_TEST(test_create_values), RS_TEST(test_into_views), RS_TEST(test_bad_creation)};
RS_TEST_MAIN(tests)
