/* The memory layer's environment variables (read when a context is created):
 * RESIDENT_ALLOCATOR, RESIDENT_POOL_LIMIT, RESIDENT_MAX_PENDING_DEALLOCS_COUNT and
 * RESIDENT_MAX_PENDING_DEALLOCS_RATIO - good values take effect, bad ones make context
 * creation fail with a message naming the variable. */
#include "harness.h"
#include "resident/allocator.h"

#define S1(a) ((const int64_t[]){a})
#define MiB ((int64_t)1024 * 1024)

static const char *const vars[] = {"RESIDENT_ALLOCATOR", "RESIDENT_POOL_LIMIT",
                                   "RESIDENT_MAX_PENDING_DEALLOCS_COUNT",
                                   "RESIDENT_MAX_PENDING_DEALLOCS_RATIO"};

/* The tests set variables; restore what the runner had, so the order does not matter. */
static char *saved[4];

static void save_env(void) {
  for (int i = 0; i < 4; i++) {
    const char *v = getenv(vars[i]);
    saved[i] = v ? strdup(v) : NULL;
  }
}

static void restore_env(void) {
  for (int i = 0; i < 4; i++) {
    if (saved[i])
      setenv(vars[i], saved[i], 1);
    else
      unsetenv(vars[i]);
    free(saved[i]);
    saved[i] = NULL;
  }
}

static rs_status create_with(rs_context **out, rs_context *like, const char *var,
                             const char *value) {
  save_env();
  for (int i = 0; i < 4; i++) unsetenv(vars[i]);
  setenv(var, value, 1);
  rs_status st = rs_context_create(out, rs_context_backend(like), 0);
  restore_env();
  return st;
}

static rs_memory_stats stats_of(rs_context *c) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  if (rs_memory_get_stats(c, RS_SPACE_DEVICE, &st) != RS_OK) st.in_use_bytes = -1;
  return st;
}

static void test_allocator_variable(rs_context *ctx) {
  static const struct {
    const char *text;
    rs_allocator_kind kind;
  } good[] = {
      {"pool", RS_ALLOCATOR_POOL}, {"direct", RS_ALLOCATOR_DIRECT}, {"async", RS_ALLOCATOR_ASYNC}};
  for (size_t i = 0; i < 3; i++) {
    rs_context *c = NULL;
    CHECK_OK(create_with(&c, ctx, "RESIDENT_ALLOCATOR", good[i].text));
    CHECK_EQ_I64(rs_context_allocator(c), good[i].kind);
    rs_array *a = NULL;
    CHECK_OK(rs_device_array(&a, c, 1, S1(1000), RS_UINT8, NULL, RS_ORDER_C));
    CHECK_EQ_I64(stats_of(c).allocations, 1);
    CHECK_OK(rs_array_release(a));
    rs_context_destroy(c);
  }
  static const char *const bad[] = {"bogus", "POOL", "user", "pool "};
  for (size_t i = 0; i < 4; i++) {
    rs_context *c = NULL;
    CHECK_STATUS(create_with(&c, ctx, "RESIDENT_ALLOCATOR", bad[i]), RS_ERR_PARSE);
    CHECK_ERRMSG("RESIDENT_ALLOCATOR");
    CHECK(c == NULL);
  }
}

static void test_pool_limit_variable(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(create_with(&c, ctx, "RESIDENT_POOL_LIMIT", "64MiB"));
  CHECK_EQ_I64(stats_of(c).limit_bytes, 64 * MiB);
  rs_array *a = NULL;
  CHECK_STATUS(rs_device_array(&a, c, 1, S1(65 * MiB), RS_UINT8, NULL, RS_ORDER_C),
               RS_ERR_OUT_OF_MEMORY);
  CHECK_ERRMSG("limit");
  rs_context_destroy(c);
  static const char *const fractions[] = {"0.5", "50%", ".5"};
  for (size_t i = 0; i < 3; i++) {
    CHECK_OK(create_with(&c, ctx, "RESIDENT_POOL_LIMIT", fractions[i]));
    rs_memory_stats st = stats_of(c);
    CHECK_MSG(st.limit_bytes == st.device_total_bytes / 2, "'%s': limit %lld of %lld", fractions[i],
              (long long)st.limit_bytes, (long long)st.device_total_bytes);
    rs_context_destroy(c);
  }
  CHECK_OK(create_with(&c, ctx, "RESIDENT_POOL_LIMIT", "0"));
  CHECK_EQ_I64(stats_of(c).limit_bytes, 0);
  rs_context_destroy(c);
  CHECK_OK(create_with(&c, ctx, "RESIDENT_POOL_LIMIT", "4096")); /* a plain number is bytes */
  CHECK_EQ_I64(stats_of(c).limit_bytes, 4096);
  rs_context_destroy(c);
  static const char *const bad[] = {"lots", "12XB", "150%", "0%", "-1", "-0.5"};
  for (size_t i = 0; i < 6; i++) {
    c = NULL;
    CHECK_FAILS(create_with(&c, ctx, "RESIDENT_POOL_LIMIT", bad[i]));
    CHECK_ERRMSG("RESIDENT_POOL_LIMIT");
    CHECK(c == NULL);
  }
}

static void test_pending_variables(rs_context *ctx) {
  rs_context *c = NULL;
  CHECK_OK(create_with(&c, ctx, "RESIDENT_MAX_PENDING_DEALLOCS_COUNT", "3"));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, NULL));
  rs_array *a[4];
  for (int i = 0; i < 4; i++)
    CHECK_OK(rs_device_array(&a[i], c, 1, S1(64), RS_UINT8, NULL, RS_ORDER_C));
  for (int i = 0; i < 3; i++) CHECK_OK(rs_array_release(a[i]));
  CHECK_EQ_I64(stats_of(c).pending_frees, 3);
  CHECK_OK(rs_array_release(a[3]));
  CHECK_EQ_I64(stats_of(c).pending_frees, 0);
  rs_context_destroy(c);

  CHECK_OK(create_with(&c, ctx, "RESIDENT_MAX_PENDING_DEALLOCS_RATIO", "0.001"));
  CHECK_OK(rs_context_set_allocator(c, RS_ALLOCATOR_DIRECT, NULL));
  int64_t total = stats_of(c).device_total_bytes;
  CHECK_OK(rs_device_array(&a[0], c, 1, S1(total / 500), RS_UINT8, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_release(a[0])); /* 0.2% > 0.1% */
  CHECK_EQ_I64(stats_of(c).flushes, 1);
  rs_context_destroy(c);

  static const char *const bad_count[] = {"0", "-2", "ten", "3.5", ""};
  for (size_t i = 0; i < 4; i++) { /* "" means unset */
    c = NULL;
    CHECK_STATUS(create_with(&c, ctx, "RESIDENT_MAX_PENDING_DEALLOCS_COUNT", bad_count[i]),
                 RS_ERR_PARSE);
    CHECK_ERRMSG("RESIDENT_MAX_PENDING_DEALLOCS_COUNT");
  }
  static const char *const bad_ratio[] = {"0", "1.5", "-0.1", "half", "nan"};
  for (size_t i = 0; i < 5; i++) {
    c = NULL;
    CHECK_STATUS(create_with(&c, ctx, "RESIDENT_MAX_PENDING_DEALLOCS_RATIO", bad_ratio[i]),
                 RS_ERR_PARSE);
    CHECK_ERRMSG("RESIDENT_MAX_PENDING_DEALLOCS_RATIO");
  }
  CHECK_OK(create_with(&c, ctx, "RESIDENT_MAX_PENDING_DEALLOCS_RATIO", "1"));
  rs_context_destroy(c);
  CHECK_OK(create_with(&c, ctx, "RESIDENT_MAX_PENDING_DEALLOCS_COUNT", "")); /* unset */
  rs_context_destroy(c);
}

static const rs_test_case tests[] = {
    RS_TEST(test_allocator_variable),
    RS_TEST(test_pool_limit_variable),
    RS_TEST(test_pending_variables),
};
RS_TEST_MAIN(tests)
