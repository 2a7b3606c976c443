/* Ops run where their data is: host arrays on the host (no copy, no kernel), device arrays
 * on the device (a kernel, no copy), mixed operands through implicit copies the ledger
 * records and the guard may refuse; pinned/mapped memory counts as host, managed as
 * device; scalars come back only through recorded copies; user streams order op work. */
#include "ops_testlib.h"
#include "resident/kernel.h"

static void test_host_path(rs_context *ctx) {
  int64_t n = 1000;
  rs_array *a = NULL, *b = NULL, *c = NULL, *s = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_HOST, 0, 1000, 1, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_HOST, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_add(&c, a, b, NULL));
  CHECK_OK(rs_sum(&s, c, 0, NULL, 0, NULL));
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_end(ctx, &st));
  CHECK_EQ_I64(rs_array_kind(c), RS_MEM_HOST);
  CHECK_EQ_I64(rs_array_kind(s), RS_MEM_HOST);
  CHECK_EQ_I64(rs_ledger_copies(&st, -1), 0);
  CHECK_EQ_I64(st.kernels, 0);
  /* the values are there at once, no synchronization needed */
  CHECK_NEAR(((float *)rs_array_host_data(c))[999], 1000, 0);
  CHECK_NEAR(*(float *)rs_array_host_data(s), 500500, 0);
  tl_release(4, a, b, c, s);
}

static void test_device_path(rs_context *ctx) {
  int64_t n = 1000;
  rs_array *a = NULL, *c = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, NULL));
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_multiply_scalar(&c, a, rs_scalar_float(3), NULL));
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_end(ctx, &st));
  CHECK_EQ_I64(rs_array_kind(c), RS_MEM_DEVICE);
  CHECK_EQ_I64(rs_ledger_copies(&st, -1), 0);
  CHECK_EQ_I64(st.kernels, 1);
  CHECK(rs_array_host_data(c) == NULL);
  tl_release(2, a, c);
}

static void test_mixed_implicit(rs_context *ctx) {
  int64_t n = 256;
  rs_array *h = NULL, *d = NULL, *c = NULL, *ho = NULL;
  CHECK_OK(rs_arange(&h, ctx, RS_MEM_HOST, 0, 256, 1, RS_FLOAT32, NULL));
  CHECK_OK(rs_ones(&d, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_add(&c, h, d, NULL));
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_end(ctx, &st));
  CHECK_EQ_I64(rs_array_kind(c), RS_MEM_DEVICE);
  CHECK_EQ_I64(st.copies[RS_H2D][1], 1); /* the host operand, in */
  CHECK_EQ_I64(st.bytes[RS_H2D][1], 1024);
  CHECK_EQ_I64(st.copies[RS_D2H][1], 0); /* read-only: never back */
  /* a host out of a device op: copied in and back, implicitly */
  CHECK_OK(rs_empty(&ho, ctx, RS_MEM_HOST, 1, &n, RS_FLOAT32));
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_add_into(ho, d, d, NULL));
  CHECK_OK(rs_ledger_end(ctx, &st));
  CHECK_EQ_I64(st.copies[RS_D2H][1], 1);
  CHECK_NEAR(((float *)rs_array_host_data(ho))[7], 2, 0); /* there when the call returns */
  /* the guard refuses: nothing computed, nothing allocated */
  rs_array *r = NULL;
  CHECK_OK(rs_guard_push(ctx, RS_ALL_DIRECTIONS, RS_GUARD_DISALLOW));
  CHECK_STATUS(rs_add(&r, h, d, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK(r == NULL);
  CHECK_STATUS(rs_multiply_into(ho, d, d, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_NEAR(((float *)rs_array_host_data(ho))[7], 2, 0);
  CHECK_OK(rs_add(&r, d, d, NULL)); /* all on the device: no copy to refuse */
  CHECK_OK(rs_guard_pop(ctx));
  tl_release(5, h, d, c, ho, r);
}

static void test_memory_kinds(rs_context *ctx) {
  int64_t n = 64;
  rs_array *p = NULL, *m = NULL, *r1 = NULL, *r2 = NULL, *mg = NULL, *r3 = NULL;
  CHECK_OK(rs_pinned_array(&p, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK_OK(rs_ones_into(p, NULL));
  CHECK_OK(rs_add(&r1, p, p, NULL));
  CHECK_EQ_I64(rs_array_kind(r1), RS_MEM_HOST); /* pinned is host memory */
  CHECK_NEAR(((float *)rs_array_host_data(r1))[0], 2, 0);
  rs_device_props props;
  CHECK_OK(rs_context_get_props(ctx, &props));
  if (props.can_map_host_memory) {
    CHECK_OK(rs_mapped_array(&m, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0));
    CHECK_OK(rs_full_into(m, rs_scalar_float(4), NULL));
    CHECK_OK(rs_sqrt(&r2, m, NULL));
    CHECK_EQ_I64(rs_array_kind(r2), RS_MEM_HOST);
    CHECK_NEAR(((float *)rs_array_host_data(r2))[3], 2, 0);
  }
  if (props.managed_memory) {
    CHECK_OK(rs_managed_array(&mg, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
    CHECK_OK(rs_full_into(mg, rs_scalar_float(9), NULL));
    CHECK_OK(rs_sqrt(&r3, mg, NULL));
    CHECK_EQ_I64(rs_array_kind(r3), RS_MEM_DEVICE); /* managed counts as device */
    double v;
    int64_t i = 5;
    CHECK_OK(rs_array_item_double(r3, &i, &v, NULL));
    CHECK_NEAR(v, 3, 0);
  }
  tl_release(6, p, m, r1, r2, mg, r3);
}

static void test_item_recorded(rs_context *ctx) {
  int64_t n = 10;
  rs_array *a = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 10, 1, RS_INT32, NULL));
  CHECK_OK(rs_ledger_reset(ctx));
  int64_t v = 0, idx = -3;
  CHECK_OK(rs_array_item_int64(a, &idx, &v, NULL));
  CHECK_EQ_I64(v, 7);
  int64_t count = 0, dropped = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  int found = 0;
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind == RS_ENTRY_COPY && e.dir == RS_D2H && !e.implicit && e.bytes == 4 &&
        strcmp(e.cause, "rs_array_item_to_host") == 0)
      found = 1;
  }
  CHECK(found);
  int64_t bad = 10;
  CHECK_STATUS(rs_array_item_int64(a, &bad, &v, NULL), RS_ERR_INDEX);
  CHECK_STATUS(rs_array_item_int64(a, NULL, &v, NULL), RS_ERR_INDEX); /* 10 elements need an index */
  (void)n;
  rs_array_release(a);
}

/* Work on a user stream is ordered on it. */
static void test_streams(rs_context *ctx) {
  int64_t n = 1 << 18;
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  rs_array *a = NULL, *b = NULL, *m = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, s));
  CHECK_OK(rs_t_sleep(ctx, 20, s)); /* later work must wait for it */
  CHECK_OK(rs_add_scalar_into(a, a, rs_scalar_float(1), s));
  CHECK_OK(rs_multiply_scalar(&b, a, rs_scalar_float(2), s));
  CHECK_OK(rs_max(&m, b, 0, NULL, 0, s));
  CHECK_OK(rs_stream_synchronize(s));
  double v = 0;
  CHECK_OK(rs_array_item_double(m, NULL, &v, s));
  CHECK_NEAR(v, 2, 0);
  tl_release(3, a, b, m);
  CHECK_OK(rs_stream_destroy(s));
}

static const rs_test_case tests[] = {RS_TEST(test_host_path),    RS_TEST(test_device_path),   RS_TEST(test_mixed_implicit),
                                     RS_TEST(test_memory_kinds), RS_TEST(test_item_recorded), RS_TEST(test_streams)};
RS_TEST_MAIN(tests)
