// The 1 MiB pageable H2D in raw CUDA, by the fastest way found for it and by the others
// tried, each timed the way bench/pageable times resident's copy: the floor that
// resident's pulled copy (transfer/staging_pull.c) is measured against (issue 16).
//
//   pageable_raw [--kib N] [--lanes N] [--repeat N] [--rounds N]
//
// Ways, each from a pageable source already touched, to one device buffer, host wall time
// from the call to the end of the synchronize, median of --repeat:
//   pinned DMA        cudaMemcpyAsync from pinned memory (no host copy at all: the link's
//                     own time with its fixed cost)
//   driver pageable   cudaMemcpyAsync from the pageable source (the driver's own staging)
//   host copy alone   the lanes' copy into pinned memory, with nothing on the device
//   pull              what resident does: the stream is asked whether it is idle, one
//                     kernel is queued that reads 32 KiB slices of a mapped pinned ring as
//                     their flags come, the lanes fill the slices (streaming stores, then
//                     the flag), the stream is synchronized; with its phases
//   pull, no query    the same without asking the stream first
//   pull + device sync  as bench/pageable measures resident (a cudaDeviceSynchronize after)
//   gated DMAs xP     P DMAs queued ahead, each behind cuStreamWaitValue32 on a flag the
//                     lanes raise once its piece is filled
// Built with the CUDA backend; needs no resident library.
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <atomic>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define CHECK(x) check((x), #x)
static void check(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return;
  fprintf(stderr, "pageable_raw: %s: %s\n", what, cudaGetErrorString(e));
  exit(1);
}

static double now_us() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static void pause_core() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

// Streaming stores, as the staging writes pinned memory a device read comes for next: the
// read then finds none of its lines in a core's cache.
static void copy_streaming(void *dst, const void *src, size_t n) {
#if defined(__x86_64__)
  __m128i *d = static_cast<__m128i *>(dst);
  const __m128i *s = static_cast<const __m128i *>(src);
  for (size_t i = 0; i < n / 16; i++) _mm_stream_si128(d + i, _mm_loadu_si128(s + i));
  _mm_sfence();
#else
  memcpy(dst, src, n);
#endif
}

constexpr size_t kSlice = 32 << 10;
constexpr int kFlagStride = 8;  // flags a cache line apart
constexpr int kPullThreads = 512;

__device__ __forceinline__ uint64_t load_acquire_sys(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_release_sys(uint64_t *p, uint64_t v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// One block a slice: wait for its flag, read its 32 KiB in one round trip, store, free it.
__global__ void __launch_bounds__(kPullThreads) pull_kernel(uint4 *dst, const uint4 *ring, const uint64_t *ready,
                                                            uint64_t *freed, uint64_t first, int slices) {
  constexpr int per_thread = kSlice / 16 / kPullThreads;
  for (int k = blockIdx.x; k < slices; k += gridDim.x) {
    if (threadIdx.x == 0) {
      while (load_acquire_sys(&ready[k * kFlagStride]) < first + k + 1) __nanosleep(64);
      __threadfence_system();
    }
    __syncthreads();
    const uint4 *s = ring + (size_t)k * (kSlice / 16);
    uint4 *d = dst + (size_t)k * (kSlice / 16);
    uint4 r[per_thread];
#pragma unroll
    for (int i = 0; i < per_thread; i++) r[i] = s[threadIdx.x + i * kPullThreads];
#pragma unroll
    for (int i = 0; i < per_thread; i++) d[threadIdx.x + i * kPullThreads] = r[i];
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence_system();
      store_release_sys(&freed[k * kFlagStride], first + k + 1);
    }
  }
}

typedef CUresult (*wait_value_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

// What the lanes share for one copy.
struct Copy {
  const char *src;
  char *ring;
  int slices;
  std::atomic<int> next{0};
  // pull
  int launch = 0;
  uint4 *dst = nullptr, *ring_dev = nullptr;
  uint64_t *ready = nullptr, *ready_dev = nullptr, *freed_dev = nullptr;
  uint64_t first = 0;
  cudaStream_t stream = nullptr;
  double launched = 0, last_flag = 0;
  // gated DMAs
  int pieces = 0;
  std::atomic<int> filled[64];
  uint32_t *gate = nullptr, *gate_dev = nullptr, seq = 0;
  wait_value_fn wait_value = nullptr;
};

// Lanes that spin between copies, as resident's do, so that no copy pays a wake-up.
struct Crew {
  int lanes;
  std::atomic<long> round{0};
  std::atomic<int> inside{0};
  std::atomic<bool> stop{false};
  void (*fn)(Copy *, int) = nullptr;
  Copy *copy = nullptr;
  pthread_t threads[64];
  struct Arg {
    Crew *crew;
    int lane;
  } args[64];
};

static void *crew_thread(void *p) {
  Crew::Arg *a = static_cast<Crew::Arg *>(p);
  Crew *c = a->crew;
  long seen = 0;
  while (!c->stop.load()) {
    long r = c->round.load();
    if (r == seen) {
      pause_core();
      continue;
    }
    seen = r;
    c->fn(c->copy, a->lane);
    c->inside.fetch_sub(1);
  }
  return nullptr;
}

static void crew_run(Crew *c, Copy *copy, void (*fn)(Copy *, int)) {
  c->copy = copy;
  c->fn = fn;
  c->inside.store(c->lanes - 1);
  c->round.fetch_add(1);
  fn(copy, 0);
  while (c->inside.load()) pause_core();
}

// Lane 0 queues the kernel first, so that it starts while the lanes fill the first slices.
static void lane_pull(Copy *c, int lane) {
  if (lane == 0 && c->launch) {
    pull_kernel<<<c->slices, kPullThreads, 0, c->stream>>>(c->dst, c->ring_dev, c->ready_dev, c->freed_dev, c->first,
                                                          c->slices);
    c->launched = now_us();
  }
  for (int k; (k = c->next.fetch_add(1)) < c->slices;) {
    copy_streaming(c->ring + k * kSlice, c->src + k * kSlice, kSlice);
    __atomic_store_n(&c->ready[k * kFlagStride], c->first + k + 1, __ATOMIC_RELEASE);
    if (k == c->slices - 1) c->last_flag = now_us();
  }
}

// Lane 0 queues every piece's gate and DMA first; the lane that fills a piece's last slice
// opens its gate.
static void lane_gated(Copy *c, int lane) {
  const int per_piece = c->slices / c->pieces;
  const size_t piece = (size_t)per_piece * kSlice;
  if (lane == 0) {
    for (int p = 0; p < c->pieces; p++) {
      CUresult r = c->wait_value(reinterpret_cast<CUstream>(c->stream),
                                 reinterpret_cast<CUdeviceptr>(c->gate_dev + p * 16), c->seq, CU_STREAM_WAIT_VALUE_GEQ);
      if (r != CUDA_SUCCESS) {
        fprintf(stderr, "pageable_raw: cuStreamWaitValue32: error %d\n", (int)r);
        exit(1);
      }
      CHECK(cudaMemcpyAsync(reinterpret_cast<char *>(c->dst) + p * piece, c->ring + p * piece, piece,
                            cudaMemcpyHostToDevice, c->stream));
    }
    c->launched = now_us();
  }
  for (int k; (k = c->next.fetch_add(1)) < c->slices;) {
    copy_streaming(c->ring + k * kSlice, c->src + k * kSlice, kSlice);
    const int p = k / per_piece;
    if (c->filled[p].fetch_add(1) + 1 == per_piece) __atomic_store_n(&c->gate[p * 16], c->seq, __ATOMIC_RELEASE);
    if (k == c->slices - 1) c->last_flag = now_us();
  }
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  size_t kib = 1024;
  int lanes = 8, repeat = 200, rounds = 3;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--kib") && i + 1 < argc) kib = strtoul(argv[++i], nullptr, 10);
    else if (!strcmp(argv[i], "--lanes") && i + 1 < argc) lanes = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: pageable_raw [--kib N] [--lanes N] [--repeat N] [--rounds N]\n");
      return 2;
    }
  }
  const size_t bytes = kib << 10;
  const int slices = (int)(bytes / kSlice);
  if (kib % 256 || kib > (8 << 10) || lanes < 1 || lanes > 64 || repeat < 1 || rounds < 1) {
    fprintf(stderr, "pageable_raw: --kib a multiple of 256 up to 8192, --lanes 1-64, --repeat and --rounds >= 1\n");
    return 2;
  }
  int device_count = 0;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
    printf("pageable_raw: no CUDA device\n");
    return 0;
  }
  CHECK(cudaFree(nullptr));
  wait_value_fn wait_value = nullptr;
  cudaDriverEntryPointQueryResult q;
  if (cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", reinterpret_cast<void **>(&wait_value), 12000,
                                       cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    wait_value = nullptr;

  char *src = static_cast<char *>(aligned_alloc(4096, bytes));
  memset(src, 7, bytes);
  char *ring, *pinned;
  uint64_t *flags;
  uint32_t *gates;
  CHECK(cudaHostAlloc(reinterpret_cast<void **>(&ring), bytes, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(reinterpret_cast<void **>(&pinned), bytes, 0));
  memset(pinned, 1, bytes);
  const size_t flag_words = (size_t)slices * kFlagStride;
  CHECK(cudaHostAlloc(reinterpret_cast<void **>(&flags), 2 * flag_words * sizeof(uint64_t), cudaHostAllocMapped));
  memset(flags, 0, 2 * flag_words * sizeof(uint64_t));
  CHECK(cudaHostAlloc(reinterpret_cast<void **>(&gates), 64 * 16 * sizeof(uint32_t), cudaHostAllocMapped));
  memset(gates, 0, 64 * 16 * sizeof(uint32_t));
  uint64_t *flags_dev;
  uint4 *ring_dev;
  uint32_t *gates_dev;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&flags_dev), flags, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&ring_dev), ring, 0));
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void **>(&gates_dev), gates, 0));
  uint4 *dst;
  CHECK(cudaMalloc(reinterpret_cast<void **>(&dst), bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  Crew *crew = new Crew;
  crew->lanes = lanes;
  for (int i = 1; i < lanes; i++) {
    crew->args[i] = {crew, i};
    if (pthread_create(&crew->threads[i], nullptr, crew_thread, &crew->args[i]) != 0) {
      fprintf(stderr, "pageable_raw: cannot start lane %d\n", i);
      return 1;
    }
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("pageable H2D of %zu KiB in raw CUDA on %s, %d lanes; median of %d, microseconds and GB/s (1e9 B/s)\n", kib,
         prop.name, lanes, repeat);

  uint64_t first = 0;
  uint32_t seq = 0;
  auto new_pull = [&](Copy &c, int launch) {
    c.src = src;
    c.ring = ring;
    c.slices = slices;
    c.launch = launch;
    c.dst = dst;
    c.ring_dev = ring_dev;
    c.ready = flags;
    c.ready_dev = flags_dev;
    c.freed_dev = flags_dev + flag_words;
    c.first = first;
    c.stream = stream;
  };
  const int piece_counts[3] = {2, 4, 8};
  for (int round = 0; round < rounds; round++) {
    std::vector<double> dma, driver, host, pull, pull_nq, pull_ds, gated[3];
    std::vector<double> ph_query, ph_launched, ph_flag, ph_freed;
    for (int r = 0; r < repeat; r++) {
      double t0 = now_us();
      CHECK(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream));
      CHECK(cudaStreamSynchronize(stream));
      dma.push_back(now_us() - t0);

      t0 = now_us();
      CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
      CHECK(cudaStreamSynchronize(stream));
      driver.push_back(now_us() - t0);

      {
        Copy c;
        new_pull(c, 0);
        t0 = now_us();
        crew_run(crew, &c, lane_pull);
        host.push_back(now_us() - t0);
        first += slices;  // flags raised with no kernel: the next copy's numbers are past them
      }
      for (int way = 0; way < 3; way++) {  // 0 pull, 1 no query, 2 pull + device sync
        Copy c;
        new_pull(c, 1);
        t0 = now_us();
        if (way != 1 && cudaStreamQuery(stream) != cudaSuccess) {
          fprintf(stderr, "pageable_raw: the stream was busy\n");
          return 1;
        }
        const double queried = now_us();
        crew_run(crew, &c, lane_pull);
        const uint64_t *last_freed = flags + flag_words + (size_t)(slices - 1) * kFlagStride;
        while (__atomic_load_n(last_freed, __ATOMIC_ACQUIRE) < first + slices) pause_core();
        const double freed = now_us();
        CHECK(cudaStreamSynchronize(stream));
        if (way == 2) CHECK(cudaDeviceSynchronize());
        const double t = now_us() - t0;
        first += slices;
        (way == 0 ? pull : way == 1 ? pull_nq : pull_ds).push_back(t);
        if (way == 0) {
          ph_query.push_back(queried - t0);
          ph_launched.push_back(c.launched - t0);
          ph_flag.push_back(c.last_flag - t0);
          ph_freed.push_back(freed - t0);
        }
      }
      for (int i = 0; wait_value && i < 3; i++) {
        if (slices % piece_counts[i]) continue;
        Copy c;
        new_pull(c, 0);
        c.pieces = piece_counts[i];
        for (int p = 0; p < c.pieces; p++) c.filled[p].store(0);
        c.gate = gates;
        c.gate_dev = gates_dev;
        c.seq = ++seq;
        c.wait_value = wait_value;
        t0 = now_us();
        crew_run(crew, &c, lane_gated);
        CHECK(cudaStreamSynchronize(stream));
        gated[i].push_back(now_us() - t0);
      }
    }
    auto line = [&](const char *name, const std::vector<double> &v) {
      if (v.empty()) return;
      const double us = median(v);
      printf("  %-34s %8.1f %7.1f\n", name, us, bytes / us / 1e3);
    };
    printf("round %d\n", round + 1);
    line("pinned DMA", dma);
    line("driver pageable", driver);
    line("host copy alone", host);
    line("pull", pull);
    printf("    phases from the start (us): queried %.1f, kernel queued %.1f, last slice flagged %.1f, last slice "
           "freed %.1f, synchronized %.1f\n",
           median(ph_query), median(ph_launched), median(ph_flag), median(ph_freed), median(pull));
    line("pull, no query", pull_nq);
    line("pull + device sync (bench/pageable)", pull_ds);
    for (int i = 0; i < 3; i++) {
      char name[32];
      snprintf(name, sizeof name, "gated DMAs x%d", piece_counts[i]);
      line(name, gated[i]);
    }
  }
  crew->stop.store(true);
  for (int i = 1; i < lanes; i++) pthread_join(crew->threads[i], nullptr);
  delete crew;
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(dst));
  CHECK(cudaFreeHost(ring));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFreeHost(flags));
  CHECK(cudaFreeHost(gates));
  free(src);
  return 0;
}
