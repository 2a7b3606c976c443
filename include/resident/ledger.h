/* resident/ledger.h - every copy visible: the transfer ledger and the transfer guard.
 *
 * The ledger records, per context, every copy (direction, bytes, explicit or implicit,
 * what caused it, the stream, the host time and - when timing is on - the device time
 * measured with events), every kernel launch, and every host-blocking wait with its
 * duration and cause. So a slow `print(out[2])` shows up as a wait for a kernel, not as
 * a copy.
 *
 * Totals are kept for the whole context (since the last reset) and for scopes
 * (rs_ledger_begin / rs_ledger_end), which nest. Reading totals waits for the device
 * times of the copies and kernels they include, so the figures are exact.
 *
 * The guard decides, per direction, what happens to a copy:
 *   allow              every copy goes through (default)
 *   log                implicit copies go through and are logged
 *   disallow           implicit copies are refused with RS_ERR_TRANSFER_REFUSED
 *   disallow_explicit  every copy, explicit ones too, is refused
 * A refused copy moves nothing. Set by RESIDENT_TRANSFER_GUARD ("disallow", or per
 * direction "h2d=disallow,d2h=log"), per context with rs_guard_set, and for a scope with
 * rs_guard_push / rs_guard_pop.
 *
 * Thread safety: all calls are thread-safe. Scopes and guard pushes are per context (not
 * per thread): begin and end them from one thread at a time.
 */
#ifndef RESIDENT_LEDGER_H
#define RESIDENT_LEDGER_H

#include "resident/export.h"

#include <stdint.h>
#include <stdio.h>
#include "resident/context.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_direction {
  RS_ALL_DIRECTIONS = -1, /* rs_guard_set / rs_guard_push: every direction */
  RS_H2D = 0,
  RS_D2H = 1,
  RS_D2D = 2,
  RS_H2H = 3,
  RS_P2P = 4, /* device to device across devices (contexts): rs_array_copy between contexts */
  RS_DIRECTIONS = 5
} rs_direction;

/* "H2D", "D2H", "D2D", "H2H", "P2P". */
RS_API const char *rs_direction_name(rs_direction dir);

/* A prefetch (rs_array_prefetch) moves managed pages: it is not a copy (the data has one
 * home), so it is counted apart from copies; dir is RS_H2D for a prefetch to the device,
 * RS_D2H for one to the host. */
/* RS_ENTRY_GRAPH: one replay of a graph (resident/graph.h); bytes, graph_copies and
 * graph_kernels say what it held, and the totals count its copies and kernels as if each
 * had been queued alone. */
typedef enum rs_entry_kind {
  RS_ENTRY_COPY = 0,
  RS_ENTRY_KERNEL = 1,
  RS_ENTRY_WAIT = 2,
  RS_ENTRY_PREFETCH = 3,
  RS_ENTRY_GRAPH = 4,
  RS_ENTRY_COLLECTIVE = 5 /* a collective of resident/collective.h: bytes this rank sent */
} rs_entry_kind;

typedef struct rs_ledger_entry {
  rs_entry_kind kind;
  rs_direction dir;     /* copies */
  int implicit;         /* copies: 1 if the library made it for you (a host array at a launch) */
  size_t bytes;         /* copies and prefetches */
  char cause[64];       /* the API call, the kernel, or what a wait waited for */
  int arg;              /* kernel argument index of an implicit copy, else -1 */
  void *stream;         /* backend stream handle (NULL = legacy default) */
  double host_start_ms; /* host clock at the start, ms since the ledger's reset */
  double host_ms;       /* time the calling thread spent in the call */
  double device_ms;     /* device time from a pair of events; for a copy the host waits for
                           (a pageable side), the host clock from its idle stream to its end,
                           the same span without two event records; -1 if not timed
                           (rs_ledger_set_timing) */
  int64_t graph_copies; /* graphs: copies in one replay */
  int64_t graph_kernels; /* graphs: kernels in one replay */
  double device_start_ms; /* when the device began it, on the host clock (ms since the
                           * ledger's reset), from the same events or host clock; -1 if
                           * not timed */
  int thread;           /* the host thread that made the call: 1 for the first thread the
                           ledger saw in this process, 2 for the next, ... */
  char shape[32];       /* copies: the array's shape as NumPy prints it, "(1000,)",
                           "(64, 64)" (shortened with "..." past 31 bytes); else "" */
} rs_ledger_entry;

typedef struct rs_ledger_stats {
  int64_t copies[RS_DIRECTIONS][2]; /* [direction][0 explicit, 1 implicit] */
  int64_t bytes[RS_DIRECTIONS][2];
  double copy_device_ms[RS_DIRECTIONS][2];
  double copy_host_ms[RS_DIRECTIONS][2];
  int64_t kernels;
  double kernel_device_ms;
  double kernel_host_ms;
  int64_t waits;
  double wait_ms;
  /* managed-memory prefetches, [0 to the host, 1 to the device]; not in the copy totals */
  int64_t prefetches[2];
  int64_t prefetch_bytes[2];
  double prefetch_device_ms[2]; /* where timed (the copies' timing setting covers them) */
  double prefetch_host_ms[2];
  int64_t graphs;         /* graph replays (their copies and kernels are in the counts above) */
  double graph_host_ms;   /* host time of the replays' launches */
  double graph_device_ms; /* device time of the replays, where timed */
  /* collectives (resident/collective.h), not in the copy totals: count, bytes sent by this
   * context's rank, host time, device time where copies are timed */
  int64_t collectives;
  int64_t collective_bytes;
  double collective_host_ms;
  double collective_device_ms;
} rs_ledger_stats;

/* Sums over directions and kinds (implicit: -1 both, 0 explicit, 1 implicit). A NULL s
 * sums to 0 and says so in rs_last_error(). */
RS_API int64_t rs_ledger_copies(const rs_ledger_stats *s, int implicit);
RS_API int64_t rs_ledger_bytes(const rs_ledger_stats *s, int implicit);
RS_API double rs_ledger_copy_ms(const rs_ledger_stats *s); /* device time where timed, else host time */

/* What the ledger times on the device: copies (the default), kernels, both, or nothing
 * (RESIDENT_LEDGER_TIMING=copies|kernels|all|off, also 1 = all; off, none and 0 = nothing).
 * Work the host does not wait for is timed with a pair of events; that costs two event
 * records per launch (about 4 us on an H200), which is why kernels are off by default;
 * every kernel is counted and its host time recorded either way. A pinned or device copy
 * pays the same. A copy with a pageable side is one the host waits for: it starts on an
 * idle stream (the wait for earlier work is recorded apart) and the call returns when it
 * is done, so the host clock times it, for free. Device times from events are resolved
 * when the ledger is read, or without waiting once 256 are pending, so a loop that never
 * reads it holds a bounded number of events. */
#define RS_TIME_NONE 0x0u
#define RS_TIME_COPIES 0x1u
#define RS_TIME_KERNELS 0x2u
#define RS_TIME_ALL (RS_TIME_COPIES | RS_TIME_KERNELS)
RS_API rs_status rs_ledger_set_timing(rs_context *ctx, unsigned what);

/* Totals since the last reset (waits for pending device times). */
RS_API rs_status rs_ledger_get_stats(rs_context *ctx, rs_ledger_stats *out);

/* Forget every entry and total. RS_ERR_STATE while a scope is open. */
RS_API rs_status rs_ledger_reset(rs_context *ctx);

/* Open a scope; rs_ledger_end closes the innermost one and returns what happened in it
 * (waiting for its device times). End without begin is RS_ERR_STATE. */
RS_API rs_status rs_ledger_begin(rs_context *ctx);
RS_API rs_status rs_ledger_end(rs_context *ctx, rs_ledger_stats *out);

/* rs_ledger_begin with a name: the scope's name in a trace (resident/trace.h) and in a
 * profiler (the NVTX range of the scope). name is copied (the first 47 bytes); NULL or ""
 * is an unnamed scope. */
RS_API rs_status rs_ledger_begin_named(rs_context *ctx, const char *name);

/* The recorded entries, oldest first. The log keeps the last RESIDENT_LEDGER_ENTRIES
 * (default 65536); *dropped tells how many older ones were forgotten. */
RS_API rs_status rs_ledger_count(rs_context *ctx, int64_t *count, int64_t *dropped);
RS_API rs_status rs_ledger_entry_at(rs_context *ctx, int64_t index, rs_ledger_entry *out);

/* Print a report: one line per direction and kind of copy (count, bytes, time, the
 * estimated PCIe time at bandwidth_gbs GB/s), the prefetches of managed memory (one line
 * per direction, when there were any), then kernel time, waits, and the rest of
 * wall_ms (pass 0 if unknown). bandwidth_gbs <= 0 is RS_ERR_INVALID_ARGUMENT. */
RS_API rs_status rs_ledger_print(const rs_ledger_stats *s, double wall_ms, double bandwidth_gbs, FILE *f);

/* The teaching default for the PCIe estimate: 12 GB/s each way. */
#define RS_DEFAULT_PCIE_GBS 12.0

/* ---- guard ---- */
typedef enum rs_guard_mode {
  RS_GUARD_ALLOW = 0,
  RS_GUARD_LOG = 1,
  RS_GUARD_DISALLOW = 2,
  RS_GUARD_DISALLOW_EXPLICIT = 3
} rs_guard_mode;

RS_API const char *rs_guard_mode_name(rs_guard_mode mode);

/* Parse "allow" | "log" | "disallow" | "disallow_explicit", or a comma list of
 * "dir=mode" (dir: h2d, d2h, d2d, h2h, p2p) into modes[RS_DIRECTIONS] (unnamed directions
 * keep their value). RS_ERR_PARSE naming the word otherwise. */
RS_API rs_status rs_guard_parse(const char *text, rs_guard_mode modes[RS_DIRECTIONS]);

/* The context's mode for one direction or all (RS_ALL_DIRECTIONS). */
RS_API rs_status rs_guard_set(rs_context *ctx, rs_direction dir, rs_guard_mode mode);
RS_API rs_status rs_guard_get(rs_context *ctx, rs_direction dir, rs_guard_mode *mode);

/* A scope that sets a mode and restores the previous modes on pop. Pop without push is
 * RS_ERR_STATE. */
RS_API rs_status rs_guard_push(rs_context *ctx, rs_direction dir, rs_guard_mode mode);
RS_API rs_status rs_guard_pop(rs_context *ctx);

/* Where "log" lines go: fn(line, user_data). Default: standard error. NULL restores the
 * default. Process-wide. */
typedef void (*rs_log_fn)(const char *line, void *user_data);
RS_API void rs_set_log_handler(rs_log_fn fn, void *user_data);

#ifdef __cplusplus
}
#endif
#endif
