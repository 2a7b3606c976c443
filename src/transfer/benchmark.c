/* The benchmark helper: warm-up, then repeats timed on the host (synchronized) and on
 * the device (events), each inside a ledger scope that counts its copies. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "backend/backend.h"
#include "core/objects.h"
#include "stream/stream.h"
#include "resident/bench.h"
#include "ledger/ledger_hooks.h"

rs_bench_options rs_bench_defaults(void) {
  rs_bench_options o = {10, 100, NULL};
  return o;
}

static int rs_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

rs_bench_summary rs_bench_summarize(const double *values, int n) {
  rs_bench_summary s = {0, 0, 0, 0, 0};
  if (n <= 0) return s;
  if (!values) {
    rs_fail(RS_ERR_NULL_POINTER, "rs_bench_summarize: values is NULL (n = %d)", n);
    return s;
  }
  double *sorted = malloc((size_t)n * sizeof *sorted);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += values[i];
  s.mean = sum / n;
  double var = 0;
  for (int i = 0; i < n; i++) var += (values[i] - s.mean) * (values[i] - s.mean);
  s.stddev = n > 1 ? sqrt(var / (n - 1)) : 0;
  if (sorted) {
    memcpy(sorted, values, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, rs_cmp_double);
    s.min = sorted[0];
    s.max = sorted[n - 1];
    s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    free(sorted);
  }
  return s;
}

rs_status rs_bench_result_destroy(rs_bench_result *r) {
  if (!r) return RS_OK;
  free(r->host_ms);
  free(r->device_ms);
  r->host_ms = r->device_ms = NULL;
  return RS_OK;
}

static void rs_stats_accumulate(rs_ledger_stats *sum, const rs_ledger_stats *s) {
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++) {
      sum->copies[d][i] += s->copies[d][i];
      sum->bytes[d][i] += s->bytes[d][i];
      sum->copy_device_ms[d][i] += s->copy_device_ms[d][i];
      sum->copy_host_ms[d][i] += s->copy_host_ms[d][i];
    }
  sum->kernels += s->kernels;
  sum->kernel_device_ms += s->kernel_device_ms;
  sum->kernel_host_ms += s->kernel_host_ms;
  sum->waits += s->waits;
  sum->wait_ms += s->wait_ms;
}

/* The user's function, with no earlier message left over: a failure of it that sets
 * none is then reported by its status (rs_fail_prefix), not by a stale message. */
static rs_status rs_bench_call(rs_bench_fn fn, void *ud) {
  rs_clear_error();
  return fn(ud);
}

/* One timed repeat. */
static rs_status rs_bench_once(rs_context *ctx, rs_bench_fn fn, void *ud, void *native, void *ev0, void *ev1,
                               double *host_ms, double *device_ms, rs_ledger_stats *copies) {
  const rs_backend_vtable *vt = ctx->vt;
  RS_TRY(rs_ledger_begin(ctx));
  double t0 = rs_now_ms();
  rs_status st = vt->event_record(ctx->be, ev0, native);
  if (st == RS_OK) st = rs_bench_call(fn, ud);
  if (st == RS_OK) st = vt->event_record(ctx->be, ev1, native);
  if (st == RS_OK) st = vt->stream_synchronize(ctx->be, native);
  double t1 = rs_now_ms();
  rs_status end = rs_ledger_end(ctx, copies);
  if (st != RS_OK) return st;
  RS_TRY(end);
  float ms = 0;
  RS_TRY(vt->event_elapsed_ms(ctx->be, &ms, ev0, ev1));
  *host_ms = t1 - t0;
  *device_ms = ms;
  return RS_OK;
}

rs_status rs_benchmark(rs_context *ctx, const char *name, rs_bench_fn fn, void *user_data,
                       const rs_bench_options *options, rs_bench_result *out) {
  if (!out || !ctx || !fn) return rs_fail(RS_ERR_NULL_POINTER, "rs_benchmark: NULL argument");
  memset(out, 0, sizeof *out);
  rs_bench_options o = options ? *options : rs_bench_defaults();
  if (o.n_warmup < 0 || o.n_repeat < 1)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_benchmark: n_warmup %d must be >= 0 and n_repeat %d >= 1",
                   o.n_warmup, o.n_repeat);
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, o.stream, &native, "rs_benchmark"));
  for (int i = 0; i < o.n_warmup; i++) {
    rs_status st = rs_bench_call(fn, user_data);
    if (st == RS_OK) st = ctx->vt->stream_synchronize(ctx->be, native);
    if (st != RS_OK) return rs_fail_prefix(st, "rs_benchmark '%s' warm-up %d: ", name ? name : "", i);
  }
  out->host_ms = calloc((size_t)o.n_repeat, sizeof(double));
  out->device_ms = calloc((size_t)o.n_repeat, sizeof(double));
  void *ev0 = NULL, *ev1 = NULL;
  rs_status st = (!out->host_ms || !out->device_ms)
                     ? rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_benchmark: no host memory for samples")
                     : RS_OK;
  if (st == RS_OK) st = ctx->vt->event_create(ctx->be, 0, &ev0);
  if (st == RS_OK) st = ctx->vt->event_create(ctx->be, 0, &ev1);
  for (int i = 0; st == RS_OK && i < o.n_repeat; i++) {
    rs_ledger_stats copies;
    memset(&copies, 0, sizeof copies);
    st = rs_bench_once(ctx, fn, user_data, native, ev0, ev1, &out->host_ms[i], &out->device_ms[i], &copies);
    if (st == RS_OK) rs_stats_accumulate(&out->copies_total, &copies);
  }
  if (ev0) ctx->vt->event_destroy(ctx->be, ev0);
  if (ev1) ctx->vt->event_destroy(ctx->be, ev1);
  if (st != RS_OK) {
    rs_bench_result_destroy(out);
    return rs_fail_prefix(st, "rs_benchmark '%s': ", name ? name : "");
  }
  snprintf(out->name, sizeof out->name, "%s", name ? name : "");
  out->n_repeat = o.n_repeat;
  out->host = rs_bench_summarize(out->host_ms, o.n_repeat);
  out->device = rs_bench_summarize(out->device_ms, o.n_repeat);
  int64_t copies = rs_ledger_copies(&out->copies_total, -1);
  out->copies = (copies + o.n_repeat / 2) / o.n_repeat;
  out->bytes = (rs_ledger_bytes(&out->copies_total, -1) + o.n_repeat / 2) / o.n_repeat;
  out->copy_ms = rs_ledger_copy_ms(&out->copies_total) / o.n_repeat;
  return RS_OK;
}

rs_status rs_bench_print(const rs_bench_result *r, FILE *f) {
  if (!f || !r) return rs_fail(RS_ERR_NULL_POINTER, "rs_bench_print: NULL argument");
  fprintf(f, "%-36s host %10.4f ms +/- %.4f (median %.4f, min %.4f)   device %10.4f ms (median %.4f)\n",
          r->name, r->host.mean, r->host.stddev, r->host.median, r->host.min, r->device.mean,
          r->device.median);
  fprintf(f, "%-36s copies %lld per run, %.2f MB, %.4f ms\n", "", (long long)r->copies,
          (double)r->bytes / 1e6, r->copy_ms);
  return RS_OK;
}
