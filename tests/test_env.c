/* Every environment variable read when a context is created: a bad value makes the
 * creation fail with RS_ERR_PARSE and a message naming the variable, the value and what
 * it takes (never a silent clamp, truncation or "unlimited"); the off words (off, none,
 * 0) turn off what can be turned off; good values take effect. */
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"
#include "resident/allocator.h"

/* Create a context like `like` with var=value (NULL: unset), then put var back. */
static rs_status create_with(rs_context **out, rs_context *like, const char *var, const char *value) {
  const char *old = getenv(var);
  char *saved = old ? strdup(old) : NULL;
  if (value)
    setenv(var, value, 1);
  else
    unsetenv(var);
  *out = NULL;
  rs_status st = rs_context_create(out, rs_context_backend(like), 0);
  if (saved)
    setenv(var, saved, 1);
  else
    unsetenv(var);
  free(saved);
  return st;
}

static void check_bad(rs_context *like, const char *var, const char *value) {
  rs_context *c = NULL;
  rs_status st = create_with(&c, like, var, value);
  CHECK_MSG(st == RS_ERR_PARSE, "%s='%s': %s, expected RS_ERR_PARSE (%s)", var, value, rs_status_name(st),
            rs_last_error());
  CHECK_MSG(c == NULL, "%s='%s': a context was made", var, value);
  if (c) rs_context_destroy(c);
  char quoted[128];
  snprintf(quoted, sizeof quoted, "'%s'", value);
  const char *m = rs_last_error();
  CHECK_MSG(rs_t_contains_(m, var) && rs_t_contains_(m, quoted) && rs_t_contains_(m, "expected"),
            "%s='%s': the message \"%s\" does not name the variable, the value and what is expected", var,
            value, m);
}

/* A good value: the context is made and handed back for checks (destroy it). */
static rs_context *good(rs_context *like, const char *var, const char *value) {
  rs_context *c = NULL;
  rs_status st = create_with(&c, like, var, value);
  if (st != RS_OK)
    rs_t_fail_(__FILE__, __LINE__, "%s='%s': %s (%s)", var, value, rs_status_name(st), rs_last_error());
  return c;
}

static void check_good(rs_context *like, const char *var, const char *value) {
  rs_context *c = good(like, var, value);
  if (c) rs_context_destroy(c);
}

static int64_t limit_of(rs_context *c, int64_t *total) {
  rs_memory_stats s;
  memset(&s, 0, sizeof s);
  if (!c || rs_memory_get_stats(c, RS_SPACE_DEVICE, &s) != RS_OK) return -1;
  if (total) *total = s.device_total_bytes;
  return s.limit_bytes;
}

static void test_sim_device_memory(rs_context *ctx) {
  static const char *const bad[] = {"1.5",      "0.5", "0",     "-0",    "-1",
                                    "0x100000", "1e9", "1 GiB", " 1GiB", "99999999999999999999999",
                                    "lots",     "1.5B"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    check_bad(ctx, "RESIDENT_SIM_DEVICE_MEMORY", bad[i]);
  rs_context *c = good(ctx, "RESIDENT_SIM_DEVICE_MEMORY", "0.25GiB");
  rs_device_props p;
  if (c && rs_context_backend(c) == RS_BACKEND_SIM) {
    CHECK_OK(rs_context_get_props(c, &p));
    CHECK_EQ_I64((int64_t)p.total_memory, (int64_t)256 << 20);
  }
  if (c) rs_context_destroy(c);
}

static void test_sim_threads(rs_context *ctx) {
  static const char *const bad[] = {"1025", "4096", "-1",  "-0", "2.0",
                                    "x",    "0x10", "1e2", " 3", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_bad(ctx, "RESIDENT_SIM_THREADS", bad[i]);
  rs_context *c = good(ctx, "RESIDENT_SIM_THREADS", "3");
  rs_device_props p;
  if (c && rs_context_backend(c) == RS_BACKEND_SIM) {
    CHECK_OK(rs_context_get_props(c, &p));
    CHECK_EQ_I64(p.multiprocessors, 3);
  }
  if (c) rs_context_destroy(c);
  c = good(ctx, "RESIDENT_SIM_THREADS", "1024"); /* the most, taken as given */
  if (c && rs_context_backend(c) == RS_BACKEND_SIM) {
    CHECK_OK(rs_context_get_props(c, &p));
    CHECK_EQ_I64(p.multiprocessors, 1024);
  }
  if (c) rs_context_destroy(c);
  check_good(ctx, "RESIDENT_SIM_THREADS", "0");
}

/* RESIDENT_HOST_THREADS: the host path's thread pool, a count 0 (one per CPU) to 1024. */
static void test_host_threads(rs_context *ctx) {
  static const char *const bad[] = {"1025", "-1", "-0", "2.0", "two", "0x4", "1e1", " 2", "2 ", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_bad(ctx, "RESIDENT_HOST_THREADS", bad[i]);
  check_good(ctx, "RESIDENT_HOST_THREADS", "0");
  check_good(ctx, "RESIDENT_HOST_THREADS", "1");
  check_good(ctx, "RESIDENT_HOST_THREADS", "1024");
}

/* RESIDENT_SIM_CHECKS: the simulator's memory and race checks, 0 or 1 (simdbg). */
static void test_sim_checks(rs_context *ctx) {
  static const char *const bad[] = {"2", "-1", "-0", "on", "off", "yes", "1.0", "0x1", " 1", "1 "};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_bad(ctx, "RESIDENT_SIM_CHECKS", bad[i]);
  check_good(ctx, "RESIDENT_SIM_CHECKS", "0");
  check_good(ctx, "RESIDENT_SIM_CHECKS", "1");
}

static void test_pool_limit(rs_context *ctx) {
  static const char *const bad[] = {"1.5",
                                    "1e-1",
                                    "0.0",
                                    "0x1000",
                                    "-0",
                                    "0B",
                                    "101%",
                                    " 80%",
                                    "80 %",
                                    "1.5B",
                                    "99999999999999999999999",
                                    "unlimited"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_bad(ctx, "RESIDENT_POOL_LIMIT", bad[i]);
  static const char *const off[] = {"off", "none", "0"};
  for (size_t i = 0; i < 3; i++) {
    rs_context *c = good(ctx, "RESIDENT_POOL_LIMIT", off[i]);
    CHECK_MSG(limit_of(c, NULL) == 0, "RESIDENT_POOL_LIMIT=%s: limit %lld", off[i],
              (long long)limit_of(c, NULL));
    if (c) rs_context_destroy(c);
  }
  int64_t total = 0;
  rs_context *c = good(ctx, "RESIDENT_POOL_LIMIT", "0.25");
  int64_t limit = limit_of(c, &total);
  CHECK_MSG(limit == total / 4, "RESIDENT_POOL_LIMIT=0.25: limit %lld of %lld", (long long)limit,
            (long long)total);
  if (c) rs_context_destroy(c);
  c = good(ctx, "RESIDENT_POOL_LIMIT", "1.0"); /* a fraction: all of it, not 1 byte */
  limit = limit_of(c, &total);
  CHECK_MSG(limit == total, "RESIDENT_POOL_LIMIT=1.0: limit %lld of %lld", (long long)limit,
            (long long)total);
  if (c) rs_context_destroy(c);
  c = good(ctx, "RESIDENT_POOL_LIMIT", "1.5MiB");
  CHECK_EQ_I64(limit_of(c, NULL), (int64_t)3 << 19);
  if (c) rs_context_destroy(c);
}

static void test_cache_max(rs_context *ctx) {
  static const char *const bad[] = {"0.5", "-0", "1.5", "0x10", "1e6", "-1MiB", "unlimited", "0B", "lots"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_bad(ctx, "RESIDENT_CACHE_MAX", bad[i]);
  static const char *const ok[] = {"off", "none", "0", "256MiB", "4096"};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) check_good(ctx, "RESIDENT_CACHE_MAX", ok[i]);
}

static void test_ledger(rs_context *ctx) {
  static const char *const entries[] = {"0", "67108865", "1e3", "-5", "10.5", "0x10"};
  for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
    check_bad(ctx, "RESIDENT_LEDGER_ENTRIES", entries[i]);
  check_good(ctx, "RESIDENT_LEDGER_ENTRIES", "67108864");
  static const char *const timing[] = {"sometimes", "2", "ALL", "none ", "01"};
  for (size_t i = 0; i < sizeof timing / sizeof timing[0]; i++)
    check_bad(ctx, "RESIDENT_LEDGER_TIMING", timing[i]);
  static const char *const timing_ok[] = {"off", "none", "0", "copies", "kernels", "all", "1"};
  for (size_t i = 0; i < sizeof timing_ok / sizeof timing_ok[0]; i++)
    check_good(ctx, "RESIDENT_LEDGER_TIMING", timing_ok[i]);
}

static void test_pending_deallocs(rs_context *ctx) {
  static const char *const count[] = {"3.5", "0", "1e2", "-0", "+3", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof count / sizeof count[0]; i++)
    check_bad(ctx, "RESIDENT_MAX_PENDING_DEALLOCS_COUNT", count[i]);
  static const char *const ratio[] = {"1e-1", "1.5", "0", "0%", "101%", "-0.1", "nan", ".5 "};
  for (size_t i = 0; i < sizeof ratio / sizeof ratio[0]; i++)
    check_bad(ctx, "RESIDENT_MAX_PENDING_DEALLOCS_RATIO", ratio[i]);
  check_good(ctx, "RESIDENT_MAX_PENDING_DEALLOCS_RATIO", "20%");
  check_good(ctx, "RESIDENT_MAX_PENDING_DEALLOCS_COUNT", "1");
}

static void test_words(rs_context *ctx) {
  check_bad(ctx, "RESIDENT_PAGEABLE_STAGING", "yes");
  check_bad(ctx, "RESIDENT_PAGEABLE_STAGING", "OFF");
  static const char *const staging[] = {"auto", "on", "off", "none", "0"};
  for (size_t i = 0; i < sizeof staging / sizeof staging[0]; i++)
    check_good(ctx, "RESIDENT_PAGEABLE_STAGING", staging[i]);
  check_bad(ctx, "RESIDENT_BACKEND", "gpu");
  check_bad(ctx, "RESIDENT_ALLOCATOR", "heap");
  check_bad(ctx, "RESIDENT_TRANSFER_GUARD", "maybe");
  check_bad(ctx, "RESIDENT_TRANSFER_GUARD", "h2d=log,"); /* an empty setting, not ignored */
  check_bad(ctx, "RESIDENT_TRANSFER_GUARD", "h2d=log,,d2h=log");
  check_good(ctx, "RESIDENT_TRANSFER_GUARD", "h2d=log,d2h=disallow");
}

/* A relative HOME (with no RESIDENT_CACHE_DIR or XDG_CACHE_HOME) would put the kernel
 * cache under whatever the working directory is: no disk cache instead. */
static void test_relative_home(rs_context *ctx) {
  char dir[] = "/tmp/resident-env-XXXXXX", cwd[4096];
  CHECK(mkdtemp(dir) != NULL && getcwd(cwd, sizeof cwd) != NULL);
  const char *names[] = {"HOME", "XDG_CACHE_HOME", "RESIDENT_CACHE_DIR"};
  char *saved[3];
  for (int i = 0; i < 3; i++) saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
  unsetenv("XDG_CACHE_HOME");
  unsetenv("RESIDENT_CACHE_DIR");
  CHECK(chdir(dir) == 0);
  rs_context *c = NULL;
  rs_status st = create_with(&c, ctx, "HOME", "relhome");
  char src[256];
  snprintf(src, sizeof src, "extern \"C\" __global__ void envk(int *x) { x[threadIdx.x] = %ld; }\n",
           (long)getpid() ^ (long)time(NULL));
  rs_kernel *k = NULL;
  rs_status kst = c ? rs_kernel_create(&k, c, src, "envk", NULL) : RS_ERR_STATE;
  rs_kernel_destroy(k);
  if (c) rs_context_destroy(c);
  struct stat sb;
  int made = stat("relhome", &sb) == 0;
  CHECK(chdir(cwd) == 0);
  for (int i = 0; i < 3; i++) {
    if (saved[i]) setenv(names[i], saved[i], 1);
    free(saved[i]);
  }
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  CHECK_OK(st);
  CHECK_OK(kst);
  CHECK_MSG(!made, "HOME=relhome made a cache folder in the working directory");
}

static const rs_test_case tests[] = {
    RS_TEST(test_sim_device_memory),
    RS_TEST(test_sim_threads),
    RS_TEST(test_host_threads),
    RS_TEST(test_pool_limit),
    RS_TEST(test_cache_max),
    RS_TEST(test_ledger),
    RS_TEST(test_pending_deallocs),
    RS_TEST(test_words),
    RS_TEST(test_relative_home),
    RS_TEST(test_sim_checks), /* simdbg */
};
RS_TEST_MAIN(tests)
