/* Streamed execution (resident/streamed.h): chunks of rows over several streams, so the
 * copy in of one chunk, the steps of another and the copy out of a third overlap. Every
 * chunk copy goes through the one copy path (the ledger records it, the guard may refuse
 * it); a pageable side is staged through the run's pinned buffers by the host, which
 * does that while the device works on the chunks queued before. */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "ledger/ledger_hooks.h"
#include "memory/buffer.h"
#include "ops/streamed_internal.h"
#include "stream/stream.h"
#include "transfer/copy.h"
#include "transfer/staging.h"

static const char *const who = "rs_streamed_run";

/* A view of `rows` rows of a (C-contiguous, ndim >= 1) from row `first`. */
static rs_status rows_view(rs_array **out, const rs_array *a, int64_t first, int64_t rows) {
  int64_t shape[RS_MAX_DIMS];
  memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
  shape[0] = rows;
  return rs_array_new_view(out, a, a->ndim, shape, a->strides, a->offset + first * a->strides[0]);
}

static int is_pageable(const rs_array *a) { return rs_buffer_effective_kind(a->buf) == RS_MEM_HOST; }

/* A fresh array of kind with a's row shape and `rows` rows, for the slot's stream: device
 * memory allocated for the stream that uses it needs no event per copy or launch (a
 * dozen event records a chunk with ten kernels). */
static rs_status rows_alloc(rs_array **out, const rs_array *a, rs_mem_kind kind, int64_t rows, rs_stream *stream) {
  int64_t shape[RS_MAX_DIMS];
  memcpy(shape, a->shape, (size_t)a->ndim * sizeof *shape);
  shape[0] = rows;
  void *native = NULL;
  if (kind == RS_MEM_DEVICE) RS_TRY(rs_stream_resolve(a->ctx, stream, &native, who));
  return rs_array_alloc_on(out, a->ctx, kind, 0, native, a->ndim, shape, a->dtype, NULL, RS_ORDER_C, who);
}

static void slot_free_buffers(rs_streamed_slot *s) {
  if (s->dev_out != s->dev_in) rs_array_release(s->dev_out);
  rs_array_release(s->dev_in);
  rs_array_release(s->stage_in);
  rs_array_release(s->stage_out);
  s->dev_in = s->dev_out = s->stage_in = s->stage_out = NULL;
  s->cap_rows = 0;
}

void rs_streamed_slot_release(rs_streamed_slot *s) {
  slot_free_buffers(s);
  rs_event_destroy(s->loaded);
  rs_event_destroy(s->computed);
  rs_event_destroy(s->freed);
  rs_stream_give_back(s->stream);
}

/* A stream borrowed for the run that first waits for the work the caller queued on the
 * legacy stream before the run (a copy into a pinned src, say). */
static rs_status borrow_after_legacy(rs_streamed_run_state *r, rs_stream **out) {
  RS_TRY(rs_stream_borrow(out, r->ctx)); /* kept by the context between runs */
  rs_event *before = NULL;
  RS_TRY(rs_event_create(&before, r->ctx, RS_EVENT_DISABLE_TIMING));
  rs_status st = rs_event_record(before, NULL);
  if (st == RS_OK) st = rs_stream_wait_event(*out, before);
  rs_event_destroy(before);
  return st;
}

rs_status rs_streamed_copy_streams(rs_streamed_run_state *r) {
  if (!r->copy_in) RS_TRY(borrow_after_legacy(r, &r->copy_in));
  if (!r->copy_out) RS_TRY(borrow_after_legacy(r, &r->copy_out));
  return RS_OK;
}

rs_status rs_streamed_slot_ensure(rs_streamed_run_state *r, rs_streamed_slot *s, int64_t rows) {
  if (!s->stream) {
    /* The slot's stream touches only the slot's own buffers: nothing of the caller's to
     * wait for. */
    RS_TRY(rs_stream_borrow(&s->stream, r->ctx));
    s->pending = s->last = -1;
    RS_TRY(rs_event_create(&s->loaded, r->ctx, RS_EVENT_DISABLE_TIMING));
    RS_TRY(rs_event_create(&s->computed, r->ctx, RS_EVENT_DISABLE_TIMING));
    RS_TRY(rs_event_create(&s->freed, r->ctx, RS_EVENT_DISABLE_TIMING));
  }
  if (s->cap_rows >= rows) return RS_OK;
  /* Buffers grow only on an idle slot (the probe's, before the run proper). */
  if (s->last >= 0) RS_TRY(rs_event_synchronize(s->freed));
  slot_free_buffers(s);
  RS_TRY(rows_alloc(&s->dev_in, r->src, RS_MEM_DEVICE, rows, s->stream));
  if (r->in_place)
    s->dev_out = s->dev_in;
  else
    RS_TRY(rows_alloc(&s->dev_out, r->dst, RS_MEM_DEVICE, rows, s->stream));
  if (is_pageable(r->src)) RS_TRY(rows_alloc(&s->stage_in, r->src, RS_MEM_PINNED, rows, s->stream));
  if (is_pageable(r->dst)) RS_TRY(rows_alloc(&s->stage_out, r->dst, RS_MEM_PINNED, rows, s->stream));
  s->cap_rows = rows;
  return RS_OK;
}

/* Row bytes of a's rows [first, first + rows) as a host pointer. */
static char *host_rows(const rs_array *a, int64_t first) {
  return (char *)rs_array_host_ptr(a) + first * a->strides[0];
}

static void host_copy(rs_streamed_run_state *r, void *dst, const void *src, size_t bytes, int into_staging) {
  double t0 = rs_now_ms();
  rs_staging_host_copy(r->ctx, dst, src, bytes, into_staging);
  r->staging_ms += rs_now_ms() - t0;
}

/* The slot's earlier results, staged in pinned memory, into the caller's dst. */
static rs_status slot_copy_out(rs_streamed_run_state *r, rs_streamed_slot *s) {
  if (s->pending < 0) return RS_OK;
  RS_TRY(rs_event_synchronize(s->freed));
  host_copy(r, host_rows(r->dst, s->pending_first), rs_array_host_ptr(s->stage_out),
            (size_t)s->pending_rows * r->row_out, 0);
  s->pending = -1;
  return RS_OK;
}

rs_status rs_streamed_drain(rs_streamed_run_state *r) {
  rs_status st = RS_OK;
  if (r->copy_out) {
    /* One event at the end instead of one after every chunk's copy out. */
    if (!r->end) st = rs_event_create(&r->end, r->ctx, 0);
    if (st == RS_OK) st = rs_event_record(r->end, r->copy_out);
  }
  /* Every stream, not only the last copies': after a failed step, copies in and steps
   * of later chunks may be queued with no copy out behind them. */
  rs_stream *all[2] = {r->copy_in, r->copy_out};
  for (int i = 0; i < 2; i++) {
    rs_status d = all[i] ? rs_stream_synchronize(all[i]) : RS_OK;
    if (st == RS_OK) st = d;
  }
  for (int i = 0; i < RS_STREAMED_MAX_STREAMS; i++) {
    rs_streamed_slot *s = &r->slots[i];
    if (!s->stream) continue;
    rs_status d = rs_stream_synchronize(s->stream);
    if (d == RS_OK) d = slot_copy_out(r, s);
    if (st == RS_OK) st = d;
  }
  return st;
}

/* The step, then the checks of what it did to its chunk. */
static rs_status run_step(rs_streamed_run_state *r, rs_array *in, rs_array *out, rs_stream *stream, int *released) {
  rs_status st = r->step(in, out, stream, r->user);
  int gone_in = rs_array_check(in, who) != RS_OK, gone_out = rs_array_check(out, who) != RS_OK;
  *released = gone_in | gone_out << 1;
  if (st != RS_OK) return st;
  if (*released)
    return rs_fail(RS_ERR_STATE, "the step released its chunk array %s (chunk arrays belong to the run)",
                   gone_in ? "in" : "out");
  return RS_OK;
}

/* Chunks whose every stage is timed: the first ones, enough for the fastest-chunk
 * figures of the report; the others record only the slot's events that hand its buffers
 * on. Every event record is a command on the stream between a copy and a kernel, about
 * 1 us of the pipeline's time on an H200 (bench/streamed with the ledger's copy timing on
 * and off), so the run keeps them few. */
#define RS_STREAMED_TIMED_CHUNKS 4

int rs_streamed_timed(const rs_streamed_run_state *r, int64_t chunk) {
  (void)r;
  return chunk < RS_STREAMED_TIMED_CHUNKS;
}

/* Record the chunk's timing event k on `stream`, creating it first (timed chunks only). */
static rs_status chunk_event(rs_streamed_run_state *r, const rs_streamed_chunk *c, int k, rs_stream *stream) {
  if (!rs_streamed_timed(r, c->index)) return RS_OK;
  int64_t at = 4 * c->index + k;
  if (at >= r->ev_cap) {
    int64_t cap = r->ev_cap ? 2 * r->ev_cap : 64;
    while (cap <= at) cap *= 2;
    rs_event **grown = realloc(r->ev, (size_t)cap * sizeof *grown);
    if (!grown) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: no memory for %lld events", who, (long long)cap);
    memset(grown + r->ev_cap, 0, (size_t)(cap - r->ev_cap) * sizeof *grown);
    r->ev = grown;
    int64_t *rows = realloc(r->chunk_rows_of, (size_t)(cap / 4) * sizeof *rows);
    if (!rows) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: no memory for %lld chunks", who, (long long)cap / 4);
    r->chunk_rows_of = rows;
    r->ev_cap = cap;
  }
  if (!r->ev[at]) RS_TRY(rs_event_create(&r->ev[at], r->ctx, 0));
  if (k == 0) r->chunk_rows_of[c->index] = c->rows;
  return rs_event_record(r->ev[at], stream);
}

/* `to` waits for `what`, just recorded on `from`. */
static rs_status hand_on(rs_event *what, rs_stream *from, rs_stream *to) {
  RS_TRY(rs_event_record(what, from));
  return rs_stream_wait_event(to, what);
}

/* The copy in, on copy_in: from src itself when it is pinned, else through the slot's
 * pinned buffer, refilled once the copy that read it last has finished. The slot's
 * buffers are free once its previous chunk's results are out. */
static rs_status chunk_copy_in(rs_streamed_run_state *r, const rs_streamed_chunk *c, rs_array *in,
                               const rs_copy_cause *cause) {
  rs_streamed_slot *s = &r->slots[c->slot];
  rs_array *src_rows = NULL;
  rs_status st = RS_OK;
  if (s->last >= 0) st = rs_stream_wait_event(r->copy_in, s->freed);
  if (st == RS_OK && s->stage_in) {
    if (s->last >= 0) st = rs_event_synchronize(s->loaded);
    if (st == RS_OK)
      host_copy(r, rs_array_host_ptr(s->stage_in), host_rows(r->src, c->first), (size_t)c->rows * r->row_in, 1);
    if (st == RS_OK) st = rows_view(&src_rows, s->stage_in, 0, c->rows);
  } else if (st == RS_OK) {
    st = rows_view(&src_rows, r->src, c->first, c->rows);
  }
  if (st == RS_OK) st = chunk_event(r, c, 0, r->copy_in);
  if (st == RS_OK) st = rs_copy_path(in, src_rows, r->copy_in, cause);
  if (st == RS_OK) {
    r->rep->copies++;
    r->rep->bytes_h2d += (int64_t)((size_t)c->rows * r->row_in);
    s->last = c->index;
    st = chunk_event(r, c, 1, r->copy_in);
  }
  if (st == RS_OK) st = hand_on(s->loaded, r->copy_in, s->stream);
  rs_array_release(src_rows);
  return st;
}

/* The copy out, on copy_out once the step has run: into dst when it is pinned, else into
 * the slot's pinned buffer once the results of its previous chunk have been taken out. */
static rs_status chunk_copy_out(rs_streamed_run_state *r, const rs_streamed_chunk *c, rs_array *out,
                                const rs_copy_cause *cause) {
  rs_streamed_slot *s = &r->slots[c->slot];
  rs_array *dst_rows = NULL;
  rs_status st = hand_on(s->computed, s->stream, r->copy_out);
  if (st == RS_OK && s->stage_out) {
    st = slot_copy_out(r, s);
    if (st == RS_OK) st = rows_view(&dst_rows, s->stage_out, 0, c->rows);
  } else if (st == RS_OK) {
    st = rows_view(&dst_rows, r->dst, c->first, c->rows);
  }
  if (st == RS_OK) st = rs_copy_path(dst_rows, out, r->copy_out, cause);
  if (st == RS_OK) {
    r->rep->copies++;
    r->rep->bytes_d2h += (int64_t)((size_t)c->rows * r->row_out);
    st = chunk_event(r, c, 3, r->copy_out);
  }
  if (st == RS_OK) st = rs_event_record(s->freed, r->copy_out);
  if (st == RS_OK && s->stage_out) { /* taken out of staging when the slot comes round again */
    s->pending = c->index;
    s->pending_first = c->first;
    s->pending_rows = c->rows;
  }
  rs_array_release(dst_rows);
  return st;
}

rs_status rs_streamed_chunk_run(rs_streamed_run_state *r, const rs_streamed_chunk *c) {
  rs_streamed_slot *s = &r->slots[c->slot];
  rs_copy_cause cause = RS_EXPLICIT(who);
  /* The run times its chunks itself (the report); a ledger event pair around every chunk
   * copy would catch waits behind the other chunks' copies, and cost 0.1 ms of a 2.4 ms
   * run over 16 chunks on an H200: 2.45 ms against 2.35 without, 2026-12-02). */
  cause.untimed = 1;
  cause.caller_waits = 1; /* rs_streamed_drain, before any buffer is released */
  rs_array *in = NULL, *out = NULL;
  int released = 0;
  rs_status st = rows_view(&in, s->dev_in, 0, c->rows);
  if (st == RS_OK) st = rows_view(&out, s->dev_out, 0, c->rows);
  if (st == RS_OK) st = chunk_copy_in(r, c, in, &cause);
  if (st == RS_OK) {
    st = run_step(r, in, out, s->stream, &released);
    if (st != RS_OK) {
      r->rep->failed_chunk = c->index;
      st = rs_fail_prefix(st, "%s: chunk %lld (rows %lld..%lld): ", who, (long long)c->index, (long long)c->first,
                          (long long)(c->first + c->rows - 1));
    }
  }
  if (st == RS_OK) st = chunk_event(r, c, 2, s->stream);
  if (st == RS_OK) st = chunk_copy_out(r, c, out, &cause);
  if (!(released & 1)) rs_array_release(in);
  if (!(released & 2)) rs_array_release(out);
  return st;
}
