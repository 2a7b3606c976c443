#include <stdlib.h>
#include <string.h>
#include "core/crew.h"
#include "core/error.h"

/* About 20-100 us of polling, depending on the CPU: long enough to catch the next copy of
 * a loop, short enough not to steal a core from anyone for long. */
#define RS_CREW_SPINS 4096

typedef struct {
  rs_crew *crew;
  int lane;
} rs_crew_seat;

static void *rs_crew_main(void *arg) {
  rs_crew *c = ((rs_crew_seat *)arg)->crew;
  int lane = ((rs_crew_seat *)arg)->lane;
  free(arg);
  uint64_t seen = 0;
  for (;;) {
    uint64_t now = atomic_load(&c->seq);
    for (int spins = 0; now == seen && !atomic_load(&c->stop); now = atomic_load(&c->seq)) {
      if (++spins < RS_CREW_SPINS) {
        rs_crew_pause();
        continue;
      }
      pthread_mutex_lock(&c->lock);
      while (atomic_load(&c->seq) == seen && !atomic_load(&c->stop)) pthread_cond_wait(&c->go_cv, &c->lock);
      pthread_mutex_unlock(&c->lock);
    }
    if (atomic_load(&c->stop)) return NULL;
    seen = now;
    c->fn(lane, c->arg);
    pthread_mutex_lock(&c->lock);
    if (atomic_fetch_sub(&c->remaining, 1) == 1) pthread_cond_signal(&c->done_cv);
    pthread_mutex_unlock(&c->lock);
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
  pthread_mutex_lock(&c->lock);
  c->fn = fn;
  c->arg = arg;
  atomic_store(&c->remaining, c->started);
  atomic_fetch_add(&c->seq, 1); /* after fn and arg: a thread that sees the new number sees them */
  pthread_cond_broadcast(&c->go_cv);
  pthread_mutex_unlock(&c->lock);
  fn(0, arg);
  for (int spins = 0; atomic_load(&c->remaining) > 0 && spins < RS_CREW_SPINS; spins++) rs_crew_pause();
  pthread_mutex_lock(&c->lock);
  while (atomic_load(&c->remaining) > 0) pthread_cond_wait(&c->done_cv, &c->lock);
  pthread_mutex_unlock(&c->lock);
}
