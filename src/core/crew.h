/* Internal: a crew of persistent threads that run one job at a time, each thread on its
 * own lane (lane 0 is the caller). Unlike the thread pool, which lists jobs for helpers
 * that several callers share, a crew serves one caller and a job costs one wake-up per
 * thread instead of one per piece of work.
 *
 * A job is open while the caller's own lane runs it: a thread joins only while it is open
 * and takes its work from the job by claims (a shared counter), so a thread that wakes
 * late (a descheduled vCPU wakes 30 us and more after the others) finds the job closed or
 * nothing left to claim, and the caller never waits for it. So a job must be complete
 * whichever lanes join, none but lane 0 included, and all of its work must be claimed
 * when lane 0's call returns; the caller then waits only for the lanes inside. Threads
 * spin for a short while after a job before they sleep, so back-to-back jobs (copies in
 * a loop) start at once. */
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
  /* The job number, a closed bit and the count of threads inside the job, in one word so
   * that a thread joins (adds one) only if the job it saw is still the current one and
   * open: see crew.c. */
  _Atomic uint64_t gate;
  _Atomic int stop;
  rs_crew_fn fn; /* the current job's: set before it opens, read only by threads inside */
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

/* fn(0, arg) on the caller, and fn(lane, arg) on each thread that joins while that call
 * runs (any number of them, none included); returns when the caller's call has returned
 * and every thread that joined has left. No thread touches fn or arg after that. One job
 * at a time: callers serialize (the staging lock). */
void rs_crew_run(rs_crew *c, rs_crew_fn fn, void *arg);

#endif
