/* The trace (resident/trace.h): Trace Event Format JSON written from the ledger.
 *
 * - A run of implicit launches, explicit copies, a kernel on the device array, waits and a
 *   named scope is written with every timing setting (all, copies only, none); the file
 *   is parsed by a real JSON parser (Python's json, tests/check_trace.py) and checked
 *   against the format's rules (B has its E or X has a dur, timestamps never go back on a
 *   track, slices nest) and against the ledger: as many copy events, implicit copies,
 *   bytes, kernels and waits as the ledger counted, the scope by name, the device pool's
 *   counters, and with copy timing on every copy at its device time.
 * - Bad input: NULLs, an empty path, a path in a folder that does not exist (RS_ERR_IO
 *   naming the path, nothing written, the ledger's counts unchanged); /dev/full (RS_ERR_IO,
 *   the ledger unchanged and usable); a disk that fills midway (RLIMIT_FSIZE in this
 *   process): RS_ERR_IO, and the file is a valid trace ending with its "trace truncated"
 *   event, no larger than the limit, with at most the ledger's copies.
 * - RESIDENT_TRACE: a context writes its trace when destroyed (the %p in the path
 *   replaced); a bad '%' is RS_ERR_PARSE and an unwritable path RS_ERR_IO at creation.
 * Without a Python the JSON checks are skipped (said so) and the rest still runs. */
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "known_kernels.h"
#include "resident/ledger.h"
#include "resident/trace.h"

#define N 1000
#define LAUNCHES 3

static const char *python(void) {
  const char *p = getenv("RESIDENT_TEST_PYTHON");
  return p && *p ? p : "python3";
}

static int have_python(void) {
  static int known = -1;
  if (known < 0) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import json' >/dev/null 2>&1", python());
    known = system(cmd) == 0;
    if (!known) printf("    note: no python3 - the trace's JSON checks are skipped\n");
  }
  return known;
}

static void trace_path(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "/tmp/rs_trace_%ld_%s_%s.json", (long)getpid(), name, getenv("RESIDENT_BACKEND") ? getenv("RESIDENT_BACKEND") : "auto");
}

/* tests/check_trace.py on path with the ledger's counts; 0 when it passes. */
static int check_json(const char *path, const rs_ledger_stats *s, const char *extra) {
  if (!have_python()) return 0;
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' '%s/check_trace.py' '%s' --copies %lld --implicit %lld --bytes %lld --kernels %lld --waits %lld %s",
           python(), RS_T_SOURCE_DIR, path, (long long)rs_ledger_copies(s, -1), (long long)rs_ledger_copies(s, 1),
           (long long)rs_ledger_bytes(s, -1), (long long)s->kernels, (long long)s->waits, extra);
  int rc = system(cmd);
  return rc;
}

/* The work the traces hold: implicit launches in a named scope, then the explicit style. */
static void work(rs_context *ctx, int launches) {
  int64_t n = N;
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(rs_host_array(&h, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  float *p = rs_array_host_data(h);
  for (int i = 0; i < N; i++) p[i] = (float)i;
  CHECK_OK(rs_ledger_begin_named(ctx, "implicit style"));
  for (int k = 0; k < launches; k++) CHECK_OK(rs_t_axpb(h, 1.0, 1.0, NULL));
  CHECK_OK(rs_ledger_end(ctx, NULL));
  CHECK_OK(rs_ledger_begin_named(ctx, "explicit style"));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_t_axpb(d, 1.0, 1.0, NULL));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_OK(rs_ledger_end(ctx, NULL));
  CHECK_NEAR(p[7], 7.0 + launches + 1, 1e-3);
  rs_array_release(d);
  rs_array_release(h);
}

static void traced_run(rs_context *ctx, unsigned timing, const char *name) {
  char path[256];
  trace_path(path, sizeof path, name);
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  CHECK_OK(rs_t_kernels_warm(ctx));
  CHECK_OK(rs_ledger_set_timing(ctx, timing));
  CHECK_OK(rs_ledger_reset(ctx));
  work(ctx, LAUNCHES);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(rs_ledger_copies(&s, 1), 2 * LAUNCHES);
  CHECK_EQ_I64(rs_ledger_copies(&s, 0), 2);
  /* device times on the host clock: never before the host call, in order on the stream */
  int64_t count = 0;
  double last = -1;
  CHECK_OK(rs_ledger_count(ctx, &count, NULL));
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.device_start_ms < 0) continue;
    CHECK_MSG(e.device_start_ms >= e.host_start_ms - 1e-3, /* 1 us: the events' float milliseconds */ "entry %lld (%s) starts on the device at %.4f ms, its call at %.4f ms",
              (long long)i, e.cause, e.device_start_ms, e.host_start_ms);
    CHECK_MSG(e.device_start_ms >= last - 1e-3, "entry %lld (%s) starts on the device at %.4f ms, before the one before it (%.4f)",
              (long long)i, e.cause, e.device_start_ms, last);
    CHECK(e.thread >= 1);
    if (e.kind == RS_ENTRY_COPY) CHECK_STREQ(e.shape, "(1000,)");
    last = e.device_start_ms + e.device_ms;
  }
  CHECK_OK(rs_trace_write(ctx, path));
  const char *extra = timing & RS_TIME_COPIES ? "--scope 'implicit style' --scope 'explicit style' --pool --device-times"
                                              : "--scope 'implicit style' --scope 'explicit style' --pool";
  CHECK_MSG(check_json(path, &s, extra) == 0, "%s does not hold the ledger as a valid trace", path);
  rs_ledger_stats after;
  CHECK_OK(rs_ledger_get_stats(ctx, &after));
  CHECK_EQ_I64(rs_ledger_copies(&after, -1), rs_ledger_copies(&s, -1));
  CHECK_PASSING();
  unlink(path);
}

static void test_trace_timed_all(rs_context *ctx) { traced_run(ctx, RS_TIME_ALL, "all"); }
static void test_trace_timed_copies(rs_context *ctx) { traced_run(ctx, RS_TIME_COPIES, "copies"); }
static void test_trace_untimed(rs_context *ctx) { traced_run(ctx, RS_TIME_NONE, "none"); }

/* The copies' shapes as NumPy prints them, long ones cut. */
static void test_trace_shapes(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  int64_t shapes[3][12] = {{0}, {3, 5}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}};
  int ndims[3] = {0, 2, 12};
  const char *want[3] = {"()", "(3, 5)", "(1, 1, 1, 1, 1, 1, 1, 1, 1, ..."};
  for (int i = 0; i < 3; i++) {
    rs_array *h = NULL, *d = NULL;
    CHECK_OK(rs_host_array(&h, ctx, ndims[i], shapes[i], RS_FLOAT32, NULL, RS_ORDER_C));
    CHECK_OK(rs_to_device(&d, h, 0, NULL));
    rs_array_release(d);
    rs_array_release(h);
    int64_t count = 0;
    CHECK_OK(rs_ledger_count(ctx, &count, NULL));
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, count - 1, &e));
    CHECK_EQ_I64(e.kind, RS_ENTRY_COPY);
    CHECK_STREQ(e.shape, want[i]);
  }
}

static void test_trace_bad_input(rs_context *ctx) {
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  work(ctx, 1);
  rs_ledger_stats before, after;
  CHECK_OK(rs_ledger_get_stats(ctx, &before));
  CHECK_STATUS(rs_trace_write(NULL, "/tmp/x.json"), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_trace_write(ctx, NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_trace_write(ctx, ""), RS_ERR_INVALID_ARGUMENT);
  const char *missing = "/nonexistent-rs-folder/trace.json";
  CHECK_STATUS(rs_trace_write(ctx, missing), RS_ERR_IO);
  CHECK_ERRMSG("nonexistent-rs-folder/trace.json");
  struct stat st;
  CHECK(stat(missing, &st) != 0);
  /* /dev/full: the first write fails; the ledger goes on exactly as before */
  CHECK_STATUS(rs_trace_write(ctx, "/dev/full"), RS_ERR_IO);
  CHECK_ERRMSG("/dev/full");
  CHECK_OK(rs_ledger_get_stats(ctx, &after));
  CHECK_EQ_I64(rs_ledger_copies(&after, -1), rs_ledger_copies(&before, -1));
  CHECK_EQ_I64(rs_ledger_bytes(&after, -1), rs_ledger_bytes(&before, -1));
  CHECK_EQ_I64(after.kernels, before.kernels);
  work(ctx, 1);
  CHECK_OK(rs_ledger_get_stats(ctx, &after));
  CHECK_EQ_I64(rs_ledger_copies(&after, -1), 2 * rs_ledger_copies(&before, -1));
}

/* A disk that fills up midway: the file size limit of this process, for one write. */
static void test_trace_disk_full(rs_context *ctx) {
  char path[256];
  trace_path(path, sizeof path, "full");
  CHECK_OK(rs_t_fresh_ledger_(ctx));
  CHECK_OK(rs_t_kernels_warm(ctx));
  CHECK_OK(rs_ledger_reset(ctx));
  work(ctx, 400); /* about 1200 entries: several 64 KiB chunks */
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  const rlim_t limit = 150 * 1024;
  struct rlimit old, small;
  CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
  small = old;
  small.rlim_cur = limit;
  void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
  CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
  rs_status st = rs_trace_write(ctx, path);
  setrlimit(RLIMIT_FSIZE, &old);
  signal(SIGXFSZ, was);
  CHECK_MSG(st == RS_ERR_IO, "a write past the limit gave %s: %s", rs_status_name(st), rs_last_error());
  CHECK_ERRMSG("trace truncated");
  struct stat fs;
  CHECK(stat(path, &fs) == 0);
  CHECK_MSG(fs.st_size > 1024 && (rlim_t)fs.st_size <= limit, "the truncated trace has %lld bytes",
            (long long)fs.st_size);
  CHECK_MSG(check_json(path, &s, "--truncated") == 0, "%s is not a valid truncated trace", path);
  rs_ledger_stats after;
  CHECK_OK(rs_ledger_get_stats(ctx, &after));
  CHECK_EQ_I64(rs_ledger_copies(&after, -1), rs_ledger_copies(&s, -1));
  CHECK_EQ_I64(after.kernels, s.kernels);
  CHECK_PASSING();
  unlink(path);
}

/* RESIDENT_TRACE: another context writes its trace when destroyed. */
static void test_trace_env(rs_context *ctx) {
  char path[256], pattern[256];
  snprintf(pattern, sizeof pattern, "/tmp/rs_trace_env_%%p_%s.json", getenv("RESIDENT_BACKEND") ? getenv("RESIDENT_BACKEND") : "auto");
  snprintf(path, sizeof path, "/tmp/rs_trace_env_%ld_%s.json", (long)getpid(), getenv("RESIDENT_BACKEND") ? getenv("RESIDENT_BACKEND") : "auto");
  rs_context *c2 = NULL;
  setenv("RESIDENT_TRACE", "/tmp/bad%q.json", 1);
  CHECK_STATUS(rs_context_create(&c2, rs_context_backend(ctx), 0), RS_ERR_PARSE);
  CHECK_ERRMSG("RESIDENT_TRACE");
  setenv("RESIDENT_TRACE", "/nonexistent-rs-folder/t.json", 1);
  CHECK_STATUS(rs_context_create(&c2, rs_context_backend(ctx), 0), RS_ERR_IO);
  CHECK_ERRMSG("nonexistent-rs-folder");
  setenv("RESIDENT_TRACE", pattern, 1);
  rs_status st = rs_context_create(&c2, rs_context_backend(ctx), 0);
  unsetenv("RESIDENT_TRACE");
  CHECK_OK(st);
  if (st != RS_OK) return;
  int64_t n = N;
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(rs_host_array(&h, c2, 1, &n, RS_FLOAT64, NULL, RS_ORDER_C));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  rs_array_release(d);
  rs_array_release(h);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(c2, &s));
  CHECK_EQ_I64(rs_ledger_copies(&s, 0), 2);
  CHECK_OK(rs_context_destroy(c2));
  CHECK_MSG(check_json(path, &s, "--pool") == 0, "RESIDENT_TRACE wrote no valid trace at %s", path);
  CHECK_PASSING();
  unlink(path);
}

static const rs_test_case tests[] = {
    RS_TEST(test_trace_timed_all),  RS_TEST(test_trace_timed_copies), RS_TEST(test_trace_untimed),
    RS_TEST(test_trace_shapes),     RS_TEST(test_trace_bad_input),    RS_TEST(test_trace_disk_full),
    RS_TEST(test_trace_env),
};
RS_TEST_MAIN(tests)
