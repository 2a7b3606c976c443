/* Issue 11 item 9: rs_memory_free takes only what rs_memory_alloc handed out. An array's
 * own memory comes from the same allocator, but freeing it through rs_memory_free would
 * let the next array reuse it while the first still reads it: refused, nothing lost. */
#include "harness.h"
#include "resident/allocator.h"
#include "resident/ops.h"

static double item0(const rs_array *a) {
  double v = -1;
  const int64_t index[1] = {0};
  if (rs_array_item_double(a, index, &v, NULL) != RS_OK) return -999;
  return v;
}

static void test_array_memory_refused(rs_context *ctx) {
  const int64_t n[1] = {1024};
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_full(&a, ctx, RS_MEM_DEVICE, 1, n, RS_FLOAT64, rs_scalar_float(1.0), NULL));
  void *mem = rs_array_device_data(a);
  CHECK(mem != NULL);
  CHECK_STATUS(rs_memory_free(ctx, mem, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_ERRMSG("rs_memory_alloc");
  /* The array still owns its memory: a new one does not get it, and a reads its own. */
  CHECK_OK(rs_full(&b, ctx, RS_MEM_DEVICE, 1, n, RS_FLOAT64, rs_scalar_float(2.0), NULL));
  CHECK(rs_array_device_data(b) != mem);
  CHECK_NEAR(item0(a), 1.0, 0);
  CHECK_NEAR(item0(b), 2.0, 0);
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(a)); /* no double free reported */
}

static void test_raw_memory_still_freed(rs_context *ctx) {
  void *p = NULL, *q = NULL;
  CHECK_OK(rs_memory_alloc(&p, ctx, 4096, NULL));
  CHECK(p != NULL);
  CHECK_STATUS(rs_memory_free(ctx, (char *)p + 256, NULL), RS_ERR_FOREIGN_MEMORY);
  CHECK_OK(rs_memory_free(ctx, p, NULL));
  CHECK_STATUS(rs_memory_free(ctx, p, NULL), RS_ERR_DOUBLE_FREE);
  CHECK_ERRMSG("freed already");
  CHECK_OK(rs_memory_alloc(&q, ctx, 0, NULL));
  CHECK(q == NULL);
  CHECK_OK(rs_memory_free(ctx, NULL, NULL));
}

/* Another context's raw memory is not this one's to free. */
static void test_other_contexts_memory(rs_context *ctx) {
  rs_context *other = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), rs_context_device(ctx)));
  void *p = NULL;
  rs_status st = rs_memory_alloc(&p, other, 512, NULL);
  if (st == RS_OK) {
    CHECK_STATUS(rs_memory_free(ctx, p, NULL), RS_ERR_FOREIGN_MEMORY);
    CHECK_OK(rs_memory_free(other, p, NULL));
  }
  CHECK_OK(rs_context_destroy(other));
  CHECK_OK(st);
}

static const rs_test_case tests[] = {
    RS_TEST(test_array_memory_refused),
    RS_TEST(test_raw_memory_still_freed),
    RS_TEST(test_other_contexts_memory),
};
RS_TEST_MAIN(tests)
