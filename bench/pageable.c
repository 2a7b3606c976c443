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
 * many). The lines after the table give the bounds a staged copy lives within: whether
 * kernels could read pageable memory directly, the host's own copy rate into pinned
 * memory, a DMA and the host's copy of as many bytes at once (a staged copy's work,
 * unordered), and page-locking in place. Targets (issue
 * 16): resident pageable >= 50 GB/s each way from 16 MiB up, >= 25 GB/s at 1 MiB. */
#include <pthread.h>
#include <stdatomic.h>
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

/* bytes from src to dst cut into `threads` jobs, whole cache lines each but the last. */
static void split_copy(memcpy_job *m, int threads, char *dst, const char *src, size_t bytes, int streaming) {
  const size_t share = bytes / (size_t)threads / 64 * 64;
  for (int i = 0; i < threads; i++) {
    const size_t off = (size_t)i * share;
    m[i] = (memcpy_job){dst + off, src + off, i == threads - 1 ? bytes - off : share, streaming};
  }
}

static double host_memcpy_gbs(char *dst, const char *src, size_t bytes, int threads, int streaming) {
  pthread_t t[16];
  memcpy_job m[16];
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now_ms();
    split_copy(m, threads, dst, src, bytes, streaming);
    for (int i = 0; i < threads; i++)
      if (pthread_create(&t[i], NULL, memcpy_run, &m[i]) != 0) return 0;
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

/* Threads kept spinning between rounds, as the staging's lanes are, so that starting a
 * round costs no thread creation (which alone takes longer than a 1 MiB copy). */
typedef struct spin_pool spin_pool;
typedef struct spin_arg {
  spin_pool *pool;
  int i; /* runs pool->job[i] */
} spin_arg;
struct spin_pool {
  int threads;
  _Atomic long gen;  /* a round to run; -1: leave */
  _Atomic int done;  /* threads finished with the round */
  memcpy_job job[16];
  spin_arg arg[16];
  pthread_t th[16];
};

static void *spin_worker(void *arg) {
  spin_arg *a = arg;
  long seen = 0;
  for (;;) {
    long g;
    while ((g = atomic_load(&a->pool->gen)) == seen) {
    }
    if (g < 0) return NULL;
    seen = g;
    memcpy_run(&a->pool->job[a->i]);
    atomic_fetch_add(&a->pool->done, 1);
  }
}

static int spin_start(spin_pool *p, int threads) {
  p->threads = threads;
  atomic_init(&p->gen, 0);
  atomic_init(&p->done, 0);
  for (int i = 0; i < threads; i++) {
    p->arg[i] = (spin_arg){p, i};
    if (pthread_create(&p->th[i], NULL, spin_worker, &p->arg[i]) != 0) return -1;
  }
  return 0;
}

static void spin_round(spin_pool *p) {
  atomic_store(&p->done, 0);
  atomic_fetch_add(&p->gen, 1);
  while (atomic_load(&p->done) < p->threads) {
  }
}

static void spin_stop(spin_pool *p) {
  atomic_store(&p->gen, -1);
  for (int i = 0; i < p->threads; i++) pthread_join(p->th[i], NULL);
}

/* What the host and the link do at once: a DMA of `bytes` of pinned memory and the host's
 * copy of as many bytes between pageable and pinned memory (pageable -> pinned for H2D,
 * pinned -> pageable for D2H, with the staging's streaming stores) on threads already
 * running, unordered and on separate buffers. A staged copy does both, in order. GB/s of
 * `bytes` over the time both take, median of 7, the better of 8 and 16 threads. Not a
 * strict bound: a staged D2H can beat it, as a lane reads its DMA's bytes from the host's
 * cache, where this copy reads cold memory (H200, 2026-12-02: 49.4 against 47.3 GB/s at
 * 64 MiB). */
static double dma_and_host_copy_gbs(int d2h, char *pageable, size_t bytes) {
  char *pin = NULL, *dev = NULL;
  cudaStream_t st;
  die_cuda(cudaMallocHost((void **)&pin, 2 * bytes), "cudaMallocHost (both at once)");
  die_cuda(cudaMalloc((void **)&dev, bytes), "cudaMalloc (both at once)");
  die_cuda(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking), "stream");
  memset(pin, 1, 2 * bytes);
  double best = 0;
  for (int threads = 8; threads <= 16; threads *= 2) {
    spin_pool pool;
    if (spin_start(&pool, threads) != 0) break;
    if (d2h)
      split_copy(pool.job, threads, pageable, pin + bytes, bytes, 1);
    else
      split_copy(pool.job, threads, pin + bytes, pageable, bytes, 1);
    double t[8];
    for (int rep = 0; rep < 8; rep++) { /* the first a warm-up */
      double t0 = now_ms();
      die_cuda(d2h ? cudaMemcpyAsync(pin, dev, bytes, cudaMemcpyDeviceToHost, st)
                   : cudaMemcpyAsync(dev, pin, bytes, cudaMemcpyHostToDevice, st),
               "DMA (both at once)");
      spin_round(&pool);
      die_cuda(cudaStreamSynchronize(st), "synchronize (both at once)");
      t[rep] = now_ms() - t0;
    }
    spin_stop(&pool);
    qsort(t + 1, 7, sizeof t[0], cmp);
    double g = (double)bytes / (t[4] * 1e6);
    if (g > best) best = g;
  }
  cudaStreamDestroy(st);
  cudaFreeHost(pin);
  cudaFree(dev);
  return best;
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
  printf("a DMA and the host's copy of as many bytes at once (the work of a staged copy, unordered), GB/s H2D / D2H:");
  for (size_t mib = 1; mib <= max_mib; mib *= 4)
    printf("  %zu MiB %.1f / %.1f", mib, dma_and_host_copy_gbs(0, j.pageable, mib * MIB), dma_and_host_copy_gbs(1, j.pageable, mib * MIB));
  printf("\n");
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
