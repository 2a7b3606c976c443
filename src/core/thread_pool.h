/* Internal: a parallel-for over a few persistent host threads. The simulator runs its
 * kernels on one; the copy path spreads the host side of staged pageable copies over one.
 *
 * Chunks are claimed with an atomic counter and the caller claims them too, so a call
 * finishes even when every helper is busy with another caller's job: several threads and
 * nested calls can share the pool without waiting on each other. */
#ifndef RS_CORE_THREAD_POOL_H
#define RS_CORE_THREAD_POOL_H

#include <pthread.h>
#include <stdint.h>
#include "resident/status.h"

typedef struct rs_pool_job rs_pool_job;

typedef struct rs_thread_pool {
  pthread_mutex_t lock;
  pthread_cond_t work_cv; /* a job was listed, or stop */
  pthread_cond_t done_cv; /* a helper left a job */
  int nthreads;           /* including the calling thread */
  int nhelpers;           /* helper threads actually started */
  pthread_t *helpers;
  int stop;
  rs_pool_job *jobs; /* jobs with chunks left to claim */
} rs_thread_pool;

/* Start nthreads - 1 helpers (the caller of rs_thread_pool_run is the last thread).
 * `who` names the owner in messages. */
rs_status rs_thread_pool_start(rs_thread_pool *p, int nthreads, const char *who);
void rs_thread_pool_stop(rs_thread_pool *p);

/* Run body over [0, n) in chunks on the pool and the calling thread; returns when all
 * chunks are done. body must not fail: it reports errors through arg. */
void rs_thread_pool_run(rs_thread_pool *p, int64_t n, void (*body)(int64_t begin, int64_t end, void *arg),
                        void *arg);

static inline int rs_thread_pool_threads(const rs_thread_pool *p) { return p->nhelpers + 1; }

/* The host's core count (at least 1). */
int rs_host_cores(void);

#endif
