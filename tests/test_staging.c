/* Pageable copies through the pinned staging ring (src/transfer/staging.c): large H2D and
 * D2H copies, whole chunks and ragged tails, contiguous and strided, round-trip exactly and
 * count as one copy each. The simulator runs the same staging code when it is forced on. */
#include <stdlib.h>
#include "harness.h"
#include "resident/ledger.h"

/* A context with staging forced on (on CUDA it is on by default). */
static rs_context *staged_context(rs_context *ctx) {
  setenv("RESIDENT_PAGEABLE_STAGING", "on", 1);
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(ctx), rs_context_device(ctx));
  unsetenv("RESIDENT_PAGEABLE_STAGING");
  return st == RS_OK ? c : NULL;
}

/* Inner bodies may return early on a failed CHECK; the caller destroys the context, which
 * frees whatever they left, and checks that nothing was left on success. */
static void round_trip(rs_context *c, int64_t bytes, uint64_t seed) {
  rs_array *src = NULL, *dev = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&src, c, 1, &bytes, RS_UINT8, NULL, RS_ORDER_C));
  rs_t_pattern_(rs_array_host_data(src), (size_t)bytes, seed);
  CHECK_OK(rs_ledger_reset(c));
  CHECK_OK(rs_to_device(&dev, src, 0, NULL));
  CHECK_OK(rs_copy_to_host(&back, dev, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(back), rs_array_host_data(src), (size_t)bytes);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(c, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][0], 1);
  CHECK_EQ_I64(s.copies[RS_D2H][0], 1);
  CHECK_EQ_I64(s.bytes[RS_H2D][0], bytes);
  CHECK_EQ_I64(s.bytes[RS_D2H][0], bytes);
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(dev));
  CHECK_OK(rs_array_release(src));
}

/* Layouts that differ across the bus: C-order pageable host to an F-order device array
 * (staged H2D into a device temporary, then a device scatter) and back into a fresh
 * C-order host array (device gather, then staged D2H). */
static void other_layout(rs_context *c) {
  int64_t shape[2] = {1024, 2048};
  rs_array *h = NULL, *df = NULL, *back = NULL;
  CHECK_OK(rs_host_array(&h, c, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  float *hp = rs_array_host_data(h);
  for (int64_t i = 0; i < shape[0] * shape[1]; i++) hp[i] = (float)i;
  CHECK_OK(rs_device_array(&df, c, 2, shape, RS_FLOAT32, NULL, RS_ORDER_F));
  CHECK_OK(rs_array_copy(df, h, NULL));
  CHECK_OK(rs_host_array(&back, c, 2, shape, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_array_copy(back, df, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(back), hp, (size_t)(shape[0] * shape[1]) * sizeof(float));
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(df));
  CHECK_OK(rs_array_release(h));
}

static void nothing_left(rs_context *c) {
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(c, &live));
  CHECK_EQ_I64(live.arrays, 0);
  CHECK_EQ_I64(live.buffers, 0);
}

static void test_sizes(rs_context *ctx) {
  rs_context *c = staged_context(ctx);
  CHECK(c != NULL);
  /* At the threshold, exactly 4 chunks, a ragged tail, and more chunks than buffers. */
  const int64_t sizes[] = {4 << 20, 32 << 20, (8 << 20) + 12345, (40 << 20) + 7};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) round_trip(c, sizes[i], 100 + i);
  nothing_left(c);
  rs_context_destroy(c);
}

static void test_strided(rs_context *ctx) {
  rs_context *c = staged_context(ctx);
  CHECK(c != NULL);
  other_layout(c);
  nothing_left(c);
  rs_context_destroy(c);
}

static void test_bad_setting(rs_context *ctx) {
  setenv("RESIDENT_PAGEABLE_STAGING", "sometimes", 1);
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(ctx), 0);
  unsetenv("RESIDENT_PAGEABLE_STAGING");
  CHECK_EQ_I64(st, RS_ERR_PARSE);
  CHECK(rs_t_contains_(rs_last_error(), "RESIDENT_PAGEABLE_STAGING"));
  if (c) rs_context_destroy(c);
}

static const rs_test_case tests[] = {RS_TEST(test_sizes), RS_TEST(test_strided), RS_TEST(test_bad_setting)};
RS_TEST_MAIN(tests)
