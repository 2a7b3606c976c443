/* Internal to src/ledger: what its files share. */
#ifndef RS_LEDGER_INTERNAL_H
#define RS_LEDGER_INTERNAL_H

#include "core/objects.h"
#include "ledger/state.h"

/* Device times (ledger_timing.c). Resolve them: all pending ones when wait, else only
 * those already complete. */
void rs_ledger_resolve(rs_context *ctx, int wait);
/* A timing event from the spare list or a new one (NULL if none); one back to the list
 * (lock held; NULL is ignored). */
void *rs_ledger_event(rs_context *ctx);
void rs_ledger_spare(rs_context *ctx, void *ev);
/* Lock held: entry seq's device time, to resolve once ev_end has completed. */
void rs_ledger_add_pending(rs_ledger *l, int64_t seq, const rs_ledger_entry *e, void *ev_start, void *ev_end);
/* Resolve what is done without waiting, and set when the next sweep comes (sweep_at: at
 * first this many pending). Lock not held. */
#define RS_LEDGER_SWEEP_MIN ((size_t)256)
void rs_ledger_sweep(rs_context *ctx);
/* Destroy the pending timings' events (teardown). */
void rs_ledger_drop_pending(rs_context *ctx);

/* Entry seq of the ring as readers see it (lock held): device starts placed by events
 * moved by ref_shift_ms, those taken on the host clock as they are. */
void rs_ledger_read(const rs_ledger *l, int64_t seq, rs_ledger_entry *out);

/* The calling thread's number in the ledger (1, 2, ... in the order threads first record). */
int rs_ledger_thread(void);

/* Record the clock reference : an event on the legacy stream waited for
 * now, so device times can be placed on the host clock. Lock not held. */
void rs_ledger_place_clock(rs_context *ctx);

/* Forget scope records and pool samples (reset; lock held). */
void rs_ledger_forget_logs(rs_ledger *l);

#endif
