/* The host path's thread pool: one per process, started at the first host op that is
 * worth spreading (so a program that never computes on the host starts no thread), with
 * as many threads as RESIDENT_HOST_THREADS asks (read with the other variables when a
 * context is created: src/context/config.c; the first context of the process sets it)
 * or one per online CPU. The threads wait on a condition variable between jobs and
 * live until the process ends (joining them at exit could wait on a thread of the
 * program that is still inside an op). Several callers share the pool
 * (core/thread_pool.h). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "core/config.h"
#include "native/native.h"
#include "native/native_blas.h"

static pthread_mutex_t host_lock = PTHREAD_MUTEX_INITIALIZER;
static rs_thread_pool host_pool;
static _Atomic(rs_thread_pool *) host_started; /* &host_pool once started, else NULL */
static atomic_int host_wanted;                  /* 0: one per online CPU */
static atomic_flag host_set = ATOMIC_FLAG_INIT; /* the first context's value is taken */

void rs_native_host_threads_request(int threads) {
  if (threads < 0 || threads > RS_HOST_MAX_THREADS) return;
  if (atomic_flag_test_and_set(&host_set)) return;
  atomic_store(&host_wanted, threads);
  if (threads > 0) rs_blas_set_threads(threads); /* one setting for all the host's work */
}

static int wanted_threads(void) {
  int n = atomic_load(&host_wanted);
  if (n == 0) n = rs_host_cores();
  return n > RS_HOST_MAX_THREADS ? RS_HOST_MAX_THREADS : n;
}

int rs_native_host_threads(void) {
  rs_thread_pool *p = atomic_load_explicit(&host_started, memory_order_acquire);
  return p ? rs_thread_pool_threads(p) : wanted_threads();
}

static void stop_locked(void) {
  rs_thread_pool *p = atomic_load(&host_started);
  if (!p) return;
  atomic_store(&host_started, NULL);
  rs_thread_pool_stop(p);
}

rs_status rs_native_host_pool(rs_thread_pool **out) {
  *out = atomic_load_explicit(&host_started, memory_order_acquire);
  if (*out) return RS_OK;
  int n = wanted_threads();
  if (n <= 1) return RS_OK; /* one thread: the caller's own, no pool */
  rs_status st = RS_OK;
  pthread_mutex_lock(&host_lock);
  if (!atomic_load(&host_started)) {
    st = rs_thread_pool_start(&host_pool, n, "host thread pool");
    if (st == RS_OK) atomic_store_explicit(&host_started, &host_pool, memory_order_release);
  }
  *out = atomic_load(&host_started);
  pthread_mutex_unlock(&host_lock);
  return st;
}

void rs_native_host_pool_restart(int threads) {
  pthread_mutex_lock(&host_lock);
  stop_locked();
  atomic_flag_test_and_set(&host_set);
  if (threads >= 0 && threads <= RS_HOST_MAX_THREADS) atomic_store(&host_wanted, threads);
  pthread_mutex_unlock(&host_lock);
}
