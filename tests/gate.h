/* tests/gate.h - a "gate": a host callback that blocks its stream until the test opens
 * it (or 10 s pass), so ordering between streams is tested deterministically instead of
 * by timing. The callback never calls into resident. Header-only, after harness.h. */
#ifndef RS_TEST_GATE_H
#define RS_TEST_GATE_H

#include <stdatomic.h>
#include "harness.h"

typedef struct {
  atomic_int open;
  atomic_int entered;
  atomic_int timed_out;
} gate;

static inline void gate_init(gate *g) {
  atomic_store(&g->open, 0);
  atomic_store(&g->entered, 0);
  atomic_store(&g->timed_out, 0);
}

/* the callback: rs_stream_add_callback(s, gate_fn, &g) */
static inline void gate_fn(void *u) {
  gate *g = (gate *)u;
  atomic_store(&g->entered, 1);
  double t0 = rs_t_now_ms_();
  while (!atomic_load(&g->open)) {
    if (rs_t_now_ms_() - t0 > 10000.0) {
      atomic_store(&g->timed_out, 1);
      return;
    }
    rs_t_sleep_ms_(1);
  }
}

/* wait (up to 10 s) until the gate's callback has started; 0 if it never did */
static inline int gate_wait_entered(gate *g) {
  double t0 = rs_t_now_ms_();
  while (!atomic_load(&g->entered)) {
    if (rs_t_now_ms_() - t0 > 10000.0) return 0;
    rs_t_sleep_ms_(1);
  }
  return 1;
}

#endif
