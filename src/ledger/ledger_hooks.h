/* Internal: the calls the copy path, the kernel launches and the blocking waits make
 * into the ledger and the transfer guard (src/ledger). */
#ifndef RS_LEDGER_LEDGER_HOOKS_H
#define RS_LEDGER_LEDGER_HOOKS_H

#include "backend/backend.h"
#include "core/error.h"
#include "core/objects.h"

/* Who asked for a copy. `what` is a static string: the API call ("rs_to_device") or
 * the kernel name for an implicit copy at launch, then `arg` is the argument index. */
typedef struct rs_copy_cause {
  int implicit;
  const char *what;
  int arg; /* -1 when not a kernel argument */
  /* 1: record the copy without a device time of its own (no pair of timing events on the
   * stream), for copies that overlap others and are timed by their caller (a streamed
   * run's chunks: streamed.h). 0 (the default) where RS_TIME_COPIES is on. */
  int untimed;
  /* 1: the caller synchronizes the copy's stream before either side's memory can be
   * released or reused (a streamed run drains its streams before it returns and frees its
   * buffers), so the memory layer records no use event after the copy: each is a command
   * on the copy stream, between two DMAs that would otherwise run back to back. */
  int caller_waits;
} rs_copy_cause;

#define RS_EXPLICIT(call) ((rs_copy_cause){0, (call), -1, 0, 0})
/* A copy the library makes because an op or a launch needs the data (arg: the kernel
 * argument's index, or -1). */
#define RS_IMPLICIT(what, arg) ((rs_copy_cause){1, (what), (arg), 0, 0})

/* Lifetime of the ledger's and the guard's state (ledger/state.h), in the storage
 * ctx->ledger and ctx->guard point to (given by src/context). */
rs_status rs_ledger_init(rs_context *ctx);
void rs_ledger_destroy(rs_context *ctx);
void rs_guard_init(rs_context *ctx);
void rs_guard_destroy(rs_context *ctx);

/* RS_ERR_TRANSFER_REFUSED (with a message naming the copy and its cause) if the guard
 * forbids this copy; logs it if the guard says log. */
rs_status rs_guard_check(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause);

/* The same decision without logging: for asking about several copies before any moves. */
rs_status rs_guard_precheck(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause);

/* Record a copy about to be enqueued on a native stream; returns a token for _end.
 * host_waits: the stream is idle now and the caller blocks until the copy is done (a
 * pageable side), so the host clock from here to _end spans exactly the copy's work. Its
 * device time is then taken from that clock instead of two event records, which cost a
 * 1 MiB copy a tenth of its time. */
typedef struct rs_ledger_token {
  int64_t index; /* entry index, -1 if not recorded */
  double host_start_ms;
  void *ev_start; /* timing event recorded before the work, or NULL */
  void *ev_end;   /* recorded right after the work by rs_ledger_mark_end, or NULL */
  int host_timed; /* device time = host time (host_waits, with timing on) */
} rs_ledger_token;
rs_ledger_token rs_ledger_copy_begin(rs_context *ctx, rs_copy_dir dir, size_t bytes,
                                     const rs_copy_cause *cause, void *stream, int host_waits);
void rs_ledger_copy_end(rs_context *ctx, rs_ledger_token token, rs_copy_dir dir, size_t bytes,
                        const rs_copy_cause *cause, void *stream, int ndim, const int64_t *shape);
/* Record the end of a timed entry's device work now, right after it was queued, rather
 * than in its _end call: a copy the host then synchronizes (a pageable side) ends its
 * device time when its work ends, not once the host has seen that, and the event's record
 * overlaps the work's last microseconds instead of following them. */
void rs_ledger_mark_end(rs_context *ctx, rs_ledger_token *token, void *stream);

/* What a host wait blocks on: all work of the device, one native stream, one native
 * event. */
typedef enum rs_wait_on { RS_WAIT_DEVICE, RS_WAIT_STREAM, RS_WAIT_EVENT } rs_wait_on;

/* THE timed host wait: block on `native` (a stream or an event; unused for the device)
 * and record the host time it took as a wait caused by `cause`. Returns the backend's
 * status of the wait (recorded either way). */
rs_status rs_ledger_timed_wait(rs_context *ctx, rs_wait_on on, void *native, const char *cause);

/* A line to the log handler (rs_set_log_handler; default standard error). */
void rs_log_line(const char *fmt, ...) RS_PRINTF(1, 2);

/* Record a kernel launch like a copy (device time from events when timing is on). name:
 * the kernel or the operation (a static string or one that outlives the call). */
rs_ledger_token rs_ledger_kernel_begin(rs_context *ctx, const char *name, void *stream);
void rs_ledger_kernel_end(rs_context *ctx, rs_ledger_token token, const char *name, void *stream);

/* Record a prefetch of managed memory (timed like a copy). */
rs_ledger_token rs_ledger_prefetch_begin(rs_context *ctx, void *stream);
void rs_ledger_prefetch_end(rs_context *ctx, rs_ledger_token token, int to_device, size_t bytes, const char *cause,
                            void *stream);
/* A graph replay (resident/graph.h): one entry, its contents (what the capture counted)
 * added to the totals and open scopes; device time from events when timing is on. */
/* A collective (resident/collective.h) on one local rank's stream: bytes it sends. */
rs_ledger_token rs_ledger_collective_begin(rs_context *ctx, const char *name, void *stream);
void rs_ledger_collective_end(rs_context *ctx, rs_ledger_token token, const char *name, size_t bytes, void *stream);

rs_status rs_ledger_graph_begin(rs_context *ctx, void *stream, rs_ledger_token *token);
void rs_ledger_graph_end(rs_context *ctx, rs_ledger_token token, const rs_capture *contents, void *stream);
/* Forget a token whose work was never queued (its launch failed). */
void rs_ledger_token_drop(rs_context *ctx, rs_ledger_token token);

/* On a stream being captured (core/objects.h: rs_capture_of) copies and kernels are not
 * recorded as entries but counted into the capture, no timing events are recorded there,
 * and rs_ledger_timed_wait refuses to wait (RS_ERR_STATE): the wait would break the capture.
 * The guard's part: a copy that would need the host during a capture (pageable or
 * non-contiguous host side, an implicit copy at a launch) is refused here. */
rs_status rs_guard_capture_check(rs_context *ctx, void *stream, rs_copy_dir dir, int needs_host,
                                 const rs_copy_cause *cause);
/* The memory layer's report after a pool allocation or free (arg: the context): the
 * pool's bytes in use and held, kept for the trace's counters (ledger_scope.c). Takes
 * the ledger's lock only. */
void rs_ledger_pool_sample(void *arg, int pinned, size_t in_use, size_t held);

/* RESIDENT_TRACE (trace.c): at creation, the path with %p and %n replaced, created to
 * see that it can be written (RS_ERR_IO naming the variable otherwise); at destruction,
 * the trace written there, a failure told to the log handler. Nothing without it. */
rs_status rs_trace_prepare(rs_context *ctx);
void rs_trace_at_exit(rs_context *ctx);

/* Host monotonic clock in milliseconds. */
double rs_now_ms(void);

/* For tests: device timings recorded and not resolved yet (each holds two events). */
size_t rs_ledger_pending_timings(rs_context *ctx);

#endif
