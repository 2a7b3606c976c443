/* Internal: a crew of persistent threads that run one job at a time, each thread on its
 * own lane (lane 0 is the caller). Unlike the thread pool, whose helpers claim small
 * pieces of shared work, every lane runs the whole job and knows its place in it (the
 * pageable staging gives each lane its share of every piece, and one lane each piece's
 * wait), and a job costs one wake-up per thread instead of one per piece. Threads spin
 * for a short while after a job before they sleep, so back-to-back jobs (copies in a
 * loop) start at once. */
#ifndef RS_CORE_CREW_H
#define RS_CORE_CREW_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include "resident/status.h"

#define RS_CREW_MAX_LANES 64

typedef void (*rs_crew_fn)(int lane, void *arg);

typedef struct rs_crew {
  pthread_mutex_t lock;
  pthread_cond_t go_cv, done_cv;
  pthread_t threads[RS_CREW_MAX_LANES];
  int lanes;   /* including the caller's lane 0 */
  int started; /* threads actually started (lanes - 1 on success) */
  _Atomic uint64_t seq;      /* job number: a change means "go" */
  _Atomic int remaining;     /* threads still on the current job */
  _Atomic int stop;
  rs_crew_fn fn;
  void *arg;
} rs_crew;

/* A spinning thread's hint to the core (shared with the staging's waits). */
static inline void rs_crew_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#else
  atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Start lanes - 1 threads (1 <= lanes <= RS_CREW_MAX_LANES). `who` names the owner in
 * messages. On failure nothing is left running. */
rs_status rs_crew_start(rs_crew *c, int lanes, const char *who);
void rs_crew_stop(rs_crew *c);

/* fn(lane, arg) on every lane at once; returns when all have returned. One job at a
 * time: callers serialize (the staging lock). */
void rs_crew_run(rs_crew *c, rs_crew_fn fn, void *arg);

#endif
