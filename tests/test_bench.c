/* The benchmark helper: host times include the synchronization (a known device delay
 * shows in every host sample), device times come from events, warm-up calls are never
 * recorded, the copies inside a repeat are counted, and the statistics are right.
 *
 * The known delay is rs_t_sleep (tests/known_kernels.h): it keeps the stream busy for a given
 * number of milliseconds of device time while the host call returns at once. */
#include "harness.h"
#include "resident/bench.h"
#include "resident/kernel.h"
#include "resident/ledger.h"

#define S1(a) ((const int64_t[]){a})

static rs_status fresh(rs_context *ctx) { return rs_t_fresh_ledger_(ctx); }

/* ---- a function with a known device delay ------------------------------------------- */

typedef struct {
  rs_context *ctx;
  rs_stream *stream;
  int calls;
  int slow_calls;  /* the first slow_calls calls sleep slow_ms, later ones fast_ms */
  double slow_ms, fast_ms;
  double host_return_ms; /* longest time one call took to return on the host */
  int fail_at;     /* call number (1-based) that returns an error; 0 = never */
} sleeper;

static rs_status sleep_fn(void *user_data) {
  sleeper *s = (sleeper *)user_data;
  s->calls++;
  if (s->fail_at && s->calls == s->fail_at) return RS_ERR_INVALID_ARGUMENT;
  double ms = s->calls <= s->slow_calls ? s->slow_ms : s->fast_ms;
  double t0 = rs_t_now_ms_();
  rs_status st = rs_t_sleep(s->ctx, ms, s->stream);
  double dt = rs_t_now_ms_() - t0;
  if (dt > s->host_return_ms) s->host_return_ms = dt;
  return st;
}

static void test_host_time_includes_device_delay(rs_context *ctx) {
  rs_stream *st = NULL;
  CHECK_OK(fresh(ctx));
  /* the delay kernel is compiled before anything is timed: a first compile (a cold kernel
   * cache) is not the launch's return time */
  CHECK_OK(rs_t_kernels_warm(ctx));
  CHECK_OK(rs_stream_create(&st, ctx, 0));
  sleeper s = {ctx, st, 0, 0, 0, 20.0, 0, 0};
  rs_bench_options o = rs_bench_defaults();
  o.n_warmup = 1;
  o.n_repeat = 4;
  o.stream = st;
  rs_bench_result r;
  memset(&r, 0, sizeof r);
  rs_status bst = rs_benchmark(ctx, "sleep 20 ms", sleep_fn, &s, &o, &r);
  if (bst != RS_OK) {
    rs_stream_destroy(st);
    FAIL("rs_benchmark: %s \"%s\"", rs_status_name(bst), rs_t_msg_());
  }
  CHECK_OK(rs_stream_destroy(st));
  CHECK_EQ_I64(s.calls, 5);
  CHECK_EQ_I64(r.n_repeat, 4);
  CHECK_STREQ(r.name, "sleep 20 ms");
  CHECK(r.host_ms != NULL && r.device_ms != NULL);
  for (int i = 0; i < 4; i++) {
    CHECK_MSG(r.host_ms[i] >= 19.0, "host sample %d is %.3f ms for a 20 ms device delay: the "
              "synchronization is not included", i, r.host_ms[i]);
    CHECK_MSG(r.device_ms[i] >= 19.0, "device sample %d is %.3f ms for a 20 ms sleep kernel", i, r.device_ms[i]);
    /* the host waited for the device: its time is not shorter than the device's */
    CHECK_MSG(r.host_ms[i] >= r.device_ms[i] - 1.0, "sample %d: host %.3f ms < device %.3f ms", i,
              r.host_ms[i], r.device_ms[i]);
  }
  /* the delay was on the device: the calls themselves returned quickly, so the host
   * samples measure the synchronization, not the call */
  CHECK_MSG(s.host_return_ms < 15.0, "the sleep launch took %.3f ms to return (not asynchronous?)",
            s.host_return_ms);
  CHECK(r.host.min >= 19.0);
  /* one sleep per sample, not two (the warm-up is not in it); the median, because a
   * loaded machine (the simulator's worker is a host thread) can stretch one sample */
  CHECK_MSG(r.device.median <= 35.0, "device median %.3f ms for a 20 ms sleep kernel", r.device.median);
  CHECK_EQ_I64(r.copies, 0);
  CHECK_EQ_I64(r.bytes, 0);
  CHECK_EQ_I64(r.copies_total.kernels, 4);
  rs_bench_result_destroy(&r);
  CHECK(r.host_ms == NULL && r.device_ms == NULL);
  rs_bench_result_destroy(&r); /* safe twice */
  /* no scope was left open */
  CHECK_OK(rs_ledger_reset(ctx));
}

/* The same on the legacy stream (options NULL stream). */
static void test_legacy_stream(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  sleeper s = {ctx, NULL, 0, 0, 0, 20.0, 0, 0};
  rs_bench_options o = {0, 2, NULL};
  rs_bench_result r;
  CHECK_OK(rs_benchmark(ctx, "legacy", sleep_fn, &s, &o, &r));
  CHECK_EQ_I64(s.calls, 2);
  int ok = r.host_ms[0] >= 19.0 && r.host_ms[1] >= 19.0 && r.device_ms[0] >= 19.0 &&
           r.device_ms[1] >= 19.0;
  double h0 = r.host_ms[0], h1 = r.host_ms[1], d0 = r.device_ms[0], d1 = r.device_ms[1];
  rs_bench_result_destroy(&r);
  CHECK_MSG(ok, "samples host %.3f %.3f device %.3f %.3f ms for a 20 ms delay", h0, h1, d0, d1);
}

static void test_warmup_excluded(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  sleeper s = {ctx, NULL, 0, 2, 200.0, 5.0, 0, 0};
  rs_bench_options o = {2, 5, NULL};
  rs_bench_result r;
  CHECK_OK(rs_benchmark(ctx, "warm-up", sleep_fn, &s, &o, &r));
  int calls = s.calls;
  double host[5], dev[5];
  memcpy(host, r.host_ms, sizeof host);
  memcpy(dev, r.device_ms, sizeof dev);
  rs_bench_summary hs = r.host;
  int64_t kernels = r.copies_total.kernels;
  rs_bench_result_destroy(&r);
  CHECK_EQ_I64(calls, 7);
  for (int i = 0; i < 5; i++) {
    CHECK_MSG(host[i] < 100.0, "host sample %d is %.3f ms: a 200 ms warm-up call leaked into it", i,
              host[i]);
    CHECK_MSG(dev[i] < 100.0, "device sample %d is %.3f ms", i, dev[i]);
    CHECK_MSG(host[i] >= 4.5, "host sample %d is %.3f ms for a 5 ms device delay", i, host[i]);
  }
  CHECK(hs.max < 100.0);
  CHECK_EQ_I64(kernels, 5); /* the warm-up kernels are not in the totals either */
}

/* A failing function stops the benchmark; its status comes back and nothing is held. */
static void test_failure_stops(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  sleeper s = {ctx, NULL, 0, 0, 0, 0.0, 0, 4};
  rs_bench_options o = {1, 10, NULL};
  rs_bench_result r;
  memset(&r, 0x5a, sizeof r);
  CHECK_STATUS(rs_benchmark(ctx, "fails", sleep_fn, &s, &o, &r), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(s.calls, 4);
  CHECK(r.host_ms == NULL && r.device_ms == NULL);
  /* the repeat's ledger scope was closed */
  rs_ledger_stats junk;
  CHECK_STATUS(rs_ledger_end(ctx, &junk), RS_ERR_STATE);
  /* a failing warm-up too */
  s = (sleeper){ctx, NULL, 0, 0, 0, 0.0, 0, 1};
  memset(&r, 0x5a, sizeof r);
  CHECK_STATUS(rs_benchmark(ctx, "fails early", sleep_fn, &s, &o, &r), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(s.calls, 1);
  CHECK(r.host_ms == NULL && r.device_ms == NULL);
}

/* ---- copies inside a repeat ------------------------------------------------------------ */

typedef struct {
  rs_array *h, *d;
  int calls;
} round_trip;

static rs_status round_trip_fn(void *user_data) {
  round_trip *rt = (round_trip *)user_data;
  rt->calls++;
  rs_status st = rs_to_device_into(rt->d, rt->h, NULL);
  if (st == RS_OK) st = rs_copy_to_host_into(rt->h, rt->d, NULL);
  return st;
}

static void test_copies_counted(rs_context *ctx) {
  const int64_t n = 50000; /* float64: 400,000 bytes */
  round_trip rt = {NULL, NULL, 0};
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&rt.h, ctx, 1, S1(n), RS_FLOAT64, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&rt.d, ctx, 1, S1(n), RS_FLOAT64, NULL, RS_ORDER_C));
  double *hv = (double *)rs_array_host_data(rt.h);
  for (int64_t i = 0; i < n; i++) hv[i] = (double)i * 0.25;
  const int64_t nb = n * 8;
  rs_bench_options o = {2, 4, NULL};
  rs_bench_result r;
  CHECK_OK(rs_benchmark(ctx, "round trip", round_trip_fn, &rt, &o, &r));
  int64_t copies = r.copies, bytes = r.bytes;
  rs_ledger_stats tot = r.copies_total;
  double copy_ms = r.copy_ms;
  char printed[2][512] = {"", ""};
  int lines = 0;
  FILE *f = tmpfile();
  rs_status pst = f ? rs_bench_print(&r, f) : RS_ERR_INTERNAL;
  if (f) {
    rewind(f);
    char line[512];
    while (fgets(line, sizeof line, f)) {
      if (lines < 2) snprintf(printed[lines], sizeof printed[lines], "%s", line);
      lines++;
    }
    fclose(f);
  }
  rs_bench_result_destroy(&r);
  CHECK_EQ_I64(rt.calls, 6);
  CHECK_EQ_I64(copies, 2);
  CHECK_EQ_I64(bytes, 2 * nb);
  /* all 4 repeats together, warm-up excluded */
  CHECK_EQ_I64(tot.copies[RS_H2D][0], 4);
  CHECK_EQ_I64(tot.copies[RS_D2H][0], 4);
  CHECK_EQ_I64(tot.bytes[RS_H2D][0], 4 * nb);
  CHECK_EQ_I64(tot.bytes[RS_D2H][0], 4 * nb);
  CHECK_EQ_I64(rs_ledger_copies(&tot, 1), 0);
  CHECK_MSG(copy_ms >= 0, "copy_ms %g", copy_ms);
  /* the data made the round trip unchanged */
  for (int64_t i = 0; i < n; i++)
    CHECK_MSG(hv[i] == (double)i * 0.25, "element %lld is %g after the round trips", (long long)i,
              hv[i]);

  /* the printer: two lines, the name and timings, then the copies */
  CHECK_OK(pst);
  CHECK_EQ_I64(lines, 2);
  CHECK_MSG(strstr(printed[0], "round trip") != NULL, "first line \"%s\" lacks the name", printed[0]);
  CHECK_MSG(rs_t_contains_(printed[0], "host") && rs_t_contains_(printed[0], "device"),
            "first line \"%s\"", printed[0]);
  CHECK_MSG(rs_t_contains_(printed[1], "copies") && strstr(printed[1], "2") != NULL,
            "second line \"%s\" does not show 2 copies", printed[1]);
  CHECK_MSG(!rs_t_contains_(printed[0], "copies"), "the copies share the timing line: \"%s\"",
            printed[0]);
  CHECK_OK(rs_array_release(rt.d));
  CHECK_OK(rs_array_release(rt.h));
}

/* ---- statistics ---------------------------------------------------------------------- */

static void test_summarize(rs_context *ctx) {
  (void)ctx;
  /* odd count: mean 4, median 3, min 1, max 10; squared deviations 0+9+1+4+36 = 50,
   * sample variance 50/4 = 12.5 */
  const double a[] = {4, 1, 3, 2, 10};
  rs_bench_summary s = rs_bench_summarize(a, 5);
  CHECK_NEAR(s.mean, 4.0, 1e-12);
  CHECK_NEAR(s.median, 3.0, 1e-12);
  CHECK_NEAR(s.min, 1.0, 0);
  CHECK_NEAR(s.max, 10.0, 0);
  CHECK_NEAR(s.stddev, sqrt(12.5), 1e-12);
  /* the input is not reordered */
  CHECK(a[0] == 4 && a[1] == 1 && a[4] == 10);
  /* even count: the median is the mean of the two middle values; mean 5, squared
   * deviations 9+9+1+1 = 20, sample variance 20/3 */
  const double b[] = {2, 8, 4, 6};
  s = rs_bench_summarize(b, 4);
  CHECK_NEAR(s.mean, 5.0, 1e-12);
  CHECK_NEAR(s.median, 5.0, 1e-12);
  CHECK_NEAR(s.min, 2.0, 0);
  CHECK_NEAR(s.max, 8.0, 0);
  CHECK_NEAR(s.stddev, sqrt(20.0 / 3.0), 1e-12);
  /* equal values: no spread */
  const double c[] = {1.5, 1.5, 1.5};
  s = rs_bench_summarize(c, 3);
  CHECK_NEAR(s.mean, 1.5, 1e-15);
  CHECK_NEAR(s.stddev, 0.0, 1e-15);
  /* one value */
  const double d[] = {7.25};
  s = rs_bench_summarize(d, 1);
  CHECK_NEAR(s.mean, 7.25, 0);
  CHECK_NEAR(s.median, 7.25, 0);
  CHECK_NEAR(s.min, 7.25, 0);
  CHECK_NEAR(s.max, 7.25, 0);
  /* negative and fractional values, unsorted */
  const double e[] = {-0.5, 2.25, -3.0, 0.75, 1.0, 4.5};
  /* sorted: -3, -0.5, 0.75, 1, 2.25, 4.5; mean 5/6; median (0.75 + 1) / 2 */
  double mean = 5.0 / 6.0, ss = 0;
  for (int i = 0; i < 6; i++) ss += (e[i] - mean) * (e[i] - mean);
  s = rs_bench_summarize(e, 6);
  CHECK_NEAR(s.mean, mean, 1e-12);
  CHECK_NEAR(s.median, 0.875, 1e-12);
  CHECK_NEAR(s.min, -3.0, 0);
  CHECK_NEAR(s.max, 4.5, 0);
  CHECK_NEAR(s.stddev, sqrt(ss / 5.0), 1e-12);
}

/* The summaries of a result are the summaries of its samples. */
static void test_result_summaries(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  sleeper s = {ctx, NULL, 0, 0, 0, 2.0, 0, 0};
  rs_bench_options o = {0, 5, NULL};
  rs_bench_result r;
  CHECK_OK(rs_benchmark(ctx, "summaries", sleep_fn, &s, &o, &r));
  double mean = 0, lo = r.host_ms[0], hi = r.host_ms[0];
  for (int i = 0; i < 5; i++) {
    mean += r.host_ms[i] / 5;
    if (r.host_ms[i] < lo) lo = r.host_ms[i];
    if (r.host_ms[i] > hi) hi = r.host_ms[i];
  }
  rs_bench_summary hs = r.host;
  double dmin = r.device_ms[0];
  for (int i = 1; i < 5; i++)
    if (r.device_ms[i] < dmin) dmin = r.device_ms[i];
  rs_bench_summary ds = r.device;
  rs_bench_result_destroy(&r);
  CHECK_NEAR(hs.mean, mean, 1e-9);
  CHECK_NEAR(hs.min, lo, 0);
  CHECK_NEAR(hs.max, hi, 0);
  CHECK(hs.median >= lo && hs.median <= hi);
  CHECK_NEAR(ds.min, dmin, 0);
}

static void test_bad_options(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  sleeper s = {ctx, NULL, 0, 0, 0, 0.0, 0, 0};
  rs_bench_result r;
  memset(&r, 0x5a, sizeof r); /* a failed call must leave a result that holds no memory */
  rs_bench_options o = {0, 0, NULL};
  CHECK_STATUS(rs_benchmark(ctx, "zero", sleep_fn, &s, &o, &r), RS_ERR_INVALID_ARGUMENT);
  CHECK(r.host_ms == NULL && r.device_ms == NULL);
  o = (rs_bench_options){0, -1, NULL};
  CHECK_STATUS(rs_benchmark(ctx, "negative", sleep_fn, &s, &o, &r), RS_ERR_INVALID_ARGUMENT);
  o = (rs_bench_options){-1, 3, NULL};
  CHECK_STATUS(rs_benchmark(ctx, "negative warm-up", sleep_fn, &s, &o, &r), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(s.calls, 0); /* the function was never called */
  o = (rs_bench_options){0, 1, NULL};
  CHECK_FAILS(rs_benchmark(ctx, "no function", NULL, &s, &o, &r));
  CHECK_FAILS(rs_benchmark(ctx, "no result", sleep_fn, &s, &o, NULL));
  CHECK_FAILS(rs_bench_print(&r, NULL));
  CHECK_EQ_I64(s.calls, 0);
  /* defaults as documented */
  rs_bench_options d = rs_bench_defaults();
  CHECK_EQ_I64(d.n_warmup, 10);
  CHECK_EQ_I64(d.n_repeat, 100);
  CHECK(d.stream == NULL);
}

static const rs_test_case tests[] = {
    RS_TEST(test_host_time_includes_device_delay),
    RS_TEST(test_legacy_stream),
    RS_TEST(test_warmup_excluded),
    RS_TEST(test_failure_stops),
    RS_TEST(test_copies_counted),
    RS_TEST(test_summarize),
    RS_TEST(test_result_summaries),
    RS_TEST(test_bad_options),
};
RS_TEST_MAIN(tests)
