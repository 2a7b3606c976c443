/* Internal: the ledger's and the guard's per-context state (ctx->ledger, ctx->guard),
 * private to src/ledger; src/context gives it its storage. */
#ifndef RS_LEDGER_STATE_H
#define RS_LEDGER_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "resident/ledger.h"

#define RS_LEDGER_MAX_SCOPES 16
#define RS_GUARD_MAX_PUSHES 16

/* A timed entry whose device time is not known yet. */
typedef struct rs_pending_timing {
  int64_t seq;
  void *ev_start, *ev_end;
  rs_entry_kind kind;
  rs_direction dir;
  int implicit;
  int depth;
  uint64_t scope_ids[RS_LEDGER_MAX_SCOPES];
} rs_pending_timing;

typedef struct rs_ledger_scope {
  uint64_t id;
  rs_ledger_stats stats;
} rs_ledger_scope;

typedef struct rs_ledger {
  pthread_mutex_t lock;
  _Atomic unsigned timing; /* RS_TIME_* */
  double epoch_ms;
  rs_ledger_stats totals;
  rs_ledger_scope scopes[RS_LEDGER_MAX_SCOPES];
  int depth;
  uint64_t next_scope_id;
  rs_ledger_entry *ring;
  int64_t capacity; /* entries kept */
  int64_t count;    /* entries recorded since reset */
  rs_pending_timing *pending;
  size_t npending, pending_cap;
  void **spare_events; /* backend events ready for reuse */
  size_t nspare, spare_cap;
} rs_ledger;

typedef struct rs_guard {
  pthread_mutex_t lock;
  rs_guard_mode modes[RS_DIRECTIONS];
  rs_guard_mode saved[RS_GUARD_MAX_PUSHES][RS_DIRECTIONS];
  int depth;
} rs_guard;

#endif
