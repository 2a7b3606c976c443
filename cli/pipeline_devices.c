/* resident pipeline --devices all|N: data parallel. The host array is split in equal parts,
 * one per device; each part is copied to its device once, the kernels run there, it comes
 * back once; then each device sums its part and the sums are all-reduced (rs_comm_all_reduce),
 * so every device holds the total. The report shows each device's ledger: its copies, its
 * kernels, its collective. On the simulator the devices are RESIDENT_SIM_DEVICES. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/ledger_json.h"
#include "cli/pipeline_devices.h"
#include "cli/pipeline_kernel.h"

#define RS_PD_MAX 64
#define PD_TRY(call)                 \
  do {                               \
    rs_status pd_st_ = (call);       \
    if (pd_st_ != RS_OK) return pd_st_; \
  } while (0)
#define RS_PD_A 1.0001 /* the pipeline's a[i] = a[i] * a + c */
#define RS_PD_C 1.0

typedef struct pd_state {
  int n;
  rs_context *ctx[RS_PD_MAX];
  rs_pipe_kernel pk[RS_PD_MAX];
  rs_array *part[RS_PD_MAX]; /* host views */
  rs_array *dev[RS_PD_MAX];
  rs_array *sum[RS_PD_MAX];
  rs_comm *comm;
  rs_array *host;
} pd_state;

static int pd_fail(const char *what) {
  fprintf(stderr, "resident pipeline --devices: %s: %s\n", what, rs_last_error());
  return 1;
}

/* The input pattern of the pipeline (i % 1024 / 1024), and what a value becomes. */
static double pd_input(int64_t i) { return (double)(i % 1024) / 1024.0; }
static double pd_chain(double x, long kernels) {
  for (long k = 0; k < kernels; k++) x = x * RS_PD_A + RS_PD_C;
  return x;
}

static void pd_fill(rs_array *h, rs_dtype dt) {
  int64_t n = rs_array_size(h);
  void *p = rs_array_host_data(h);
  for (int64_t i = 0; i < n; i++)
    if (dt == RS_FLOAT32) ((float *)p)[i] = (float)pd_input(i);
    else ((double *)p)[i] = pd_input(i);
}

/* The sum of the results, from 1024 chains and how often each value occurs. */
static double pd_reference(int64_t n, long kernels) {
  double s = 0;
  for (int64_t v = 0; v < 1024 && v < n; v++) s += pd_chain(pd_input(v), kernels) * (double)((n - 1 - v) / 1024 + 1);
  return s;
}

/* Split, copy in, run, copy back, sum, all-reduce: each phase over every device, so the
 * devices work side by side (the copies return finished; kernels and sums are queued). */
static rs_status pd_run(pd_state *s, int64_t n, rs_dtype dt, long kernels) {
  for (int d = 0; d < s->n; d++) {
    int64_t lo = n * d / s->n, hi = n * (d + 1) / s->n, len = hi - lo;
    rs_slice sl = {lo, hi, 1};
    PD_TRY(rs_array_slice(&s->part[d], s->host, 1, &sl));
    PD_TRY(rs_device_array(&s->dev[d], s->ctx[d], 1, &len, dt, NULL, RS_ORDER_C));
    PD_TRY(rs_array_copy(s->dev[d], s->part[d], NULL)); /* H2D in device d's ledger */
  }
  for (int d = 0; d < s->n; d++)
    for (long k = 0; k < kernels; k++) PD_TRY(rs_pipe_kernel_launch(&s->pk[d], s->dev[d], RS_PD_A, RS_PD_C));
  for (int d = 0; d < s->n; d++) PD_TRY(rs_sum(&s->sum[d], s->dev[d], 0, NULL, 0, NULL));
  for (int d = 0; d < s->n; d++) PD_TRY(rs_array_copy(s->part[d], s->dev[d], NULL)); /* D2H */
  return rs_comm_all_reduce(s->comm, (const rs_array *const *)s->sum, s->sum, RS_REDUCE_SUM, NULL);
}

static void pd_print_device(FILE *out, int d, const rs_device_props *p, const rs_ledger_stats *st, double gbs) {
  fprintf(out, "\n== device %d: %s ==\n", d, p->name);
  rs_ledger_print(st, 0, gbs, out);
}

static void pd_json_device(rs_json *j, rs_context *ctx, int d, const rs_device_props *p, const rs_ledger_stats *st) {
  rs_json_object(j, NULL);
  rs_json_int(j, "device", d);
  rs_json_string(j, "name", p->name);
  rs_json_int(j, "copies", rs_ledger_copies(st, -1));
  rs_json_int(j, "bytes", rs_ledger_bytes(st, -1));
  rs_json_int(j, "collectives", st->collectives);
  rs_json_int(j, "collective_bytes", st->collective_bytes);
  rs_json_ledger_stats(j, st);
  rs_json_ledger_entries(j, ctx, 0);
  rs_json_end(j);
}

int rs_pipe_devices(const rs_pipe_dev_opts *o, rs_cli_output *out_) {
  FILE *out = out_->text;
  rs_json *j = out_->json.f ? &out_->json : NULL;
  pd_state s;
  memset(&s, 0, sizeof s);
  int count = 0, code = 0;
  rs_status st = rs_context_create(&s.ctx[0], o->backend, 0);
  if (st != RS_OK) return pd_fail("no context");
  rs_backend_kind kind = rs_context_backend(s.ctx[0]);
  if (rs_device_count(kind, &count) != RS_OK || count < 1) count = 1;
  s.n = o->devices < 0 ? count : (int)o->devices;
  if (s.n > count || s.n > RS_PD_MAX) {
    fprintf(stderr, "resident pipeline: --devices %ld: the %s backend has %d device%s%s\n", o->devices,
            rs_backend_name(kind), count, count == 1 ? "" : "s",
            kind == RS_BACKEND_SIM ? " (RESIDENT_SIM_DEVICES sets the simulator's)" : "");
    rs_context_destroy(s.ctx[0]);
    return 2;
  }
  size_t item = rs_dtype_size(o->dtype);
  int64_t n = (int64_t)(o->bytes / item);
  double gbs = o->bandwidth > 0 ? o->bandwidth : RS_DEFAULT_PCIE_GBS;
  if (n < s.n) {
    fprintf(stderr, "resident pipeline: --size %zu bytes holds fewer %s elements than there are devices (%d)\n",
            o->bytes, rs_dtype_name(o->dtype), s.n);
    rs_context_destroy(s.ctx[0]);
    return 2;
  }
  for (int d = 1; d < s.n && st == RS_OK; d++) st = rs_context_create(&s.ctx[d], kind, d);
  for (int d = 0; d < s.n && st == RS_OK; d++) {
    rs_ledger_set_timing(s.ctx[d], RS_TIME_ALL);
    st = rs_pipe_kernel_create(&s.pk[d], s.ctx[d], o->dtype);
  }
  if (st == RS_OK) st = rs_comm_create(&s.comm, s.ctx, s.n);
  if (st == RS_OK)
    st = o->pinned ? rs_pinned_array(&s.host, s.ctx[0], 1, &n, o->dtype, NULL, RS_ORDER_C, 0)
                   : rs_host_array(&s.host, s.ctx[0], 1, &n, o->dtype, NULL, RS_ORDER_C);
  if (st != RS_OK) {
    code = pd_fail("setting up the devices");
    goto done;
  }
  pd_fill(s.host, o->dtype);
  for (int d = 0; d < s.n; d++) rs_ledger_reset(s.ctx[d]);
  fprintf(out, "resident pipeline: %ld kernel%s a[i] = a[i] * 1.0001 + 1 over %lld %s (%.1f MB) split over %d device%s "
          "of %s, %s host memory; the part sums all-reduced\n",
          o->kernels, o->kernels == 1 ? "" : "s", (long long)n, rs_dtype_name(o->dtype), (double)n * item / 1e6, s.n,
          s.n == 1 ? "" : "s", rs_backend_name(kind), o->pinned ? "pinned" : "pageable");
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  st = pd_run(&s, n, o->dtype, o->kernels);
  double total = 0;
  if (st == RS_OK) st = rs_array_item_double(s.sum[s.n - 1], NULL, &total, NULL);
  for (int d = 0; d < s.n && st == RS_OK; d++) st = rs_context_synchronize(s.ctx[d]);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st != RS_OK) {
    code = pd_fail("the run");
    goto done;
  }
  double wall = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  double want = pd_reference(n, o->kernels), err = fabs(total - want) / fabs(want);
  double tol = o->dtype == RS_FLOAT32 ? 1e-4 : 1e-10;
  if (j) {
    rs_json_report(j, "resident.pipeline.devices/1", rs_backend_name(kind), NULL);
    rs_json_int(j, "kernels", o->kernels);
    rs_json_int(j, "elements", n);
    rs_json_string(j, "dtype", rs_dtype_name(o->dtype));
    rs_json_int(j, "device_count", s.n);
    rs_json_number(j, "wall_ms", wall);
    rs_json_number(j, "sum", total);
    rs_json_number(j, "reference_sum", want);
    rs_json_bool(j, "result_ok", err <= tol);
    rs_json_array(j, "devices");
  }
  int64_t copies = 0, bytes = 0;
  for (int d = 0; d < s.n; d++) {
    rs_ledger_stats ls;
    rs_device_props p;
    if (rs_ledger_get_stats(s.ctx[d], &ls) != RS_OK || rs_context_get_props(s.ctx[d], &p) != RS_OK) {
      code = pd_fail("the ledger");
      goto done;
    }
    copies += rs_ledger_copies(&ls, -1);
    bytes += rs_ledger_bytes(&ls, -1);
    pd_print_device(out, d, &p, &ls, gbs);
    if (j) pd_json_device(j, s.ctx[d], d, &p, &ls);
  }
  if (j) {
    rs_json_end(j);
    rs_json_int(j, "copies", copies);
    rs_json_int(j, "bytes", bytes);
  }
  fprintf(out, "\n== all devices ==\n  %lld copies, %.1f MB moved, %.3f ms wall\n", (long long)copies,
          (double)bytes / 1e6, wall);
  fprintf(out, "  sum of the results (all-reduced): %.10g, CPU loop: %.10g: %s (relative error %.3g, tolerance %.3g)\n",
          total, want, err <= tol ? "OK" : "WRONG", err, tol);
  if (err > tol) code = 1;
done:
  for (int d = 0; d < s.n; d++) {
    rs_array_release(s.part[d]);
    rs_array_release(s.dev[d]);
    rs_array_release(s.sum[d]);
  }
  rs_array_release(s.host);
  rs_comm_destroy(s.comm);
  for (int d = 0; d < s.n; d++) {
    rs_pipe_kernel_destroy(&s.pk[d]);
    rs_context_destroy(s.ctx[d]);
  }
  return code;
}
