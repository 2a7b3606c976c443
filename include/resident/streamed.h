/* resident/streamed.h - streamed execution: copies that overlap compute.
 *
 * A host array too large to wait for (or simply large) goes through the device in
 * chunks of rows over several streams, so that the copy in of chunk i+1, the steps on
 * chunk i and the copy out of chunk i-1 run at the same time: PCIe carries both
 * directions at once and the copy engines run beside the SMs. A pipeline of N kernels
 * then takes about as long as its slowest stage instead of the sum of all of them.
 *
 *   static rs_status step(rs_array *in, rs_array *out, rs_stream *s, void *user) {
 *     // in == out here (same shape and dtype): work in place, on stream s
 *     for (int k = 0; k < 10; k++) RS_CHECK(launch_axpb(in, 1.0001f, 1.0f, s));
 *     return RS_OK;
 *   }
 *   rs_streamed_report rep;
 *   rs_streamed_run(host, host, step, NULL, NULL, &rep);   // 16 chunks, 3 streams, say
 *
 * Chunks are ranges of rows (axis 0) of src and dst, which must be C-contiguous host
 * arrays (pageable or pinned; mapped counts as pinned) of one context with the same
 * number of rows. Every copy in goes through one stream of the run, in chunk order, and
 * every copy out through another, so that each direction's copies run back to back; the
 * steps run on `streams` streams of their own, chunk i on stream i % streams, each with
 * its own buffers (so `streams` is also how many chunks are in flight at once). The step
 * is written once for a chunk and is called once per chunk, with the chunk's stream:
 *   - in:  a device array holding src's rows [first, first + rows) (the shape of src
 *          with axis 0 = rows), filled when the work queued on s runs.
 *   - out: a device array of dst's rows of the chunk, copied to dst after the step. When
 *          src and dst have the same row shape and dtype, out IS in (one buffer; the
 *          step works in place). Otherwise it is a separate buffer the step fills
 *          (with an _into op: rs_multiply_scalar_into(out, in, k, s)).
 *   - Everything the step does must be queued on s (ops and launches with stream s)
 *     and touch only in and out: the buffers are reused by later chunks, in stream
 *     order. The step may create and release its own temporaries.
 *   - The step must not release in or out, synchronize the device, or keep a
 *     reference to them past its return (the run checks the handles after each step).
 *
 * Ordering, guaranteed by the run (events between its streams): a chunk's step waits
 * for its copy in and its copy out for the step, so no chunk is read before its copy
 * finished; a device buffer or pinned staging buffer is refilled only after the copies
 * and steps that used it have completed. Pageable host memory is staged through pinned buffers of the run
 * (the host-side memcpy of chunk i+1 overlaps the device work of chunk i), so pageable
 * and pinned arrays both stream.
 *
 * The ledger records every chunk copy through the one copy path (explicit, cause
 * "rs_streamed_run"): exactly `chunks` H2D and `chunks` D2H copies, with their bytes and
 * host times, but no device time of their own (device_ms -1): overlapping copies timed
 * one by one would each include the wait behind the other streams' copies, and the two
 * timing events a copy costs slow the run (about 5% over 16 chunks on an H200). The
 * report below carries the run's device times.
 * The transfer guard is asked before anything moves: a refused direction fails the run
 * with nothing written.
 *
 * Errors and what dst holds then. Checked before anything is queued: NULL pointers, a
 * chunk size of 0 or larger than the rows, a non-contiguous or device array, different
 * row counts or contexts, a guard refusal: RS_ERR_* with a message, dst untouched. A
 * step that fails (its status is returned, prefixed with "chunk i (rows a..b)") or
 * releases its chunk stops the run: rows of the chunks before it are written to dst
 * completely, rows from the failing chunk on are NOT written (dst keeps their old
 * values); report->failed_chunk names the chunk and report->rows_done how many leading
 * rows of dst hold results. A fault found only when the device is synchronized at the
 * end cannot be pinned to a chunk: failed_chunk is then -2 and dst rows are undefined.
 *
 * Thread safety: runs on different contexts, or on different arrays of one context,
 * may run at once from several threads. The step is called on the calling thread.
 */
#ifndef RESIDENT_STREAMED_H
#define RESIDENT_STREAMED_H

#include "resident/export.h"

#include <stdint.h>
#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One chunk's device work, queued on s. See above for in, out and the rules. */
typedef rs_status (*rs_streamed_step)(rs_array *in, rs_array *out, rs_stream *s, void *user);

/* A size the run chooses. 0 is not "choose": a chunk of 0 rows is an error. */
#define RS_STREAMED_AUTO (-1)
#define RS_STREAMED_MAX_STREAMS 16

typedef struct rs_streamed_options {
  int64_t chunk_rows; /* rows (axis-0 entries) per chunk, 1..rows, or RS_STREAMED_AUTO */
  int streams;        /* streams the chunks' steps rotate over (each with its own buffers: the
                         chunks in flight), 1..RS_STREAMED_MAX_STREAMS, or RS_STREAMED_AUTO;
                         the copies take two more streams */
} rs_streamed_options;

/* Both chosen by the run (what options = NULL means). */
#define RS_STREAMED_OPTIONS_AUTO ((rs_streamed_options){RS_STREAMED_AUTO, RS_STREAMED_AUTO})

/* What a run did. */
typedef struct rs_streamed_report {
  int64_t chunks;       /* chunks run (the probe chunk included) */
  int64_t chunk_rows;   /* rows per chunk (the last may be shorter; the probe is) */
  int streams;          /* streams the steps used (the copies used two more) */
  int64_t copies;       /* chunk copies recorded by the ledger: 2 x chunks */
  int64_t bytes_h2d, bytes_d2h;
  double wall_ms;       /* host time of the whole call */
  double copy_ms;       /* device time of the copies (both ways) as if run alone: the
                           fastest chunk's time per row, times the rows (a chunk's own
                           events also catch time queued behind other streams' work) */
  double step_ms;       /* the same for the steps */
  double span_ms;       /* device time from the first copy in to the last copy out */
  double staging_ms;    /* host time spent copying pageable rows into and out of the
                           run's pinned buffers (overlapped with the device's work) */
  double hidden_ms;     /* copy time hidden behind compute: copy_ms + step_ms - span_ms,
                           clamped to [0, copy_ms] */
  int probed;           /* 1: this run timed its first chunk to choose the sizes */
  int planned;          /* 1: the sizes came from an earlier run's probe (same step, user
                           data, shapes and memory kinds in this process) */
  int64_t rows_done;    /* leading rows of dst that hold results */
  int64_t failed_chunk; /* -1 on success; the chunk whose step failed; -2: see above */
} rs_streamed_report;

/* Run step over src in chunks and write the results to dst (which may be src: in
 * place). options may be NULL (everything chosen). Chosen sizes come from the first
 * chunk, run alone as a probe of 1/64 of the rows (at least 8 MiB of them, up to a
 * quarter of the rows; at least 1 row): its copy and step
 * times, measured with events, and the host time to queue it give the chunk count that
 * balances the pipeline's fill and drain (one chunk's stages) against the per-chunk
 * cost (about 20 us a chunk on an H200); 3 streams for the steps, so 3 chunks in flight
 * (one copying in, one computing, one copying out: on the H200 3 were as fast as 2, 4, 6
 * and 8 or faster at almost every chunk count), 4 with a pageable side; fewer if there
 * are fewer chunks. The choice is remembered (process-wide, 16 plans): a later run of the same step
 * and user data over the same shapes and memory kinds reuses it without a probe (the
 * user pointer is part of the key: user data at one address that stands for different
 * work - a struct on the stack, refilled - should come with explicit options). report may be NULL; it is filled on failure too (failed_chunk, rows_done).
 * Ownership: src and dst stay the caller's; nothing is kept after the call. */
RS_API rs_status rs_streamed_run(rs_array *dst, const rs_array *src, rs_streamed_step step, void *user,
                                 const rs_streamed_options *options, rs_streamed_report *report);

#ifdef __cplusplus
}
#endif
#endif
