/* bench/pipeline: the seed pipeline (N kernels a[i] = a[i]*1.0001 + 1 over 100 MB) through
 * resident, implicit and explicit, from pageable and pinned host memory; medians of
 * repeated runs, the copies counted by the ledger, and the floor of the explicit style:
 * 2 x size over the pinned bandwidth measured here plus the kernels' device time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/pipeline_kernel.h"
#include "resident.h"

#define CHECK(x)                                                                      \
  do {                                                                                \
    rs_status s_ = (x);                                                               \
    if (s_ != RS_OK) {                                                                \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, rs_status_name(s_), rs_last_error()); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

typedef struct {
  double wall_ms, kernel_ms, copy_ms;
  int64_t copies;
} run_result;

static run_result run(rs_context *ctx, const rs_pipe_kernel *pk, rs_array *host, int kernels, int implicit) {
  float *p = rs_array_host_data(host);
  int64_t n = rs_array_size(host);
  for (int64_t i = 0; i < n; i++) p[i] = (float)(i % 1024) / 1024.0f;
  CHECK(rs_ledger_reset(ctx));
  double t0 = now_ms();
  if (implicit) {
    for (int k = 0; k < kernels; k++) CHECK(rs_pipe_kernel_launch(pk, host, 1.0001, 1.0));
  } else {
    rs_array *dev = NULL;
    CHECK(rs_to_device(&dev, host, 0, NULL));
    for (int k = 0; k < kernels; k++) CHECK(rs_pipe_kernel_launch(pk, dev, 1.0001, 1.0));
    CHECK(rs_copy_to_host_into(host, dev, NULL));
    CHECK(rs_stream_synchronize(rs_stream_legacy(ctx)));
    CHECK(rs_array_release(dev));
  }
  run_result r;
  r.wall_ms = now_ms() - t0;
  rs_ledger_stats s;
  CHECK(rs_ledger_get_stats(ctx, &s));
  r.kernel_ms = s.kernel_device_ms;
  r.copy_ms = rs_ledger_copy_ms(&s);
  r.copies = rs_ledger_copies(&s, -1);
  return r;
}

int main(int argc, char **argv) {
  size_t bytes = 100000000;
  int repeat = argc > 1 ? atoi(argv[1]) : 5;
  rs_context *ctx = NULL;
  CHECK(rs_context_create(&ctx, RS_BACKEND_AUTO, 0));
  CHECK(rs_ledger_set_timing(ctx, RS_TIME_ALL)); /* kernel device time is part of the floor */
  rs_device_props props;
  CHECK(rs_context_get_props(ctx, &props));
  int64_t n = (int64_t)(bytes / sizeof(float));
  rs_array *pageable = NULL, *pinned = NULL, *dev = NULL;
  CHECK(rs_host_array(&pageable, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK(rs_pinned_array(&pinned, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  CHECK(rs_device_array(&dev, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  /* Pinned bandwidth measured in this process: the floor's denominator. */
  double bw[2];
  for (int d = 0; d < 2; d++) {
    double best = 1e30;
    for (int i = 0; i < 5; i++) {
      rs_event *e0, *e1;
      CHECK(rs_event_create(&e0, ctx, 0));
      CHECK(rs_event_create(&e1, ctx, 0));
      CHECK(rs_event_record(e0, NULL));
      CHECK(d == 0 ? rs_array_copy(dev, pinned, NULL) : rs_array_copy(pinned, dev, NULL));
      CHECK(rs_event_record(e1, NULL));
      CHECK(rs_event_synchronize(e1));
      float ms;
      CHECK(rs_event_elapsed_ms(e0, e1, &ms));
      if (ms < best) best = ms;
      CHECK(rs_event_destroy(e0));
      CHECK(rs_event_destroy(e1));
    }
    bw[d] = (double)bytes / (best * 1e6);
  }
  CHECK(rs_array_release(dev));
  rs_pipe_kernel pk; /* compiled once, before anything is timed */
  CHECK(rs_pipe_kernel_create(&pk, ctx, RS_FLOAT32));
  printf("device: %s (%s backend)\n", props.name, rs_backend_name(rs_context_backend(ctx)));
  printf("pinned bandwidth measured here: H2D %.1f GB/s, D2H %.1f GB/s\n", bw[0], bw[1]);
  printf("%-34s %10s %7s %10s %10s %10s %7s\n", "resident pipeline 100 MB float32", "median ms", "copies",
         "kernels ms", "copies ms", "floor ms", "x floor");
  const int kernel_counts[2] = {3, 10};
  for (int kc = 0; kc < 2; kc++)
    for (int h = 0; h < 2; h++)
      for (int implicit = 1; implicit >= 0; implicit--) {
        rs_array *host = h ? pinned : pageable;
        run(ctx, &pk, host, kernel_counts[kc], implicit); /* warm-up */
        double *walls = calloc((size_t)repeat, sizeof *walls);
        run_result last = {0};
        for (int r = 0; r < repeat; r++) {
          last = run(ctx, &pk, host, kernel_counts[kc], implicit);
          walls[r] = last.wall_ms;
        }
        qsort(walls, (size_t)repeat, sizeof *walls, cmp);
        double median = walls[repeat / 2];
        free(walls);
        double floor_ms = (double)bytes / (bw[0] * 1e6) + (double)bytes / (bw[1] * 1e6) + last.kernel_ms;
        char name[64];
        snprintf(name, sizeof name, "%2d kernels %-8s %-8s", kernel_counts[kc], implicit ? "implicit" : "explicit",
                 h ? "pinned" : "pageable");
        printf("%-34s %10.3f %7lld %10.3f %10.3f", name, median, (long long)last.copies, last.kernel_ms, last.copy_ms);
        if (!implicit)
          printf(" %10.3f %7.2f\n", floor_ms, median / floor_ms);
        else
          printf(" %10s %7s\n", "", "");
      }
  CHECK(rs_array_release(pageable));
  CHECK(rs_array_release(pinned));
  CHECK(rs_pipe_kernel_destroy(&pk));
  rs_context_destroy(ctx);
  return 0;
}
