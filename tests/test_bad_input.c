/* Bad input: NULL handles and pointers, negative dimensions, overflowing shapes, too
 * many dimensions, invalid dtypes, mismatched copies and double releases. Each failure
 * must return the right code, leave a message that names the problem, produce no
 * output handle and leak nothing (the harness checks the live counters). */
#include "harness.h"

#define S1(a) ((const int64_t[]){a})
#define S2(a, b) ((const int64_t[]){a, b})
#define S3(a, b, c) ((const int64_t[]){a, b, c})

/* the output handle of a failed call is left alone or set to NULL, never a live handle */
#define CHECK_NO_OUTPUT(p, sentinel) \
  CHECK_MSG((p) == (sentinel) || (p) == NULL, "a failed call produced a handle %p", (void *)(p))

static void test_null_pointers(rs_context *ctx) {
  rs_array *a = NULL, *d = NULL;
  rs_stream *s = NULL;
  rs_event *e = NULL;
  int64_t shape[2] = {2, 3};
  CHECK_OK(rs_device_array(&d, ctx, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));

  CHECK_STATUS(rs_device_array(NULL, ctx, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("null");
  CHECK_STATUS(rs_device_array(&a, NULL, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("null", "context");
  CHECK(a == NULL);
  CHECK_STATUS(rs_device_array(&a, ctx, 2, NULL, RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("null", "shape");
  CHECK(a == NULL);
  CHECK_STATUS(rs_host_array(&a, NULL, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_pinned_array(&a, ctx, 2, NULL, RS_FLOAT32, NULL, RS_ORDER_C, 0),
               RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_mapped_array(NULL, ctx, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C, 0),
               RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_managed_array(&a, NULL, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C,
                                RS_ATTACH_GLOBAL),
               RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_device_array_like(&a, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_device_array_like(NULL, d), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_host_array_wrap(&a, ctx, NULL, 2, shape, RS_FLOAT32, NULL),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("null");
  CHECK_STATUS(rs_device_array_wrap(&a, ctx, NULL, 2, shape, RS_FLOAT32, NULL, NULL, NULL, NULL),
               RS_ERR_NULL_POINTER);
  CHECK(a == NULL);

  /* views */
  CHECK_STATUS(rs_array_reshape(&a, NULL, 1, S1(6)), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_reshape(NULL, d, 1, S1(6)), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_reshape(&a, d, 1, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_ravel(&a, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_transpose(NULL, d), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_permute(&a, d, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_slice(&a, d, 1, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_expand_dims(&a, NULL, 0), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_squeeze(&a, NULL, RS_ALL_AXES), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_retain(NULL), RS_ERR_NULL_POINTER);
  CHECK(a == NULL);

  /* copies */
  CHECK_STATUS(rs_array_copy(NULL, d, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_array_copy(d, NULL, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_to_device(NULL, d, 0, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_to_device(&a, NULL, 0, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_copy_to_host(&a, NULL, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_to_device_into(NULL, d, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_copy_to_host_into(NULL, d, NULL), RS_ERR_NULL_POINTER);
  CHECK(a == NULL);

  /* memory scopes */
  CHECK_STATUS(rs_pinned_begin(NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_pinned_end(NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_mapped_begin(&a, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_mapped_end(NULL), RS_ERR_NULL_POINTER);

  /* streams, events, contexts */
  CHECK_STATUS(rs_stream_create(NULL, ctx, 0), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_stream_create(&s, NULL, 0), RS_ERR_NULL_POINTER);
  CHECK(s == NULL);
  CHECK_STATUS(rs_event_create(NULL, ctx, 0), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_event_create(&e, NULL, 0), RS_ERR_NULL_POINTER);
  CHECK(e == NULL);
  CHECK_OK(rs_event_destroy(NULL)); /* every destroy takes NULL */
  CHECK_STATUS(rs_event_record(NULL, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_stream_query(NULL, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_stream_add_callback(NULL, NULL, NULL), RS_ERR_NULL_POINTER); /* fn */
  CHECK_STATUS(rs_stream_wrap(NULL, ctx, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_context_create(NULL, RS_BACKEND_SIM, 0), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_context_get_live_stats(NULL, NULL), RS_ERR_NULL_POINTER);
  rs_live_stats st;
  CHECK_STATUS(rs_context_get_live_stats(NULL, &st), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_context_synchronize(NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_device_count(RS_BACKEND_SIM, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_device_get_props(RS_BACKEND_SIM, 0, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_backend_from_name("sim", NULL), RS_ERR_NULL_POINTER);
  rs_backend_kind k;
  CHECK_STATUS(rs_backend_from_name(NULL, &k), RS_ERR_NULL_POINTER);

  /* metadata of NULL is 0 / NULL */
  CHECK_EQ_I64(rs_array_ndim(NULL), 0);
  CHECK(rs_array_shape(NULL) == NULL);
  CHECK(rs_array_strides(NULL) == NULL);
  CHECK_EQ_I64(rs_array_size(NULL), 0);
  CHECK_EQ_I64(rs_array_itemsize(NULL), 0);
  CHECK_EQ_I64(rs_array_nbytes(NULL), 0);
  CHECK(rs_array_host_data(NULL) == NULL);
  CHECK(rs_array_device_data(NULL) == NULL);
  CHECK(rs_array_context(NULL) == NULL);
  char buf[64];
  const char *desc = rs_array_describe(NULL, buf, sizeof buf);
  CHECK(desc != NULL && memchr(desc, '\0', 64) != NULL);
  CHECK_OK(rs_array_release(NULL)); /* documented: releasing NULL is RS_OK */
  rs_context_destroy(NULL);

  CHECK_OK(rs_array_release(d));
}

static void test_negative_dims(rs_context *ctx) {
  rs_array *a = NULL;
  CHECK_STATUS(rs_device_array(&a, ctx, 2, S2(3, -2), RS_FLOAT32, NULL, RS_ORDER_C), RS_ERR_SHAPE);
  CHECK_ERRMSG("-2", "negative");
  CHECK(a == NULL);
  CHECK_STATUS(rs_host_array(&a, ctx, 1, S1(-1), RS_INT8, NULL, RS_ORDER_C), RS_ERR_SHAPE);
  CHECK_ERRMSG("-1", "negative");
  CHECK_STATUS(rs_pinned_array(&a, ctx, 3, S3(2, 2, -5), RS_INT8, NULL, RS_ORDER_F, 0),
               RS_ERR_SHAPE);
  CHECK_ERRMSG("-5", "negative");
  CHECK_STATUS(rs_mapped_array(&a, ctx, 1, S1(-7), RS_INT8, NULL, RS_ORDER_C, 0), RS_ERR_SHAPE);
  CHECK_STATUS(rs_managed_array(&a, ctx, 1, S1(-7), RS_INT8, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL),
               RS_ERR_SHAPE);
  int32_t buf[4];
  CHECK_STATUS(rs_host_array_wrap(&a, ctx, buf, 2, S2(-2, -2), RS_INT32, NULL), RS_ERR_SHAPE);
  CHECK(a == NULL);
  /* a negative ndim */
  CHECK_FAILS(rs_device_array(&a, ctx, -1, S1(3), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK(a == NULL);
  /* a reshape to a negative dimension other than -1 */
  rs_array *d = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(12), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_FAILS(rs_array_reshape(&a, d, 2, S2(-3, -4)));
  CHECK(a == NULL);
  CHECK_OK(rs_array_release(d));
}

static void test_overflow(rs_context *ctx) {
  rs_array *a = NULL;
  const int64_t big = (int64_t)1 << 40;
  /* element count 2^80 */
  CHECK_STATUS(rs_device_array(&a, ctx, 2, S2(big, big), RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_OVERFLOW);
  CHECK_ERRMSG("overflow");
  /* 2^32 * 2^32 * 2 wraps to 0 in 64-bit arithmetic: must still be caught */
  CHECK_STATUS(rs_device_array(&a, ctx, 3, S3((int64_t)1 << 32, (int64_t)1 << 32, 2), RS_INT8,
                               NULL, RS_ORDER_C),
               RS_ERR_OVERFLOW);
  CHECK_ERRMSG("overflow");
  /* 3 * 2^62 > INT64_MAX */
  CHECK_STATUS(rs_host_array(&a, ctx, 2, S2(3, (int64_t)1 << 62), RS_INT8, NULL, RS_ORDER_C),
               RS_ERR_OVERFLOW);
  CHECK_ERRMSG("overflow");
  /* the element count fits, the byte count does not: 2^61 float64 = 2^64 bytes */
  CHECK_STATUS(rs_device_array(&a, ctx, 1, S1((int64_t)1 << 61), RS_FLOAT64, NULL, RS_ORDER_C),
               RS_ERR_OVERFLOW);
  CHECK_ERRMSG("overflow");
  CHECK_STATUS(rs_pinned_array(&a, ctx, 1, S1(INT64_MAX / 2), RS_COMPLEX128, NULL, RS_ORDER_C, 0),
               RS_ERR_OVERFLOW);
  CHECK_STATUS(rs_mapped_array(&a, ctx, 2, S2(big, big), RS_INT8, NULL, RS_ORDER_C, 0),
               RS_ERR_OVERFLOW);
  CHECK_STATUS(rs_managed_array(&a, ctx, 2, S2(big, big), RS_INT8, NULL, RS_ORDER_C,
                                RS_ATTACH_GLOBAL),
               RS_ERR_OVERFLOW);
  int64_t buf[2];
  CHECK_STATUS(rs_host_array_wrap(&a, ctx, buf, 2, S2(big, big), RS_INT64, NULL), RS_ERR_OVERFLOW);
  /* F order overflows the same way */
  CHECK_STATUS(rs_device_array(&a, ctx, 2, S2(big, big), RS_FLOAT32, NULL, RS_ORDER_F),
               RS_ERR_OVERFLOW);
  /* explicit strides whose extent overflows */
  CHECK_FAILS(rs_device_array(&a, ctx, 1, S1(4), RS_INT8, S1(INT64_MAX / 2), RS_ORDER_C));
  CHECK(a == NULL);
  /* reshape to an overflowing shape */
  rs_array *d = NULL;
  a = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(16), RS_INT8, NULL, RS_ORDER_C));
  CHECK_FAILS(rs_array_reshape(&a, d, 3, S3((int64_t)1 << 32, (int64_t)1 << 32, 16)));
  CHECK(a == NULL);
  CHECK_OK(rs_array_release(d));
}

static void test_too_many_dims(rs_context *ctx) {
  int64_t shape[RS_MAX_DIMS + 1];
  for (int i = 0; i <= RS_MAX_DIMS; i++) shape[i] = 1;
  rs_array *a = NULL, *v = NULL;
  CHECK_STATUS(rs_device_array(&a, ctx, RS_MAX_DIMS + 1, shape, RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_TOO_MANY_DIMS);
  CHECK_ERRMSG("33", "32");
  CHECK_STATUS(rs_host_array(&a, ctx, 100, shape, RS_FLOAT32, NULL, RS_ORDER_C),
               RS_ERR_TOO_MANY_DIMS);
  CHECK_ERRMSG("100", "32");
  CHECK_STATUS(rs_pinned_array(&a, ctx, RS_MAX_DIMS + 1, shape, RS_FLOAT32, NULL, RS_ORDER_C, 0),
               RS_ERR_TOO_MANY_DIMS);
  CHECK(a == NULL);
  /* exactly RS_MAX_DIMS is fine; one more through a view is not */
  CHECK_OK(rs_device_array(&a, ctx, RS_MAX_DIMS, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_EQ_I64(rs_array_ndim(a), RS_MAX_DIMS);
  CHECK_STATUS(rs_array_expand_dims(&v, a, 0), RS_ERR_TOO_MANY_DIMS);
  CHECK_STATUS(rs_array_reshape(&v, a, RS_MAX_DIMS + 1, shape), RS_ERR_TOO_MANY_DIMS);
  CHECK(v == NULL);
  CHECK_OK(rs_array_release(a));
}

static void test_invalid_dtype(rs_context *ctx) {
  rs_array *a = NULL;
  CHECK_STATUS(rs_device_array(&a, ctx, 1, S1(4), (rs_dtype)99, NULL, RS_ORDER_C), RS_ERR_DTYPE);
  CHECK_ERRMSG("99", "dtype");
  CHECK_STATUS(rs_host_array(&a, ctx, 1, S1(4), RS_DTYPE_COUNT, NULL, RS_ORDER_C), RS_ERR_DTYPE);
  CHECK_STATUS(rs_pinned_array(&a, ctx, 1, S1(4), (rs_dtype)-1, NULL, RS_ORDER_C, 0),
               RS_ERR_DTYPE);
  CHECK_STATUS(rs_mapped_array(&a, ctx, 1, S1(4), (rs_dtype)1000, NULL, RS_ORDER_C, 0),
               RS_ERR_DTYPE);
  CHECK_STATUS(rs_managed_array(&a, ctx, 1, S1(4), (rs_dtype)14, NULL, RS_ORDER_C,
                                RS_ATTACH_GLOBAL),
               RS_ERR_DTYPE);
  char buf[16];
  CHECK_STATUS(rs_host_array_wrap(&a, ctx, buf, 1, S1(4), (rs_dtype)42, NULL), RS_ERR_DTYPE);
  CHECK(a == NULL);
  /* other enum arguments out of range */
  CHECK_FAILS(rs_device_array(&a, ctx, 1, S1(4), RS_FLOAT32, NULL, (rs_order)5));
  CHECK_FAILS(rs_managed_array(&a, ctx, 1, S1(4), RS_FLOAT32, NULL, RS_ORDER_C, (rs_attach)9));
  CHECK(a == NULL);
}

static void test_copy_mismatch_messages(rs_context *ctx) {
  rs_array *d = NULL, *h = NULL, *hi = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 2, S2(3, 4), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&h, ctx, 2, S2(3, 5), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&hi, ctx, 2, S2(3, 4), RS_INT64, NULL, RS_ORDER_C));
  CHECK_STATUS(rs_array_copy(d, h, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("5");
  CHECK_STATUS(rs_array_copy(h, d, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("5");
  CHECK_STATUS(rs_to_device_into(d, h, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_copy_to_host_into(h, d, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_array_copy(d, hi, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("int64");
  CHECK_STATUS(rs_copy_to_host_into(hi, d, NULL), RS_ERR_DTYPE);
  CHECK_ERRMSG("int64", "float32");
  CHECK_OK(rs_array_release(hi));
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(d));
}

static void test_double_release(rs_context *ctx) {
  rs_array *a = NULL, *v = NULL, *h = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, S1(10), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a));
  CHECK_STATUS(rs_array_release(a), RS_ERR_RELEASED);
  CHECK_ERRMSG("release");
  /* a view released twice while its base lives */
  CHECK_OK(rs_host_array(&h, ctx, 2, S2(4, 4), RS_INT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_transpose(&v, h));
  CHECK_OK(rs_array_release(v));
  CHECK_STATUS(rs_array_release(v), RS_ERR_RELEASED);
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1); /* the base is untouched */
  CHECK_EQ_I64(st.buffers, 1);
  /* retain/release pairs: the third release of a twice-held handle is an error */
  CHECK_OK(rs_array_retain(h));
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(h));
  CHECK_STATUS(rs_array_release(h), RS_ERR_RELEASED);
  CHECK_FAILS(rs_array_retain(h)); /* no resurrection of a released handle */

  /* streams and events destroyed twice */
  rs_stream *s = NULL;
  rs_event *e = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_STATUS(rs_stream_destroy(s), RS_ERR_DESTROYED);
  CHECK_ERRMSG("destroy");
  CHECK_OK(rs_event_create(&e, ctx, 0));
  CHECK_OK(rs_event_destroy(e));
  CHECK_STATUS(rs_event_destroy(e), RS_ERR_DESTROYED);
  CHECK_ERRMSG("destroy");
}

static void test_bad_views(rs_context *ctx) {
  rs_array *a = NULL, *v = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 2, S2(4, 6), RS_INT16, NULL, RS_ORDER_C));
  CHECK_STATUS(rs_array_slice(&v, a, 1, (rs_slice[]){{0, 9, 1}}), RS_ERR_INDEX);
  CHECK_ERRMSG("9");
  CHECK_STATUS(rs_array_slice(&v, a, 2, (rs_slice[]){RS_SLICE_ALL, {0, 6, 0}}),
               RS_ERR_INVALID_ARGUMENT);
  CHECK_FAILS(rs_array_slice(&v, a, -1, (rs_slice[]){RS_SLICE_ALL}));
  CHECK_STATUS(rs_array_expand_dims(&v, a, 5), RS_ERR_AXIS);
  CHECK_ERRMSG("5");
  CHECK_STATUS(rs_array_squeeze(&v, a, 0), RS_ERR_SHAPE);
  CHECK_STATUS(rs_array_squeeze(&v, a, 7), RS_ERR_AXIS);
  CHECK_FAILS(rs_array_permute(&v, a, (const int[]){1, 1}));
  CHECK_STATUS(rs_array_reshape(&v, a, 2, S2(5, 5)), RS_ERR_SHAPE);
  CHECK_ERRMSG("24", "25");
  CHECK(v == NULL);
  /* no stray handle was created by any of these */
  rs_live_stats st;
  CHECK_OK(rs_context_get_live_stats(ctx, &st));
  CHECK_EQ_I64(st.arrays, 1);
  CHECK_OK(rs_array_release(a));
}

static void test_failed_calls_change_nothing(rs_context *ctx) {
  /* a failed allocation leaves a caller's variable as it was (or NULL) */
  rs_array *sentinel = (rs_array *)(uintptr_t)0x10;
  rs_array *a = sentinel;
  rs_status st = rs_device_array(&a, ctx, 1, S1(-3), RS_FLOAT32, NULL, RS_ORDER_C);
  CHECK(st != RS_OK);
  CHECK_NO_OUTPUT(a, sentinel);
  a = sentinel;
  st = rs_host_array(&a, ctx, 1, S1(4), (rs_dtype)99, NULL, RS_ORDER_C);
  CHECK(st != RS_OK);
  CHECK_NO_OUTPUT(a, sentinel);
  rs_stream *ss = (rs_stream *)(uintptr_t)0x10, *s0 = ss;
  st = rs_stream_create(&ss, NULL, 0);
  CHECK(st != RS_OK);
  CHECK_MSG(ss == s0 || ss == NULL, "failed stream create produced %p", (void *)ss);
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(ctx, &live));
  CHECK_EQ_I64(live.arrays, 0);
  CHECK_EQ_I64(live.buffers, 0);
  CHECK_EQ_I64(live.streams, 0);
}

static const rs_test_case tests[] = {
    RS_TEST(test_null_pointers),    RS_TEST(test_negative_dims),
    RS_TEST(test_overflow),         RS_TEST(test_too_many_dims),
    RS_TEST(test_invalid_dtype),    RS_TEST(test_copy_mismatch_messages),
    RS_TEST(test_double_release),   RS_TEST(test_bad_views),
    RS_TEST(test_failed_calls_change_nothing),
};
RS_TEST_MAIN(tests)
