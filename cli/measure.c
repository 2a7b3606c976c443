#include <stdlib.h>
#include "cli/measure.h"

const char *rs_bw_kind_name(rs_bw_kind kind) {
  static const char *names[] = {"H2D pageable", "D2H pageable", "H2D pinned", "D2H pinned", "D2D"};
  return kind < RS_BW_KINDS ? names[kind] : "?";
}

typedef struct {
  rs_array *dst, *src;
} rs_copy_job;

static rs_status rs_do_copy(void *ud) {
  rs_copy_job *job = ud;
  return rs_array_copy(job->dst, job->src, NULL);
}

rs_status rs_measure_bandwidth(double *gbs, rs_context *ctx, rs_bw_kind kind, size_t bytes, int repeat) {
  int64_t n = (int64_t)bytes;
  rs_array *host = NULL, *dev = NULL, *dev2 = NULL;
  rs_status st = rs_device_array(&dev, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C);
  if (st == RS_OK) {
    if (kind == RS_BW_D2D)
      st = rs_device_array(&dev2, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C);
    else if (kind == RS_BW_H2D_PINNED || kind == RS_BW_D2H_PINNED)
      st = rs_pinned_array(&host, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C, 0);
    else
      st = rs_host_array(&host, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C);
  }
  if (st == RS_OK && host) {
    /* Touch every page so first-touch faults are not timed as copy time. */
    unsigned char *p = rs_array_host_data(host);
    for (size_t i = 0; i < bytes; i += 4096) p[i] = (unsigned char)i;
  }
  rs_copy_job job = {dev, host};
  if (kind == RS_BW_D2H_PAGEABLE || kind == RS_BW_D2H_PINNED) job = (rs_copy_job){host, dev};
  if (kind == RS_BW_D2D) job = (rs_copy_job){dev2, dev};
  rs_bench_result r = {0};
  if (st == RS_OK) {
    rs_bench_options o = {2, repeat, NULL};
    st = rs_benchmark(ctx, rs_bw_kind_name(kind), rs_do_copy, &job, &o, &r);
  }
  if (st == RS_OK) {
    /* The copy's own device time where the copy was asynchronous; a pageable copy's
     * device time misses the host-side staging, so the host time is the honest one. */
    int pageable = kind == RS_BW_H2D_PAGEABLE || kind == RS_BW_D2H_PAGEABLE;
    double ms = pageable ? r.host.median : r.device.median;
    *gbs = ms > 0 ? (double)bytes / (ms * 1e6) : 0;
  }
  rs_bench_result_destroy(&r);
  rs_array_release(host);
  rs_array_release(dev);
  rs_array_release(dev2);
  return st;
}
