/* The host path on its thread pool (src/native/native_pool.c): inputs long enough that
 * every op is split over the threads - odd lengths, strided and broadcast operands,
 * every dtype class - against NumPy; and the same host ops on 1, 2, 3, 4 and 8 threads
 * give the same bits (elementwise, reductions, sort and argsort, random). */
/* Long rows on every dtype, each against NumPy: about 40 s here, ten times that under
 * ThreadSanitizer (scripts/tsan.sh), which is what this test of the thread pool is for. */
#define RS_TEST_TIMEOUT_S 900
#include "ops_testlib.h"
#include "native/native.h"

#define N_LONG 200003 /* odd, and above every loop's threshold for splitting */

static double sum_rtol(rs_dtype d) {
  if (d == RS_FLOAT32 || d == RS_COMPLEX64) return 1e-5; /* NumPy sums float32 in float32 */
  if (d == RS_FLOAT64 || d == RS_COMPLEX128) return 1e-12;
  return 0;
}

static void test_threaded_vs_numpy(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t n = N_LONG, sq[2] = {449, 447}, row[1] = {447};
  for (int di = 0; di < TL_NDTYPES; di++) {
    rs_dtype d = tl_all_dtypes[di];
    pair a, m, r;
    CHECK_OK(make_pair(&a, s, ctx, d, 1, &n, 11 + (uint64_t)di, 1));
    CHECK_OK(make_pair(&m, s, ctx, d, 2, sq, 41 + (uint64_t)di, 1));
    CHECK_OK(make_pair(&r, s, ctx, d, 1, row, 71 + (uint64_t)di, 1));
    double rt = tl_rtol(d), at = tl_is_float(d) || tl_is_complex(d) ? 1e-12 : 0;
    /* x * 5: the contiguous fast path for floats, the evaluator for the rest */
    ew_case *c = suite_add(s, "multiply(%s[%lld], 5)", rs_dtype_name(d), (long long)n);
    c->sdev = rs_multiply_scalar(&c->dev, a.dev, rs_scalar_int(5), NULL);
    c->shost = rs_multiply_scalar(&c->host, a.host, rs_scalar_int(5), NULL);
    c->np = tl_np_expr(&s->np, "a%d * 5", a.np);
    c->rtol = rt, c->atol = at;
    /* a broadcast row, and a strided view (every other element, backwards) */
    c = suite_add(s, "add(%s (449, 447), (447,))", rs_dtype_name(d));
    c->sdev = rs_add(&c->dev, m.dev, r.dev, NULL);
    c->shost = rs_add(&c->host, m.host, r.host, NULL);
    c->np = tl_np_expr(&s->np, "a%d + a%d", m.np, r.np);
    c->rtol = rt, c->atol = at;
    rs_slice back = {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, -2};
    rs_array *vd = NULL, *vh = NULL;
    CHECK_OK(rs_array_slice(&vd, a.dev, 1, &back));
    CHECK_OK(rs_array_slice(&vh, a.host, 1, &back));
    c = suite_add(s, "subtract(%s[::-2], 3)", rs_dtype_name(d));
    c->sdev = rs_binary_scalar(&c->dev, RS_OP_SUBTRACT, vd, rs_scalar_int(3), NULL);
    c->shost = rs_binary_scalar(&c->host, RS_OP_SUBTRACT, vh, rs_scalar_int(3), NULL);
    c->np = tl_np_expr(&s->np, "a%d[::-2] - 3", a.np);
    c->rtol = rt, c->atol = at;
    if (d != RS_FLOAT16 && d != RS_BOOL) { /* NumPy sums float16 in float16; bool counts */
      c = suite_add(s, "sum(%s[::-2])", rs_dtype_name(d));
      c->sdev = rs_sum(&c->dev, vd, 0, NULL, 0, NULL);
      c->shost = rs_sum(&c->host, vh, 0, NULL, 0, NULL);
      c->np = tl_np_expr(&s->np, "np.sum(a%d[::-2])", a.np);
      c->rtol = sum_rtol(d), c->atol = at;
      c = suite_add(s, "sum(%s[%lld])", rs_dtype_name(d), (long long)n);
      c->sdev = rs_sum(&c->dev, a.dev, 0, NULL, 0, NULL);
      c->shost = rs_sum(&c->host, a.host, 0, NULL, 0, NULL);
      c->np = tl_np_expr(&s->np, "np.sum(a%d)", a.np);
      c->rtol = sum_rtol(d), c->atol = at;
      int ax0 = 0;
      c = suite_add(s, "sum(%s (449, 447), axis=0)", rs_dtype_name(d));
      c->sdev = rs_sum(&c->dev, m.dev, 1, &ax0, 0, NULL);
      c->shost = rs_sum(&c->host, m.host, 1, &ax0, 0, NULL);
      c->np = tl_np_expr(&s->np, "np.sum(a%d, axis=0)", m.np);
      c->rtol = sum_rtol(d), c->atol = at;
    }
    if (!tl_is_complex(d)) {
      c = suite_add(s, "argmax(%s[%lld])", rs_dtype_name(d), (long long)n);
      c->sdev = rs_reduce(&c->dev, RS_REDUCE_ARGMAX, a.dev, 0, NULL, 0, NULL);
      c->shost = rs_reduce(&c->host, RS_REDUCE_ARGMAX, a.host, 0, NULL, 0, NULL);
      c->np = tl_np_expr(&s->np, "np.argmax(a%d)", a.np);
      for (int arg = 0; arg < 2; arg++) { /* long rows: the parallel radix for 4- and 8-byte keys */
        c = suite_add(s, "%s(%s[%lld])", arg ? "argsort" : "sort", rs_dtype_name(d), (long long)n);
        c->sdev = arg ? rs_argsort(&c->dev, a.dev, NULL) : rs_sort(&c->dev, a.dev, NULL);
        c->shost = arg ? rs_argsort(&c->host, a.host, NULL) : rs_sort(&c->host, a.host, NULL);
        c->np = tl_np_expr(&s->np, "np.%s(a%d, kind='stable')", arg ? "argsort" : "sort", a.np);
        c = suite_add(s, "%s(%s (2, %lld) view)", arg ? "argsort" : "sort", rs_dtype_name(d), (long long)(n - 1) / 2);
        rs_array *rd = NULL, *rh = NULL;
        int64_t two[2] = {2, (n - 1) / 2};
        rs_slice most = {0, n - 1, 1};
        rs_array *cd = NULL, *ch = NULL;
        CHECK_OK(rs_array_slice(&cd, a.dev, 1, &most));
        CHECK_OK(rs_array_slice(&ch, a.host, 1, &most));
        CHECK_OK(rs_array_reshape(&rd, cd, 2, two));
        CHECK_OK(rs_array_reshape(&rh, ch, 2, two));
        c->sdev = arg ? rs_argsort(&c->dev, rd, NULL) : rs_sort(&c->dev, rd, NULL);
        c->shost = arg ? rs_argsort(&c->host, rh, NULL) : rs_sort(&c->host, rh, NULL);
        c->np = tl_np_expr(&s->np, "np.%s(a%d[:%lld].reshape(2, -1), axis=-1, kind='stable')",
                           arg ? "argsort" : "sort", a.np, (long long)n - 1);
        tl_release(4, rd, rh, cd, ch);
      }
    }
    tl_release(2, vd, vh);
    free_pair(&a);
    free_pair(&m);
    free_pair(&r);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* The host results of a fixed set of ops, in order. */
#define N_SAME 15
static int same_bytes(const rs_array *a, const rs_array *b, char *msg, size_t len);
static void host_results(rs_context *ctx, rs_array **out) {
  int64_t n = N_LONG, sq[2] = {449, 447}, row[1] = {447};
  rs_array *f32 = NULL, *f64 = NULL, *i32 = NULL, *c64 = NULL, *m = NULL, *r = NULL;
  CHECK_OK(tl_make(&f32, ctx, RS_MEM_HOST, RS_FLOAT32, 1, &n, 5, 1));
  CHECK_OK(tl_make(&f64, ctx, RS_MEM_HOST, RS_FLOAT64, 1, &n, 6, 1));
  CHECK_OK(tl_make(&i32, ctx, RS_MEM_HOST, RS_INT32, 1, &n, 7, 0));
  CHECK_OK(tl_make(&c64, ctx, RS_MEM_HOST, RS_COMPLEX64, 1, &n, 8, 1));
  CHECK_OK(tl_make(&m, ctx, RS_MEM_HOST, RS_FLOAT64, 2, sq, 9, 1));
  CHECK_OK(tl_make(&r, ctx, RS_MEM_HOST, RS_FLOAT64, 1, row, 10, 1));
  int ax0 = 0;
  rs_rng rng = rs_rng_seed(99);
  CHECK_OK(rs_multiply_scalar(&out[0], f32, rs_scalar_int(5), NULL));
  CHECK_OK(rs_multiply_scalar(&out[1], i32, rs_scalar_int(5), NULL));
  CHECK_OK(rs_multiply_scalar(&out[2], c64, rs_scalar_float(1.5), NULL));
  CHECK_OK(rs_exp(&out[3], f64, NULL));
  CHECK_OK(rs_add(&out[4], m, r, NULL));
  CHECK_OK(rs_sum(&out[5], f32, 0, NULL, 0, NULL));
  CHECK_OK(rs_sum(&out[6], f64, 0, NULL, 0, NULL));
  CHECK_OK(rs_sum(&out[7], m, 1, &ax0, 0, NULL));
  CHECK_OK(rs_sort(&out[8], f64, NULL));
  CHECK_OK(rs_argsort(&out[9], f64, NULL));
  CHECK_OK(rs_sort(&out[10], f32, NULL));
  CHECK_OK(rs_argsort(&out[11], i32, NULL));
  CHECK_OK(rs_random_uniform(&out[12], &rng, ctx, RS_MEM_HOST, 1, &n, RS_FLOAT32, 0, 1, NULL));
  CHECK_OK(rs_random_normal(&out[13], &rng, ctx, RS_MEM_HOST, 1, &n, RS_FLOAT64, 0, 1, NULL));
  CHECK_OK(rs_copy(&out[14], f64, NULL)); /* sorted in place: the same as into a new array */
  CHECK_OK(rs_sort_into(out[14], out[14], NULL));
  char msg[256];
  CHECK_MSG(same_bytes(out[14], out[8], msg, sizeof msg), "in-place sort: %s", msg);
  tl_release(6, f32, f64, i32, c64, m, r);
}

/* 1 when a and b have the same dtype, shape and bytes (-0.0 is not 0.0, NaN payloads
 * count); else 0 and where they first differ. */
static int same_bytes(const rs_array *a, const rs_array *b, char *msg, size_t len) {
  int64_t n = rs_array_size(a);
  size_t item = rs_array_itemsize(a);
  if (rs_array_dtype(a) != rs_array_dtype(b) || rs_array_ndim(a) != rs_array_ndim(b) || rs_array_size(b) != n) {
    snprintf(msg, len, "dtype or shape differs");
    return 0;
  }
  unsigned char *x = malloc((size_t)n * item + 1), *y = malloc((size_t)n * item + 1);
  int ok = x && y && rs_t_read_(a, x) == RS_OK && rs_t_read_(b, y) == RS_OK;
  if (!ok) snprintf(msg, len, "reading failed");
  for (int64_t i = 0; ok && i < n; i++)
    if (memcmp(x + (size_t)i * item, y + (size_t)i * item, item) != 0) {
      snprintf(msg, len, "element %lld's bytes differ", (long long)i);
      ok = 0;
    }
  free(x);
  free(y);
  return ok;
}

static void test_same_bits_any_threads(rs_context *ctx) {
  rs_array *one[N_SAME] = {0}, *many[N_SAME] = {0};
  rs_native_host_pool_restart(1);
  CHECK_EQ_I64(rs_native_host_threads(), 1);
  host_results(ctx, one);
  static const int counts[] = {2, 3, 4, 8}; /* 4 and 8: sorts merge over several rounds */
  for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
    int t = counts[ci];
    rs_native_host_pool_restart(t);
    host_results(ctx, many);
    CHECK_EQ_I64(rs_native_host_threads(), t);
    for (int i = 0; i < N_SAME; i++) {
      char msg[1024];
      CHECK_MSG(one[i] && many[i] && same_bytes(many[i], one[i], msg, sizeof msg),
                "result %d on %d threads differs from 1 thread: %s", i, t, one[i] && many[i] ? msg : "missing");
      rs_array_release(many[i]);
      many[i] = NULL;
    }
  }
  for (int i = 0; i < N_SAME; i++) rs_array_release(one[i]);
  rs_native_host_pool_restart(0);
}

static const rs_test_case tests[] = {RS_TEST(test_threaded_vs_numpy), RS_TEST(test_same_bits_any_threads)};
RS_TEST_MAIN(tests)
