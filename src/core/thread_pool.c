#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/error.h"
#include "core/thread_pool.h"

struct rs_pool_job {
  void (*body)(int64_t begin, int64_t end, void *arg);
  void *arg;
  int64_t n, chunk, nchunks;
  atomic_int_fast64_t next_chunk;
  int helpers; /* under the pool lock */
  int listed;  /* under the pool lock */
  rs_pool_job *link;
};

static void run_chunks(rs_pool_job *j) {
  for (;;) {
    int64_t c = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed);
    if (c >= j->nchunks) return;
    int64_t begin = c * j->chunk;
    int64_t end = j->n - begin < j->chunk ? j->n : begin + j->chunk;
    j->body(begin, end, j->arg);
  }
}

static void unlist_locked(rs_thread_pool *p, rs_pool_job *j) {
  if (!j->listed) return;
  for (rs_pool_job **pp = &p->jobs; *pp; pp = &(*pp)->link) {
    if (*pp == j) {
      *pp = j->link;
      break;
    }
  }
  j->listed = 0;
}

static void *helper_main(void *arg) {
  rs_thread_pool *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->stop && !p->jobs) pthread_cond_wait(&p->work_cv, &p->lock);
    if (p->stop) break;
    rs_pool_job *j = p->jobs;
    j->helpers++;
    pthread_mutex_unlock(&p->lock);
    run_chunks(j);
    pthread_mutex_lock(&p->lock);
    /* Nothing left to claim: stop others from picking it up again. */
    unlist_locked(p, j);
    if (--j->helpers == 0) pthread_cond_broadcast(&p->done_cv);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

rs_status rs_thread_pool_start(rs_thread_pool *p, int nthreads, const char *who) {
  p->nthreads = nthreads;
  p->nhelpers = 0;
  p->stop = 0;
  p->jobs = NULL;
  p->helpers = NULL;
  if (pthread_mutex_init(&p->lock, NULL) != 0)
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: cannot create the thread pool's lock", who);
  if (pthread_cond_init(&p->work_cv, NULL) != 0) {
    pthread_mutex_destroy(&p->lock);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: cannot create the thread pool", who);
  }
  if (pthread_cond_init(&p->done_cv, NULL) != 0) {
    pthread_cond_destroy(&p->work_cv);
    pthread_mutex_destroy(&p->lock);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: cannot create the thread pool", who);
  }
  if (nthreads > 1) {
    p->helpers = calloc((size_t)nthreads - 1, sizeof *p->helpers);
    if (!p->helpers) {
      rs_thread_pool_stop(p);
      return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory for %d threads", who,
                     nthreads);
    }
    for (int i = 0; i < nthreads - 1; i++) {
      int err = pthread_create(&p->helpers[i], NULL, helper_main, p);
      if (err != 0) {
        rs_thread_pool_stop(p);
        return rs_fail(RS_ERR_DEVICE, "%s: cannot start pool thread %d of %d: %s", who, i + 2,
                       nthreads, strerror(err));
      }
      p->nhelpers++;
    }
  }
  return RS_OK;
}

void rs_thread_pool_stop(rs_thread_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->stop = 1;
  pthread_cond_broadcast(&p->work_cv);
  pthread_mutex_unlock(&p->lock);
  for (int i = 0; i < p->nhelpers; i++) pthread_join(p->helpers[i], NULL);
  free(p->helpers);
  p->helpers = NULL;
  p->nhelpers = 0;
  pthread_cond_destroy(&p->done_cv);
  pthread_cond_destroy(&p->work_cv);
  pthread_mutex_destroy(&p->lock);
}

int rs_host_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

void rs_thread_pool_run(rs_thread_pool *p, int64_t n, void (*body)(int64_t begin, int64_t end, void *arg),
                        void *arg) {
  if (n <= 0) return;
  int threads = p->nhelpers + 1;
  /* A few chunks per thread evens out uneven bodies without much claiming overhead. */
  int64_t want = (int64_t)threads * 4;
  int64_t chunk = n / want + (n % want != 0);
  int64_t nchunks = n / chunk + (n % chunk != 0);
  if (threads == 1 || nchunks == 1) {
    body(0, n, arg);
    return;
  }
  rs_pool_job j = {.body = body, .arg = arg, .n = n, .chunk = chunk, .nchunks = nchunks,
               .helpers = 0, .listed = 1, .link = NULL};
  atomic_init(&j.next_chunk, 0);
  pthread_mutex_lock(&p->lock);
  rs_pool_job **tail = &p->jobs;
  while (*tail) tail = &(*tail)->link;
  *tail = &j;
  pthread_cond_broadcast(&p->work_cv);
  pthread_mutex_unlock(&p->lock);

  run_chunks(&j);

  /* j lives on this stack: no helper may still be inside it when we return. */
  pthread_mutex_lock(&p->lock);
  unlist_locked(p, &j);
  while (j.helpers > 0) pthread_cond_wait(&p->done_cv, &p->lock);
  pthread_mutex_unlock(&p->lock);
}
