/* The crew of src/core/crew.c: a job is open while the caller's own lane runs it, threads
 * join only while it is open and take work by claims, and the caller waits only for the
 * threads inside. Checked here: every slice of every job done exactly once whichever
 * threads joined (thousands of jobs, more threads than cores, so that threads wake late
 * all the time); no thread inside a job after the caller returned, none running a job's
 * fn with another job's arg; and, deterministically, jobs that complete while every
 * thread of the crew is held where it cannot join (parked in a signal handler). */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include "core/crew.h"
#include "harness.h"

#define T_SLICES 64

/* A job of claimed slices. Two of them take turns, each with its own fn, so that a
 * thread that ran one job's fn with the other's arg shows (`magic`); `over` is set when
 * the caller's rs_crew_run has returned, so that a thread still inside shows. */
typedef struct {
  unsigned magic;
  size_t slices;    /* this job's, at most T_SLICES */
  uint64_t factor;  /* slice i adds (i + 1) * factor */
  _Atomic size_t next;
  _Atomic int done[T_SLICES];
  _Atomic uint64_t sum;
  _Atomic unsigned long long lanes_in; /* a bit per lane that ran the job */
  _Atomic int over;
} t_job;

static _Atomic int t_bad; /* a thread saw a job it should not have */

static void t_work(t_job *job, int lane, unsigned magic) {
  if (job->magic != magic || atomic_load(&job->over)) atomic_fetch_add(&t_bad, 1);
  atomic_fetch_or(&job->lanes_in, 1ull << lane);
  for (size_t i; (i = atomic_fetch_add(&job->next, 1)) < job->slices;) {
    atomic_fetch_add(&job->done[i], 1);
    /* a little work per slice, so that a joining thread finds some left */
    for (int r = 0; r < 50; r++) rs_crew_pause();
    atomic_fetch_add(&job->sum, (i + 1) * job->factor);
  }
  if (atomic_load(&job->over)) atomic_fetch_add(&t_bad, 1);
}

static void t_fn_a(int lane, void *arg) { t_work(arg, lane, 0xA11A); }
static void t_fn_b(int lane, void *arg) { t_work(arg, lane, 0xB22B); }

static void t_job_reset(t_job *job, unsigned magic, size_t slices, uint64_t factor) {
  job->magic = magic;
  job->slices = slices;
  job->factor = factor;
  atomic_store(&job->next, 0);
  for (int i = 0; i < T_SLICES; i++) atomic_store(&job->done[i], 0);
  atomic_store(&job->sum, 0);
  atomic_store(&job->lanes_in, 0);
  atomic_store(&job->over, 0);
}

/* Run job number n on the crew and check it; `lanes_in` gets the lanes that ran it. */
static void t_run_one(rs_crew *crew, t_job jobs[2], int n, unsigned long long *lanes_in) {
  t_job *job = &jobs[n % 2];
  const size_t slices = 1 + (size_t)n % T_SLICES;
  const uint64_t factor = 1 + (uint64_t)n;
  t_job_reset(job, n % 2 ? 0xB22B : 0xA11A, slices, factor);
  rs_crew_run(crew, n % 2 ? t_fn_b : t_fn_a, job);
  atomic_store(&job->over, 1);
  *lanes_in = atomic_load(&job->lanes_in);
  for (size_t i = 0; i < T_SLICES; i++)
    CHECK_MSG(atomic_load(&job->done[i]) == (i < slices), "job %d: slice %zu done %d times", n, i,
              atomic_load(&job->done[i]));
  CHECK_MSG(atomic_load(&job->sum) == slices * (slices + 1) / 2 * factor, "job %d: sum %llu", n,
            (unsigned long long)atomic_load(&job->sum));
  CHECK_MSG(*lanes_in & 1, "job %d: lane 0 did not run it", n);
}

static void t_jobs(int lanes, int count) {
  rs_crew crew;
  CHECK_OK(rs_crew_start(&crew, lanes, "test crew"));
  static t_job jobs[2];
  int joined = 0; /* jobs that a thread joined: how much the run exercised */
  atomic_store(&t_bad, 0);
  for (int n = 0; n < count && !rs_t_.failed; n++) {
    unsigned long long in = 0;
    t_run_one(&crew, jobs, n, &in);
    joined += in != 1;
  }
  rs_crew_stop(&crew);
  CHECK_PASSING();
  CHECK_MSG(atomic_load(&t_bad) == 0, "%d threads ran a job after it was over or with another's arg",
            atomic_load(&t_bad));
  printf(" [%d lanes: threads joined %d of %d jobs]", lanes, joined, count);
}

/* More threads than this machine's cores (2 in CI): many wake late, after the job has
 * closed, or read the gate and are descheduled before they join. */
static void test_claims(rs_context *ctx) {
  (void)ctx;
  t_jobs(16, 20000);
  CHECK_PASSING();
  t_jobs(3, 20000);
  CHECK_PASSING();
  t_jobs(1, 200); /* the caller alone */
}

/* ---- threads held where they cannot join ----------------------------------------------- */

static _Atomic int t_parked, t_release;

/* SIGUSR1 on a crew thread: it stays here until released (only async-signal-safe calls). */
static void t_park(int sig) {
  (void)sig;
  int saved = errno;
  atomic_fetch_add(&t_parked, 1);
  struct timespec ms = {0, 1000000};
  while (!atomic_load(&t_release)) nanosleep(&ms, NULL);
  atomic_fetch_sub(&t_parked, 1);
  errno = saved;
}

static void t_sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
  nanosleep(&t, NULL);
}

/* Every thread of a crew parked in a signal handler: jobs complete on the caller's lane
 * alone (a crew that waited for its threads would hang here, and the harness's alarm
 * would name this test); once released, the threads skip the jobs they missed and join
 * the next ones (or not) without disturbing them. */
static void test_parked_lanes(rs_context *ctx) {
  (void)ctx;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = t_park;
  sigemptyset(&sa.sa_mask);
  CHECK(sigaction(SIGUSR1, &sa, &old) == 0);
  rs_crew crew;
  CHECK_OK(rs_crew_start(&crew, 4, "test crew"));
  static t_job jobs[2];
  atomic_store(&t_bad, 0);
  atomic_store(&t_release, 0);
  /* The threads spin for a while, then sleep on the crew's condition variable, holding no
   * lock: park them there (parked while holding the crew's lock, they would block the
   * caller, which is not what this test is about). */
  t_sleep_ms(100);
  for (int i = 0; i < crew.started; i++) pthread_kill(crew.threads[i], SIGUSR1);
  while (atomic_load(&t_parked) < crew.started) t_sleep_ms(1);
  int n = 0, first_joined = -1; /* checked once the threads are released */
  unsigned long long joined_by = 0;
  for (; n < 100 && !rs_t_.failed; n++) {
    unsigned long long in = 0;
    t_run_one(&crew, jobs, n, &in);
    if (in != 1 && first_joined < 0) first_joined = n, joined_by = in;
  }
  atomic_store(&t_release, 1);
  while (atomic_load(&t_parked) > 0) t_sleep_ms(1);
  for (; n < 1100 && !rs_t_.failed; n++) {
    unsigned long long in = 0;
    t_run_one(&crew, jobs, n, &in);
  }
  rs_crew_stop(&crew);
  sigaction(SIGUSR1, &old, NULL);
  CHECK_PASSING();
  CHECK_MSG(first_joined < 0, "job %d run by lanes %#llx while the threads were parked", first_joined, joined_by);
  CHECK_MSG(atomic_load(&t_bad) == 0, "%d threads ran a job after it was over or with another's arg",
            atomic_load(&t_bad));
}

static const rs_test_case tests[] = {RS_TEST(test_claims), RS_TEST(test_parked_lanes)};
RS_TEST_MAIN(tests)
