/* Graphs (resident/graph.h): a captured copy in, three kernels x = 2x + 1, an op and a copy
 * out, replayed against the closed form; replays in order on one stream and on others;
 * the ledger's one entry per replay with exact contents; what a capture refuses (by
 * name) without ending it; bad input. */
#include "harness.h"
#include "resident/graph.h"
#include "resident/ops.h"

#define N 4099

typedef struct {
  rs_stream *s;
  rs_array *in, *out, *dev; /* pinned, pinned, device */
} fixture;

static int setup(fixture *f, rs_context *ctx) {
  int64_t n = N;
  memset(f, 0, sizeof *f);
  if (rs_stream_create(&f->s, ctx, RS_STREAM_NON_BLOCKING) != RS_OK) return 0;
  if (rs_pinned_array(&f->in, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0) != RS_OK) return 0;
  if (rs_pinned_array(&f->out, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0) != RS_OK) return 0;
  if (rs_device_array(&f->dev, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C) != RS_OK) return 0;
  float *p = rs_array_host_data(f->in);
  for (int i = 0; i < N; i++) p[i] = (float)(i % 1000);
  /* Compiled and loaded before any capture (on CUDA a first compile inside one is legal
   * in relaxed mode, but it is not what is being tested). The warm-up reads dev: zeros first
   * (compute-sanitizer's initcheck). */
  if (rs_zeros_into(f->dev, f->s) != RS_OK) return 0;
  if (rs_t_axpb(f->dev, 1.0, 0.0, f->s) != RS_OK) return 0;
  if (rs_add_scalar_into(f->dev, f->dev, rs_scalar_float(0.0), f->s) != RS_OK) return 0;
  return rs_stream_synchronize(f->s) == RS_OK;
}

static void teardown(fixture *f) {
  rs_array_release(f->dev);
  rs_array_release(f->out);
  rs_array_release(f->in);
  rs_stream_destroy(f->s);
}

/* in -> dev, dev = 2 dev + 1 three times, dev += 0.5, dev -> out: out = 8 in + 7.5 */
static rs_status capture_pipeline(fixture *f, rs_graph **g) {
  H_OK(rs_graph_begin_capture(f->s));
  H_OK(rs_to_device_into(f->dev, f->in, f->s));
  for (int k = 0; k < 3; k++) H_OK(rs_t_axpb(f->dev, 2.0, 1.0, f->s));
  H_OK(rs_add_scalar_into(f->dev, f->dev, rs_scalar_float(0.5), f->s));
  H_OK(rs_copy_to_host_into(f->out, f->dev, f->s));
  return rs_graph_end_capture(g, f->s);
}

static int64_t first_wrong(const fixture *f, float scale, float shift) {
  const float *in = rs_array_host_data(f->in), *out = rs_array_host_data(f->out);
  for (int i = 0; i < N; i++)
    if (out[i] != scale * in[i] + shift) return i;
  return -1;
}

static void test_graph_replay(rs_context *ctx) {
  fixture f;
  CHECK(setup(&f, ctx));
  float *out = rs_array_host_data(f.out);
  for (int i = 0; i < N; i++) out[i] = -1.0f;
  CHECK_OK(rs_ledger_reset(ctx));
  rs_graph *g = NULL;
  CHECK_OK(capture_pipeline(&f, &g));
  /* Captured, not run: nothing moved, nothing recorded. */
  CHECK_OK(rs_stream_synchronize(f.s));
  CHECK(out[0] == -1.0f && out[N - 1] == -1.0f);
  int64_t count = -1, dropped = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  int64_t before = count;
  int64_t kernels = 0, copies = 0, bytes = 0;
  CHECK_OK(rs_graph_get_counts(g, &kernels, &copies, &bytes));
  CHECK_EQ_I64(kernels, 4); /* three launches and the op */
  CHECK_EQ_I64(copies, 2);
  CHECK_EQ_I64(bytes, 2 * N * 4);
  /* Three replays, each with new input written between them. */
  for (int r = 0; r < 3; r++) {
    float *in = rs_array_host_data(f.in);
    for (int i = 0; i < N; i++) in[i] = (float)((i * (r + 3)) % 1000);
    CHECK_OK(rs_graph_launch(g, f.s));
    CHECK_OK(rs_stream_synchronize(f.s));
    int64_t bad = first_wrong(&f, 8.0f, 7.5f);
    CHECK_MSG(bad < 0, "replay %d: element %lld is %g", r, (long long)bad, bad >= 0 ? out[bad] : 0.0);
  }
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(s.graphs, 3);
  CHECK_EQ_I64(s.copies[RS_H2D][0], 3);
  CHECK_EQ_I64(s.copies[RS_D2H][0], 3);
  CHECK_EQ_I64(s.bytes[RS_H2D][0], 3 * N * 4);
  CHECK_EQ_I64(s.kernels, 12);
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  int64_t graphs = 0;
  for (int64_t i = before; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind != RS_ENTRY_GRAPH) continue;
    graphs++;
    CHECK_EQ_I64(e.graph_copies, 2);
    CHECK_EQ_I64(e.graph_kernels, 4);
    CHECK_EQ_I64(e.bytes, 2 * N * 4);
  }
  CHECK_EQ_I64(graphs, 3);
  CHECK_OK(rs_graph_destroy(g));
  teardown(&f);
}

/* Replays queue in order: two in a row without synchronizing compose; on another stream
 * and on the default stream too. */
static void test_graph_order_and_streams(rs_context *ctx) {
  fixture f;
  CHECK(setup(&f, ctx));
  CHECK_OK(rs_to_device_into(f.dev, f.in, f.s));
  CHECK_OK(rs_graph_begin_capture(f.s));
  for (int k = 0; k < 3; k++) CHECK_OK(rs_t_axpb(f.dev, 2.0, 1.0, f.s));
  rs_graph *g = NULL;
  CHECK_OK(rs_graph_end_capture(&g, f.s));
  CHECK_OK(rs_graph_launch(g, f.s));
  CHECK_OK(rs_graph_launch(g, f.s)); /* 64 x + 63 */
  CHECK_OK(rs_copy_to_host_into(f.out, f.dev, f.s));
  CHECK_OK(rs_stream_synchronize(f.s));
  int64_t bad = first_wrong(&f, 64.0f, 63.0f);
  CHECK_MSG(bad < 0, "two replays: element %lld wrong", (long long)bad);
  rs_stream *other = NULL;
  CHECK_OK(rs_stream_create(&other, ctx, 0));
  CHECK_OK(rs_to_device_into(f.dev, f.in, other));
  CHECK_OK(rs_graph_launch(g, other));
  CHECK_OK(rs_graph_launch(g, NULL));
  CHECK_OK(rs_copy_to_host_into(f.out, f.dev, NULL));
  CHECK_OK(rs_stream_synchronize(NULL));
  bad = first_wrong(&f, 64.0f, 63.0f);
  CHECK_MSG(bad < 0, "replays on two streams: element %lld wrong", (long long)bad);
  CHECK_OK(rs_graph_destroy(g));
  CHECK_OK(rs_stream_destroy(other));
  /* An empty capture replays as nothing. */
  CHECK_OK(rs_graph_begin_capture(f.s));
  CHECK_OK(rs_graph_end_capture(&g, f.s));
  int64_t kernels = -1, copies = -1;
  CHECK_OK(rs_graph_get_counts(g, &kernels, &copies, NULL));
  CHECK_EQ_I64(kernels, 0);
  CHECK_EQ_I64(copies, 0);
  CHECK_OK(rs_graph_launch(g, f.s));
  CHECK_OK(rs_stream_synchronize(f.s));
  CHECK_OK(rs_graph_destroy(g));
  teardown(&f);
}

/* What would break a capture is refused, by name, and the capture goes on. */
static void test_graph_capture_refusals(rs_context *ctx) {
  fixture f;
  CHECK(setup(&f, ctx));
  int64_t n = N;
  rs_array *pageable = NULL;
  rs_event *ev = NULL;
  CHECK_OK(rs_host_array(&pageable, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_event_create(&ev, ctx, 0));
  CHECK_OK(rs_to_device_into(f.dev, f.in, f.s));
  CHECK_OK(rs_stream_synchronize(f.s));
  CHECK_OK(rs_graph_begin_capture(f.s));
  CHECK_STATUS(rs_graph_begin_capture(f.s), RS_ERR_STATE);
  CHECK_OK(rs_t_axpb(f.dev, 2.0, 1.0, f.s));
  CHECK_STATUS(rs_to_device_into(f.dev, pageable, f.s), RS_ERR_TRANSFER_REFUSED);
  CHECK_ERRMSG("rs_to_device_into");
  CHECK_ERRMSG("captured");
  CHECK_STATUS(rs_copy_to_host_into(pageable, f.dev, f.s), RS_ERR_TRANSFER_REFUSED);
  CHECK_STATUS(rs_t_axpb(pageable, 2.0, 1.0, f.s), RS_ERR_TRANSFER_REFUSED); /* implicit copy */
  CHECK_ERRMSG("implicit");
  CHECK_STATUS(rs_to_device_into(f.dev, f.in, NULL), RS_ERR_TRANSFER_REFUSED); /* legacy stream */
  CHECK_STATUS(rs_stream_synchronize(f.s), RS_ERR_STATE);
  CHECK_ERRMSG("captured");
  CHECK_STATUS(rs_context_synchronize(ctx), RS_ERR_STATE);
  CHECK_STATUS(rs_event_record(ev, f.s), RS_ERR_STATE);
  CHECK_STATUS(rs_stream_wait_event(f.s, ev), RS_ERR_STATE);
  CHECK_STATUS(rs_stream_destroy(f.s), RS_ERR_STATE);
  CHECK_OK(rs_t_axpb(f.dev, 2.0, 1.0, f.s));
  rs_graph *g = NULL;
  CHECK_OK(rs_graph_end_capture(&g, f.s));
  rs_graph *none = NULL;
  CHECK_STATUS(rs_graph_end_capture(&none, f.s), RS_ERR_STATE);
  CHECK(none == NULL);
  int64_t kernels = 0, copies = -1;
  CHECK_OK(rs_graph_get_counts(g, &kernels, &copies, NULL));
  CHECK_EQ_I64(kernels, 2);
  CHECK_EQ_I64(copies, 0);
  CHECK_OK(rs_graph_launch(g, f.s)); /* dev = 4 (4 in + 3) + 3 = 16 in + 15 */
  CHECK_OK(rs_copy_to_host_into(f.out, f.dev, f.s));
  CHECK_OK(rs_stream_synchronize(f.s));
  int64_t bad = first_wrong(&f, 4.0f, 3.0f);
  CHECK_MSG(bad < 0, "the refused calls did nothing: element %lld wrong", (long long)bad);
  CHECK_OK(rs_graph_destroy(g));
  CHECK_OK(rs_event_destroy(ev));
  CHECK_OK(rs_array_release(pageable));
  teardown(&f);
}

static void test_graph_bad_input(rs_context *ctx) {
  rs_graph *g = NULL;
  CHECK_STATUS(rs_graph_begin_capture(NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_graph_begin_capture(rs_stream_legacy(ctx)), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_graph_begin_capture(rs_stream_per_thread(ctx)), RS_ERR_INVALID_ARGUMENT);
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_STATUS(rs_graph_end_capture(&g, s), RS_ERR_STATE);
  CHECK(g == NULL);
  CHECK_STATUS(rs_graph_end_capture(NULL, s), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_graph_launch(NULL, s), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_graph_get_counts(NULL, NULL, NULL, NULL), RS_ERR_NULL_POINTER);
  CHECK_OK(rs_graph_destroy(NULL));
  CHECK_OK(rs_graph_begin_capture(s));
  CHECK_OK(rs_graph_end_capture(&g, s));
  CHECK_OK(rs_graph_destroy(g));
  CHECK_STATUS(rs_graph_destroy(g), RS_ERR_DESTROYED);
  CHECK_STATUS(rs_graph_launch(g, s), RS_ERR_DESTROYED);
  CHECK_OK(rs_stream_destroy(s));
}

static const rs_test_case tests[] = {RS_TEST(test_graph_replay), RS_TEST(test_graph_order_and_streams),
                                     RS_TEST(test_graph_capture_refusals), RS_TEST(test_graph_bad_input)};
RS_TEST_MAIN(tests)
