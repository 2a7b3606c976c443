/* Issue 11 item 7: extreme steps, strides and shapes never overflow a computation. A
 * slice with step INT64_MAX used to come back RS_OK with shape -1 and nbytes 2^64 - 4,
 * and fill, sum and sort then "succeeded" on it; now every slice has the element count
 * Python gives, and every layout that would not fit int64 is RS_ERR_OVERFLOW. */
#include "harness.h"
#include "resident/ops.h"
#include "resident/reduce.h"
#include "resident/sort.h"

/* 0, 1, ..., n-1 as float32 on the device. */
static rs_status iota(rs_context *ctx, rs_array **out, int64_t n) {
  return rs_arange(out, ctx, RS_MEM_DEVICE, 0, (double)n, 1, RS_FLOAT32, NULL);
}

static double item_at(const rs_array *a, int64_t i) {
  double v = -999;
  const int64_t index[1] = {i};
  if (rs_array_item_double(a, rs_array_ndim(a) ? index : NULL, &v, NULL) != RS_OK) return -999;
  return v;
}

/* One axis of 10 sliced with `step` from the default ends: Python's count and elements. */
static void check_slice(rs_context *ctx, int64_t step, int64_t want_count, double want_first) {
  rs_array *a = NULL, *v = NULL, *s = NULL;
  CHECK_OK(iota(ctx, &a, 10));
  const rs_slice sl = {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, step};
  rs_status st = rs_array_slice(&v, a, 1, &sl);
  if (st != RS_OK) {
    rs_array_release(a);
    FAIL("slice step %lld: %s", (long long)step, rs_last_error());
  }
  CHECK_EQ_I64(rs_array_shape(v)[0], want_count);
  CHECK_EQ_I64(rs_array_size(v), want_count);
  CHECK_EQ_I64((int64_t)rs_array_nbytes(v), want_count * 4);
  CHECK_NEAR(item_at(v, 0), want_first, 0);
  /* The ops see one element, and write only it. */
  CHECK_OK(rs_sum(&s, v, 0, NULL, 0, NULL));
  CHECK_NEAR(item_at(s, 0), want_first, 0);
  CHECK_OK(rs_array_release(s));
  CHECK_OK(rs_full_into(v, rs_scalar_float(-1), NULL));
  CHECK_OK(rs_sort(&s, v, NULL));
  CHECK_EQ_I64(rs_array_size(s), want_count);
  CHECK_OK(rs_array_release(s));
  CHECK_OK(rs_sum(&s, a, 0, NULL, 0, NULL));
  CHECK_NEAR(item_at(s, 0), 45 - want_first - 1, 0); /* one element became -1 */
  CHECK_OK(rs_array_release(s));
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(a));
}

static void test_slice_extreme_steps(rs_context *ctx) {
  check_slice(ctx, INT64_MAX, 1, 0);
  CHECK_PASSING();
  check_slice(ctx, INT64_MAX - 1, 1, 0);
  CHECK_PASSING();
  check_slice(ctx, INT64_MIN, 1, 9);
  CHECK_PASSING();
  check_slice(ctx, -INT64_MAX, 1, 9);
  CHECK_PASSING();
  check_slice(ctx, INT64_MIN + 1, 1, 9);
}

/* Explicit ends with huge steps: Python's counts (len(range(10)[a:b:c])). */
static void test_slice_counts(rs_context *ctx) {
  static const struct {
    int64_t start, stop, step, count;
  } cases[] = {
      {0, 10, INT64_MAX, 1},  {9, 10, INT64_MAX, 1}, {10, 10, INT64_MAX, 0},
      {9, 9, INT64_MIN, 0},   {9, 0, INT64_MIN, 1},  {-1, RS_SLICE_DEFAULT, INT64_MIN, 1},
      {0, 10, 3, 4},          {9, RS_SLICE_DEFAULT, -4, 3}, {-10, 10, INT64_MAX / 2, 1},
  };
  rs_array *a = NULL;
  CHECK_OK(iota(ctx, &a, 10));
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rs_array *v = NULL;
    const rs_slice sl = {cases[i].start, cases[i].stop, cases[i].step};
    rs_status st = rs_array_slice(&v, a, 1, &sl);
    int64_t got = st == RS_OK ? rs_array_shape(v)[0] : -12345;
    rs_array_release(v);
    if (got != cases[i].count) {
      rs_array_release(a);
      FAIL("slice [%lld:%lld:%lld] of 10: %lld elements, Python has %lld (%s)",
           (long long)cases[i].start, (long long)cases[i].stop, (long long)cases[i].step,
           (long long)got, (long long)cases[i].count, rs_last_error());
    }
  }
  CHECK_OK(rs_array_release(a));
}

/* Slices of slices with extreme steps keep strides that fit, and the views stay usable. */
static void test_slice_of_slice(rs_context *ctx) {
  rs_array *a = NULL, *v = NULL, *w = NULL, *e = NULL;
  CHECK_OK(iota(ctx, &a, 10));
  const rs_slice s1 = {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, INT64_MAX};
  const rs_slice s2 = {RS_SLICE_DEFAULT, RS_SLICE_DEFAULT, INT64_MIN};
  CHECK_OK(rs_array_slice(&v, a, 1, &s1));
  CHECK_OK(rs_array_slice(&w, v, 1, &s2));
  CHECK_EQ_I64(rs_array_shape(w)[0], 1);
  CHECK_OK(rs_array_expand_dims(&e, w, 0));
  CHECK_EQ_I64(rs_array_ndim(e), 2);
  const int64_t zero2[2] = {0, 0};
  double x = -1;
  CHECK_OK(rs_array_item_double(e, zero2, &x, NULL));
  CHECK_NEAR(x, 0, 0);
  rs_array_release(e);
  rs_array_release(w);
  rs_array_release(v);
  rs_array_release(a);
}

/* A view whose strides reach far (over memory of the caller's, never touched): new axes
 * and reshapes of it compute no stride that overflows. */
static void test_far_strides(rs_context *ctx) {
  static float data[2];
  const int64_t shape[1] = {2}, far[1] = {INT64_C(1) << 62};
  rs_array *a = NULL, *e = NULL, *r = NULL;
  CHECK_OK(rs_host_array_wrap(&a, ctx, data, 1, shape, RS_FLOAT32, far));
  CHECK_OK(rs_array_expand_dims(&e, a, 0));
  CHECK_EQ_I64(rs_array_shape(e)[0], 1);
  CHECK_EQ_I64(rs_array_strides(e)[1], INT64_C(1) << 62);
  const int64_t two_one[2] = {2, 1};
  CHECK_OK(rs_array_reshape(&r, a, 2, two_one));
  CHECK_EQ_I64(rs_array_strides(r)[0], INT64_C(1) << 62);
  rs_array_release(r);
  rs_array_release(e);
  /* Strides beyond int64 bytes are refused at the wrap. */
  const int64_t three[1] = {3}, too_far[1] = {INT64_C(1) << 62};
  CHECK_STATUS(rs_host_array_wrap(&r, ctx, data, 1, three, RS_FLOAT32, too_far), RS_ERR_OVERFLOW);
  CHECK(r == NULL);
  rs_array_release(a);
}

static void test_shapes_that_overflow(rs_context *ctx) {
  rs_array *a = NULL, *v = NULL;
  const int64_t huge[2] = {INT64_C(1) << 32, INT64_C(1) << 32};
  CHECK_STATUS(rs_device_array(&a, ctx, 2, huge, RS_FLOAT32, NULL, RS_ORDER_C), RS_ERR_OVERFLOW);
  CHECK_ERRMSG("overflow");
  /* The element count fits int64, the bytes do not. */
  const int64_t big[1] = {INT64_C(1) << 62};
  CHECK_STATUS(rs_device_array(&a, ctx, 1, big, RS_FLOAT64, NULL, RS_ORDER_C), RS_ERR_OVERFLOW);
  CHECK_STATUS(rs_eye(&a, ctx, RS_MEM_DEVICE, INT64_C(1) << 40, INT64_C(1) << 40, 0, RS_FLOAT32, NULL),
               RS_ERR_OVERFLOW);
  CHECK_OK(iota(ctx, &a, 12));
  const int64_t neg_big[2] = {-1, INT64_MAX};
  CHECK_FAILS(rs_array_reshape(&v, a, 2, neg_big));
  const int64_t over[3] = {INT64_C(1) << 31, INT64_C(1) << 31, 4};
  CHECK_STATUS(rs_array_reshape(&v, a, 3, over), RS_ERR_OVERFLOW);
  CHECK(v == NULL);
  rs_array_release(a);
}

static const rs_test_case tests[] = {
    RS_TEST(test_slice_extreme_steps), RS_TEST(test_slice_counts),     RS_TEST(test_slice_of_slice),
    RS_TEST(test_far_strides),         RS_TEST(test_shapes_that_overflow),
};
RS_TEST_MAIN(tests)
