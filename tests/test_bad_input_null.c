/* Issue 11 item 8: NULL where a pointer is due is refused with a message, never read
 * through - the creators' `out`, the ledger's sums, the benchmark summary - and the
 * simulator takes only its own live native streams in rs_stream_wrap. */
#include "harness.h"
#include "resident/bench.h"
#include "resident/ops.h"
#include "resident/random.h"

static void test_creators_null_out(rs_context *ctx) {
  const int64_t shape[2] = {2, 3};
  rs_rng rng = rs_rng_seed(7);
  CHECK_STATUS(rs_zeros(NULL, ctx, RS_MEM_DEVICE, 2, shape, RS_FLOAT32, NULL), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_ones(NULL, ctx, RS_MEM_HOST, 2, shape, RS_INT32, NULL), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_full(NULL, ctx, RS_MEM_DEVICE, 2, shape, RS_FLOAT64, rs_scalar_float(2.5), NULL),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_arange(NULL, ctx, RS_MEM_DEVICE, 0, 10, 1, RS_INT64, NULL), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_linspace(NULL, ctx, RS_MEM_DEVICE, 0, 1, 5, 1, RS_FLOAT64, NULL), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_eye(NULL, ctx, RS_MEM_DEVICE, 3, -1, 0, RS_FLOAT32, NULL), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_random_uniform(NULL, &rng, ctx, RS_MEM_DEVICE, 2, shape, RS_FLOAT32, 0, 1, NULL),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_random_normal(NULL, &rng, ctx, RS_MEM_DEVICE, 2, shape, RS_FLOAT64, 0, 1, NULL),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  CHECK_STATUS(rs_random_integers(NULL, &rng, ctx, RS_MEM_DEVICE, 2, shape, RS_INT32, 0, 9, NULL),
               RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("out");
  /* The failed calls made nothing (the harness checks the live counters too). */
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(ctx, &live));
  CHECK_EQ_I64(live.arrays, 0);
}

static void test_ledger_sums_null(rs_context *ctx) {
  (void)ctx;
  rs_clear_error();
  CHECK_EQ_I64(rs_ledger_copies(NULL, -1), 0);
  CHECK_ERRMSG("rs_ledger_copies", "null");
  rs_clear_error();
  CHECK_EQ_I64(rs_ledger_bytes(NULL, 1), 0);
  CHECK_ERRMSG("rs_ledger_bytes", "null");
  rs_clear_error();
  CHECK(rs_ledger_copy_ms(NULL) == 0.0);
  CHECK_ERRMSG("rs_ledger_copy_ms", "null");
}

static void test_bench_summarize_null(rs_context *ctx) {
  (void)ctx;
  rs_clear_error();
  rs_bench_summary s = rs_bench_summarize(NULL, 4);
  CHECK(s.mean == 0 && s.stddev == 0 && s.median == 0 && s.min == 0 && s.max == 0);
  CHECK_ERRMSG("values", "null");
  const double v[3] = {3, 1, 2};
  s = rs_bench_summarize(v, 3);
  CHECK(s.mean == 2 && s.median == 2 && s.min == 1 && s.max == 3);
}

/* Any pointer at all, and a stream destroyed since, are not simulator streams. */
static void test_stream_wrap_foreign(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* CUDA cannot tell a cudaStream_t */
  static unsigned char junk[256];
  memset(junk, 0xAB, sizeof junk);
  rs_stream *w = NULL;
  CHECK_STATUS(rs_stream_wrap(&w, ctx, junk), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("not a live");
  CHECK(w == NULL);
  int local = 0;
  CHECK_STATUS(rs_stream_wrap(&w, ctx, &local), RS_ERR_INVALID_ARGUMENT);

  /* A live stream's handle wraps and works; once destroyed, the wrapper is refused. */
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  void *native = rs_stream_native(s);
  CHECK_OK(rs_stream_wrap(&w, ctx, native));
  CHECK_OK(rs_stream_synchronize(w));
  CHECK_OK(rs_stream_destroy(s));
  CHECK_STATUS(rs_stream_synchronize(w), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("not a live");
  CHECK_OK(rs_stream_destroy(w));
}

static const rs_test_case tests[] = {
    RS_TEST(test_creators_null_out),
    RS_TEST(test_ledger_sums_null),
    RS_TEST(test_bench_summarize_null),
    RS_TEST(test_stream_wrap_foreign),
};
RS_TEST_MAIN(tests)
