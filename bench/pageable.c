/* bench/pageable: copies from and to pageable host memory through resident's staging,
 * 1 MiB to 1 GiB, next to raw cudaMemcpy from pinned memory (the link's speed) and from
 * pageable memory (the driver's own path), in one process.
 *
 *   pageable [--max SIZE_MIB] [--repeat N]
 *
 * Host wall time around the call plus a synchronize, median after one warm-up; GB/s with
 * GB = 1e9 bytes. Up to 8 MiB an H2D is pulled by the device (transfer/staging_pull.c);
 * the last column times the same copy by DMA pieces alone (staging.c), in the same run.
 * RESIDENT_STAGING_THREADS picks the host threads of the staging (the header line says how
 * many). The lines after the table give the bounds a staged copy lives within: the host's
 * own copy rate into pinned memory, alone and while the link runs both ways, whether
 * kernels could read pageable memory directly, and page-locking in place. Targets (issue
 * 16): resident pageable >= 50 GB/s each way from 16 MiB up, >= 25 GB/s at 1 MiB. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "resident.h"
#include "core/host_copy.h"      /* internal: the staging's copy, linked from resident_static */
#include "transfer/staging.h"      /* internal: pulled copies off, for the DMA pieces' column */
#include "transfer/staging_pull.h" /* internal: RS_PULL_MAX_BYTES */

#define MIB ((size_t)1 << 20)

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The host's own bound: memcpy from pageable into pinned memory on T threads at once, each
 * its share. A staged copy cannot beat it (every byte crosses the host's memory twice more
 * than a pinned copy's), so the table's resident columns are read against it. */
typedef struct memcpy_job {
  char *dst;
  const char *src;
  size_t bytes;
  int streaming; /* resident's staging copy (non-temporal stores) instead of memcpy */
} memcpy_job;

static void *memcpy_run(void *arg) {
  memcpy_job *m = arg;
  if (m->streaming)
    rs_host_copy_streaming(m->dst, m->src, m->bytes);
  else
    memcpy(m->dst, m->src, m->bytes);
  return NULL;
}

static double host_memcpy_gbs(char *dst, const char *src, size_t bytes, int threads, int streaming) {
  pthread_t t[16];
  memcpy_job m[16];
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now_ms();
    size_t share = bytes / (size_t)threads;
    for (int i = 0; i < threads; i++) {
      m[i] = (memcpy_job){dst + (size_t)i * share, src + (size_t)i * share,
                          i == threads - 1 ? bytes - (size_t)i * share : share, streaming};
      if (pthread_create(&t[i], NULL, memcpy_run, &m[i]) != 0) return 0;
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double gbs = (double)bytes / ((now_ms() - t0) * 1e6);
    if (gbs > best) best = gbs;
  }
  return best;
}

/* Page-locking in place instead of staging: rs_pinned_begin on a fresh pageable array (its
 * pages touched before), one pinned copy each way, rs_pinned_end; GB/s of the bytes copied
 * both ways over the whole time, registration included, best of 3. */
static double register_gbs(rs_context *ctx, size_t bytes) {
  int64_t n = (int64_t)bytes;
  rs_array *h = NULL, *d = NULL;
  if (rs_host_array(&h, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C) != RS_OK) return 0;
  if (rs_device_array(&d, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C) != RS_OK) return 0;
  memset(rs_array_host_data(h), 1, bytes);
  double best = 0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = now_ms();
    if (rs_pinned_begin(h) != RS_OK || rs_to_device_into(d, h, NULL) != RS_OK ||
        rs_copy_to_host_into(h, d, NULL) != RS_OK || rs_context_synchronize(ctx) != RS_OK || rs_pinned_end(h) != RS_OK)
      return 0;
    double gbs = 2.0 * (double)bytes / ((now_ms() - t0) * 1e6);
    if (gbs > best) best = gbs;
  }
  rs_array_release(h);
  rs_array_release(d);
  return best;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void die_rs(rs_status st, const char *what) {
  if (st == RS_OK) return;
  fprintf(stderr, "pageable: %s: %s: %s\n", what, rs_status_name(st), rs_last_error());
  exit(1);
}

static void die_cuda(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "pageable: %s: %s\n", what, cudaGetErrorString(e));
  exit(1);
}

/* The host's copying while the link runs both ways, as in a streamed run from pageable
 * memory: 64 MiB DMAs of pinned memory queued on two streams (H2D and D2H, about 30 ms of
 * work) while `threads` threads copy `bytes`: all pageable -> pinned with the staging's
 * stores, or (both_ways) half that way and half pinned -> pageable, as a streamed run's
 * copies in and out do at once. Every staged byte crosses the host's memory this way, so
 * a staged copy (or streamed run) cannot beat the host's rate here. *link gets the link's
 * GB/s meanwhile (H2D, D2H); the result is negative if the DMAs ended before the host. */
static double host_copy_under_load(char *pinned, char *pageable, size_t bytes, int threads, int both_ways,
                                   double link[2]) {
  const size_t chunk = 64 * MIB;
  const int n = 24;
  char *hbuf = NULL, *dbuf = NULL;
  cudaStream_t st[2];
  cudaEvent_t ev[2][2];
  die_cuda(cudaMallocHost((void **)&hbuf, 2 * chunk), "cudaMallocHost (load)");
  die_cuda(cudaMalloc((void **)&dbuf, 2 * chunk), "cudaMalloc (load)");
  for (int d = 0; d < 2; d++) {
    die_cuda(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking), "stream");
    for (int k = 0; k < 2; k++) die_cuda(cudaEventCreate(&ev[d][k]), "event");
  }
  for (int d = 0; d < 2; d++) {
    die_cuda(cudaEventRecord(ev[d][0], st[d]), "record");
    for (int k = 0; k < n; k++)
      die_cuda(d ? cudaMemcpyAsync(hbuf + chunk, dbuf + chunk, chunk, cudaMemcpyDeviceToHost, st[d])
                 : cudaMemcpyAsync(dbuf, hbuf, chunk, cudaMemcpyHostToDevice, st[d]),
               "load DMA");
    die_cuda(cudaEventRecord(ev[d][1], st[d]), "record");
  }
  while (cudaEventQuery(ev[0][0]) != cudaSuccess || cudaEventQuery(ev[1][0]) != cudaSuccess) {
  }
  pthread_t t[16];
  memcpy_job m[16];
  double t0 = now_ms();
  size_t share = bytes / (size_t)threads;
  for (int i = 0; i < threads; i++) {
    size_t off = (size_t)i * share, len = i == threads - 1 ? bytes - off : share;
    int out = both_ways && i % 2; /* pinned -> pageable, as a D2H's lanes copy */
    m[i] = out ? (memcpy_job){pageable + off, pinned + off, len, 0} : (memcpy_job){pinned + off, pageable + off, len, 1};
    if (pthread_create(&t[i], NULL, memcpy_run, &m[i]) != 0) return 0;
  }
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  double host = (double)bytes / ((now_ms() - t0) * 1e6);
  int overlapped = cudaEventQuery(ev[0][1]) == cudaErrorNotReady && cudaEventQuery(ev[1][1]) == cudaErrorNotReady;
  die_cuda(cudaDeviceSynchronize(), "synchronize (load)");
  for (int d = 0; d < 2; d++) {
    float ms = 0;
    die_cuda(cudaEventElapsedTime(&ms, ev[d][0], ev[d][1]), "elapsed");
    link[d] = (double)n * (double)chunk / ((double)ms * 1e6);
    for (int k = 0; k < 2; k++) cudaEventDestroy(ev[d][k]);
    cudaStreamDestroy(st[d]);
  }
  cudaFreeHost(hbuf);
  cudaFree(dbuf);
  return overlapped ? host : -host;
}

typedef struct {
  rs_array *host, *dev;     /* resident: pageable host and device views of `bytes` */
  void *pinned, *pageable, *raw_dev;
  size_t bytes;
  int which; /* 0 res H2D, 1 res D2H, 2 raw pinned H2D, 3 raw pinned D2H, 4 raw pageable H2D, 5 raw pageable D2H,
              * 6 res H2D by DMA pieces alone (pulled copies off) */
  rs_context *ctx;
} job;

static void run(const job *j) {
  switch (j->which) {
    case 0: die_rs(rs_array_copy(j->dev, j->host, NULL), "H2D"); break;
    case 6:
      rs_staging_allow_pull(j->ctx, 0);
      die_rs(rs_array_copy(j->dev, j->host, NULL), "H2D by DMA pieces");
      rs_staging_allow_pull(j->ctx, 1);
      break;
    case 1: die_rs(rs_array_copy(j->host, j->dev, NULL), "D2H"); break;
    case 2: die_cuda(cudaMemcpy(j->raw_dev, j->pinned, j->bytes, cudaMemcpyHostToDevice), "pinned H2D"); break;
    case 3: die_cuda(cudaMemcpy(j->pinned, j->raw_dev, j->bytes, cudaMemcpyDeviceToHost), "pinned D2H"); break;
    case 4: die_cuda(cudaMemcpy(j->raw_dev, j->pageable, j->bytes, cudaMemcpyHostToDevice), "pageable H2D"); break;
    default: die_cuda(cudaMemcpy(j->pageable, j->raw_dev, j->bytes, cudaMemcpyDeviceToHost), "pageable D2H"); break;
  }
  die_cuda(cudaDeviceSynchronize(), "synchronize");
}

static double gbs(job *j, int repeat) {
  double t[64];
  run(j);
  for (int i = 0; i < repeat; i++) {
    double t0 = now_ms();
    run(j);
    t[i] = now_ms() - t0;
  }
  qsort(t, (size_t)repeat, sizeof t[0], cmp);
  return (double)j->bytes / (t[repeat / 2] * 1e6);
}

int main(int argc, char **argv) {
  size_t max_mib = 1024;
  int repeat = 9;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max") && i + 1 < argc) max_mib = (size_t)atol(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: pageable [--max SIZE_MIB] [--repeat N]\n");
      return 2;
    }
  }
  if (repeat < 1) repeat = 1;
  if (repeat > 64) repeat = 64;
  rs_context *ctx = NULL;
  die_rs(rs_context_create(&ctx, RS_BACKEND_CUDA, 0), "context");
  rs_device_props props;
  die_rs(rs_context_get_props(ctx, &props), "props");
  const char *threads = getenv("RESIDENT_STAGING_THREADS");
  printf("pageable copies on %s, RESIDENT_STAGING_THREADS=%s; GB/s (1e9 B/s), median of %d\n", props.name,
         threads && *threads ? threads : "(default)", repeat);
  int hmm = 0, hmm_tables = 0;
  die_cuda(cudaDeviceGetAttribute(&hmm, cudaDevAttrPageableMemoryAccess, 0), "attribute");
  die_cuda(cudaDeviceGetAttribute(&hmm_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0), "attribute");
  printf("kernels reach pageable memory directly (cudaDevAttrPageableMemoryAccess): %s%s\n", hmm ? "yes" : "no",
         hmm_tables ? ", through the host's page tables" : "");
  printf("%-9s %9s %9s %9s %9s %9s %9s %8s %8s %9s\n", "size", "res H2D", "res D2H", "pin H2D", "pin D2H", "page H2D",
         "page D2H", "H2D/pin", "D2H/pin", "H2D DMAs");
  size_t top = max_mib * MIB;
  int64_t n = (int64_t)top;
  rs_array *host_all = NULL, *dev_all = NULL;
  die_rs(rs_host_array(&host_all, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C), "host array");
  die_rs(rs_device_array(&dev_all, ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C), "device array");
  memset(rs_array_host_data(host_all), 1, top); /* touched: no first-touch faults timed */
  job j = {0};
  j.ctx = ctx;
  die_cuda(cudaMallocHost(&j.pinned, top), "cudaMallocHost");
  die_cuda(cudaMalloc(&j.raw_dev, top), "cudaMalloc");
  j.pageable = malloc(top);
  if (!j.pageable) return 1;
  memset(j.pageable, 1, top);
  memset(j.pinned, 1, top);
  for (size_t mib = 1; mib <= max_mib; mib *= 2) {
    j.bytes = mib * MIB;
    int64_t len = (int64_t)j.bytes;
    rs_slice sl = {0, len, 1};
    die_rs(rs_array_slice(&j.host, host_all, 1, &sl), "slice");
    die_rs(rs_array_slice(&j.dev, dev_all, 1, &sl), "slice");
    int reps = mib >= 256 ? (repeat < 5 ? repeat : 5) : repeat;
    double g[7];
    /* DMA pieces alone where the copy is otherwise pulled, for the A/B */
    int last = j.bytes <= RS_PULL_MAX_BYTES ? 7 : 6;
    for (j.which = 0; j.which < last; j.which++) g[j.which] = gbs(&j, reps);
    char name[16], dmas[16] = "-";
    snprintf(name, sizeof name, "%zu MiB", mib);
    if (last == 7) snprintf(dmas, sizeof dmas, "%.1f", g[6]);
    printf("%-9s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %8.2f %8.2f %9s\n", name, g[0], g[1], g[2], g[3], g[4], g[5],
           g[0] / g[2], g[1] / g[3], dmas);
    rs_array_release(j.host);
    rs_array_release(j.dev);
  }
  printf("targets: res H2D and D2H >= 50 GB/s from 16 MiB up, >= 25 GB/s at 1 MiB\n");
  size_t mbytes = top < 256 * MIB ? top : 256 * MIB;
  for (int streaming = 0; streaming < 2; streaming++) {
    printf("host %s pageable -> pinned, %zu MiB, best of 5 (GB/s):",
           streaming ? "copy with streaming stores (the staging's)" : "memcpy", mbytes / MIB);
    for (int th = 1; th <= 16; th *= 2)
      printf("  %d threads %.1f", th, host_memcpy_gbs(j.pinned, j.pageable, mbytes, th, streaming));
    printf("\n");
  }
  for (int both = 0; both < 2; both++) {
    double link[2] = {0, 0};
    double h = host_copy_under_load(j.pinned, j.pageable, mbytes, 8, both, link);
    printf("host copy on 8 threads while the link runs both ways, %zu MiB, %s: %.1f GB/s%s; the link meanwhile "
           "H2D %.1f, D2H %.1f GB/s\n",
           mbytes / MIB, both ? "half pageable -> pinned, half pinned -> pageable" : "pageable -> pinned (streaming stores)",
           h < 0 ? -h : h, h < 0 ? " (the DMAs ended first)" : "", link[0], link[1]);
  }
  printf("page-locked in place (rs_pinned_begin, H2D + D2H, rs_pinned_end), GB/s both ways together:");
  for (size_t mib = 1; mib <= max_mib; mib *= 4) printf("  %zu MiB %.1f", mib, register_gbs(ctx, mib * MIB));
  printf("\n");
  free(j.pageable);
  cudaFreeHost(j.pinned);
  cudaFree(j.raw_dev);
  rs_array_release(host_all);
  rs_array_release(dev_all);
  rs_context_destroy(ctx);
  return 0;
}
