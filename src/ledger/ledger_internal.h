/* Internal to src/ledger: what its files share. */
#ifndef RS_LEDGER_INTERNAL_H
#define RS_LEDGER_INTERNAL_H

#include "core/objects.h"
#include "ledger/state.h"

/* Resolve device times: all pending ones when wait, else only those already complete. */
void rs_ledger_resolve(rs_context *ctx, int wait);

/* The calling thread's number in the ledger (1, 2, ... in the order threads first record). */
int rs_ledger_thread(void);

/* Record the clock reference : an event on the legacy stream waited for
 * now, so device times can be placed on the host clock. Lock not held. */
void rs_ledger_place_clock(rs_context *ctx);

/* Forget scope records and pool samples (reset; lock held). */
void rs_ledger_forget_logs(rs_ledger *l);

#endif
