/* Internal: the pieces of a streamed run (src/ops/streamed.c runs it, streamed_plan.c
 * chooses its chunk size and stream count from a probe chunk). */
#ifndef RS_OPS_STREAMED_INTERNAL_H
#define RS_OPS_STREAMED_INTERNAL_H

#include "core/objects.h"
#include "resident/streamed.h"

/* A stream for the steps with its own buffers: chunk i runs on slot i % streams. Its
 * copies go through the run's two copy streams; the slot's events hand its buffers from
 * one stream to the next. */
typedef struct rs_streamed_slot {
  rs_stream *stream;        /* the steps */
  int64_t cap_rows;         /* rows the buffers below hold */
  rs_array *dev_in;         /* device buffer of the copy in */
  rs_array *dev_out;        /* device buffer of the results; == dev_in in place */
  rs_array *stage_in;       /* pinned staging of a pageable src, else NULL */
  rs_array *stage_out;      /* pinned staging of a pageable dst, else NULL */
  int64_t last;             /* the last chunk queued on the slot, or -1 */
  int64_t pending;          /* chunk whose results wait in stage_out, or -1 */
  int64_t pending_first, pending_rows;
  rs_event *loaded;         /* copy stream in: the slot's chunk is in dev_in (stage_in free) */
  rs_event *computed;       /* the slot's stream: its step has run (dev_out holds results) */
  rs_event *freed;          /* copy stream out: the results are out (the buffers free again) */
} rs_streamed_slot;

typedef struct rs_streamed_run_state {
  rs_context *ctx;
  rs_array *dst;
  const rs_array *src;
  rs_streamed_step step;
  void *user;
  int in_place;       /* dst rows have src's row shape and dtype: out is in */
  int64_t rows;       /* rows of src and dst */
  size_t row_in, row_out; /* bytes per row */
  int nslots;
  rs_streamed_slot slots[RS_STREAMED_MAX_STREAMS];
  /* Every copy in, in chunk order, on one stream, and every copy out on another: each
   * direction's DMAs run back to back, the link carrying both at once. Chunks rotating
   * over streams that each copied in, stepped and copied out left gaps in both (1 GiB,
   * 10 kernels on an H200: 1.18-1.27x the slowest stage against 1.12-1.13x, raw CUDA,
   * 2026-12-02). */
  rs_stream *copy_in, *copy_out;
  rs_event *end; /* recorded on copy_out when the run is drained: the span ends there */
  /* 4 timing events per timed chunk (the first few): before the copy in and after it (on
   * copy_in), after the step (the slot's stream), after the copy out (copy_out) */
  rs_event **ev;
  int64_t ev_cap;
  int64_t *chunk_rows_of; /* rows of each chunk, ev_cap / 4 of them */
  double staging_ms; /* host time of the pageable sides' memcpy */
  rs_streamed_report *rep;
} rs_streamed_run_state;

/* A chunk: `rows` rows from `first`, the `index`-th of the run, on slot `slot`. */
typedef struct rs_streamed_chunk {
  int64_t index, first, rows;
  int slot;
} rs_streamed_chunk;

/* Queue chunk c (stage in, copy in, step, copy out); copies finished results of the
 * slot's earlier chunk out of staging first. */
rs_status rs_streamed_chunk_run(rs_streamed_run_state *r, const rs_streamed_chunk *c);

/* Make sure slot s has buffers for `rows` rows (it must be idle when they grow). */
rs_status rs_streamed_slot_ensure(rs_streamed_run_state *r, rs_streamed_slot *s, int64_t rows);

/* Release slot s's buffers and events and give its stream back (an unused slot: nothing). */
void rs_streamed_slot_release(rs_streamed_slot *s);

/* The copy streams, borrowed once per run (after the caller's work on the legacy stream). */
rs_status rs_streamed_copy_streams(rs_streamed_run_state *r);

/* Wait for everything queued and copy pending results out of staging into dst. */
rs_status rs_streamed_drain(rs_streamed_run_state *r);

/* The chunk's event k (0..3, see ev above). */
static inline rs_event *rs_streamed_ev(const rs_streamed_run_state *r, int64_t chunk, int k) {
  return r->ev[4 * chunk + k];
}

/* 1 if every stage of the chunk is timed (all 4 events recorded). */
int rs_streamed_timed(const rs_streamed_run_state *r, int64_t chunk);

/* Run chunk 0 alone (rows `probe_rows`) timed, and choose the chunk rows and stream
 * count for the rest; *chunk_rows / *streams given > 0 are kept. */
rs_status rs_streamed_probe(rs_streamed_run_state *r, int64_t probe_rows, int64_t *chunk_rows, int *streams);

/* Sizes a probe chose for the same step, shapes and memory kinds (pageable: bit 0 src,
 * bit 1 dst) in an earlier run, kept process-wide: 1 and the sizes if there are some
 * (*streams only where it is RS_STREAMED_AUTO). */
int rs_streamed_plan_find(const rs_streamed_run_state *r, int pageable, int64_t *chunk_rows, int *streams);
void rs_streamed_plan_keep(const rs_streamed_run_state *r, int pageable, int64_t chunk_rows, int streams);

/* Streams a run uses unless told: 3, or 4 with a pageable side (streamed_plan.c). */
int rs_streamed_default_streams(const rs_streamed_run_state *r);

#endif
