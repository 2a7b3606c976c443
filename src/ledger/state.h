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
#define RS_LEDGER_SCOPE_LOG 4096 /* scopes remembered for the trace (bounded like the log) */
#define RS_LEDGER_POOL_LOG 16384 /* pool samples remembered for the trace */

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
  int64_t log_seq;   /* its record in scope_log */
  uint64_t range_id; /* the profiler range (NVTX) it opened, 0 if none */
} rs_ledger_scope;

/* A scope as the trace draws it: from rs_ledger_begin to rs_ledger_end. */
typedef struct rs_scope_record {
  double start_ms, end_ms; /* since the reset; end -1 while open */
  int depth;
  int thread;
  char name[48];
} rs_scope_record;

/* The bytes a pool of the memory layer has in use and holds, after an allocation or a
 * free (the trace's counters). */
typedef struct rs_pool_sample {
  double t_ms; /* since the reset */
  int pinned;  /* 0: the device pool, 1: the pinned pool */
  size_t in_use, held;
} rs_pool_sample;

typedef struct rs_ledger {
  pthread_mutex_t lock;
  _Atomic unsigned timing; /* RS_TIME_* */
  double epoch_ms;
  rs_ledger_stats totals;
  rs_ledger_scope scopes[RS_LEDGER_MAX_SCOPES];
  int depth;
  uint64_t next_scope_id;
  rs_ledger_entry *ring;
  unsigned char *host_clocked; /* per ring slot: its device time was taken on the host clock
                                * (a copy the host waited for), so ref_shift_ms is not added */
  int64_t capacity; /* entries kept */
  int64_t count;    /* entries recorded since reset */
  rs_pending_timing *pending;
  size_t npending, pending_cap;
  size_t sweep_at; /* pending timings that make the next entry resolve what is done */
  void **spare_events; /* backend events ready for reuse */
  size_t nspare, spare_cap;
  /* Device times on the host clock: an event recorded and waited for at a known host
   * time; an entry's device start is ref_host_ms + elapsed(ref_event, its start event). */
  void *ref_event;
  /* ref_host_ms: when the reference was recorded (absolute host clock), the earliest it can
   * have completed; ref_uncertainty_ms: how much later the wait for it returned. The ring
   * holds device starts placed at that earliest time; ref_shift_ms (at most the
   * uncertainty) moves them all later, as little as needed so that no entry starts on the
   * device before its host call began. Readers add it. */
  double ref_host_ms, ref_uncertainty_ms, ref_shift_ms;
  rs_scope_record *scope_log; /* RS_LEDGER_SCOPE_LOG records, by begin order */
  int64_t scope_count;        /* scopes begun since the reset */
  rs_pool_sample *pool_log;   /* RS_LEDGER_POOL_LOG samples */
  int64_t pool_count;
  char trace_path[1024];      /* RESIDENT_TRACE with %p and %n replaced; "" = none */
} rs_ledger;

typedef struct rs_guard {
  pthread_mutex_t lock;
  rs_guard_mode modes[RS_DIRECTIONS];
  rs_guard_mode saved[RS_GUARD_MAX_PUSHES][RS_DIRECTIONS];
  int depth;
} rs_guard;

#endif
