/* The transfer guard: allow / log / disallow / disallow_explicit, per direction, per
 * context, per pushed scope and from RESIDENT_TRANSFER_GUARD. A refused copy returns
 * RS_ERR_TRANSFER_REFUSED with a message naming the copy and its cause, and nothing
 * moves: no byte of any array changes, no copy or kernel is recorded, no device
 * temporary stays allocated.
 *
 * The context is shared by the tests: each begins with fresh(), which restores the guard
 * (pops left-over pushes, sets allow), the timing and the log handler, and resets the
 * ledger, so a failed test does not spoil the next one. */
#include <stdatomic.h>
#include "harness.h"
#include "resident/kernel.h"
#include "resident/ledger.h"

#define N 4099
#define S1(a) ((const int64_t[]){a})

static rs_status fresh(rs_context *ctx) { return rs_t_fresh_ledger_(ctx); }

static void fill(float *p, int64_t n, float base) {
  for (int64_t i = 0; i < n; i++) p[i] = base + (float)(i % 97) * 0.5f;
}

/* Totals of the ledger: nothing recorded since the last reset. */
static void check_nothing_recorded(rs_context *ctx, const char *what) {
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_MSG(rs_ledger_copies(&s, -1) == 0, "%s: %lld copies recorded", what,
            (long long)rs_ledger_copies(&s, -1));
  CHECK_MSG(rs_ledger_bytes(&s, -1) == 0, "%s: %lld bytes recorded", what,
            (long long)rs_ledger_bytes(&s, -1));
  CHECK_MSG(s.kernels == 0, "%s: %lld kernels recorded", what, (long long)s.kernels);
}

static void check_no_device_bytes(rs_context *ctx, const char *what) {
  rs_live_stats live;
  CHECK_OK(rs_context_get_live_stats(ctx, &live));
  CHECK_MSG(live.device_bytes == 0, "%s: %lld device bytes live", what, (long long)live.device_bytes);
}

/* A launch on a host array under a guard that refuses `dir_name`: refused, message names
 * the direction and the kernel, nothing moved, nothing recorded, nothing allocated. */
static void check_launch_refused(rs_context *ctx, rs_array *h, const char *dir_name, const char *what) {
  float before[N];
  memcpy(before, rs_array_host_data(h), sizeof before);
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_STATUS(rs_t_axpb(h, 2.0, 1.0, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_MSG(rs_t_contains_(rs_last_error(), dir_name), "%s: message \"%s\" does not name %s", what,
            rs_last_error(), dir_name);
  CHECK_MSG(rs_t_contains_(rs_last_error(), "axpb"), "%s: message \"%s\" does not name the kernel",
            what, rs_last_error());
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_BYTES_EQ(rs_array_host_data(h), before, sizeof before);
  check_nothing_recorded(ctx, what);
  CHECK_PASSING();
  check_no_device_bytes(ctx, what);
}

static void test_disallow_refuses_implicit(rs_context *ctx) {
  rs_array *h = NULL, *p = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_pinned_array(&p, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C, 0));
  fill(rs_array_host_data(h), N, 1.0f);
  fill(rs_array_host_data(p), N, 3.0f);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_DISALLOW));
  for (int d = 0; d < RS_DIRECTIONS; d++) {
    rs_guard_mode m = RS_GUARD_ALLOW;
    CHECK_OK(rs_guard_get(ctx, (rs_direction)d, &m));
    CHECK_EQ_I64(m, RS_GUARD_DISALLOW);
  }
  /* the first implicit copy is the H2D one */
  check_launch_refused(ctx, h, "H2D", "disallow, host array");
  CHECK_PASSING();
  check_launch_refused(ctx, p, "H2D", "disallow, pinned array");
  CHECK_PASSING();
  /* the guard leaves the message saying implicit copies are the matter */
  CHECK_STATUS(rs_t_axpb(h, 2.0, 1.0, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_ERRMSG("implicit");
  /* allowed again: the launch goes through and computes */
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_OK(rs_t_axpb(h, 2.0, 1.0, NULL));
  float want[N];
  fill(want, N, 1.0f);
  for (int i = 0; i < N; i++) want[i] = want[i] * 2.0f + 1.0f;
  CHECK_BYTES_EQ(rs_array_host_data(h), want, sizeof want);
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_array_release(h));
}

/* Under disallow, explicit copies pass, and kernels on arrays that need no copy run. */
static void test_disallow_lets_explicit_pass(rs_context *ctx) {
  rs_array *h = NULL, *d = NULL, *back = NULL, *m = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  float in[N], want[N];
  fill(in, N, 5.0f);
  memcpy(rs_array_host_data(h), in, sizeof in);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_DISALLOW));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_t_axpb(d, 2.0, 1.0, NULL));
  CHECK_OK(rs_copy_to_host(&back, d, NULL));
  for (int i = 0; i < N; i++) want[i] = in[i] * 2.0f + 1.0f;
  CHECK_BYTES_EQ(rs_array_host_data(back), want, sizeof want);
  /* explicit host-to-host and device-to-device copies pass too */
  CHECK_OK(rs_array_copy(h, back, NULL));
  CHECK_OK(rs_to_device_into(d, h, NULL));
  /* a managed array reaches the kernel with no copy: nothing to refuse */
  CHECK_OK(rs_managed_array(&m, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  memcpy(rs_array_host_data(m), in, sizeof in);
  CHECK_OK(rs_t_axpb(m, 2.0, 1.0, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  CHECK_BYTES_EQ(rs_array_host_data(m), want, sizeof want);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][0], 2);
  CHECK_EQ_I64(s.copies[RS_D2H][0], 1);
  CHECK_EQ_I64(s.copies[RS_H2H][0], 1);
  CHECK_EQ_I64(rs_ledger_copies(&s, 1), 0);
  CHECK_EQ_I64(s.kernels, 2);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_OK(rs_array_release(m));
  CHECK_OK(rs_array_release(back));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

static void test_disallow_explicit(rs_context *ctx) {
  rs_array *h = NULL, *h2 = NULL, *d = NULL, *d2 = NULL, *out = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&h2, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d2, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  float hv[N], dv[N], h2v[N], got[N];
  fill(hv, N, 1.0f);
  fill(dv, N, 100.0f);
  fill(h2v, N, -7.0f);
  memcpy(rs_array_host_data(h), hv, sizeof hv);
  memcpy(rs_array_host_data(h2), h2v, sizeof h2v);
  CHECK_OK(rs_t_write_(d, dv));
  CHECK_OK(rs_t_write_(d2, hv));
  rs_live_stats live0, live1;
  CHECK_OK(rs_context_get_live_stats(ctx, &live0));

  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_DISALLOW_EXPLICIT));
  CHECK_OK(rs_ledger_reset(ctx));
  out = (rs_array *)&out; /* must be cleared */
  CHECK_STATUS(rs_to_device(&out, h, 0, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK(out == NULL);
  CHECK_ERRMSG("H2D");
  CHECK_ERRMSG("to_device");
  CHECK_STATUS(rs_to_device_into(d, h, NULL), RS_ERR_TRANSFER_REFUSED);
  out = (rs_array *)&out;
  CHECK_STATUS(rs_copy_to_host(&out, d, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK(out == NULL);
  CHECK_ERRMSG("D2H");
  CHECK_STATUS(rs_copy_to_host_into(h2, d, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_STATUS(rs_array_copy(d2, d, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_ERRMSG("D2D");
  CHECK_STATUS(rs_array_copy(h2, h, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_ERRMSG("H2H");
  /* implicit copies are refused as well */
  CHECK_STATUS(rs_t_axpb(h, 2.0, 1.0, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_OK(rs_context_synchronize(ctx));

  /* nothing was recorded, allocated or leaked by the refusals */
  check_nothing_recorded(ctx, "disallow_explicit");
  CHECK_PASSING();
  CHECK_OK(rs_context_get_live_stats(ctx, &live1));
  CHECK_EQ_I64(live1.arrays, live0.arrays);
  CHECK_EQ_I64(live1.buffers, live0.buffers);
  CHECK_EQ_I64(live1.device_bytes, live0.device_bytes);
  CHECK_EQ_I64(live1.host_bytes, live0.host_bytes);

  /* nothing moved: every array holds what it held */
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_BYTES_EQ(rs_array_host_data(h), hv, sizeof hv);
  CHECK_BYTES_EQ(rs_array_host_data(h2), h2v, sizeof h2v);
  CHECK_OK(rs_t_read_(d, got));
  CHECK_BYTES_EQ(got, dv, sizeof dv);
  CHECK_OK(rs_t_read_(d2, got));
  CHECK_BYTES_EQ(got, hv, sizeof hv);
  CHECK_OK(rs_array_release(d2));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h2));
  CHECK_OK(rs_array_release(h));
}

/* disallow_explicit on one direction only leaves the others alone. */
static void test_disallow_explicit_one_direction(rs_context *ctx) {
  rs_array *h = NULL, *d = NULL, *out = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  float hv[N];
  fill(hv, N, 2.0f);
  memcpy(rs_array_host_data(h), hv, sizeof hv);
  CHECK_OK(rs_guard_set(ctx, RS_D2H, RS_GUARD_DISALLOW_EXPLICIT));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_STATUS(rs_copy_to_host(&out, d, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK(out == NULL);
  CHECK_ERRMSG("D2H");
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][0], 1);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 1);
  CHECK_OK(rs_guard_set(ctx, RS_D2H, RS_GUARD_ALLOW));
  CHECK_OK(rs_copy_to_host(&out, d, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(out), hv, sizeof hv);
  CHECK_OK(rs_array_release(out));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

static void test_per_direction(rs_context *ctx) {
  rs_array *h = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  fill(rs_array_host_data(h), N, 9.0f);

  /* only D2H refused: the launch is refused before its H2D happens */
  CHECK_OK(rs_guard_set(ctx, RS_D2H, RS_GUARD_DISALLOW));
  rs_guard_mode m;
  CHECK_OK(rs_guard_get(ctx, RS_D2H, &m));
  CHECK_EQ_I64(m, RS_GUARD_DISALLOW);
  CHECK_OK(rs_guard_get(ctx, RS_H2D, &m));
  CHECK_EQ_I64(m, RS_GUARD_ALLOW);
  CHECK_OK(rs_guard_get(ctx, RS_D2D, &m));
  CHECK_EQ_I64(m, RS_GUARD_ALLOW);
  check_launch_refused(ctx, h, "D2H", "d2h=disallow");
  CHECK_PASSING();

  /* only H2D refused */
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_OK(rs_guard_set(ctx, RS_H2D, RS_GUARD_DISALLOW));
  check_launch_refused(ctx, h, "H2D", "h2d=disallow");
  CHECK_PASSING();

  /* D2D and H2H refused: a launch on a host array crosses neither, it goes through */
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_DISALLOW));
  CHECK_OK(rs_guard_set(ctx, RS_H2D, RS_GUARD_ALLOW));
  CHECK_OK(rs_guard_set(ctx, RS_D2H, RS_GUARD_ALLOW));
  float want[N];
  fill(want, N, 9.0f);
  for (int i = 0; i < N; i++) want[i] = want[i] * 2.0f + 1.0f;
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_t_axpb(h, 2.0, 1.0, NULL));
  CHECK_BYTES_EQ(rs_array_host_data(h), want, sizeof want);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);

  /* bad arguments */
  CHECK_STATUS(rs_guard_set(ctx, 7, RS_GUARD_DISALLOW), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_guard_set(ctx, RS_H2D, (rs_guard_mode)9), RS_ERR_INVALID_ARGUMENT);
  CHECK_OK(rs_guard_get(ctx, RS_H2D, &m));
  CHECK_EQ_I64(m, RS_GUARD_ALLOW); /* the failed set changed nothing */
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_OK(rs_array_release(h));
}

/* ---- log mode ---------------------------------------------------------------------------- */

typedef struct {
  atomic_int calls;
  atomic_int mentions_h2d, mentions_d2h, mentions_kernel;
} log_counter;

static void count_log(const char *line, void *user_data) {
  log_counter *c = (log_counter *)user_data;
  atomic_fetch_add(&c->calls, 1);
  if (rs_t_contains_(line, "H2D")) atomic_fetch_add(&c->mentions_h2d, 1);
  if (rs_t_contains_(line, "D2H")) atomic_fetch_add(&c->mentions_d2h, 1);
  if (rs_t_contains_(line, "axpb")) atomic_fetch_add(&c->mentions_kernel, 1);
}

static void test_log_mode(rs_context *ctx) {
  rs_array *h = NULL, *d = NULL;
  log_counter c;
  atomic_init(&c.calls, 0);
  atomic_init(&c.mentions_h2d, 0);
  atomic_init(&c.mentions_d2h, 0);
  atomic_init(&c.mentions_kernel, 0);
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  float want[N];
  fill(rs_array_host_data(h), N, 4.0f);
  fill(want, N, 4.0f);
  for (int i = 0; i < N; i++) want[i] = want[i] * 2.0f + 1.0f;

  rs_set_log_handler(count_log, &c);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_LOG));
  CHECK_OK(rs_ledger_reset(ctx));
  rs_status st = rs_t_axpb(h, 2.0, 1.0, NULL);
  if (st != RS_OK) rs_set_log_handler(NULL, NULL);
  CHECK_OK(st);
  int after_launch = atomic_load(&c.calls);
  /* explicit copies are not logged in log mode */
  st = rs_to_device(&d, h, 0, NULL);
  int after_explicit = atomic_load(&c.calls);
  rs_set_log_handler(NULL, NULL);
  CHECK_OK(st);

  CHECK_BYTES_EQ(rs_array_host_data(h), want, sizeof want);
  CHECK_MSG(after_launch == 2, "the log handler was called %d times for 2 implicit copies",
            after_launch);
  CHECK_EQ_I64(atomic_load(&c.mentions_h2d), 1);
  CHECK_EQ_I64(atomic_load(&c.mentions_d2h), 1);
  CHECK_EQ_I64(atomic_load(&c.mentions_kernel), 2);
  CHECK_MSG(after_explicit == after_launch, "an explicit copy was logged (%d calls)", after_explicit);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(s.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(s.copies[RS_H2D][0], 1);

  /* with the handler restored to NULL, our counter is no longer called */
  int before = atomic_load(&c.calls);
  CHECK_OK(rs_t_axpb(h, 2.0, 1.0, NULL));
  CHECK_EQ_I64(atomic_load(&c.calls), before);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* log on one direction only: one line per launch */
static void test_log_one_direction(rs_context *ctx) {
  rs_array *h = NULL;
  log_counter c;
  atomic_init(&c.calls, 0);
  atomic_init(&c.mentions_h2d, 0);
  atomic_init(&c.mentions_d2h, 0);
  atomic_init(&c.mentions_kernel, 0);
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  fill(rs_array_host_data(h), N, 4.0f);
  rs_set_log_handler(count_log, &c);
  CHECK_OK(rs_guard_set(ctx, RS_D2H, RS_GUARD_LOG));
  rs_status st = RS_OK;
  for (int i = 0; i < 3 && st == RS_OK; i++) st = rs_t_axpb(h, 1.0, 0.0, NULL);
  rs_set_log_handler(NULL, NULL);
  CHECK_OK(st);
  CHECK_EQ_I64(atomic_load(&c.calls), 3);
  CHECK_EQ_I64(atomic_load(&c.mentions_d2h), 3);
  CHECK_EQ_I64(atomic_load(&c.mentions_h2d), 0);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
  CHECK_OK(rs_array_release(h));
}

/* ---- push / pop --------------------------------------------------------------------------- */

static rs_status modes_of(rs_context *ctx, rs_guard_mode m[RS_DIRECTIONS]) {
  for (int d = 0; d < RS_DIRECTIONS; d++) H_OK(rs_guard_get(ctx, (rs_direction)d, &m[d]));
  return RS_OK;
}

#define CHECK_MODES(ctx, a, b, c, d)                                                           \
  do {                                                                                         \
    rs_guard_mode m_[RS_DIRECTIONS];                                                           \
    CHECK_OK(modes_of(ctx, m_));                                                               \
    CHECK_MSG(m_[RS_H2D] == (a) && m_[RS_D2H] == (b) && m_[RS_D2D] == (c) && m_[RS_H2H] == (d), \
              "modes H2D %s D2H %s D2D %s H2H %s, expected %s %s %s %s",                      \
              rs_guard_mode_name(m_[0]), rs_guard_mode_name(m_[1]), rs_guard_mode_name(m_[2]), \
              rs_guard_mode_name(m_[3]), rs_guard_mode_name(a), rs_guard_mode_name(b),         \
              rs_guard_mode_name(c), rs_guard_mode_name(d));                                   \
  } while (0)

static void test_push_pop(rs_context *ctx) {
  rs_array *h = NULL;
  const rs_guard_mode A = RS_GUARD_ALLOW, L = RS_GUARD_LOG, D = RS_GUARD_DISALLOW,
                      X = RS_GUARD_DISALLOW_EXPLICIT;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_host_array(&h, ctx, 1, S1(N), RS_FLOAT32, NULL, RS_ORDER_C));
  fill(rs_array_host_data(h), N, 1.0f);
  CHECK_OK(rs_guard_set(ctx, RS_H2H, X));
  CHECK_MODES(ctx, A, A, A, X);

  CHECK_OK(rs_guard_push(ctx, RS_H2D, D));
  CHECK_MODES(ctx, D, A, A, X);
  check_launch_refused(ctx, h, "H2D", "pushed h2d=disallow");
  CHECK_PASSING();

  CHECK_OK(rs_guard_push(ctx, RS_ALL_DIRECTIONS, L));
  CHECK_MODES(ctx, L, L, L, L);
  /* a set inside a pushed scope is undone by the pop too */
  CHECK_OK(rs_guard_set(ctx, RS_D2D, D));
  CHECK_MODES(ctx, L, L, D, L);

  CHECK_OK(rs_guard_pop(ctx));
  CHECK_MODES(ctx, D, A, A, X);
  CHECK_OK(rs_guard_pop(ctx));
  CHECK_MODES(ctx, A, A, A, X);
  CHECK_STATUS(rs_guard_pop(ctx), RS_ERR_STATE);
  CHECK_ERRMSG("pop", "push");
  CHECK_MODES(ctx, A, A, A, X);

  /* after the pop the launch goes through */
  CHECK_OK(rs_t_axpb(h, 1.0, 1.0, NULL));
  float want[N];
  fill(want, N, 1.0f);
  for (int i = 0; i < N; i++) want[i] += 1.0f;
  CHECK_BYTES_EQ(rs_array_host_data(h), want, sizeof want);
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, A));
  CHECK_OK(rs_array_release(h));
}

/* ---- parsing and the environment ------------------------------------------------------ */

static void test_parse(rs_context *ctx) {
  (void)ctx;
  const rs_guard_mode A = RS_GUARD_ALLOW, L = RS_GUARD_LOG, D = RS_GUARD_DISALLOW,
                      X = RS_GUARD_DISALLOW_EXPLICIT;
  rs_guard_mode m[RS_DIRECTIONS] = {A, A, A, A};
  CHECK_OK(rs_guard_parse("disallow", m));
  for (int d = 0; d < RS_DIRECTIONS; d++) CHECK_EQ_I64(m[d], D);
  CHECK_OK(rs_guard_parse("allow", m));
  for (int d = 0; d < RS_DIRECTIONS; d++) CHECK_EQ_I64(m[d], A);
  CHECK_OK(rs_guard_parse("log", m));
  for (int d = 0; d < RS_DIRECTIONS; d++) CHECK_EQ_I64(m[d], L);
  CHECK_OK(rs_guard_parse("disallow_explicit", m));
  for (int d = 0; d < RS_DIRECTIONS; d++) CHECK_EQ_I64(m[d], X);

  /* per direction: unnamed directions keep their value */
  rs_guard_mode p[RS_DIRECTIONS] = {A, A, X, A};
  CHECK_OK(rs_guard_parse("h2d=disallow,d2h=log", p));
  CHECK_EQ_I64(p[RS_H2D], D);
  CHECK_EQ_I64(p[RS_D2H], L);
  CHECK_EQ_I64(p[RS_D2D], X);
  CHECK_EQ_I64(p[RS_H2H], A);
  CHECK_OK(rs_guard_parse("h2h=log", p));
  CHECK_EQ_I64(p[RS_H2D], D);
  CHECK_EQ_I64(p[RS_D2H], L);
  CHECK_EQ_I64(p[RS_D2D], X);
  CHECK_EQ_I64(p[RS_H2H], L);
  CHECK_OK(rs_guard_parse("d2d=allow,h2d=disallow_explicit", p));
  CHECK_EQ_I64(p[RS_D2D], A);
  CHECK_EQ_I64(p[RS_H2D], X);

  /* bad words: RS_ERR_PARSE naming the word, and nothing changes */
  rs_guard_mode q[RS_DIRECTIONS] = {L, D, A, X};
  const char *bad[][2] = {
      {"sometimes", "sometimes"},       {"x2y=allow", "x2y"},     {"h2d=maybe", "maybe"},
      {"h2d=log,x2y=allow", "x2y"},     {"h2d=log,d2h=never", "never"},
      {"disallowed", "disallowed"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK_STATUS(rs_guard_parse(bad[i][0], q), RS_ERR_PARSE);
    CHECK_MSG(rs_t_contains_(rs_last_error(), bad[i][1]),
              "rs_guard_parse(\"%s\"): message \"%s\" does not name '%s'", bad[i][0], rs_last_error(),
              bad[i][1]);
    CHECK_MSG(q[0] == L && q[1] == D && q[2] == A && q[3] == X,
              "rs_guard_parse(\"%s\", q) failed but changed the modes", bad[i][0]);
  }
  CHECK_FAILS(rs_guard_parse(NULL, q));

  CHECK_STREQ(rs_guard_mode_name(RS_GUARD_ALLOW), "allow");
  CHECK_STREQ(rs_guard_mode_name(RS_GUARD_LOG), "log");
  CHECK_STREQ(rs_guard_mode_name(RS_GUARD_DISALLOW), "disallow");
  CHECK_STREQ(rs_guard_mode_name(RS_GUARD_DISALLOW_EXPLICIT), "disallow_explicit");
}

static void test_environment(rs_context *ctx) {
  rs_backend_kind kind = rs_context_backend(ctx);
  rs_context *c2 = NULL;
  CHECK_OK(fresh(ctx));

  setenv("RESIDENT_TRANSFER_GUARD", "sometimes", 1);
  rs_clear_error();
  rs_status st = rs_context_create(&c2, kind, 0);
  if (st == RS_OK) {
    unsetenv("RESIDENT_TRANSFER_GUARD");
    rs_context_destroy(c2);
    FAIL("rs_context_create succeeded with RESIDENT_TRANSFER_GUARD=sometimes");
  }
  unsetenv("RESIDENT_TRANSFER_GUARD");
  CHECK_MSG(rs_last_error()[0] != '\0', "the failed rs_context_create left no message");
  CHECK_MSG(rs_t_contains_(rs_last_error(), "RESIDENT_TRANSFER_GUARD"),
            "message \"%s\" does not name the variable", rs_last_error());
  CHECK_ERRMSG("sometimes");
  CHECK(c2 == NULL);

  /* a valid per-direction setting applies to the new context, not to the old one */
  setenv("RESIDENT_TRANSFER_GUARD", "h2d=disallow,d2h=log", 1);
  st = rs_context_create(&c2, kind, 0);
  unsetenv("RESIDENT_TRANSFER_GUARD");
  CHECK_OK(st);
  rs_guard_mode m[RS_DIRECTIONS];
  rs_status gst = modes_of(c2, m);
  rs_array *h = NULL;
  rs_status launch = RS_OK, mk = rs_host_array(&h, c2, 1, S1(16), RS_FLOAT32, NULL, RS_ORDER_C);
  if (mk == RS_OK) {
    memset(rs_array_host_data(h), 0, 16 * sizeof(float));
    launch = rs_t_axpb(h, 1.0, 1.0, NULL);
    rs_array_release(h);
  }
  rs_context_destroy(c2);
  CHECK_OK(gst);
  CHECK_OK(mk);
  CHECK_EQ_I64(m[RS_H2D], RS_GUARD_DISALLOW);
  CHECK_EQ_I64(m[RS_D2H], RS_GUARD_LOG);
  CHECK_EQ_I64(m[RS_D2D], RS_GUARD_ALLOW);
  CHECK_EQ_I64(m[RS_H2H], RS_GUARD_ALLOW);
  CHECK_MSG(launch == RS_ERR_TRANSFER_REFUSED, "launch in the h2d=disallow context returned %s",
            rs_status_name(launch));
  /* the first context was not touched by the variable */
  CHECK_MODES(ctx, RS_GUARD_ALLOW, RS_GUARD_ALLOW, RS_GUARD_ALLOW, RS_GUARD_ALLOW);
}

static const rs_test_case tests[] = {
    RS_TEST(test_disallow_refuses_implicit),
    RS_TEST(test_disallow_lets_explicit_pass),
    RS_TEST(test_disallow_explicit),
    RS_TEST(test_disallow_explicit_one_direction),
    RS_TEST(test_per_direction),
    RS_TEST(test_log_mode),
    RS_TEST(test_log_one_direction),
    RS_TEST(test_push_pop),
    RS_TEST(test_parse),
    RS_TEST(test_environment),
};
RS_TEST_MAIN(tests)
