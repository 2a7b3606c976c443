/* The transfer ledger and the implicit copies at launch.
 *
 * - N built-in launches on a HOST or PINNED array make exactly 2N implicit copies
 *   (N H2D + N D2H) of nbytes each and N kernels; the explicit style (rs_to_device,
 *   N launches on the device array, rs_copy_to_host) makes exactly 2 explicit copies;
 *   MAPPED and MANAGED arrays are passed to kernels without any copy.
 * - After each style the values equal a CPU loop x = x * 1.0001 + 1 repeated N times
 *   in the array's own precision. Tolerance (relative, per element):
 *   4 * (N + 1) * epsilon of the dtype (FLT_EPSILON or DBL_EPSILON): a few rounding
 *   steps per kernel, far below the difference of one kernel more or less (about 1/x).
 * - Scopes nest; entries come in the order of the operations; device times; waits;
 *   the printed report; the errors of end-without-begin, reset-with-open-scope and a
 *   bandwidth <= 0.
 *
 * The context is shared by the tests: each begins with fresh(), which closes scopes left
 * open by an earlier failed test, restores the guard and timing and resets the ledger. */
#include <float.h>
#include "harness.h"
#include "resident/kernel.h"
#include "resident/ledger.h"
#include "ledger/ledger_hooks.h" /* internal: rs_ledger_pending_timings */

#define NELEM 10007 /* odd on purpose */
#define A_COEF 1.0001
#define C_COEF 1.0

static rs_status fresh(rs_context *ctx) { return rs_t_fresh_ledger_(ctx); }

static double input_value(int64_t i) { return 0.25 + (double)(i % 1000) / 1000.0; }

/* The independent reference: the chain computed on the CPU in the dtype's precision. */
static double reference(int64_t i, rs_dtype dt, int n_kernels) {
  if (dt == RS_FLOAT32) {
    float v = (float)input_value(i);
    for (int k = 0; k < n_kernels; k++) v = v * (float)A_COEF + (float)C_COEF;
    return v;
  }
  double v = input_value(i);
  for (int k = 0; k < n_kernels; k++) v = v * A_COEF + C_COEF;
  return v;
}

static double tolerance(rs_dtype dt, int n_kernels) {
  return 4.0 * (n_kernels + 1) * (dt == RS_FLOAT32 ? (double)FLT_EPSILON : DBL_EPSILON);
}

static void fill_input(rs_array *a) {
  int64_t n = rs_array_size(a);
  if (rs_array_dtype(a) == RS_FLOAT32) {
    float *p = (float *)rs_array_host_data(a);
    for (int64_t i = 0; i < n; i++) p[i] = (float)input_value(i);
  } else {
    double *p = (double *)rs_array_host_data(a);
    for (int64_t i = 0; i < n; i++) p[i] = input_value(i);
  }
}

/* Compare a host-visible contiguous array with the CPU loop; fails the test otherwise. */
static void check_chain(const rs_array *a, int n_kernels, const char *what) {
  rs_dtype dt = rs_array_dtype(a);
  int64_t n = rs_array_size(a);
  double tol = tolerance(dt, n_kernels);
  CHECK_MSG(rs_array_host_data(a) != NULL, "%s: array is not host-visible", what);
  for (int64_t i = 0; i < n; i++) {
    double got = dt == RS_FLOAT32 ? (double)((const float *)rs_array_host_data(a))[i]
                                  : ((const double *)rs_array_host_data(a))[i];
    double want = reference(i, dt, n_kernels);
    double rel = fabs(got - want) / fabs(want);
    CHECK_MSG(rel <= tol, "%s: element %lld is %.17g, CPU loop gives %.17g (rel. error %.3g > %.3g)",
              what, (long long)i, got, want, rel, tol);
  }
}

static rs_status make_kind(rs_array **out, rs_context *ctx, rs_mem_kind kind, int64_t n,
                           rs_dtype dt) {
  switch (kind) {
    case RS_MEM_DEVICE: return rs_device_array(out, ctx, 1, &n, dt, NULL, RS_ORDER_C);
    case RS_MEM_HOST: return rs_host_array(out, ctx, 1, &n, dt, NULL, RS_ORDER_C);
    case RS_MEM_PINNED: return rs_pinned_array(out, ctx, 1, &n, dt, NULL, RS_ORDER_C, 0);
    case RS_MEM_MAPPED: return rs_mapped_array(out, ctx, 1, &n, dt, NULL, RS_ORDER_C, 0);
    case RS_MEM_MANAGED:
      return rs_managed_array(out, ctx, 1, &n, dt, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL);
  }
  return RS_ERR_INVALID_ARGUMENT;
}

/* Every copy counter of s must be zero except the ones named. */
static int64_t copies_total(const rs_ledger_stats *s) {
  int64_t n = 0;
  for (int d = 0; d < RS_DIRECTIONS; d++) n += s->copies[d][0] + s->copies[d][1];
  return n;
}

/* ---- implicit copies at launch --------------------------------------------------------- */

static void implicit_style(rs_context *ctx, rs_mem_kind kind) {
  static const rs_dtype dts[] = {RS_FLOAT32, RS_FLOAT64};
  static const int ns[] = {1, 3, 10};
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < 3; k++) {
      int n_kernels = ns[k];
      char what[96];
      snprintf(what, sizeof what, "%s %s, %d kernel(s)", rs_mem_kind_name(kind),
               rs_dtype_name(dts[t]), n_kernels);
      rs_array *h = NULL;
      CHECK_OK(fresh(ctx));
      CHECK_OK(make_kind(&h, ctx, kind, NELEM, dts[t]));
      CHECK_EQ_I64(rs_array_kind(h), kind);
      fill_input(h);
      const int64_t nbytes = (int64_t)rs_array_nbytes(h);
      CHECK_EQ_I64(nbytes, NELEM * (int64_t)rs_dtype_size(dts[t]));
      CHECK_OK(rs_ledger_reset(ctx));
      for (int i = 0; i < n_kernels; i++) CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
      /* "A launch with implicit copies returns only after the copy back": no synchronize
       * before reading the host array. */
      check_chain(h, n_kernels, what);
      CHECK_PASSING();
      rs_ledger_stats s;
      CHECK_OK(rs_ledger_get_stats(ctx, &s));
      CHECK_MSG(s.copies[RS_H2D][1] == n_kernels && s.copies[RS_D2H][1] == n_kernels,
                "%s: implicit H2D %lld, D2H %lld, expected %d each", what,
                (long long)s.copies[RS_H2D][1], (long long)s.copies[RS_D2H][1], n_kernels);
      CHECK_MSG(s.copies[RS_H2D][0] == 0 && s.copies[RS_D2H][0] == 0,
                "%s: explicit copies recorded (H2D %lld, D2H %lld)", what,
                (long long)s.copies[RS_H2D][0], (long long)s.copies[RS_D2H][0]);
      CHECK_EQ_I64(copies_total(&s), 2 * n_kernels);
      CHECK_EQ_I64(rs_ledger_copies(&s, -1), 2 * n_kernels);
      CHECK_EQ_I64(rs_ledger_copies(&s, 1), 2 * n_kernels);
      CHECK_EQ_I64(rs_ledger_copies(&s, 0), 0);
      CHECK_EQ_I64(s.bytes[RS_H2D][1], (int64_t)n_kernels * nbytes);
      CHECK_EQ_I64(s.bytes[RS_D2H][1], (int64_t)n_kernels * nbytes);
      CHECK_EQ_I64(rs_ledger_bytes(&s, -1), 2 * (int64_t)n_kernels * nbytes);
      CHECK_EQ_I64(rs_ledger_bytes(&s, 1), 2 * (int64_t)n_kernels * nbytes);
      CHECK_EQ_I64(rs_ledger_bytes(&s, 0), 0);
      CHECK_MSG(s.kernels == n_kernels, "%s: %lld kernels recorded", what, (long long)s.kernels);
      /* the device temporaries of the launches are gone */
      rs_live_stats live;
      CHECK_OK(rs_context_get_live_stats(ctx, &live));
      CHECK_MSG(live.device_bytes == 0, "%s: %lld device bytes still live after the launches", what,
                (long long)live.device_bytes);
      CHECK_OK(rs_array_release(h));
    }
}

static void test_implicit_host_array(rs_context *ctx) { implicit_style(ctx, RS_MEM_HOST); }
static void test_implicit_pinned_array(rs_context *ctx) { implicit_style(ctx, RS_MEM_PINNED); }

/* The implicit copies of a launch are ordered: H2D, kernel, D2H, per launch. */
static void test_implicit_sequence(rs_context *ctx) {
  rs_array *h = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, NELEM, RS_FLOAT32));
  fill_input(h);
  CHECK_OK(rs_ledger_reset(ctx));
  for (int i = 0; i < 3; i++) CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
  int64_t count = -1, dropped = -1;
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  CHECK_EQ_I64(dropped, 0);
  int seen = 0;
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind == RS_ENTRY_WAIT) continue;
    int pos = seen % 3;
    CHECK_MSG(seen < 9, "more than 9 copies and kernels recorded (entry %lld: %s)", (long long)i,
              e.cause);
    if (pos == 1) {
      CHECK_MSG(e.kind == RS_ENTRY_KERNEL, "entry %lld: expected the kernel, got kind %d (%s)",
                (long long)i, (int)e.kind, e.cause);
      CHECK_MSG(rs_t_contains_(e.cause, "axpb"), "kernel cause \"%s\"", e.cause);
    } else {
      CHECK_MSG(e.kind == RS_ENTRY_COPY, "entry %lld: expected a copy, got kind %d (%s)", (long long)i,
                (int)e.kind, e.cause);
      CHECK_EQ_I64(e.dir, pos == 0 ? RS_H2D : RS_D2H);
      CHECK_EQ_I64(e.implicit, 1);
      CHECK_EQ_I64(e.arg, 0);
      CHECK_EQ_I64(e.bytes, NELEM * 4);
      CHECK_MSG(rs_t_contains_(e.cause, "axpb"), "implicit copy cause \"%s\" does not name the kernel",
                e.cause);
    }
    seen++;
  }
  CHECK_EQ_I64(seen, 9);
  check_chain(h, 3, "sequence");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(h));
}

static void explicit_style(rs_context *ctx, rs_mem_kind host_kind) {
  static const rs_dtype dts[] = {RS_FLOAT32, RS_FLOAT64};
  static const int ns[] = {1, 3, 10};
  for (int t = 0; t < 2; t++)
    for (int k = 0; k < 3; k++) {
      int n_kernels = ns[k];
      char what[96];
      snprintf(what, sizeof what, "explicit from %s, %s, %d kernel(s)", rs_mem_kind_name(host_kind),
               rs_dtype_name(dts[t]), n_kernels);
      rs_array *h = NULL, *d = NULL, *back = NULL;
      CHECK_OK(fresh(ctx));
      CHECK_OK(make_kind(&h, ctx, host_kind, NELEM, dts[t]));
      fill_input(h);
      const int64_t nbytes = (int64_t)rs_array_nbytes(h);
      CHECK_OK(rs_ledger_reset(ctx));
      CHECK_OK(rs_to_device(&d, h, 0, NULL));
      CHECK_EQ_I64(rs_array_kind(d), RS_MEM_DEVICE);
      for (int i = 0; i < n_kernels; i++) CHECK_OK(rs_t_axpb(d, A_COEF, C_COEF, NULL));
      CHECK_OK(rs_copy_to_host(&back, d, NULL));
      CHECK_EQ_I64(rs_array_kind(back), RS_MEM_HOST);
      rs_ledger_stats s;
      CHECK_OK(rs_ledger_get_stats(ctx, &s));
      CHECK_MSG(s.copies[RS_H2D][0] == 1 && s.copies[RS_D2H][0] == 1,
                "%s: explicit H2D %lld, D2H %lld, expected 1 each", what,
                (long long)s.copies[RS_H2D][0], (long long)s.copies[RS_D2H][0]);
      CHECK_EQ_I64(copies_total(&s), 2);
      CHECK_EQ_I64(rs_ledger_copies(&s, 1), 0);
      CHECK_EQ_I64(rs_ledger_copies(&s, 0), 2);
      CHECK_EQ_I64(s.bytes[RS_H2D][0], nbytes);
      CHECK_EQ_I64(s.bytes[RS_D2H][0], nbytes);
      CHECK_EQ_I64(rs_ledger_bytes(&s, -1), 2 * nbytes);
      CHECK_EQ_I64(s.kernels, n_kernels);
      check_chain(back, n_kernels, what);
      CHECK_PASSING();
      /* the source was not touched by the kernels */
      check_chain(h, 0, "explicit style: the host source");
      CHECK_PASSING();
      CHECK_OK(rs_array_release(back));
      CHECK_OK(rs_array_release(d));
      CHECK_OK(rs_array_release(h));
    }
}

static void test_explicit_device_array(rs_context *ctx) {
  explicit_style(ctx, RS_MEM_HOST);
  CHECK_PASSING();
  explicit_style(ctx, RS_MEM_PINNED);
}

/* Mapped and managed arrays are reachable by kernels: no copy at all. */
static void test_mapped_managed_no_copy(rs_context *ctx) {
  static const rs_mem_kind kinds[] = {RS_MEM_MAPPED, RS_MEM_MANAGED};
  static const rs_dtype dts[] = {RS_FLOAT32, RS_FLOAT64};
  for (int k = 0; k < 2; k++)
    for (int t = 0; t < 2; t++) {
      char what[96];
      snprintf(what, sizeof what, "%s %s", rs_mem_kind_name(kinds[k]), rs_dtype_name(dts[t]));
      rs_array *a = NULL;
      CHECK_OK(fresh(ctx));
      CHECK_OK(make_kind(&a, ctx, kinds[k], NELEM, dts[t]));
      CHECK_EQ_I64(rs_array_kind(a), kinds[k]);
      fill_input(a);
      CHECK_OK(rs_ledger_reset(ctx));
      for (int i = 0; i < 3; i++) CHECK_OK(rs_t_axpb(a, A_COEF, C_COEF, NULL));
      CHECK_OK(rs_context_synchronize(ctx));
      rs_ledger_stats s;
      CHECK_OK(rs_ledger_get_stats(ctx, &s));
      CHECK_MSG(copies_total(&s) == 0, "%s: %lld copies recorded, expected none", what,
                (long long)copies_total(&s));
      CHECK_EQ_I64(rs_ledger_bytes(&s, -1), 0);
      CHECK_EQ_I64(s.kernels, 3);
      check_chain(a, 3, what);
      CHECK_PASSING();
      CHECK_OK(rs_array_release(a));
    }
}

/* ---- scopes ------------------------------------------------------------------------- */

/* Every counter of outer is at least the one of inner. */
static int stats_contain(const rs_ledger_stats *outer, const rs_ledger_stats *inner) {
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++)
      if (outer->copies[d][i] < inner->copies[d][i] || outer->bytes[d][i] < inner->bytes[d][i])
        return 0;
  return outer->kernels >= inner->kernels && outer->waits >= inner->waits;
}

static void test_scopes_nest(rs_context *ctx) {
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, NELEM, RS_FLOAT64));
  fill_input(h);
  const int64_t nb = (int64_t)rs_array_nbytes(h);
  CHECK_OK(rs_ledger_reset(ctx));

  /* A: before any scope: 1 implicit H2D, 1 implicit D2H, 1 kernel */
  CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
  CHECK_OK(rs_ledger_begin(ctx)); /* outer */
  /* B: 1 explicit H2D */
  CHECK_OK(rs_to_device(&d, h, 0, NULL));
  CHECK_OK(rs_ledger_begin(ctx)); /* inner */
  /* C: 1 kernel, 1 explicit D2H */
  CHECK_OK(rs_t_axpb(d, A_COEF, C_COEF, NULL));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  rs_ledger_stats inner, inner2, outer, total;
  CHECK_OK(rs_ledger_end(ctx, &inner));
  /* E: in a sibling scope: 1 explicit H2D */
  CHECK_OK(rs_ledger_begin(ctx)); /* inner2 */
  CHECK_OK(rs_to_device_into(d, h, NULL));
  CHECK_OK(rs_ledger_end(ctx, &inner2));
  /* D: 1 implicit H2D, 1 implicit D2H, 1 kernel, in outer only */
  CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
  CHECK_OK(rs_ledger_end(ctx, &outer));
  CHECK_OK(rs_ledger_get_stats(ctx, &total));

  /* inner: only C */
  CHECK_EQ_I64(inner.kernels, 1);
  CHECK_EQ_I64(inner.copies[RS_D2H][0], 1);
  CHECK_EQ_I64(inner.bytes[RS_D2H][0], nb);
  CHECK_EQ_I64(inner.copies[RS_H2D][0], 0);
  CHECK_EQ_I64(rs_ledger_copies(&inner, 1), 0);
  CHECK_EQ_I64(rs_ledger_copies(&inner, -1), 1);
  /* inner2: only E (not C, which its sibling saw) */
  CHECK_EQ_I64(inner2.kernels, 0);
  CHECK_EQ_I64(inner2.copies[RS_H2D][0], 1);
  CHECK_EQ_I64(inner2.bytes[RS_H2D][0], nb);
  CHECK_EQ_I64(rs_ledger_copies(&inner2, -1), 1);
  /* outer: B + C + E + D */
  CHECK_EQ_I64(outer.kernels, 2);
  CHECK_EQ_I64(outer.copies[RS_H2D][0], 2);
  CHECK_EQ_I64(outer.copies[RS_D2H][0], 1);
  CHECK_EQ_I64(outer.copies[RS_H2D][1], 1);
  CHECK_EQ_I64(outer.copies[RS_D2H][1], 1);
  CHECK_EQ_I64(rs_ledger_copies(&outer, -1), 5);
  CHECK_EQ_I64(rs_ledger_bytes(&outer, -1), 5 * nb);
  CHECK(stats_contain(&outer, &inner));
  CHECK(stats_contain(&outer, &inner2));
  /* the context: A + everything */
  CHECK_EQ_I64(total.kernels, 3);
  CHECK_EQ_I64(total.copies[RS_H2D][1], 2);
  CHECK_EQ_I64(total.copies[RS_D2H][1], 2);
  CHECK_EQ_I64(total.copies[RS_H2D][0], 2);
  CHECK_EQ_I64(total.copies[RS_D2H][0], 1);
  CHECK_EQ_I64(rs_ledger_bytes(&total, -1), 7 * nb);
  CHECK(stats_contain(&total, &outer));
  /* every scope is closed now */
  CHECK_STATUS(rs_ledger_end(ctx, &outer), RS_ERR_STATE);

  /* the data went through all that: 1 (A) + 1 (C) + 1 (D) kernels on the host values */
  check_chain(h, 3, "after the scoped operations");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* Three levels; each end returns the innermost open scope. */
static void test_scopes_three_levels(rs_context *ctx) {
  rs_array *h = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, 64, RS_FLOAT32));
  fill_input(h);
  rs_ledger_stats s[3];
  for (int level = 0; level < 3; level++) {
    CHECK_OK(rs_ledger_begin(ctx));
    /* level L launches L + 1 kernels */
    for (int i = 0; i <= level; i++) CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
  }
  for (int level = 2; level >= 0; level--) CHECK_OK(rs_ledger_end(ctx, &s[level]));
  /* innermost saw 3, middle 2 + 3, outermost 1 + 2 + 3 */
  CHECK_EQ_I64(s[2].kernels, 3);
  CHECK_EQ_I64(s[1].kernels, 5);
  CHECK_EQ_I64(s[0].kernels, 6);
  CHECK_EQ_I64(rs_ledger_copies(&s[2], 1), 6);
  CHECK_EQ_I64(rs_ledger_copies(&s[1], 1), 10);
  CHECK_EQ_I64(rs_ledger_copies(&s[0], 1), 12);
  CHECK_EQ_I64(rs_ledger_bytes(&s[0], 1), 12 * 64 * 4);
  check_chain(h, 6, "three levels");
  CHECK_PASSING();
  CHECK_OK(rs_array_release(h));
}

/* A scope begun while earlier work is still running does not count that work. */
static void test_scope_excludes_earlier_work(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_t_sleep(ctx, 30, NULL));
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_context_synchronize(ctx));
  rs_ledger_stats s, total;
  CHECK_OK(rs_ledger_end(ctx, &s));
  CHECK_EQ_I64(s.kernels, 0);
  CHECK_MSG(s.kernel_device_ms == 0, "the scope holds %.3f ms of kernel time from before it",
            s.kernel_device_ms);
  CHECK_OK(rs_ledger_get_stats(ctx, &total));
  CHECK_EQ_I64(total.kernels, 1);
  CHECK_MSG(total.kernel_device_ms >= 25, "the 30 ms sleep kernel has %.3f ms device time",
            total.kernel_device_ms);
}

static void test_scope_errors(rs_context *ctx) {
  rs_ledger_stats s;
  CHECK_OK(fresh(ctx));
  CHECK_STATUS(rs_ledger_end(ctx, &s), RS_ERR_STATE);
  CHECK_ERRMSG("scope", "begin", "begun");
  /* reset with an open scope is refused, and the scope still works afterwards */
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_t_sleep(ctx, 0, NULL));
  CHECK_STATUS(rs_ledger_reset(ctx), RS_ERR_STATE);
  CHECK_OK(rs_ledger_end(ctx, &s));
  CHECK_EQ_I64(s.kernels, 1);
  /* the refused reset forgot nothing */
  rs_ledger_stats total;
  CHECK_OK(rs_ledger_get_stats(ctx, &total));
  CHECK_EQ_I64(total.kernels, 1);
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_ledger_get_stats(ctx, &total));
  CHECK_EQ_I64(total.kernels, 0);
  int64_t count = -1;
  CHECK_OK(rs_ledger_count(ctx, &count, NULL));
  CHECK_EQ_I64(count, 0);
  CHECK_STATUS(rs_ledger_end(ctx, &s), RS_ERR_STATE);
  /* nested: two begins, two ends, the third end fails */
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_ledger_begin(ctx));
  CHECK_OK(rs_ledger_end(ctx, &s));
  CHECK_STATUS(rs_ledger_reset(ctx), RS_ERR_STATE);
  CHECK_OK(rs_ledger_end(ctx, &s));
  CHECK_STATUS(rs_ledger_end(ctx, &s), RS_ERR_STATE);
  CHECK_OK(rs_ledger_reset(ctx));
}

/* ---- entries -------------------------------------------------------------------------- */

static void test_entries_in_order(rs_context *ctx) {
  rs_array *h = NULL, *d = NULL;
  rs_stream *st = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, NELEM, RS_FLOAT32));
  fill_input(h);
  const size_t nb = rs_array_nbytes(h);
  CHECK_OK(rs_stream_create(&st, ctx, 0));
  CHECK_OK(rs_ledger_reset(ctx));

  CHECK_OK(rs_to_device(&d, h, 0, NULL));                       /* 0: H2D explicit */
  CHECK_OK(rs_t_axpb(d, A_COEF, C_COEF, NULL));     /* 1: kernel on d */
  CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));     /* 2,3,4: H2D imp, kernel, D2H imp */
  CHECK_OK(rs_copy_to_host_into(h, d, st));                      /* 5: D2H explicit on st */
  CHECK_OK(rs_stream_synchronize(st));

  struct {
    rs_entry_kind kind;
    rs_direction dir;
    int implicit;
    int arg;
    const char *cause;
    int on_st;
  } want[] = {
      {RS_ENTRY_COPY, RS_H2D, 0, -1, "rs_to_device", 0},
      {RS_ENTRY_KERNEL, RS_H2D, 0, -1, "axpb", 0},
      {RS_ENTRY_COPY, RS_H2D, 1, 0, "axpb", 0},
      {RS_ENTRY_KERNEL, RS_H2D, 0, -1, "axpb", 0},
      {RS_ENTRY_COPY, RS_D2H, 1, 0, "axpb", 0},
      {RS_ENTRY_COPY, RS_D2H, 0, -1, "copy_to_host", 1},
  };
  const int nwant = (int)(sizeof want / sizeof want[0]);
  int64_t count = -1, dropped = -1;
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  CHECK_EQ_I64(dropped, 0);
  int w = 0;
  double last_start = -1e300;
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    CHECK_MSG(e.host_start_ms + 0.001 >= last_start,
              "entry %lld (%s) starts at %.3f ms, before the entry before it (%.3f ms)",
              (long long)i, e.cause, e.host_start_ms, last_start);
    last_start = e.host_start_ms;
    CHECK_MSG(e.host_ms >= 0, "entry %lld host_ms %g", (long long)i, e.host_ms);
    if (e.kind == RS_ENTRY_WAIT) continue; /* waits for earlier work may appear anywhere */
    CHECK_MSG(w < nwant, "entry %lld (%s) is more than the %d operations made", (long long)i,
              e.cause, nwant);
    CHECK_MSG(e.kind == want[w].kind, "operation %d: kind %d, expected %d (cause \"%s\")", w,
              (int)e.kind, (int)want[w].kind, e.cause);
    CHECK_MSG(rs_t_contains_(e.cause, want[w].cause), "operation %d: cause \"%s\", expected \"%s\"",
              w, e.cause, want[w].cause);
    CHECK_MSG(e.arg == want[w].arg, "operation %d (%s): arg %d, expected %d", w, e.cause, e.arg,
              want[w].arg);
    if (e.kind == RS_ENTRY_COPY) {
      CHECK_MSG(e.dir == want[w].dir, "operation %d: direction %s, expected %s", w,
                rs_direction_name(e.dir), rs_direction_name(want[w].dir));
      CHECK_MSG(e.implicit == want[w].implicit, "operation %d (%s): implicit %d", w, e.cause,
                e.implicit);
      CHECK_MSG(e.bytes == nb, "operation %d: %zu bytes, expected %zu", w, e.bytes, nb);
    }
    void *want_stream = want[w].on_st ? rs_stream_native(st) : rs_stream_native(rs_stream_legacy(ctx));
    CHECK_MSG(e.stream == want_stream, "operation %d (%s): stream %p, expected %p", w, e.cause,
              e.stream, want_stream);
    w++;
  }
  CHECK_EQ_I64(w, nwant);
  CHECK_FAILS(rs_ledger_entry_at(ctx, count, &(rs_ledger_entry){0}));
  CHECK_FAILS(rs_ledger_entry_at(ctx, -1, &(rs_ledger_entry){0}));
  /* h was overwritten by the copy from d (1 kernel), after its own implicit launch */
  check_chain(h, 1, "entries: h after copy_to_host_into");
  CHECK_PASSING();
  CHECK_OK(rs_stream_destroy(st));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* ---- device timing ---------------------------------------------------------------------- */

static void timed_ops(rs_context *ctx, int timing) {
  rs_array *h = NULL, *d = NULL;
  char what[32];
  snprintf(what, sizeof what, "timing %s", timing ? "on" : "off");
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_ledger_set_timing(ctx, timing));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_PINNED, 1 << 16, RS_FLOAT32));
  fill_input(h);
  CHECK_OK(make_kind(&d, ctx, RS_MEM_DEVICE, 1 << 16, RS_FLOAT32));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_to_device_into(d, h, NULL));
  CHECK_OK(rs_t_sleep(ctx, 30, NULL));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s)); /* waits for the device times */
  int64_t count = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, NULL));
  double dev_sum[RS_DIRECTIONS][2] = {{0}}, host_sum = 0;
  int copies = 0, kernels = 0;
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind == RS_ENTRY_COPY) {
      copies++;
      host_sum += e.host_ms;
      if (timing) {
        CHECK_MSG(e.device_ms >= 0, "%s: copy %lld (%s) device_ms %g", what, (long long)i, e.cause,
                  e.device_ms);
        dev_sum[e.dir][e.implicit] += e.device_ms;
      } else {
        CHECK_MSG(e.device_ms == -1, "%s: copy %lld (%s) device_ms %g, expected -1", what,
                  (long long)i, e.cause, e.device_ms);
      }
    } else if (e.kind == RS_ENTRY_KERNEL) {
      kernels++;
      if (!timing)
        CHECK_MSG(e.device_ms == -1, "%s: kernel %s device_ms %g, expected -1", what, e.cause,
                  e.device_ms);
      else if (rs_t_contains_(e.cause, "sleep"))
        CHECK_MSG(e.device_ms >= 25, "%s: the 30 ms sleep kernel has device_ms %g", what,
                  e.device_ms);
      else
        CHECK_MSG(e.device_ms >= 0, "%s: kernel %s device_ms %g", what, e.cause, e.device_ms);
    } else {
      CHECK_MSG(e.device_ms == -1, "%s: a wait has device_ms %g", what, e.device_ms);
    }
  }
  CHECK_EQ_I64(copies, 4);
  CHECK_EQ_I64(kernels, 2);
  if (timing) {
    /* the totals are the sums of the entries */
    for (int dir = 0; dir < RS_DIRECTIONS; dir++)
      for (int i = 0; i < 2; i++)
        CHECK_MSG(fabs(s.copy_device_ms[dir][i] - dev_sum[dir][i]) <= 1e-3 + 1e-6 * dev_sum[dir][i],
                  "%s: copy_device_ms[%s][%d] = %g, entries sum to %g", what,
                  rs_direction_name((rs_direction)dir), i, s.copy_device_ms[dir][i], dev_sum[dir][i]);
    CHECK_MSG(s.kernel_device_ms >= 25, "%s: kernel_device_ms %g with a 30 ms sleep", what,
              s.kernel_device_ms);
  } else {
    for (int dir = 0; dir < RS_DIRECTIONS; dir++)
      for (int i = 0; i < 2; i++)
        CHECK_MSG(s.copy_device_ms[dir][i] == 0, "%s: copy_device_ms[%d][%d] = %g", what, dir, i,
                  s.copy_device_ms[dir][i]);
    CHECK_MSG(s.kernel_device_ms == 0, "%s: kernel_device_ms %g", what, s.kernel_device_ms);
    /* untimed: the copy time is the host time */
    CHECK_NEAR(rs_ledger_copy_ms(&s), host_sum, 1e-6 + 1e-9 * host_sum);
  }
  check_chain(h, 1, what);
  CHECK_PASSING();
  CHECK_OK(rs_ledger_set_timing(ctx, RS_TIME_ALL));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

static void test_device_times_on(rs_context *ctx) { timed_ops(ctx, RS_TIME_ALL); }
static void test_device_times_off(rs_context *ctx) {
  timed_ops(ctx, 0);
  rs_ledger_set_timing(ctx, RS_TIME_ALL);
}

/* A loop that never reads the ledger keeps few timings pending: once 256 are, an entry
 * resolves those already done and their events are reused. Before, every entry kept two
 * events until the ledger was read (3000 copies: 3000 pending, 6000 events). The totals
 * still hold every copy's device time. */
static void test_pending_timings_bounded(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  rs_array *h = NULL, *d = NULL;
  rs_stream *s = NULL;
  CHECK_OK(make_kind(&h, ctx, RS_MEM_PINNED, 1024, RS_FLOAT32));
  CHECK_OK(make_kind(&d, ctx, RS_MEM_DEVICE, 1024, RS_FLOAT32));
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  size_t most = 0;
  for (int i = 0; i < 3000; i++) {
    CHECK_OK(rs_to_device_into(d, h, s));
    if (i % 100 == 99) CHECK_OK(rs_stream_synchronize(s));
    size_t n = rs_ledger_pending_timings(ctx);
    if (n > most) most = n;
  }
  CHECK_MSG(most <= 512, "%zu timings pending at most over 3000 copies", most);
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_get_stats(ctx, &st));
  CHECK_EQ_I64(rs_ledger_pending_timings(ctx), 0);
  CHECK_EQ_I64(st.copies[RS_H2D][0], 3000);
  CHECK_MSG(st.copy_device_ms[RS_H2D][0] > 0, "copy_device_ms %g", st.copy_device_ms[RS_H2D][0]);
  CHECK_OK(rs_stream_destroy(s));
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* ---- waits ------------------------------------------------------------------------------ */

static void test_wait_recorded(rs_context *ctx) {
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_t_sleep(ctx, 30, NULL));
  double t0 = rs_t_now_ms_();
  CHECK_OK(rs_stream_synchronize(rs_stream_legacy(ctx)));
  double t1 = rs_t_now_ms_();
  int64_t count = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, NULL));
  int waits = 0, kernels = 0;
  double wait_ms = 0;
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind == RS_ENTRY_KERNEL) {
      CHECK_MSG(waits == 0, "the kernel is recorded after the wait");
      kernels++;
    } else if (e.kind == RS_ENTRY_WAIT) {
      waits++;
      wait_ms = e.host_ms;
      CHECK_MSG(rs_t_contains_(e.cause, "synchronize"), "wait cause \"%s\"", e.cause);
    } else {
      FAIL("a copy was recorded: %s", e.cause);
    }
  }
  CHECK_EQ_I64(kernels, 1);
  CHECK_EQ_I64(waits, 1);
  CHECK_MSG(wait_ms >= 25, "the wait for a 30 ms kernel lasted %.3f ms", wait_ms);
  CHECK_MSG(wait_ms <= (t1 - t0) + 1.0, "the wait is %.3f ms but the call took %.3f ms", wait_ms,
            t1 - t0);
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(s.waits, 1);
  CHECK_NEAR(s.wait_ms, wait_ms, 1e-9);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 0);
}

/* A pageable copy after a slow kernel: the time is recorded as a wait for earlier work,
 * and the copy itself is short. */
static void test_wait_for_earlier_work(rs_context *ctx) {
  rs_array *h = NULL, *d = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, 1024, RS_FLOAT32));
  CHECK_OK(make_kind(&d, ctx, RS_MEM_DEVICE, 1024, RS_FLOAT32));
  float in[1024];
  for (int i = 0; i < 1024; i++) in[i] = (float)input_value(i);
  CHECK_OK(rs_t_write_(d, in));
  memset(rs_array_host_data(h), 0, rs_array_nbytes(h));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_t_sleep(ctx, 30, NULL));
  CHECK_OK(rs_copy_to_host_into(h, d, NULL));
  int64_t count = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, NULL));
  int stage = 0; /* 0: expect the kernel, 1: the wait, 2: the copy, 3: done */
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (stage == 0) {
      CHECK_MSG(e.kind == RS_ENTRY_KERNEL && rs_t_contains_(e.cause, "sleep"),
                "entry 0: kind %d cause \"%s\", expected the sleep kernel", (int)e.kind, e.cause);
    } else if (stage == 1) {
      CHECK_MSG(e.kind == RS_ENTRY_WAIT, "entry 1: kind %d cause \"%s\", expected a wait", (int)e.kind,
                e.cause);
      CHECK_MSG(rs_t_contains_(e.cause, "earlier work") && rs_t_contains_(e.cause, "copy_to_host"),
                "wait cause \"%s\"", e.cause);
      CHECK_MSG(e.host_ms >= 25, "the wait for a 30 ms kernel lasted %.3f ms", e.host_ms);
    } else if (stage == 2) {
      CHECK_MSG(e.kind == RS_ENTRY_COPY && e.dir == RS_D2H && !e.implicit,
                "entry 2: kind %d cause \"%s\", expected the explicit D2H copy", (int)e.kind, e.cause);
      CHECK_MSG(e.host_ms < 15, "the 4 KB copy itself took %.3f ms of host time (the wait is apart)",
                e.host_ms);
      /* The host waited for it from an idle stream: its device time is that span, taken on
       * the host clock, and so holds none of the kernel's 30 ms either. */
      CHECK_MSG(e.device_ms == e.host_ms && e.device_start_ms == e.host_start_ms,
                "the pageable copy's device time %.4f ms from %.4f, its host time %.4f ms from %.4f", e.device_ms,
                e.device_start_ms, e.host_ms, e.host_start_ms);
    } else {
      FAIL("unexpected entry %lld: kind %d cause \"%s\"", (long long)i, (int)e.kind, e.cause);
    }
    stage++;
  }
  CHECK_EQ_I64(stage, 3);
  CHECK_BYTES_EQ(rs_array_host_data(h), in, sizeof in);
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(h));
}

/* A copy the host waits for (a pageable side) is timed on the host clock, from an idle
 * stream to its end: no timing events are held for it, and the totals add its time at
 * once. A pinned copy, which the host does not wait for, is still timed by events. */
static void test_pageable_copies_host_timed(rs_context *ctx) {
  rs_array *h = NULL, *p = NULL, *d = NULL;
  CHECK_OK(fresh(ctx));
  CHECK_OK(rs_ledger_set_timing(ctx, RS_TIME_COPIES));
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, 1 << 18, RS_FLOAT32));
  CHECK_OK(make_kind(&p, ctx, RS_MEM_PINNED, 1 << 18, RS_FLOAT32));
  CHECK_OK(make_kind(&d, ctx, RS_MEM_DEVICE, 1 << 18, RS_FLOAT32));
  float *hv = rs_array_host_data(h);
  for (int i = 0; i < 1 << 18; i++) hv[i] = (float)input_value(i);
  CHECK_OK(rs_ledger_reset(ctx));
  for (int k = 0; k < 3; k++) {
    CHECK_OK(rs_to_device_into(d, h, NULL));
    memset(hv, 0, sizeof(float) << 18);
    CHECK_OK(rs_copy_to_host_into(h, d, NULL));
    for (int i = 0; i < 1 << 18; i += 4099) CHECK_NEAR(hv[i], (float)input_value(i), 0);
  }
  CHECK_EQ_I64(rs_ledger_pending_timings(ctx), 0);
  double sum[2] = {0, 0};
  for (int64_t i = 0; i < 6; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    CHECK_MSG(e.kind == RS_ENTRY_COPY && e.dir == (i % 2 ? RS_D2H : RS_H2D), "entry %lld: kind %d dir %d",
              (long long)i, (int)e.kind, (int)e.dir);
    CHECK_MSG(e.device_ms > 0 && e.device_ms == e.host_ms && e.device_start_ms == e.host_start_ms,
              "entry %lld: device %.4f ms from %.4f, host %.4f ms from %.4f", (long long)i, e.device_ms,
              e.device_start_ms, e.host_ms, e.host_start_ms);
    sum[i % 2] += e.device_ms;
  }
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_NEAR(s.copy_device_ms[RS_H2D][0], sum[0], 1e-9);
  CHECK_NEAR(s.copy_device_ms[RS_D2H][0], sum[1], 1e-9);
  /* pinned: queued, not waited for; events time it */
  CHECK_OK(rs_to_device_into(d, p, NULL));
  CHECK_EQ_I64(rs_ledger_pending_timings(ctx), 1);
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  CHECK_EQ_I64(rs_ledger_pending_timings(ctx), 0);
  CHECK_MSG(s.copy_device_ms[RS_H2D][0] > sum[0], "the pinned copy added no device time (%.4f ms, %.4f before)",
            s.copy_device_ms[RS_H2D][0], sum[0]);
  CHECK_OK(rs_array_release(d));
  CHECK_OK(rs_array_release(p));
  CHECK_OK(rs_array_release(h));
}

/* ---- the printed report ----------------------------------------------------------------- */


static void test_print(rs_context *ctx) {
  rs_array *h = NULL;
  CHECK_OK(fresh(ctx));
  /* 250000 float32 = 1,000,000 bytes; 3 launches move 3 MB each way */
  CHECK_OK(make_kind(&h, ctx, RS_MEM_HOST, 250000, RS_FLOAT32));
  fill_input(h);
  CHECK_OK(rs_ledger_reset(ctx));
  for (int i = 0; i < 3; i++) CHECK_OK(rs_t_axpb(h, A_COEF, C_COEF, NULL));
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));

  FILE *f = tmpfile();
  CHECK(f != NULL);
  CHECK_STATUS(rs_ledger_print(&s, 10.0, 0.0, f), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_ledger_print(&s, 10.0, -3.0, f), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_ledger_print(&s, 0.0, -1e-9, f), RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(ftell(f) == 0, "a refused print wrote %ld bytes", ftell(f));
  /* at 0.0256 GB/s, 3 MB take 3e6 / 25.6e6 s = 117.1875 ms */
  const double bw = 0.0256, est = 3e6 / (bw * 1e6);
  rs_status st = rs_ledger_print(&s, 500.0, bw, f);
  if (st != RS_OK) {
    fclose(f);
    FAIL("rs_ledger_print: %s \"%s\"", rs_status_name(st), rs_t_msg_());
  }
  rewind(f);
  char line[512];
  int h2d = 0, d2h = 0, explicit_lines = 0, kernel_line = 0, nlines = 0;
  while (fgets(line, sizeof line, f)) {
    nlines++;
    if (strstr(line, "H2D implicit")) {
      h2d++;
      if (!rs_t_line_has_number(line, 3, 0) || !rs_t_line_has_number(line, est, 0.005) || strstr(line, "kernel")) {
        fclose(f);
        FAIL("H2D line \"%s\": expected the count 3, the estimate %.4f ms, and no kernel time", line, est);
      }
    }
    if (strstr(line, "D2H implicit")) {
      d2h++;
      if (!rs_t_line_has_number(line, 3, 0) || !rs_t_line_has_number(line, est, 0.005) || strstr(line, "kernel")) {
        fclose(f);
        FAIL("D2H line \"%s\": expected the count 3, the estimate %.4f ms", line, est);
      }
    }
    if (strstr(line, "H2D explicit") || strstr(line, "D2H explicit")) explicit_lines++;
    if (rs_t_contains_(line, "kernel")) {
      kernel_line++;
      if (strstr(line, "H2D") || strstr(line, "D2H")) {
        fclose(f);
        FAIL("kernel time shares a line with copies: \"%s\"", line);
      }
    }
  }
  fclose(f);
  CHECK_EQ_I64(h2d, 1);
  CHECK_EQ_I64(d2h, 1);
  CHECK_EQ_I64(explicit_lines, 0); /* no explicit copies happened */
  CHECK_MSG(kernel_line >= 1, "no kernel line in %d lines", nlines);

  /* the teaching default and no wall time are accepted too */
  f = tmpfile();
  CHECK(f != NULL);
  st = rs_ledger_print(&s, 0.0, RS_DEFAULT_PCIE_GBS, f);
  long written = ftell(f);
  fclose(f);
  CHECK_MSG(st == RS_OK, "rs_ledger_print(default bandwidth): %s", rs_status_name(st));
  CHECK_MSG(written > 0, "rs_ledger_print wrote nothing");
  CHECK_OK(rs_array_release(h));
}

static void test_direction_names(rs_context *ctx) {
  (void)ctx;
  CHECK_STREQ(rs_direction_name(RS_H2D), "H2D");
  CHECK_STREQ(rs_direction_name(RS_D2H), "D2H");
  CHECK_STREQ(rs_direction_name(RS_D2D), "D2D");
  CHECK_STREQ(rs_direction_name(RS_H2H), "H2H");
}

static const rs_test_case tests[] = {
    RS_TEST(test_implicit_host_array),
    RS_TEST(test_implicit_pinned_array),
    RS_TEST(test_implicit_sequence),
    RS_TEST(test_explicit_device_array),
    RS_TEST(test_mapped_managed_no_copy),
    RS_TEST(test_scopes_nest),
    RS_TEST(test_scopes_three_levels),
    RS_TEST(test_scope_excludes_earlier_work),
    RS_TEST(test_scope_errors),
    RS_TEST(test_entries_in_order),
    RS_TEST(test_device_times_on),
    RS_TEST(test_device_times_off),
    RS_TEST(test_wait_recorded),
    RS_TEST(test_wait_for_earlier_work),
    RS_TEST(test_pageable_copies_host_timed),
    RS_TEST(test_print),
    RS_TEST(test_direction_names),
    RS_TEST(test_pending_timings_bounded),
};
RS_TEST_MAIN(tests)
