/* Internal: the calls the copy path and the blocking waits make into the ledger and
 * the transfer guard (src/transfer/ledger.c, guard.c). */
#ifndef RS_TRANSFER_LEDGER_HOOKS_H
#define RS_TRANSFER_LEDGER_HOOKS_H

#include "core/error.h"
#include "transfer/copy.h"

/* RS_ERR_TRANSFER_REFUSED (with a message naming the copy and its cause) if the guard
 * forbids this copy; logs it if the guard says log. */
rs_status rs_guard_check(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause);

/* The same decision without logging: for asking about several copies before any moves. */
rs_status rs_guard_precheck(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause);

/* Record a copy about to be enqueued on a native stream; returns a token for _end. */
typedef struct rs_ledger_token {
  int64_t index; /* entry index, -1 if not recorded */
  double host_start_ms;
  void *ev_start; /* timing event recorded before the work, or NULL */
} rs_ledger_token;
rs_ledger_token rs_ledger_copy_begin(rs_context *ctx, rs_copy_dir dir, size_t bytes,
                                     const rs_copy_cause *cause, void *stream);
void rs_ledger_copy_end(rs_context *ctx, rs_ledger_token token, rs_copy_dir dir, size_t bytes,
                        const rs_copy_cause *cause, void *stream);

/* Record a host-blocking wait that already happened. */
void rs_ledger_wait(rs_context *ctx, const char *cause, double host_ms);

/* A line to the log handler (rs_set_log_handler; default standard error). */
void rs_log_line(const char *fmt, ...) RS_PRINTF(1, 2);

/* Record a kernel launch like a copy (device time from events when timing is on). */
rs_ledger_token rs_ledger_kernel_begin(rs_context *ctx, void *stream);
void rs_ledger_kernel_end(rs_context *ctx, rs_ledger_token token, const char *name, void *stream);

/* Host monotonic clock in milliseconds. */
double rs_now_ms(void);

#endif
