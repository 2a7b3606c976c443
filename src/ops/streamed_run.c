/* rs_streamed_run: the checks made before anything moves, the loop over the chunks, the
 * report. The chunk itself is queued by src/ops/streamed.c, the sizes chosen by
 * src/ops/streamed_plan.c. */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/layout.h"
#include "ledger/ledger_hooks.h"
#include "memory/buffer.h"
#include "ops/streamed_internal.h"
#include "stream/stream.h"

static const char *const who = "rs_streamed_run";

static rs_status check_side(const rs_array *a, const char *name) {
  char d[600];
  RS_TRY(rs_array_check(a, who));
  rs_mem_kind k = a->buf->kind;
  if (k != RS_MEM_HOST && k != RS_MEM_PINNED && k != RS_MEM_MAPPED)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: %s is %s memory; a streamed run reads and writes host arrays (pageable or pinned)",
                   who, name, rs_mem_kind_name(k));
  if (a->ndim < 1)
    return rs_fail(RS_ERR_SHAPE, "%s: %s %s has no axis to cut into chunks", who, name, rs_array_describe(a, d, sizeof d));
  if (!rs_layout_is_c_contiguous(a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype)))
    return rs_fail(RS_ERR_NOT_CONTIGUOUS, "%s: %s %s is not C-contiguous", who, name, rs_array_describe(a, d, sizeof d));
  return RS_OK;
}

static int same_rows(const rs_array *a, const rs_array *b) {
  if (a->ndim != b->ndim || a->dtype != b->dtype) return 0;
  for (int i = 1; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i]) return 0;
  return 1;
}

/* Everything that can be known before anything moves. */
static rs_status check_run(const rs_array *dst, const rs_array *src, rs_streamed_step step,
                           const rs_streamed_options *o) {
  if (!step) return rs_fail(RS_ERR_NULL_POINTER, "%s: step is NULL", who);
  RS_TRY(check_side(src, "src"));
  RS_TRY(check_side(dst, "dst"));
  if (src->ctx != dst->ctx) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: src and dst belong to different contexts", who);
  if (src->shape[0] != dst->shape[0])
    return rs_fail(RS_ERR_SHAPE, "%s: src has %lld rows and dst %lld: a chunk's rows of src become the same rows of dst",
                   who, (long long)src->shape[0], (long long)dst->shape[0]);
  if (src->buf == dst->buf && (src->offset != dst->offset || !same_rows(src, dst)))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: src and dst share memory but are not the same array; stream into a separate dst", who);
  if (o && o->chunk_rows != RS_STREAMED_AUTO && (o->chunk_rows < 1 || o->chunk_rows > src->shape[0]))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: chunk_rows = %lld: a chunk takes 1 to %lld rows (the array's), or RS_STREAMED_AUTO",
                   who, (long long)o->chunk_rows, (long long)src->shape[0]);
  if (o && o->streams != RS_STREAMED_AUTO && (o->streams < 1 || o->streams > RS_STREAMED_MAX_STREAMS))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: streams = %d: 1 to %d, or RS_STREAMED_AUTO", who, o->streams,
                   RS_STREAMED_MAX_STREAMS);
  rs_copy_cause cause = RS_EXPLICIT(who);
  RS_TRY(rs_guard_precheck(src->ctx, RS_DIR_H2D, rs_array_nbytes(src), &cause));
  return rs_guard_precheck(src->ctx, RS_DIR_D2H, rs_array_nbytes(dst), &cause);
}

static double elapsed(rs_event *a, rs_event *b) {
  float ms = 0;
  return a && b && rs_event_elapsed_ms(a, b, &ms) == RS_OK ? (double)ms : 0.0;
}

/* Device times from the chunks' events. A chunk's copy or step on one stream may wait
 * behind another stream's work on the same engine, and its events catch that wait too;
 * so each stage's time is its fastest timed chunk's time per row, times the rows: what
 * the stage takes running alone, which is what overlapping hides. */
static void fill_times(rs_streamed_run_state *r, int64_t chunks) {
  rs_streamed_report *rep = r->rep;
  double best[3] = {-1, -1, -1};
  /* Only the first chunks are timed, and the event list reaches no further than the last
   * event recorded: read nothing past it. */
  for (int64_t i = 0; i < chunks && rs_streamed_timed(r, i) && 4 * i + 3 < r->ev_cap; i++) {
    rs_event *e[4];
    for (int k = 0; k < 4; k++) e[k] = rs_streamed_ev(r, i, k);
    for (int k = 0; k < 3; k++) {
      double per_row = elapsed(e[k], e[k + 1]) / (double)r->chunk_rows_of[i];
      if (best[k] < 0 || per_row < best[k]) best[k] = per_row;
    }
  }
  rep->span_ms = elapsed(rs_streamed_ev(r, 0, 0), r->end);
  rep->copy_ms = (best[0] + best[2]) * (double)r->rows;
  rep->step_ms = best[1] * (double)r->rows;
  double hidden = rep->copy_ms + rep->step_ms - rep->span_ms;
  rep->hidden_ms = hidden < 0 ? 0 : hidden > rep->copy_ms ? rep->copy_ms : hidden;
}

static void cleanup(rs_streamed_run_state *r) {
  for (int i = 0; i < RS_STREAMED_MAX_STREAMS; i++) rs_streamed_slot_release(&r->slots[i]);
  rs_event_destroy(r->end);
  rs_stream_give_back(r->copy_in);
  rs_stream_give_back(r->copy_out);
  for (int64_t i = 0; i < r->ev_cap; i++) rs_event_destroy(r->ev[i]);
  free(r->ev);
  free(r->chunk_rows_of);
}

/* The probe: 1/64 of the rows, but at least RS_STREAMED_PROBE_BYTES (up to a quarter of
 * the rows). A smaller chunk times badly: its copies are mostly the fixed cost of a copy,
 * and its step the host's time to launch (ten launches over 1.5 MB take 40 us of host
 * time and 10 us of device time), which made the run choose 19-23 chunks for 100 MB on
 * an H200 where 12-16 are faster (bench/streamed, 2026-12-02). */
#define RS_STREAMED_PROBE_BYTES ((size_t)8 << 20)

static int64_t rs_streamed_probe_rows(const rs_streamed_run_state *r) {
  size_t row = r->row_in > r->row_out ? r->row_in : r->row_out;
  int64_t probe = r->rows / 64, least = (int64_t)((RS_STREAMED_PROBE_BYTES + row - 1) / row);
  if (probe < least) probe = least < r->rows / 4 ? least : r->rows / 4;
  return probe > 0 ? probe : 1;
}

/* The chunks after the probe (or all of them), then the drain of every slot. */
static rs_status run_chunks(rs_streamed_run_state *r, int64_t first, int64_t index, int64_t chunk_rows) {
  rs_status st = RS_OK;
  while (first < r->rows) {
    rs_streamed_chunk c = {index, first, r->rows - first < chunk_rows ? r->rows - first : chunk_rows,
                           (int)(index % r->nslots)};
    st = rs_streamed_slot_ensure(r, &r->slots[c.slot], chunk_rows);
    if (st == RS_OK) st = rs_streamed_chunk_run(r, &c);
    if (st != RS_OK) {
      if (r->rep->failed_chunk == -1) r->rep->failed_chunk = index;
      break;
    }
    first += c.rows;
    r->rep->chunks = ++index;
  }
  /* Chunks before a failed one still complete: their rows are written whole. */
  rs_status d = rs_streamed_drain(r);
  if (d != RS_OK && st == RS_OK) {
    r->rep->failed_chunk = -2;
    st = rs_fail_prefix(d, "%s: synchronizing the chunks: ", who);
  }
  r->rep->rows_done = r->rep->failed_chunk == -2 ? 0 : first;
  return st;
}

rs_status rs_streamed_run(rs_array *dst, const rs_array *src, rs_streamed_step step, void *user,
                          const rs_streamed_options *options, rs_streamed_report *report) {
  double t0 = rs_now_ms();
  rs_streamed_report local;
  rs_streamed_report *rep = report ? report : &local;
  memset(rep, 0, sizeof *rep);
  rep->failed_chunk = -1;
  RS_TRY(check_run(dst, src, step, options));
  rs_streamed_run_state r = {.ctx = src->ctx, .dst = dst, .src = src, .step = step, .user = user, .rep = rep,
                             .rows = src->shape[0], .in_place = same_rows(src, dst)};
  r.row_in = rs_array_nbytes(src) / (size_t)(r.rows ? r.rows : 1);
  r.row_out = rs_array_nbytes(dst) / (size_t)(r.rows ? r.rows : 1);
  if (r.rows == 0 || r.row_in == 0 || r.row_out == 0) return RS_OK; /* nothing to move */
  int64_t chunk_rows = options ? options->chunk_rows : RS_STREAMED_AUTO;
  int streams = options ? options->streams : RS_STREAMED_AUTO;
  int64_t first = 0, index = 0;
  rs_status st = rs_streamed_copy_streams(&r);
  int pageable = (src->buf->kind == RS_MEM_HOST) | (dst->buf->kind == RS_MEM_HOST) << 1;
  if (st == RS_OK && chunk_rows == RS_STREAMED_AUTO && rs_streamed_plan_find(&r, pageable, &chunk_rows, &streams)) {
    rep->planned = 1; /* sizes a probe chose in an earlier run */
  } else if (st == RS_OK && chunk_rows == RS_STREAMED_AUTO) {
    int64_t probe = rs_streamed_probe_rows(&r);
    int asked = streams;
    st = rs_streamed_probe(&r, probe, &chunk_rows, &streams);
    if (st == RS_OK) {
      first = probe, index = 1;
      rep->probed = 1;
      rs_streamed_plan_keep(&r, pageable, chunk_rows, asked == RS_STREAMED_AUTO ? streams : RS_STREAMED_AUTO);
    }
  }
  if (st == RS_OK && streams == RS_STREAMED_AUTO) {
    int64_t n = (r.rows - first + chunk_rows - 1) / chunk_rows;
    int most = rs_streamed_default_streams(&r);
    streams = n < most ? (int)(n > 0 ? n : 1) : most;
  }
  if (st == RS_OK) {
    r.nslots = streams;
    rep->streams = streams;
    rep->chunk_rows = chunk_rows;
    st = run_chunks(&r, first, index, chunk_rows);
  } else {
    rs_streamed_drain(&r);
  }
  if (st == RS_OK) fill_times(&r, rep->chunks);
  cleanup(&r);
  rep->staging_ms = r.staging_ms;
  rep->wall_ms = rs_now_ms() - t0;
  return st;
}
