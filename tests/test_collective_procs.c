/* Issue 19, item 3: communicators over several processes (rs_comm_unique_id, handed to
 * each process, rs_comm_init_rank). On the simulator three child processes (this program
 * again, fork + exec) join one comm over shared memory and check all-reduce, all-gather and
 * a ring of sends against the values each rank computes for the others; a count that
 * differs on one rank fails on every rank with a message naming it; a rank that never
 * comes is a timeout, one that dies is seen gone: neither hangs. On CUDA (one process per GPU; a one-GPU machine
 * has one) the same API makes a comm of one rank through NCCL. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"
#include "resident/collective.h"

#define NR 3
#define N 200000 /* floats: several rounds of the simulator's slots */

static void to_hex(const rs_comm_id *id, char *out) {
  for (int i = 0; i < RS_COMM_ID_BYTES; i++) sprintf(out + 2 * i, "%02x", id->bytes[i]);
}

static int from_hex(const char *s, rs_comm_id *id) {
  if (strlen(s) != 2 * RS_COMM_ID_BYTES) return -1;
  for (int i = 0; i < RS_COMM_ID_BYTES; i++) {
    unsigned v = 0;
    if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
    id->bytes[i] = (unsigned char)v;
  }
  return 0;
}

extern char **environ;

/* Start this program as the child of rank `rank` of nranks in mode; its pid. The
 * environment is made before the fork (only async-signal-safe calls between fork and exec). */
static pid_t start_child(const rs_comm_id *id, int rank, int nranks, const char *mode, const char *timeout_s) {
  static char hex[NR + 2][32 + 2 * RS_COMM_ID_BYTES], rk[NR + 2][48], md[NR + 2][48], to[NR + 2][48];
  int k = rank;
  strcpy(hex[k], "RS_T_COMM_ID=");
  to_hex(id, hex[k] + strlen(hex[k]));
  snprintf(rk[k], sizeof rk[k], "RS_T_COMM_RANK=%d/%d", rank, nranks);
  snprintf(md[k], sizeof md[k], "RS_T_COMM_MODE=%s", mode);
  snprintf(to[k], sizeof to[k], "RESIDENT_COMM_TIMEOUT=%s", timeout_s);
  size_t n = 0;
  while (environ[n]) n++;
  char **envp = calloc(n + 6, sizeof *envp);
  if (!envp) return -1;
  size_t j = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "RS_T_COMM_", 10) != 0 && strncmp(environ[i], "RESIDENT_COMM_TIMEOUT=", 22) != 0)
      envp[j++] = environ[i];
  envp[j++] = hex[k];
  envp[j++] = rk[k];
  envp[j++] = md[k];
  envp[j++] = to[k];
  char *const argv[] = {"/proc/self/exe", "test_comm_child_side", NULL};
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    execve("/proc/self/exe", argv, envp);
    _exit(127);
  }
  free(envp);
  return pid;
}

static int wait_child(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static float value(int rank, int64_t i) { return (float)((i % 1000) * (rank + 1)); }

static rs_array *filled(rs_context *ctx, int rank, int64_t n) {
  rs_array *h = NULL, *d = NULL;
  if (rs_host_array(&h, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C) != RS_OK) return NULL;
  float *x = rs_array_host_data(h);
  for (int64_t i = 0; i < n; i++) x[i] = value(rank, i);
  if (rs_to_device(&d, h, 0, NULL) != RS_OK) d = NULL;
  rs_array_release(h);
  return d;
}

static int64_t count_bad(rs_array *d, float (*want)(int64_t i, void *arg), void *arg) {
  rs_array *h = NULL;
  if (rs_copy_to_host(&h, d, NULL) != RS_OK) return -1;
  const float *x = rs_array_host_data(h);
  int64_t bad = 0;
  for (int64_t i = 0; i < rs_array_size(d); i++) bad += x[i] != want(i, arg);
  rs_array_release(h);
  return bad;
}

static float want_sum(int64_t i, void *arg) {
  int nranks = *(int *)arg;
  float s = 0;
  for (int r = 0; r < nranks; r++) s += value(r, i);
  return s;
}
static float want_gather(int64_t i, void *arg) { return value((int)(i / *(int64_t *)arg), i % *(int64_t *)arg); }
static float want_from(int64_t i, void *arg) { return value(*(int *)arg, i); }

/* The child: join, then what its mode says. */
static void test_comm_child_side(rs_context *ctx) {
  const char *hex = getenv("RS_T_COMM_ID"), *rk = getenv("RS_T_COMM_RANK"), *mode = getenv("RS_T_COMM_MODE");
  if (!hex || !rk || !mode) return; /* run by ctest itself: nothing to do */
  rs_comm_id id;
  int rank = -1, nranks = 0;
  CHECK(from_hex(hex, &id) == 0 && sscanf(rk, "%d/%d", &rank, &nranks) == 2);
  rs_comm *comm = NULL;
  rs_status st = rs_comm_init_rank(&comm, ctx, nranks, rank, &id);
  if (strcmp(mode, "alone") == 0) { /* nobody else comes */
    CHECK_MSG(st == RS_ERR_NOT_READY, "status %s: %s", rs_status_name(st), rs_last_error());
    CHECK_ERRMSG("timed out");
    printf("    child %d: %s\n", rank, rs_last_error());
    return;
  }
  CHECK_OK(st);
  CHECK_PASSING();
  if (strcmp(mode, "die") == 0 && rank == 1) _exit(0); /* leaves the others waiting */
  rs_array *a = filled(ctx, rank, N), *sum = NULL, *all = NULL, *got = NULL;
  int64_t n = N, nall = (int64_t)N * nranks;
  CHECK_OK(rs_device_array(&sum, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  st = rs_comm_all_reduce(comm, (const rs_array *const *)&a, &sum, RS_REDUCE_SUM, NULL);
  if (strcmp(mode, "die") == 0) {
    CHECK_MSG(st == RS_ERR_NOT_READY, "status %s: %s", rs_status_name(st), rs_last_error());
    CHECK_ERRMSG("rank 1 (process", "another rank");
    printf("    child %d: %s\n", rank, rs_last_error());
  } else {
    CHECK_OK(st);
    CHECK_EQ_I64(count_bad(sum, want_sum, &nranks), 0);
    CHECK_OK(rs_device_array(&all, ctx, 1, &nall, RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK_OK(rs_comm_all_gather(comm, (const rs_array *const *)&a, &all, NULL));
    CHECK_EQ_I64(count_bad(all, want_gather, &n), 0);
    int to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
    CHECK_OK(rs_device_array(&got, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK_OK(rs_comm_send_recv(comm, (const rs_array *const *)&a, &to, &got, &from, NULL));
    CHECK_EQ_I64(count_bad(got, want_from, &from), 0);
    /* the last rank brings fewer elements: every rank fails alike, naming it */
    rs_array *part = NULL;
    int64_t fewer = rank == nranks - 1 ? N - 1 : N;
    CHECK_OK(rs_device_array(&part, ctx, 1, &fewer, RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK_STATUS(rs_comm_all_reduce(comm, (const rs_array *const *)&part, &part, RS_REDUCE_SUM, NULL), RS_ERR_SHAPE);
    char want[64];
    snprintf(want, sizeof want, "rank %d has %d elements", nranks - 1, N - 1);
    CHECK_ERRMSG(want);
    /* and the comm goes on */
    CHECK_OK(rs_comm_all_reduce(comm, (const rs_array *const *)&a, &sum, RS_REDUCE_MAX, NULL));
    rs_ledger_stats s;
    CHECK_OK(rs_ledger_get_stats(ctx, &s));
    CHECK_EQ_I64(s.collectives, 4);
    rs_array_release(part);
  }
  rs_array_release(a);
  rs_array_release(sum);
  rs_array_release(all);
  rs_array_release(got);
  CHECK_OK(rs_comm_destroy(comm));
}

static void test_three_processes(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* one GPU: one process (below) */
  rs_comm_id id;
  CHECK_OK(rs_comm_unique_id(RS_BACKEND_SIM, &id));
  pid_t pids[NR];
  for (int r = 0; r < NR; r++) pids[r] = start_child(&id, r, NR, "work", "60");
  for (int r = 0; r < NR; r++) CHECK_EQ_I64(pids[r] > 0 ? wait_child(pids[r]) : -1, 0);
}

static void test_missing_and_dead_ranks(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return;
  rs_comm_id id;
  CHECK_OK(rs_comm_unique_id(RS_BACKEND_SIM, &id));
  pid_t alone = start_child(&id, 0, 2, "alone", "1");
  CHECK_EQ_I64(alone > 0 ? wait_child(alone) : -1, 0);
  CHECK_OK(rs_comm_unique_id(RS_BACKEND_SIM, &id));
  pid_t pids[NR];
  /* rank 1 exits after the join: the others see it gone long before this timeout (which
   * also bounds the join, so it leaves three processes time to start under a sanitizer) */
  for (int r = 0; r < NR; r++) pids[r] = start_child(&id, r, NR, "die", "20");
  for (int r = 0; r < NR; r++) CHECK_EQ_I64(pids[r] > 0 ? wait_child(pids[r]) : -1, 0);
}

/* The multi-process API in one process: a comm of one rank (NCCL's on CUDA). */
static void test_init_rank_of_one(rs_context *ctx) {
  rs_comm_id id;
  rs_status st = rs_comm_unique_id(rs_context_backend(ctx), &id);
  if (st == RS_ERR_UNSUPPORTED && rs_context_backend(ctx) == RS_BACKEND_CUDA) {
    CHECK_ERRMSG("libnccl", "nccl.h");
    printf("    NCCL unavailable: %s\n", rs_last_error());
    return;
  }
  CHECK_OK(st);
  rs_comm *comm = NULL;
  CHECK_OK(rs_comm_init_rank(&comm, ctx, 1, 0, &id));
  CHECK_PASSING();
  rs_array *a = filled(ctx, 0, N), *b = NULL;
  int64_t n = N;
  int one = 1;
  CHECK_OK(rs_device_array(&b, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_comm_all_reduce(comm, (const rs_array *const *)&a, &b, RS_REDUCE_SUM, NULL));
  CHECK_EQ_I64(count_bad(b, want_sum, &one), 0);
  int nranks = 0, first = -1, local = 0;
  CHECK_OK(rs_comm_get_info(comm, &nranks, &first, &local));
  CHECK(nranks == 1 && first == 0 && local == 1);
  rs_array_release(a);
  rs_array_release(b);
  CHECK_OK(rs_comm_destroy(comm));
  /* an id of the other backend is refused by name */
  if (rs_context_backend(ctx) == RS_BACKEND_SIM) {
    memset(&id, 0, sizeof id);
    memcpy(id.bytes, "resident-cuda-nccl", 19);
    CHECK_STATUS(rs_comm_init_rank(&comm, ctx, 1, 0, &id), RS_ERR_INVALID_ARGUMENT);
    CHECK_ERRMSG("not a simulator communicator id");
  }
  CHECK_STATUS(rs_comm_unique_id(RS_BACKEND_AUTO, &id), RS_ERR_INVALID_ARGUMENT);
}

static const rs_test_case tests[] = {
    RS_TEST(test_comm_child_side),
    RS_TEST(test_init_rank_of_one),
    RS_TEST(test_three_processes),
    RS_TEST(test_missing_and_dead_ranks),
};

RS_TEST_MAIN(tests)
