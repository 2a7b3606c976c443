/* resident/trace.h - the ledger as a timeline: a Trace Event Format file for Perfetto
 * (ui.perfetto.dev) and chrome://tracing, and the ranges Nsight Systems shows.
 *
 * A trace holds what the ledger (resident/ledger.h) recorded since its last reset:
 *   - every copy, as a slice named "H2D implicit", "D2H explicit", ... with the category
 *     "copy.implicit" or "copy.explicit" (and a red or green colour), and every kernel
 *     ("kernel") and host wait ("wait: <cause>"); their arguments carry the bytes, the
 *     array's shape, the bandwidth, the cause, the kernel argument of an implicit copy,
 *     the stream, and the host and device times;
 *   - an entry the device timed (rs_ledger_set_timing) sits on its stream's track of the
 *     process "resident device", at its device time; the host call that queued it sits on
 *     its thread's track of "resident host" (category "api"); an untimed entry and every
 *     wait sit on the thread's track at host time;
 *   - the ledger scopes (rs_ledger_begin_named) as slices that enclose their thread's
 *     entries (category "scope");
 *   - the device and pinned pools' bytes in use and held as counters ("C" events),
 *     sampled at every allocation and free.
 * Times are microseconds since the ledger's reset on the host's monotonic clock. Device
 * times come from events and are placed on that clock by a reference event waited for on
 * the legacy stream at context creation and at a reset (at most once a second); the
 * document's "otherData" says how exact that placement is.
 *
 * The ledger keeps the last RESIDENT_LEDGER_ENTRIES entries, 4096 scopes and 16384 pool
 * samples; older ones are counted in "otherData" ("dropped_entries"), not written.
 *
 * RESIDENT_TRACE=path writes the trace of each context when it is destroyed; "%p" in the
 * path becomes the process id and "%n" the context's number in the process (1, 2, ...),
 * so several contexts write several files. The path is checked (created) at context
 * creation: an unwritable one fails rs_context_create with RS_ERR_IO. A write error at
 * destruction goes to the log handler (rs_set_log_handler).
 */
#ifndef RESIDENT_TRACE_H
#define RESIDENT_TRACE_H

#include "resident/export.h"
#include "resident/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Write the context's trace to path (created or truncated), streaming: memory use does
 * not grow with the trace. Waits for the device times of the recorded work first.
 * Errors: NULL ctx or path (RS_ERR_NULL_POINTER); a path that cannot be opened for
 * writing (RS_ERR_IO, before anything else is done); a write that fails midway, such as a
 * full disk (RS_ERR_IO: the file is still a valid document, holding the events written
 * before and ending with an event named "trace truncated"). Writing changes nothing in
 * the ledger. Thread-safe: other threads may record while it writes (what they add
 * after the call began may be left out). */
RS_API rs_status rs_trace_write(rs_context *ctx, const char *path);

#ifdef __cplusplus
}
#endif
#endif
