/* Streamed execution (resident/streamed.h): the seed pipeline x = x*2 + 1, three times
 * per chunk, against its closed form 8x + 7 (exact in float32 for these inputs), from
 * pinned and pageable memory, chosen and given chunk sizes; a step with another output
 * shape (a row sum); exact ledger counts; ordering under tight buffer reuse (every row
 * distinct, so a chunk read before its copy finished or a buffer reused too early shows
 * up as a wrong value); bad input, with dst untouched or written only up to the failing
 * chunk. */
#include <string.h>
#include "harness.h"
#include "resident/ops.h"
#include "resident/reduce.h"
#include "resident/streamed.h"

static rs_status seed_step(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  (void)user;
  if (in != out && rs_array_size(in) != rs_array_size(out)) return RS_ERR_INTERNAL;
  for (int k = 0; k < 3; k++) H_OK(rs_t_axpb(in, 2.0, 1.0, s));
  return RS_OK;
}

static float input(int64_t i) { return (float)(i % 100003); }

static rs_array *make_host(rs_context *ctx, int pinned, int64_t n) {
  rs_array *a = NULL;
  rs_status st = pinned ? rs_pinned_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0)
                        : rs_host_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st != RS_OK) return NULL;
  float *p = rs_array_host_data(a);
  for (int64_t i = 0; i < n; i++) p[i] = input(i);
  return a;
}

/* The ledger's entries since its reset: `copies` chunk copies, recorded with no device time
 * of their own (the run times them; streamed.h), then one plain copy, which the ledger
 * does time (copy timing is on by default): the check can tell the two apart. */
static void chunk_copies_untimed(rs_context *ctx, int64_t copies) {
  int64_t n = 4096, count = 0, dropped = 0, chunk = 0;
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_status st = rs_array_copy(d, h, NULL);
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  if (st == RS_OK) st = rs_ledger_count(ctx, &count, &dropped);
  rs_array_release(d);
  rs_array_release(h);
  CHECK_OK(st);
  CHECK_EQ_I64(dropped, 0);
  rs_ledger_entry e;
  int64_t last = -1;
  for (int64_t i = 0; i < count; i++) {
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind == RS_ENTRY_COPY) last = i;
  }
  for (int64_t i = 0; i < count; i++) {
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind != RS_ENTRY_COPY) continue;
    if (i == last) {
      CHECK_MSG(e.device_ms >= 0, "the plain copy after the run has no device time (%g)", e.device_ms);
    } else {
      CHECK_MSG(strcmp(e.cause, "rs_streamed_run") == 0, "entry %lld: cause %s", (long long)i, e.cause);
      CHECK_MSG(e.device_ms == -1, "chunk copy %lld timed (%g ms)", (long long)i, e.device_ms);
      chunk++;
    }
  }
  CHECK_EQ_I64(chunk, copies);
}

/* The run's schedule, from the ledger's entries (streamed.h): every chunk's copy in on one
 * stream, every copy out on another, and the steps' kernels on neither, over at most
 * `streams` streams of their own. */
static void copies_on_two_streams(rs_context *ctx, int streams) {
  int64_t count = 0, dropped = 0, h2d = 0, d2h = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  CHECK_EQ_I64(dropped, 0);
  void *in = NULL, *out = NULL, *step[RS_STREAMED_MAX_STREAMS];
  int steps = 0;
  rs_ledger_entry e;
  for (int64_t i = 0; i < count; i++) {
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind == RS_ENTRY_COPY && strcmp(e.cause, "rs_streamed_run") == 0) {
      void **seen = e.dir == RS_H2D ? &in : &out;
      if (!*seen) *seen = e.stream;
      CHECK_MSG(e.stream == *seen, "entry %lld: a copy %s on a stream of its own", (long long)i,
                e.dir == RS_H2D ? "in" : "out");
      *(e.dir == RS_H2D ? &h2d : &d2h) += 1;
    } else if (e.kind == RS_ENTRY_KERNEL) {
      int k = 0;
      while (k < steps && step[k] != e.stream) k++;
      if (k == steps) {
        CHECK_MSG(steps < streams, "the steps ran on more than %d streams", streams);
        step[steps++] = e.stream;
      }
    }
  }
  CHECK(h2d > 0 && d2h > 0);
  CHECK_MSG(in != out, "copies in and out on one stream");
  for (int k = 0; k < steps; k++) CHECK_MSG(step[k] != in && step[k] != out, "a step on a copy stream");
}

/* In place over n floats; checks values, the report and the ledger. */
static void seed_run(rs_context *ctx, int pinned, int64_t n, const rs_streamed_options *o) {
  rs_array *a = make_host(ctx, pinned, n);
  CHECK(a != NULL);
  CHECK_OK(rs_ledger_reset(ctx));
  rs_streamed_report rep;
  rs_status st = rs_streamed_run(a, a, seed_step, NULL, o, &rep);
  if (st != RS_OK) rs_array_release(a);
  CHECK_OK(st);
  const float *p = rs_array_host_data(a);
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (p[i] != 8.0f * input(i) + 7.0f) bad = i;
  rs_ledger_stats s;
  st = rs_ledger_get_stats(ctx, &s);
  rs_array_release(a);
  CHECK_OK(st);
  CHECK_MSG(bad < 0, "element %lld wrong", (long long)bad);
  CHECK_EQ_I64(rep.failed_chunk, -1);
  CHECK_EQ_I64(rep.rows_done, n);
  CHECK(rep.chunks >= 1 && rep.streams >= 1);
  if (o && o->chunk_rows > 0) CHECK_EQ_I64(rep.chunks, (n + o->chunk_rows - 1) / o->chunk_rows);
  if (o && o->streams > 0) CHECK_EQ_I64(rep.streams, o->streams);
  CHECK_EQ_I64(rep.copies, 2 * rep.chunks);
  CHECK_EQ_I64(s.copies[RS_H2D][0], rep.chunks);
  CHECK_EQ_I64(s.copies[RS_D2H][0], rep.chunks);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 2 * rep.chunks);
  CHECK_EQ_I64(s.bytes[RS_H2D][0], n * 4);
  CHECK_EQ_I64(s.bytes[RS_D2H][0], n * 4);
  CHECK_EQ_I64(rep.bytes_h2d, n * 4);
  CHECK_EQ_I64(rep.bytes_d2h, n * 4);
  CHECK(rep.hidden_ms >= 0 && rep.hidden_ms <= rep.copy_ms + 1e-9);
  copies_on_two_streams(ctx, rep.streams);
  CHECK_PASSING();
  chunk_copies_untimed(ctx, 2 * rep.chunks);
}

static void test_streamed_pinned_given(rs_context *ctx) {
  rs_streamed_options o = {1000, 3};
  seed_run(ctx, 1, 10007, &o); /* ragged last chunk */
}

static void test_streamed_pageable_given(rs_context *ctx) {
  rs_streamed_options o = {4096, 4};
  seed_run(ctx, 0, 65536, &o);
}

static void test_streamed_chosen(rs_context *ctx) {
  seed_run(ctx, 1, 1 << 20, NULL);
  CHECK_PASSING();
  seed_run(ctx, 0, 1 << 20, NULL);
  CHECK_PASSING();
  rs_streamed_options o = RS_STREAMED_OPTIONS_AUTO;
  o.streams = 2;
  seed_run(ctx, 0, 100000, &o);
}

/* A second run of the same step over the same shapes reuses the first one's sizes. */
static void test_streamed_plan_reused(rs_context *ctx) {
  static int user_a; /* a key of its own: the earlier tests used NULL */
  int64_t n = 300000;
  rs_array *a = make_host(ctx, 1, n);
  CHECK(a != NULL);
  rs_streamed_report r1, r2;
  rs_status st = rs_streamed_run(a, a, seed_step, &user_a, NULL, &r1);
  if (st == RS_OK) st = rs_streamed_run(a, a, seed_step, &user_a, NULL, &r2);
  const float *p = rs_array_host_data(a);
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (p[i] != 64.0f * input(i) + 63.0f) bad = i;
  rs_array_release(a);
  CHECK_OK(st);
  CHECK_MSG(bad < 0, "element %lld wrong after two runs", (long long)bad);
  CHECK(r1.probed == 1 && r1.planned == 0);
  CHECK(r2.probed == 0 && r2.planned == 1);
  CHECK_EQ_I64(r2.chunk_rows, r1.chunk_rows);
  CHECK_EQ_I64(r2.copies, 2 * r2.chunks);
}

/* Many small chunks over 2 streams: each buffer is reused every other chunk. */
static void test_streamed_ordering_tight_reuse(rs_context *ctx) {
  rs_streamed_options o = {97, 2};
  seed_run(ctx, 0, 97 * 64 + 5, &o);
  CHECK_PASSING();
  seed_run(ctx, 1, 97 * 64 + 5, &o);
  CHECK_PASSING();
  rs_streamed_options one = {50, 1};
  seed_run(ctx, 0, 1000, &one);
  CHECK_PASSING();
  rs_streamed_options whole = {1000, RS_STREAMED_AUTO};
  seed_run(ctx, 1, 1000, &whole);
}

/* The device far behind the host: each chunk first sleeps on its stream, so the host
 * queues every chunk long before the copies run. A staging buffer refilled, or a device
 * buffer reused, before the copy that reads it has run would show as wrong values. */
static rs_status slow_seed_step(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  (void)user;
  H_OK(rs_t_sleep(rs_array_context(in), 0.5, s));
  return seed_step(in, out, s, NULL);
}

static void test_streamed_ordering_slow_device(rs_context *ctx) {
  int64_t n = 24 * 1000;
  for (int pinned = 0; pinned < 2; pinned++) {
    rs_array *src = make_host(ctx, pinned, n), *dst = make_host(ctx, !pinned, n);
    CHECK(src && dst);
    rs_streamed_options o = {1000, 2};
    rs_streamed_report rep;
    rs_status st = rs_streamed_run(dst, src, slow_seed_step, NULL, &o, &rep);
    const float *d = rs_array_host_data(dst), *p = rs_array_host_data(src);
    int64_t bad = -1;
    for (int64_t i = 0; st == RS_OK && i < n && bad < 0; i++)
      if (d[i] != 8.0f * input(i) + 7.0f || p[i] != input(i)) bad = i;
    rs_array_release(src);
    rs_array_release(dst);
    CHECK_OK(st);
    CHECK_MSG(bad < 0, "%s src: element %lld wrong (or src changed)", pinned ? "pinned" : "pageable", (long long)bad);
    CHECK_EQ_I64(rep.chunks, 24);
  }
}

/* A step whose output has another row shape: out is a separate buffer. */
static rs_status row_sum(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  (void)user;
  int axis = 1;
  return rs_sum_into(out, in, 1, &axis, 0, s);
}

static void test_streamed_row_sum(rs_context *ctx) {
  int64_t shape[2] = {5000, 8}, rows = 5000;
  rs_array *src = NULL, *dst = NULL;
  CHECK_OK(rs_host_array(&src, ctx, 2, shape, RS_FLOAT64, NULL, RS_ORDER_C));
  double *p = rs_array_host_data(src);
  for (int64_t i = 0; i < rows * 8; i++) p[i] = (double)(i % 17) + 0.25 * (double)(i / 8 % 5);
  rs_status st = rs_pinned_array(&dst, ctx, 1, &rows, RS_FLOAT64, NULL, RS_ORDER_C, 0);
  rs_streamed_report rep;
  rs_streamed_options o = {512, 3};
  if (st == RS_OK) st = rs_streamed_run(dst, src, row_sum, NULL, &o, &rep);
  int64_t bad = -1;
  if (st == RS_OK) {
    const double *q = rs_array_host_data(dst);
    for (int64_t r = 0; r < rows && bad < 0; r++) {
      double want = 0;
      for (int j = 0; j < 8; j++) want += p[r * 8 + j];
      if (fabs(q[r] - want) > 1e-9) bad = r;
    }
  }
  rs_array_release(src);
  rs_array_release(dst);
  CHECK_OK(st);
  CHECK_MSG(bad < 0, "row %lld wrong", (long long)bad);
  CHECK_EQ_I64(rep.chunks, 10);
  CHECK_EQ_I64(rep.bytes_h2d, rows * 8 * 8);
  CHECK_EQ_I64(rep.bytes_d2h, rows * 8);
}

/* Fails at chunk `user`; the chunks before it complete. */
typedef struct {
  int64_t at, seen;
} fail_plan;

static rs_status fail_at(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  fail_plan *f = user;
  (void)out;
  if (f->seen++ == f->at) return RS_ERR_INVALID_ARGUMENT;
  return seed_step(in, in, s, NULL);
}

static rs_status release_chunk(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  (void)out, (void)s, (void)user;
  return rs_array_release(in);
}

static void step_failure(rs_context *ctx, int pinned) {
  int64_t n = 10000;
  fail_plan at = {3, 0};
  rs_array *src = make_host(ctx, pinned, n), *dst = make_host(ctx, pinned, n);
  CHECK(src && dst);
  float *d = rs_array_host_data(dst);
  for (int64_t i = 0; i < n; i++) d[i] = -1.0f;
  rs_streamed_options o = {1000, 2};
  rs_streamed_report rep;
  CHECK_OK(rs_ledger_reset(ctx));
  rs_clear_error();
  rs_status st = rs_streamed_run(dst, src, fail_at, &at, &o, &rep);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (d[i] != (i < 3000 ? 8.0f * input(i) + 7.0f : -1.0f)) bad = i;
  rs_ledger_stats s;
  rs_status ls = rs_ledger_get_stats(ctx, &s);
  rs_array_release(src);
  rs_array_release(dst);
  CHECK_EQ_I64(st, RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "chunk 3") != NULL, "message: %s", msg);
  CHECK_EQ_I64(rep.failed_chunk, 3);
  CHECK_EQ_I64(rep.rows_done, 3000);
  CHECK_MSG(bad < 0, "element %lld: rows before chunk 3 hold results, the rest is untouched", (long long)bad);
  CHECK_OK(ls);
  CHECK_EQ_I64(s.copies[RS_H2D][0], 4); /* the failing chunk was copied in, never out */
  CHECK_EQ_I64(s.copies[RS_D2H][0], 3);
}

static void test_streamed_step_fails(rs_context *ctx) {
  step_failure(ctx, 0);
  CHECK_PASSING();
  step_failure(ctx, 1);
}

static void test_streamed_bad_input(rs_context *ctx) {
  int64_t n = 1000;
  rs_array *a = make_host(ctx, 0, n), *dev = NULL, *b = NULL, *strided = NULL;
  CHECK(a != NULL);
  CHECK_OK(rs_device_array(&dev, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  int64_t m = 999;
  CHECK_OK(rs_host_array(&b, ctx, 1, &m, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_slice every2 = {0, RS_SLICE_DEFAULT, 2};
  CHECK_OK(rs_array_slice(&strided, a, 1, &every2));
  rs_streamed_options zero = {0, 2}, big = {1001, 2}, streams0 = {10, 0}, streams99 = {10, 99};
  rs_streamed_report rep;
  CHECK_STATUS(rs_streamed_run(a, a, seed_step, NULL, &zero, &rep), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("chunk_rows = 0");
  CHECK_STATUS(rs_streamed_run(a, a, seed_step, NULL, &big, &rep), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("chunk_rows = 1001");
  CHECK_STATUS(rs_streamed_run(a, a, seed_step, NULL, &streams0, &rep), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_streamed_run(a, a, seed_step, NULL, &streams99, &rep), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_streamed_run(a, a, NULL, NULL, NULL, &rep), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_streamed_run(a, dev, seed_step, NULL, NULL, &rep), RS_ERR_MEMORY_KIND);
  CHECK_STATUS(rs_streamed_run(b, a, seed_step, NULL, NULL, &rep), RS_ERR_SHAPE);
  CHECK_STATUS(rs_streamed_run(a, strided, seed_step, NULL, NULL, &rep), RS_ERR_NOT_CONTIGUOUS);
  CHECK_STATUS(rs_streamed_run(strided, a, seed_step, NULL, NULL, &rep), RS_ERR_NOT_CONTIGUOUS);
  CHECK_STATUS(rs_streamed_run(NULL, a, seed_step, NULL, NULL, &rep), RS_ERR_NULL_POINTER);
  /* A step that releases its chunk. */
  rs_streamed_options o = {100, 2};
  CHECK_STATUS(rs_streamed_run(a, a, release_chunk, NULL, &o, &rep), RS_ERR_STATE);
  CHECK_ERRMSG("chunk 0");
  CHECK_EQ_I64(rep.failed_chunk, 0);
  /* The guard: nothing moves, a is untouched. */
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_guard_push(ctx, RS_H2D, RS_GUARD_DISALLOW_EXPLICIT));
  rs_status st = rs_streamed_run(a, a, seed_step, NULL, NULL, &rep);
  CHECK_OK(rs_guard_pop(ctx));
  CHECK_EQ_I64(st, RS_ERR_TRANSFER_REFUSED);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 0);
  const float *p = rs_array_host_data(a);
  for (int64_t i = 0; i < n; i++)
    if (p[i] != input(i)) FAIL("element %lld changed by a refused run", (long long)i);
  CHECK_OK(rs_array_release(strided));
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(dev));
  CHECK_OK(rs_array_release(a));
}

/* On a GPU the copies really run beside the steps: with a 1 ms step per chunk most of the
 * copy time is hidden. The simulator shares two cores among everything: not asserted. */
static rs_status sleepy_step(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  (void)out, (void)user;
  H_OK(rs_t_sleep(rs_array_context(in), 1.0, s));
  return RS_OK;
}

static void test_streamed_overlap_cuda(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_CUDA || rs_t_tool_serializes()) return;
  int64_t n = (int64_t)64 << 20; /* 256 MB of float32: about 5 ms each way */
  rs_array *a = NULL;
  CHECK_OK(rs_pinned_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  rs_streamed_options o = {n / 16, 4};
  rs_streamed_report rep;
  rs_status st = rs_streamed_run(a, a, sleepy_step, NULL, &o, &rep);
  rs_array_release(a);
  CHECK_OK(st);
  CHECK_MSG(rep.hidden_ms > 0.5 * rep.copy_ms, "copies %.3f ms, steps %.3f ms, span %.3f ms, hidden %.3f ms",
            rep.copy_ms, rep.step_ms, rep.span_ms, rep.hidden_ms);
}

static const rs_test_case tests[] = {
    RS_TEST(test_streamed_pinned_given),  RS_TEST(test_streamed_pageable_given),
    RS_TEST(test_streamed_chosen),        RS_TEST(test_streamed_plan_reused),
    RS_TEST(test_streamed_ordering_tight_reuse), RS_TEST(test_streamed_ordering_slow_device),
    RS_TEST(test_streamed_row_sum),       RS_TEST(test_streamed_step_fails),
    RS_TEST(test_streamed_bad_input),     RS_TEST(test_streamed_overlap_cuda),
};
RS_TEST_MAIN(tests)
