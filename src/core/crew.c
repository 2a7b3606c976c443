#include <stdlib.h>
#include <string.h>
#include "core/crew.h"
#include "core/error.h"

/* About 20-100 us of polling, depending on the CPU: long enough to catch the next copy of
 * a loop, short enough not to steal a core from anyone for long. */
#define RS_CREW_SPINS 4096

/* The gate: bits 0-7 count the threads inside the current job (at most 63), bit 8 says
 * the job is closed, the bits above are its number (from 1; 0: no job yet). The caller
 * opens job n by storing n alone (open, nobody inside), which it does only once job n - 1
 * is closed and empty. A thread joins by adding one with a compare-and-swap of the whole
 * word against the value it saw open with its job's number: the swap fails if anything
 * changed since, so a thread that read the gate, was descheduled and wakes during a later
 * job cannot join that one under the old number (numbers only grow: 55 bits never wrap),
 * nor one that has closed. */
#define RS_GATE_INSIDE ((uint64_t)0xff)
#define RS_GATE_CLOSED ((uint64_t)1 << 8)
#define RS_GATE_JOB_SHIFT 9

static uint64_t rs_gate_job(uint64_t gate) { return gate >> RS_GATE_JOB_SHIFT; }

typedef struct {
  rs_crew *crew;
  int lane;
} rs_crew_seat;

/* Spin, then sleep, until the gate shows a job after `seen` or the crew stops; the gate. */
static uint64_t rs_crew_next(rs_crew *c, uint64_t seen) {
  uint64_t g = atomic_load(&c->gate);
  for (int spins = 0; rs_gate_job(g) == seen && !atomic_load(&c->stop); g = atomic_load(&c->gate)) {
    if (++spins < RS_CREW_SPINS) {
      rs_crew_pause();
      continue;
    }
    pthread_mutex_lock(&c->lock);
    while (rs_gate_job(atomic_load(&c->gate)) == seen && !atomic_load(&c->stop))
      pthread_cond_wait(&c->go_cv, &c->lock);
    pthread_mutex_unlock(&c->lock);
  }
  return g;
}

static void *rs_crew_main(void *arg) {
  rs_crew *c = ((rs_crew_seat *)arg)->crew;
  int lane = ((rs_crew_seat *)arg)->lane;
  free(arg);
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = rs_crew_next(c, seen);
    if (atomic_load(&c->stop)) return NULL;
    seen = rs_gate_job(g);
    /* Join while the job is open; a failed swap reloads g (another thread joined: try
     * again; or a later job: back to the top, which takes that one). */
    int joined = 0;
    while (!joined && !(g & RS_GATE_CLOSED) && rs_gate_job(g) == seen)
      joined = atomic_compare_exchange_weak(&c->gate, &g, g + 1);
    if (!joined) continue; /* closed: too late for it */
    /* Inside, fn and arg are this job's: the caller set them before opening it and sets
     * them again only once nobody is inside. */
    c->fn(lane, c->arg);
    uint64_t before = atomic_fetch_sub(&c->gate, 1);
    /* The last one out of a closed job wakes the caller if it sleeps (under the lock, so
     * that it cannot miss this between its check and its wait). */
    if ((before & RS_GATE_CLOSED) && (before & RS_GATE_INSIDE) == 1) {
      pthread_mutex_lock(&c->lock);
      pthread_cond_signal(&c->done_cv);
      pthread_mutex_unlock(&c->lock);
    }
  }
}

rs_status rs_crew_start(rs_crew *c, int lanes, const char *who) {
  memset(c, 0, sizeof *c);
  if (lanes < 1 || lanes > RS_CREW_MAX_LANES)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d threads (1 to %d)", who, lanes, RS_CREW_MAX_LANES);
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->go_cv, NULL);
  pthread_cond_init(&c->done_cv, NULL);
  c->lanes = lanes;
  for (int i = 1; i < lanes; i++) {
    rs_crew_seat *seat = malloc(sizeof *seat);
    if (!seat) break;
    *seat = (rs_crew_seat){c, i};
    if (pthread_create(&c->threads[c->started], NULL, rs_crew_main, seat) != 0) {
      free(seat);
      break;
    }
    c->started++;
  }
  if (c->started == lanes - 1) return RS_OK;
  rs_crew_stop(c);
  return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: could not start %d threads", who, lanes - 1);
}

void rs_crew_stop(rs_crew *c) {
  if (!c->lanes) return;
  pthread_mutex_lock(&c->lock);
  atomic_store(&c->stop, 1);
  pthread_cond_broadcast(&c->go_cv);
  pthread_mutex_unlock(&c->lock);
  for (int i = 0; i < c->started; i++) pthread_join(c->threads[i], NULL);
  pthread_cond_destroy(&c->go_cv);
  pthread_cond_destroy(&c->done_cv);
  pthread_mutex_destroy(&c->lock);
  c->lanes = c->started = 0;
}

void rs_crew_run(rs_crew *c, rs_crew_fn fn, void *arg) {
  /* Nobody is inside (the last job closed and emptied), so nobody reads these now. */
  c->fn = fn;
  c->arg = arg;
  const uint64_t job = rs_gate_job(atomic_load(&c->gate)) + 1;
  pthread_mutex_lock(&c->lock);
  atomic_store(&c->gate, job << RS_GATE_JOB_SHIFT); /* open; after fn and arg */
  pthread_cond_broadcast(&c->go_cv);
  pthread_mutex_unlock(&c->lock);
  fn(0, arg);
  /* All work is claimed: close, then wait for the threads inside (their claims), never
   * for one that has not joined. */
  uint64_t g = atomic_fetch_or(&c->gate, RS_GATE_CLOSED);
  for (int spins = 0; (g & RS_GATE_INSIDE) && spins < RS_CREW_SPINS; spins++) {
    rs_crew_pause();
    g = atomic_load(&c->gate);
  }
  if (!(g & RS_GATE_INSIDE)) return;
  pthread_mutex_lock(&c->lock);
  while (atomic_load(&c->gate) & RS_GATE_INSIDE) pthread_cond_wait(&c->done_cv, &c->lock);
  pthread_mutex_unlock(&c->lock);
}
