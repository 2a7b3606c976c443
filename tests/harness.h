/* tests/harness.h - a tiny header-only test harness for resident.
 *
 * A test file defines `static void test_xxx(rs_context *ctx)` functions, a table
 *
 *     static const rs_test_case tests[] = { RS_TEST(test_a), RS_TEST(test_b) };
 *     RS_TEST_MAIN(tests)
 *
 * main() creates one context with rs_context_create(&ctx, RS_BACKEND_AUTO, 0) (the
 * environment variable RESIDENT_BACKEND picks the backend), exits 77 (skipped) when that
 * fails with RS_ERR_NO_DEVICE, runs every test (or only those whose name contains
 * argv[1]) and after EACH test checks rs_context_get_live_stats(): a test must end with no live
 * array, buffer, device or host byte, stream or event. If a test leaves something alive
 * the context is destroyed and created again, so the next test starts clean.
 *
 * A failed CHECK prints where and why, marks the test failed and returns from the test
 * function (so the CHECK macros are for functions returning void). Helpers that return a
 * status use the H_* macros, which return that status instead.
 *
 * Every test is also guarded by an alarm (RS_TEST_TIMEOUT_S, default 120 s): a hang
 * names the test and exits 1 instead of waiting for CTest's timeout.
 */
#ifndef RS_TEST_HARNESS_H
#define RS_TEST_HARNESS_H

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "resident/status.h"
#include "resident/dtype.h"
#include "resident/context.h"
#include "resident/array.h"
#include "resident/memory.h"
#include "resident/transfer.h"
#include "resident/stream.h"
#include "resident/ledger.h"
#include "known_kernels.h"

#ifndef RS_TEST_TIMEOUT_S
#define RS_TEST_TIMEOUT_S 120
#endif

typedef void (*rs_test_fn)(rs_context *ctx);
typedef struct rs_test_case {
  const char *name;
  rs_test_fn fn;
} rs_test_case;
#define RS_TEST(fn) {#fn, fn}

/* ---- state of the running test -------------------------------------------------------- */
static struct {
  int failed;             /* the current test has failed */
  int nfail_msgs;         /* failure lines printed for the current test */
  int line_open;          /* "name ..." printed, its line not yet ended */
  const char *volatile name; /* the current test, for the alarm handler */
} rs_t_ = {0, 0, 0, "(none)"};

static inline void rs_t_fail_(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  rs_t_.failed = 1;
  rs_t_.nfail_msgs++;
  if (rs_t_.line_open) {
    printf("\n");
    rs_t_.line_open = 0;
  }
  printf("    FAIL %s:%d: ", file, line);
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  printf("\n");
  fflush(stdout);
}

/* Case-insensitive substring search. */
static inline int rs_t_contains_(const char *hay, const char *needle) {
  if (!hay || !needle) return 0;
  size_t n = strlen(needle);
  if (n == 0) return 1;
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] &&
           tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
      i++;
    if (i == n) return 1;
  }
  return 0;
}

static inline int rs_t_contains_any_(const char *hay, const char *const *needles) {
  for (; *needles; needles++)
    if (rs_t_contains_(hay, *needles)) return 1;
  return 0;
}

static inline const char *rs_t_msg_(void) {
  const char *m = rs_last_error();
  return m ? m : "(NULL)";
}

/* ---- check macros (they return from the calling void function on failure) ------------ */

#define FAIL(...)                                  \
  do {                                             \
    rs_t_fail_(__FILE__, __LINE__, __VA_ARGS__);   \
    return;                                        \
  } while (0)

#define CHECK(cond)                                          \
  do {                                                       \
    if (!(cond)) FAIL("CHECK(%s)", #cond);                   \
  } while (0)

/* CHECK with an explanation printed on failure. */
#define CHECK_MSG(cond, ...)                                 \
  do {                                                       \
    if (!(cond)) {                                           \
      rs_t_fail_(__FILE__, __LINE__, "CHECK(%s)", #cond);    \
      printf("         ");                                   \
      printf(__VA_ARGS__);                                   \
      printf("\n");                                          \
      return;                                                \
    }                                                        \
  } while (0)

#define CHECK_OK(expr)                                                              \
  do {                                                                              \
    rs_status rs_t_s_ = (expr);                                                     \
    if (rs_t_s_ != RS_OK)                                                           \
      FAIL("%s returned %s (%d): \"%s\"", #expr, rs_status_name(rs_t_s_), (int)rs_t_s_, \
           rs_t_msg_());                                                            \
  } while (0)

/* expr must fail with exactly `want`, and leave a non-empty message. */
#define CHECK_STATUS(expr, want)                                                       \
  do {                                                                                 \
    rs_clear_error();                                                                  \
    rs_status rs_t_s_ = (expr);                                                        \
    rs_status rs_t_w_ = (want);                                                        \
    if (rs_t_s_ != rs_t_w_)                                                            \
      FAIL("%s returned %s (%d), expected %s; message: \"%s\"", #expr,                 \
           rs_status_name(rs_t_s_), (int)rs_t_s_, rs_status_name(rs_t_w_), rs_t_msg_()); \
    if (rs_t_w_ != RS_OK && rs_last_error()[0] == '\0')                               \
      FAIL("%s returned %s but rs_last_error() is empty", #expr, rs_status_name(rs_t_s_)); \
  } while (0)

/* expr must fail (any error code) and leave a non-empty message. */
#define CHECK_FAILS(expr)                                                              \
  do {                                                                                 \
    rs_clear_error();                                                                  \
    rs_status rs_t_s_ = (expr);                                                        \
    if (rs_t_s_ == RS_OK) FAIL("%s succeeded, expected an error", #expr);             \
    if (rs_last_error()[0] == '\0')                                                    \
      FAIL("%s returned %s but rs_last_error() is empty", #expr, rs_status_name(rs_t_s_)); \
  } while (0)

/* The current message contains at least one of the given substrings (case-insensitive). */
#define CHECK_ERRMSG(...)                                                              \
  do {                                                                                 \
    const char *const rs_t_n_[] = {__VA_ARGS__, NULL};                                 \
    if (!rs_t_contains_any_(rs_last_error(), rs_t_n_))                                 \
      FAIL("rs_last_error() \"%s\" does not mention any of: %s", rs_t_msg_(), #__VA_ARGS__); \
  } while (0)

#define CHECK_EQ_I64(a, b)                                                             \
  do {                                                                                 \
    int64_t rs_t_a_ = (int64_t)(a), rs_t_b_ = (int64_t)(b);                            \
    if (rs_t_a_ != rs_t_b_)                                                            \
      FAIL("CHECK_EQ_I64(%s, %s): %lld != %lld", #a, #b, (long long)rs_t_a_,          \
           (long long)rs_t_b_);                                                        \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                          \
  do {                                                                                 \
    double rs_t_a_ = (double)(a), rs_t_b_ = (double)(b), rs_t_t_ = (double)(tol);      \
    if (!(fabs(rs_t_a_ - rs_t_b_) <= rs_t_t_))                                         \
      FAIL("CHECK_NEAR(%s, %s, %s): %.17g vs %.17g", #a, #b, #tol, rs_t_a_, rs_t_b_);   \
  } while (0)

#define CHECK_STREQ(a, b)                                                              \
  do {                                                                                 \
    const char *rs_t_a_ = (a), *rs_t_b_ = (b);                                         \
    if (!rs_t_a_ || !rs_t_b_ || strcmp(rs_t_a_, rs_t_b_) != 0)                         \
      FAIL("CHECK_STREQ(%s, %s): \"%s\" != \"%s\"", #a, #b, rs_t_a_ ? rs_t_a_ : "(NULL)", \
           rs_t_b_ ? rs_t_b_ : "(NULL)");                                              \
  } while (0)

/* Return from the test if a helper called before has failed. */
#define CHECK_PASSING()       \
  do {                        \
    if (rs_t_.failed) return; \
  } while (0)

/* For helpers returning rs_status: fail the test and return the status. */
#define H_OK(expr)                                                                      \
  do {                                                                                  \
    rs_status rs_t_s_ = (expr);                                                         \
    if (rs_t_s_ != RS_OK) {                                                             \
      rs_t_fail_(__FILE__, __LINE__, "%s returned %s (%d): \"%s\"", #expr,              \
                 rs_status_name(rs_t_s_), (int)rs_t_s_, rs_t_msg_());                   \
      return rs_t_s_;                                                                   \
    }                                                                                   \
  } while (0)

/* Ledger and guard back to a known state for tests that share one context: open scopes
 * and guard pushes closed, everything allowed, every copy and kernel timed, totals zero. */
static inline rs_status rs_t_fresh_ledger_(rs_context *ctx) {
  rs_ledger_stats junk;
  rs_set_log_handler(NULL, NULL);
  for (int i = 0; i < 64 && rs_ledger_end(ctx, &junk) == RS_OK; i++) {
  }
  for (int i = 0; i < 64 && rs_guard_pop(ctx) == RS_OK; i++) {
  }
  H_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  H_OK(rs_ledger_set_timing(ctx, RS_TIME_ALL));
  H_OK(rs_context_synchronize(ctx));
  H_OK(rs_ledger_reset(ctx));
  rs_clear_error();
  return RS_OK;
}

/* ---- helpers -------------------------------------------------------------------------- */

/* Host address of element idx of a host-visible array (uses its strides). */
static inline char *rs_t_elem_(const rs_array *a, const int64_t *idx) {
  char *p = (char *)rs_array_host_data(a);
  const int64_t *st = rs_array_strides(a);
  for (int d = 0; d < rs_array_ndim(a); d++) p += idx[d] * st[d];
  return p;
}

/* Advance a C-order multi-index; returns 0 when it wraps around. */
static inline int rs_t_next_index_(int64_t *idx, int ndim, const int64_t *shape) {
  for (int d = ndim - 1; d >= 0; d--) {
    if (++idx[d] < shape[d]) return 1;
    idx[d] = 0;
  }
  return 0;
}

/* Copy the elements of a host-visible array (any strides) into out, in C order. */
static inline void rs_t_gather_host_(const rs_array *a, void *out) {
  int64_t idx[RS_MAX_DIMS] = {0};
  size_t isz = rs_array_itemsize(a);
  int64_t n = rs_array_size(a);
  char *o = (char *)out;
  if (n == 0) return;
  do {
    memcpy(o, rs_t_elem_(a, idx), isz);
    o += isz;
  } while (rs_t_next_index_(idx, rs_array_ndim(a), rs_array_shape(a)));
}

/* Scatter C-ordered elements from in into a host-visible array (any strides). */
static inline void rs_t_scatter_host_(rs_array *a, const void *in) {
  int64_t idx[RS_MAX_DIMS] = {0};
  size_t isz = rs_array_itemsize(a);
  int64_t n = rs_array_size(a);
  const char *p = (const char *)in;
  if (n == 0) return;
  do {
    memcpy(rs_t_elem_(a, idx), p, isz);
    p += isz;
  } while (rs_t_next_index_(idx, rs_array_ndim(a), rs_array_shape(a)));
}

/* Read any array (device views included) into out in C order, through the library's copy
 * path: host-visible arrays are read directly after a context synchronize, device ones
 * are copied to a new pageable host array first. */
static inline rs_status rs_t_read_(const rs_array *a, void *out) {
  if (rs_array_kind(a) == RS_MEM_DEVICE) {
    rs_array *h = NULL;
    H_OK(rs_copy_to_host(&h, a, NULL));
    if (rs_array_kind(h) != RS_MEM_HOST) {
      rs_t_fail_(__FILE__, __LINE__, "rs_copy_to_host gave kind %s, not host",
                 rs_mem_kind_name(rs_array_kind(h)));
      rs_array_release(h);
      return RS_ERR_INTERNAL;
    }
    rs_t_gather_host_(h, out);
    H_OK(rs_array_release(h));
    return RS_OK;
  }
  H_OK(rs_context_synchronize(rs_array_context(a)));
  rs_t_gather_host_(a, out);
  return RS_OK;
}

/* Write C-ordered elements into any array (device views included): device arrays are
 * filled by an rs_array_copy from a wrapped user buffer, then synchronized. */
static inline rs_status rs_t_write_(rs_array *a, const void *in) {
  if (rs_array_kind(a) == RS_MEM_DEVICE) {
    rs_array *w = NULL;
    H_OK(rs_host_array_wrap(&w, rs_array_context(a), (void *)in, rs_array_ndim(a),
                            rs_array_shape(a), rs_array_dtype(a), NULL));
    rs_status st = rs_array_copy(a, w, NULL);
    if (st != RS_OK) {
      rs_t_fail_(__FILE__, __LINE__, "rs_array_copy(device, wrapped host) returned %s: \"%s\"",
                 rs_status_name(st), rs_t_msg_());
      rs_array_release(w);
      return st;
    }
    H_OK(rs_array_release(w));
    H_OK(rs_context_synchronize(rs_array_context(a)));
    return RS_OK;
  }
  H_OK(rs_context_synchronize(rs_array_context(a)));
  rs_t_scatter_host_(a, in);
  return RS_OK;
}

/* A deterministic pseudo-random byte pattern (xorshift), different per seed. */
static inline void rs_t_pattern_(void *buf, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  unsigned char *p = (unsigned char *)buf;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    p[i] = (unsigned char)(x >> 24);
  }
}

/* Index of the first differing byte, or -1. */
static inline int64_t rs_t_first_diff_(const void *a, const void *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return (int64_t)i;
  return -1;
}

#define CHECK_BYTES_EQ(a, b, n)                                                        \
  do {                                                                                 \
    int64_t rs_t_d_ = rs_t_first_diff_((a), (b), (size_t)(n));                         \
    if (rs_t_d_ >= 0)                                                                  \
      FAIL("CHECK_BYTES_EQ(%s, %s, %s): first difference at byte %lld (%u vs %u)", #a, \
           #b, #n, (long long)rs_t_d_, ((const unsigned char *)(a))[rs_t_d_],           \
           ((const unsigned char *)(b))[rs_t_d_]);                                     \
  } while (0)

static inline double rs_t_now_ms_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void rs_t_sleep_ms_(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* 1 if some number in the text line is within rel of want (for printed reports). */
static inline int rs_t_line_has_number(const char *line, double want, double rel) {
  const char *p = line;
  while (*p) {
    char *end = NULL;
    double v = strtod(p, &end);
    if (end != p) {
      if (fabs(v - want) <= rel * fabs(want)) return 1;
      p = end;
    } else {
      p++;
    }
  }
  return 0;
}

/* ---- the runner ----------------------------------------------------------------------- */

static void rs_t_alarm_(int sig) {
  (void)sig;
  static const char a[] = "\nTIMEOUT in test ";
  const char *n = rs_t_.name;
  ssize_t r = write(2, a, sizeof a - 1);
  r = write(2, n, strlen(n));
  r = write(2, "\n", 1);
  (void)r;
  _exit(1);
}

/* compute-sanitizer's tools run kernels one at a time (initcheck, racecheck and synccheck
 * always; memcheck with some streams), so a test of two streams running side by side
 * cannot pass under them: scripts/gpu-check.sh names the tool in RESIDENT_UNDER_SANITIZER
 * and such a test returns early with a line saying why. Its plain run checks it. */
static inline int rs_t_tool_serializes(void) {
  const char *tool = getenv("RESIDENT_UNDER_SANITIZER");
  if (!tool || !*tool) return 0;
  printf(" (not checked under compute-sanitizer %s: it runs one kernel at a time)", tool);
  return 1;
}

static inline int rs_t_live_clean_(const rs_live_stats *s) {
  return s->arrays == 0 && s->buffers == 0 && s->device_bytes == 0 && s->host_bytes == 0 &&
         s->streams == 0 && s->events == 0;
}

static inline int rs_t_run_(const rs_test_case *tests, size_t n, int argc, char **argv) {
  const char *filter = argc > 1 ? argv[1] : NULL;
  int passed = 0, failed = 0;
  rs_context *ctx = NULL;
  rs_status st;

  setvbuf(stdout, NULL, _IOLBF, 0);
  st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  if (st == RS_ERR_NO_DEVICE) {
    printf("skipped: no device (%s)\n", rs_t_msg_());
    return 77;
  }
  if (st != RS_OK || !ctx) {
    printf("rs_context_create failed: %s: \"%s\"\n", rs_status_name(st), rs_t_msg_());
    printf("0 passed, 1 failed\n");
    return 1;
  }
  printf("backend: %s\n", rs_backend_name(rs_context_backend(ctx)));
  signal(SIGALRM, rs_t_alarm_);

  for (size_t i = 0; i < n; i++) {
    if (filter && !strstr(tests[i].name, filter)) continue;
    rs_t_.failed = 0;
    rs_t_.nfail_msgs = 0;
    rs_t_.name = tests[i].name;
    printf("%s ...", tests[i].name); /* ended by "ok" or by the first failure */
    fflush(stdout);
    rs_t_.line_open = 1;
    rs_clear_error();
    alarm(RS_TEST_TIMEOUT_S);
    double t0 = rs_t_now_ms_();
    tests[i].fn(ctx);
    double t1 = rs_t_now_ms_();
    alarm(0);

    int test_failed = rs_t_.failed;
    rs_live_stats live;
    memset(&live, 0, sizeof live);
    st = rs_context_get_live_stats(ctx, &live);
    int leaked = 0;
    if (st != RS_OK) {
      if (rs_t_.line_open) printf("\n");
      rs_t_.line_open = 0;
      printf("    FAIL rs_context_get_live_stats after %s: %s \"%s\"\n", tests[i].name,
             rs_status_name(st), rs_t_msg_());
      leaked = 1;
    } else if (!rs_t_live_clean_(&live)) {
      if (rs_t_.line_open) printf("\n");
      rs_t_.line_open = 0;
      printf("    FAIL %s left live objects%s: arrays=%lld buffers=%lld device_bytes=%lld "
             "host_bytes=%lld streams=%lld events=%lld\n",
             tests[i].name, test_failed ? " (the test stopped early at a failed check)" : "",
             (long long)live.arrays, (long long)live.buffers, (long long)live.device_bytes,
             (long long)live.host_bytes, (long long)live.streams, (long long)live.events);
      leaked = 1;
    }
    if (test_failed || leaked) {
      failed++;
      if (rs_t_.line_open) printf("\n");
      printf("FAIL %s (%.1f ms)\n", tests[i].name, t1 - t0);
    } else {
      passed++;
      printf(" ok (%.1f ms)\n", t1 - t0);
    }
    rs_t_.line_open = 0;
    if (leaked) {
      /* start the next test on a clean context */
      rs_backend_kind kind = rs_context_backend(ctx);
      rs_context_destroy(ctx);
      ctx = NULL;
      st = rs_context_create(&ctx, kind, 0);
      if (st != RS_OK || !ctx) {
        printf("rs_context_create (again) failed: %s: \"%s\"\n", rs_status_name(st),
               rs_t_msg_());
        printf("%d passed, %d failed\n", passed, failed + 1);
        return 1;
      }
    }
  }
  rs_t_.name = "rs_context_destroy";
  alarm(RS_TEST_TIMEOUT_S);
  rs_context_destroy(ctx);
  alarm(0);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

#define RS_TEST_MAIN(table)                                                         \
  int main(int argc, char **argv) {                                                 \
    return rs_t_run_(table, sizeof(table) / sizeof((table)[0]), argc, argv);        \
  }

#endif
