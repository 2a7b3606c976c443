/* Issue 11 item 10: flag bits the library does not know are refused and named (not
 * dropped); an expression holds exactly what the header says (16 arrays, 64 nodes) and
 * evaluates at the limit; a launch over INT64_MAX elements is refused without
 * overflowing on the way. */
#include "harness.h"
#include "kernel_test_util.h"
#include "resident/kernel.h"
#include "resident/ops.h"

static void test_unknown_flag_bits(rs_context *ctx) {
  const int64_t shape[1] = {8};
  rs_array *a = NULL, *d = NULL;
  CHECK_STATUS(rs_pinned_array(&a, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C, 0xFF),
               RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("0xfc");
  CHECK(a == NULL);
  CHECK_STATUS(rs_mapped_array(&a, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C, 0x100),
               RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("0x100");
  CHECK(a == NULL);
  /* The known bits still work. */
  CHECK_OK(rs_pinned_array(&a, ctx, 1, shape, RS_FLOAT32, NULL, RS_ORDER_C, RS_HOST_PORTABLE));
  CHECK_STATUS(rs_to_device(&d, a, 0x80, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("0x80");
  CHECK(d == NULL);
  CHECK_OK(rs_array_release(a));
  rs_stream *s = NULL;
  rs_event *e = NULL;
  CHECK_STATUS(rs_stream_create(&s, ctx, 0x10 | RS_STREAM_NON_BLOCKING), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("0x10");
  CHECK_STATUS(rs_event_create(&e, ctx, 0x20 | RS_EVENT_DISABLE_TIMING), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("0x20");
  CHECK_STATUS(rs_ledger_set_timing(ctx, 0x400 | RS_TIME_COPIES), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("0x400");
}

/* n arrays of ones (float32, 4 elements) summed in one expression. */
static void sum_of_arrays(rs_context *ctx, int n, int *ok_count) {
  const int64_t shape[1] = {4};
  rs_array *arr[RS_EXPR_MAX_ARRAYS + 1] = {0}, *y = NULL;
  rs_expr *e = NULL;
  *ok_count = -1;
  CHECK_OK(rs_expr_create(&e, ctx));
  int acc = -1, added = 0;
  for (int i = 0; i < n; i++) {
    CHECK_OK(rs_full(&arr[i], ctx, RS_MEM_DEVICE, 1, shape, RS_FLOAT32, rs_scalar_float(i + 1), NULL));
    int x = rs_expr_array(e, arr[i]);
    if (x < 0) break;
    added++;
    acc = i == 0 ? x : rs_expr_binary(e, RS_OP_ADD, acc, x);
  }
  *ok_count = added;
  rs_status st = added == n ? rs_expr_eval(&y, e, acc, NULL) : rs_expr_status(e);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  double v = -1;
  const int64_t i0[1] = {3};
  if (st == RS_OK) st = rs_array_item_double(y, i0, &v, NULL);
  rs_array_release(y);
  rs_expr_destroy(e);
  for (int i = 0; i < n; i++) rs_array_release(arr[i]);
  if (n <= RS_EXPR_MAX_ARRAYS) {
    CHECK_MSG(st == RS_OK, "%d arrays: %s", n, msg);
    CHECK_NEAR(v, n * (n + 1) / 2.0, 0);
  } else {
    CHECK_MSG(st == RS_ERR_INVALID_ARGUMENT && strstr(msg, "16 arrays"), "%d arrays: %s (%s)", n,
              rs_status_name(st), msg);
  }
}

static void test_expression_array_limit(rs_context *ctx) {
  int added = 0;
  sum_of_arrays(ctx, RS_EXPR_MAX_ARRAYS, &added);
  CHECK_EQ_I64(added, RS_EXPR_MAX_ARRAYS);
  sum_of_arrays(ctx, RS_EXPR_MAX_ARRAYS + 1, &added);
  CHECK_EQ_I64(added, RS_EXPR_MAX_ARRAYS); /* the 17th is refused when it is added */
}

/* 64 nodes evaluate, also into another dtype (which adds a cast to the program); the
 * 65th node is refused when it is added. */
static void test_expression_node_limit(rs_context *ctx) {
  const int64_t shape[1] = {4};
  rs_array *a = NULL, *y = NULL;
  CHECK_OK(rs_full(&a, ctx, RS_MEM_DEVICE, 1, shape, RS_FLOAT32, rs_scalar_float(1), NULL));
  CHECK_OK(rs_full(&y, ctx, RS_MEM_DEVICE, 1, shape, RS_FLOAT64, rs_scalar_float(-1), NULL));
  rs_expr *e = NULL;
  CHECK_OK(rs_expr_create(&e, ctx));
  int one = rs_expr_array(e, a), x = one, nodes = 1;
  while (nodes < RS_EXPR_MAX_NODES && x >= 0) {
    x = rs_expr_binary(e, RS_OP_ADD, x, one);
    nodes++;
  }
  rs_status built = rs_expr_status(e);
  rs_status st = rs_expr_eval_into(y, e, x, NULL);
  double v = -1;
  const int64_t i0[1] = {0};
  if (st == RS_OK) st = rs_array_item_double(y, i0, &v, NULL);
  int extra = rs_expr_binary(e, RS_OP_ADD, x, one);
  rs_status after = rs_expr_status(e);
  rs_expr_destroy(e);
  rs_array_release(y);
  rs_array_release(a);
  CHECK_OK(built);
  CHECK_OK(st);
  CHECK_NEAR(v, RS_EXPR_MAX_NODES, 0);
  CHECK(extra == -1);
  CHECK(after == RS_ERR_INVALID_ARGUMENT);
}

static const char *const count_src =
    "extern \"C\" __global__ void touch(int *out) { if (blockIdx.x == 0 && threadIdx.x == 0) *out = 1; }\n";

static void test_launch_elements_int64_max(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, count_src, "touch");
  rs_launch_config cfg = {.elements = INT64_MAX}, r;
  rs_status st = rs_kernel_resolve_config(k, &cfg, &r);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  rs_launch_config fixed = {.block = {128}, .elements = INT64_MAX - 5};
  rs_status st2 = rs_kernel_resolve_config(k, &fixed, &r);
  rs_kernel_destroy(k);
  CHECK_MSG(st == RS_ERR_LAUNCH && strstr(msg, "9223372036854775807 elements"), "%s: %s",
            rs_status_name(st), msg);
  CHECK(st2 == RS_ERR_LAUNCH);
}

static const rs_test_case tests[] = {
    RS_TEST(test_unknown_flag_bits),
    RS_TEST(test_expression_array_limit),
    RS_TEST(test_expression_node_limit),
    RS_TEST(test_launch_elements_int64_max),
};
RS_TEST_MAIN(tests)
