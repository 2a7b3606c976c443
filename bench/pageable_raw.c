/* The 1 MiB pageable H2D in raw CUDA, by the fastest way found for it and by the others
 * tried, each timed the way bench/pageable times resident's copy: the floor that
 * resident's pulled copy (transfer/staging_pull.c) is measured against (issue 16).
 *
 *   pageable_raw [--kib N] [--lanes N] [--repeat N] [--rounds N]
 *
 * The orchestration is raw CUDA, written apart from resident's; the host's lanes are
 * resident's crew (core/crew.h) and copy with its streaming copy (core/host_copy.h), so
 * that what differs from resident's copy is the copy path and nothing else. Ways, each
 * from a pageable source already touched, to one device buffer, host wall time from the
 * call to the end of the synchronize, median of --repeat:
 *   pinned DMA        cudaMemcpyAsync from pinned memory (no host copy at all: the link's
 *                     own time with its fixed cost)
 *   driver pageable   cudaMemcpyAsync from the pageable source (the driver's own staging)
 *   host copy alone   the lanes' copy into pinned memory, with nothing on the device
 *   pull              resident's way: the stream is asked whether it is idle, one kernel
 *                     is queued that reads 32 KiB slices of a mapped pinned ring as their
 *                     flags come (pageable_raw_pull.cu), the lanes fill the slices and
 *                     flag them, the stream is synchronized; with its phases
 *   pull, no query    the same without asking the stream first
 *   pull + device sync  as bench/pageable measures resident (a cudaDeviceSynchronize after)
 *   gated DMAs xP     P DMAs queued ahead, each behind cuStreamWaitValue32 on a flag the
 *                     lanes raise once its piece is filled
 * Built with the CUDA backend. */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "core/crew.h"      /* internal: the staging's lanes, linked from resident_static */
#include "core/host_copy.h" /* internal: the staging's copy */
#include "pageable_raw.h"

#define MAX_PIECES 8
#define MAX_REPEAT 4096

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void check(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "pageable_raw: %s: %s\n", what, cudaGetErrorString(e));
  exit(1);
}

typedef CUresult (*wait_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

/* What the lanes share for one copy. */
typedef struct copy_job {
  const char *src;
  char *ring;
  int slices;
  _Atomic int next; /* the next slice to claim */
  uint64_t *ready;  /* host side of the ready flags */
  uint64_t first;   /* slice numbers never repeat, so no old flag reads as ready */
  /* pull: lane 0 queues the kernel first, so that it starts while the lanes copy */
  int launch;
  void *dst, *ring_dev, *stream;
  uint64_t *ready_dev, *freed_dev;
  /* gated DMAs: lane 0 queues each piece's gate and DMA first; the lane that fills a
   * piece's last slice opens its gate */
  int pieces;
  _Atomic int filled[MAX_PIECES];
  uint32_t *gate, *gate_dev, seq;
  wait_value_fn wait_value;
  int failed;
  double launched, last_flag; /* phases, us */
} copy_job;

static void lane_copy_slices(copy_job *c) {
  const int per_piece = c->pieces ? c->slices / c->pieces : 0;
  for (int k; (k = atomic_fetch_add(&c->next, 1)) < c->slices;) {
    rs_host_copy_streaming(c->ring + (size_t)k * RAW_SLICE, c->src + (size_t)k * RAW_SLICE, RAW_SLICE);
    if (c->pieces) {
      const int p = k / per_piece;
      if (atomic_fetch_add(&c->filled[p], 1) + 1 == per_piece) __atomic_store_n(&c->gate[p * 16], c->seq, __ATOMIC_RELEASE);
    } else {
      __atomic_store_n(&c->ready[(size_t)k * RAW_FLAG_STRIDE], c->first + (uint64_t)k + 1, __ATOMIC_RELEASE);
    }
    if (k == c->slices - 1) c->last_flag = now_us();
  }
}

static void lane_run(int lane, void *arg) {
  copy_job *c = arg;
  if (lane == 0 && c->launch) {
    c->failed |= raw_pull_launch(c->dst, c->ring_dev, c->ready_dev, c->freed_dev, c->first, c->slices, c->stream);
    c->launched = now_us();
  }
  if (lane == 0 && c->pieces) {
    const size_t piece = (size_t)(c->slices / c->pieces) * RAW_SLICE;
    for (int p = 0; p < c->pieces; p++) {
      c->failed |= c->wait_value((CUstream)c->stream, (CUdeviceptr)(uintptr_t)(c->gate_dev + p * 16), c->seq,
                                 CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS;
      c->failed |= cudaMemcpyAsync((char *)c->dst + p * piece, c->ring + p * piece, piece, cudaMemcpyHostToDevice,
                                   (cudaStream_t)c->stream) != cudaSuccess;
    }
    c->launched = now_us();
  }
  lane_copy_slices(c);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

/* The rounds' samples, one array per way. */
enum { DMA, DRIVER, HOST, PULL, PULL_NQ, PULL_DS, GATED, PH_QUERY = GATED + 3, PH_LAUNCHED, PH_FLAG, PH_FREED, SERIES };
static double samples[SERIES][MAX_REPEAT];

int main(int argc, char **argv) {
  size_t kib = 1024;
  int lanes = 8, repeat = 200, rounds = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--kib") && i + 1 < argc) kib = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--lanes") && i + 1 < argc) lanes = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: pageable_raw [--kib N] [--lanes N] [--repeat N] [--rounds N]\n");
      return 2;
    }
  }
  if (kib == 0 || kib % 256 || kib > 8192 || lanes < 1 || lanes > RS_CREW_MAX_LANES || repeat < 1 ||
      repeat > MAX_REPEAT || rounds < 1) {
    fprintf(stderr, "pageable_raw: --kib a multiple of 256 up to 8192, --lanes 1-%d, --repeat 1-%d, --rounds >= 1\n",
            RS_CREW_MAX_LANES, MAX_REPEAT);
    return 2;
  }
  const size_t bytes = kib << 10;
  const int slices = (int)(bytes / RAW_SLICE);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("pageable_raw: no CUDA device\n");
    return 0;
  }
  check(cudaFree(NULL), "init");
  wait_value_fn wait_value = NULL;
  enum cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait_value, 12000, cudaEnableDefault, &q) !=
          cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    wait_value = NULL; /* the gated lines are left out */

  char *src = aligned_alloc(4096, bytes), *ring, *pinned;
  uint64_t *flags, *flags_dev;
  uint32_t *gates, *gates_dev;
  void *ring_dev, *dst;
  const size_t flag_words = (size_t)slices * RAW_FLAG_STRIDE;
  if (!src) return fprintf(stderr, "pageable_raw: no host memory\n"), 1;
  memset(src, 7, bytes);
  check(cudaHostAlloc((void **)&ring, bytes, cudaHostAllocMapped), "ring");
  check(cudaHostAlloc((void **)&pinned, bytes, cudaHostAllocDefault), "pinned source");
  memset(pinned, 1, bytes);
  check(cudaHostAlloc((void **)&flags, 2 * flag_words * sizeof *flags, cudaHostAllocMapped), "flags");
  memset(flags, 0, 2 * flag_words * sizeof *flags);
  check(cudaHostAlloc((void **)&gates, MAX_PIECES * 16 * sizeof *gates, cudaHostAllocMapped), "gates");
  memset(gates, 0, MAX_PIECES * 16 * sizeof *gates);
  check(cudaHostGetDevicePointer((void **)&flags_dev, flags, 0), "flags' alias");
  check(cudaHostGetDevicePointer(&ring_dev, ring, 0), "ring's alias");
  check(cudaHostGetDevicePointer((void **)&gates_dev, gates, 0), "gates' alias");
  check(cudaMalloc(&dst, bytes), "destination");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  rs_crew crew;
  if (rs_crew_start(&crew, lanes, "pageable_raw") != RS_OK) return fprintf(stderr, "pageable_raw: no lanes\n"), 1;
  struct cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "properties");
  printf("pageable H2D of %zu KiB in raw CUDA on %s, %d lanes; median of %d, microseconds and GB/s (1e9 B/s)\n", kib,
         prop.name, lanes, repeat);

  uint64_t first = 0;
  uint32_t seq = 0;
  const int piece_counts[3] = {2, 4, 8};
  for (int round = 1; round <= rounds; round++) {
    int gated_n[3] = {0, 0, 0};
    for (int r = 0; r < repeat; r++) {
      double t0 = now_us();
      check(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream), "pinned DMA");
      check(cudaStreamSynchronize(stream), "pinned DMA");
      samples[DMA][r] = now_us() - t0;

      t0 = now_us();
      check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream), "driver pageable");
      check(cudaStreamSynchronize(stream), "driver pageable");
      samples[DRIVER][r] = now_us() - t0;

      copy_job base = {.src = src, .ring = ring, .slices = slices, .ready = flags, .dst = dst, .ring_dev = ring_dev,
                       .stream = stream, .ready_dev = flags_dev, .freed_dev = flags_dev + flag_words};
      copy_job c = base;
      c.first = first;
      t0 = now_us();
      rs_crew_run(&crew, lane_run, &c);
      samples[HOST][r] = now_us() - t0;
      first += (uint64_t)slices; /* flags raised with no kernel: the next copy's numbers are past them */

      for (int way = PULL; way <= PULL_DS; way++) {
        c = base;
        c.first = first;
        c.launch = 1;
        t0 = now_us();
        if (way != PULL_NQ && cudaStreamQuery(stream) != cudaSuccess) return fprintf(stderr, "pageable_raw: stream busy\n"), 1;
        const double queried = now_us();
        rs_crew_run(&crew, lane_run, &c);
        if (c.failed) return fprintf(stderr, "pageable_raw: the pull kernel's launch failed\n"), 1;
        const uint64_t *last_freed = flags + flag_words + (size_t)(slices - 1) * RAW_FLAG_STRIDE;
        while (__atomic_load_n(last_freed, __ATOMIC_ACQUIRE) < first + (uint64_t)slices) rs_crew_pause();
        const double freed = now_us();
        check(cudaStreamSynchronize(stream), "pull");
        if (way == PULL_DS) check(cudaDeviceSynchronize(), "pull");
        samples[way][r] = now_us() - t0;
        first += (uint64_t)slices;
        if (way == PULL) {
          samples[PH_QUERY][r] = queried - t0;
          samples[PH_LAUNCHED][r] = c.launched - t0;
          samples[PH_FLAG][r] = c.last_flag - t0;
          samples[PH_FREED][r] = freed - t0;
        }
      }
      for (int i = 0; wait_value && i < 3; i++) {
        if (slices % piece_counts[i]) continue;
        c = base;
        c.pieces = piece_counts[i];
        for (int p = 0; p < c.pieces; p++) atomic_init(&c.filled[p], 0);
        c.gate = gates;
        c.gate_dev = gates_dev;
        c.seq = ++seq;
        c.wait_value = wait_value;
        t0 = now_us();
        rs_crew_run(&crew, lane_run, &c);
        if (c.failed) return fprintf(stderr, "pageable_raw: queuing a gated DMA failed\n"), 1;
        check(cudaStreamSynchronize(stream), "gated DMAs");
        samples[GATED + i][gated_n[i]++] = now_us() - t0;
      }
    }
    printf("round %d\n", round);
    const char *names[] = {"pinned DMA", "driver pageable", "host copy alone", "pull", "pull, no query",
                           "pull + device sync (bench/pageable)"};
    for (int w = DMA; w <= PULL_DS; w++) {
      const double us = median(samples[w], repeat);
      printf("  %-36s %8.1f %7.1f\n", names[w], us, (double)bytes / us / 1e3);
      if (w == PULL)
        printf("    phases from the start (us): queried %.1f, kernel queued %.1f, last slice flagged %.1f, last slice "
               "freed %.1f, synchronized %.1f\n",
               median(samples[PH_QUERY], repeat), median(samples[PH_LAUNCHED], repeat),
               median(samples[PH_FLAG], repeat), median(samples[PH_FREED], repeat), us);
    }
    for (int i = 0; i < 3; i++) {
      if (!gated_n[i]) continue;
      const double us = median(samples[GATED + i], gated_n[i]);
      printf("  gated DMAs x%-23d %8.1f %7.1f\n", piece_counts[i], us, (double)bytes / us / 1e3);
    }
  }
  rs_crew_stop(&crew);
  check(cudaStreamDestroy(stream), "stream");
  check(cudaFree(dst), "destination");
  check(cudaFreeHost(ring), "ring");
  check(cudaFreeHost(pinned), "pinned source");
  check(cudaFreeHost(flags), "flags");
  check(cudaFreeHost(gates), "gates");
  free(src);
  return 0;
}
