/* bench/alloc: allocate + free, side by side in one process - resident's pool, direct and
 * async allocators (raw memory through rs_memory_alloc / rs_memory_free, and arrays
 * through rs_device_array / rs_array_release) against raw cudaMalloc + cudaFree and
 * cudaMallocAsync + cudaFreeAsync.
 *
 * Each figure is the host time of one allocate + free pair, in microseconds: a loop of
 * `iters` pairs timed as a whole (after a warm-up loop, so a pool is measured on its hits
 * and the CUDA pool has its memory), then the median of REPS such loops. Work stays
 * queued where the API queues it (cudaFreeAsync, the direct allocator's pending frees);
 * one synchronize closes each loop and is included, so deferred costs are paid inside
 * the figure, spread over the loop.
 *
 * Usage: alloc [iterations for 4 KiB] (default 20000; 100 MiB uses a tenth, and
 * cudaMalloc a hundredth, at least 20). Exit status 0 only if every call succeeded. CuPy's
 * pool is timed the same way by bench/alloc_cupy.py. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "resident/allocator.h"
#include "resident/array.h"
#include "resident/context.h"

#define REPS 5

static int failed;

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int res_check(rs_status st, const char *what) {
  if (st == RS_OK) return 0;
  fprintf(stderr, "alloc: %s: %s: %s\n", what, rs_status_name(st), rs_last_error());
  failed = 1;
  return -1;
}

static int cuda_check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return 0;
  fprintf(stderr, "alloc: %s: %s: %s\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
  failed = 1;
  return -1;
}

typedef enum method {
  RES_RAW,   /* rs_memory_alloc / rs_memory_free */
  RES_ARRAY, /* rs_device_array / rs_array_release */
  CUDA_MALLOC,
  CUDA_MALLOC_ASYNC
} method;

typedef struct run {
  method how;
  rs_context *ctx; /* resident methods */
  size_t bytes;
  long iters;
} run;

/* One timed loop: microseconds per allocate + free pair, or -1 on failure. */
static double loop(const run *r) {
  double t0 = now_us();
  for (long i = 0; i < r->iters; i++) {
    if (r->how == RES_RAW) {
      void *p = NULL;
      if (res_check(rs_memory_alloc(&p, r->ctx, r->bytes, NULL), "rs_memory_alloc")) return -1;
      if (res_check(rs_memory_free(r->ctx, p, NULL), "rs_memory_free")) return -1;
    } else if (r->how == RES_ARRAY) {
      rs_array *a = NULL;
      int64_t n = (int64_t)r->bytes;
      if (res_check(rs_device_array(&a, r->ctx, 1, &n, RS_UINT8, NULL, RS_ORDER_C),
                    "rs_device_array"))
        return -1;
      if (res_check(rs_array_release(a), "rs_array_release")) return -1;
    } else if (r->how == CUDA_MALLOC) {
      void *p = NULL;
      if (cuda_check(cudaMalloc(&p, r->bytes), "cudaMalloc")) return -1;
      if (cuda_check(cudaFree(p), "cudaFree")) return -1;
    } else {
      void *p = NULL;
      if (cuda_check(cudaMallocAsync(&p, r->bytes, 0), "cudaMallocAsync")) return -1;
      if (cuda_check(cudaFreeAsync(p, 0), "cudaFreeAsync")) return -1;
    }
  }
  if (r->ctx) {
    if (res_check(rs_context_synchronize(r->ctx), "rs_context_synchronize")) return -1;
  } else if (cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize")) {
    return -1;
  }
  return (now_us() - t0) / (double)r->iters;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Warm up, then the median of REPS loops. */
static double measure(const run *r) {
  run warm = *r;
  warm.iters = r->iters / 10 > 2 ? r->iters / 10 : 2;
  if (loop(&warm) < 0) return -1;
  double t[REPS];
  for (int i = 0; i < REPS; i++)
    if ((t[i] = loop(r)) < 0) return -1;
  qsort(t, REPS, sizeof t[0], cmp_double);
  return t[REPS / 2];
}

static rs_context *context_with(rs_allocator_kind kind) {
  rs_context *ctx = NULL;
  if (res_check(rs_context_create(&ctx, RS_BACKEND_CUDA, 0), "rs_context_create")) return NULL;
  if (res_check(rs_context_set_allocator(ctx, kind, NULL), rs_allocator_name(kind))) {
    rs_context_destroy(ctx);
    return NULL;
  }
  return ctx;
}

static void print_cell(double us) {
  if (us < 0)
    printf(" %12s", "failed");
  else
    printf(" %12.2f", us);
}

int main(int argc, char **argv) {
  long base_iters = argc > 1 ? atol(argv[1]) : 20000;
  if (base_iters < 20) base_iters = 20;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "alloc: no CUDA device\n");
    return 77;
  }
  struct cudaDeviceProp prop;
  if (cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) return 1;
  static const rs_allocator_kind kinds[3] = {RS_ALLOCATOR_POOL, RS_ALLOCATOR_DIRECT,
                                             RS_ALLOCATOR_ASYNC};
  rs_context *ctx[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++)
    if (!(ctx[k] = context_with(kinds[k]))) return 1;

  static const size_t sizes[2] = {(size_t)4 << 10, (size_t)100 << 20};
  static const char *const size_names[2] = {"4 KiB", "100 MiB"};
  printf("bench/alloc on %s: allocate + free, us per pair (median of %d loops)\n", prop.name, REPS);
  printf("%-8s %12s %12s %12s %12s %12s %12s %12s %12s\n", "size", "pool", "pool arr", "direct",
         "direct arr", "async", "async arr", "cudaMalloc", "MallocAsync");
  for (int s = 0; s < 2; s++) {
    long iters = s == 0 ? base_iters : base_iters / 10;
    long slow_iters = base_iters / 100 > 20 ? base_iters / 100 : 20; /* cudaMalloc: ~200 us */
    printf("%-8s", size_names[s]);
    for (int k = 0; k < 3; k++) {
      long n = kinds[k] == RS_ALLOCATOR_DIRECT ? slow_iters : iters;
      run raw = {RES_RAW, ctx[k], sizes[s], n}, arr = {RES_ARRAY, ctx[k], sizes[s], n};
      print_cell(measure(&raw));
      print_cell(measure(&arr));
      fflush(stdout);
    }
    run cm = {CUDA_MALLOC, NULL, sizes[s], slow_iters},
        ca = {CUDA_MALLOC_ASYNC, NULL, sizes[s], iters};
    print_cell(measure(&cm));
    print_cell(measure(&ca));
    printf("\n");
  }
  /* The pool's figures are hits: show it. */
  rs_memory_stats st;
  if (!res_check(rs_memory_get_stats(ctx[0], RS_SPACE_DEVICE, &st), "rs_memory_get_stats"))
    printf("pool: %lld allocations, %lld hits, %lld misses\n", (long long)st.allocations,
           (long long)st.hits, (long long)st.misses);
  if (!res_check(rs_memory_get_stats(ctx[1], RS_SPACE_DEVICE, &st), "rs_memory_get_stats"))
    printf("direct: %lld allocations, %lld flushes of the pending-deallocation queue\n",
           (long long)st.allocations, (long long)st.flushes);
  printf(
      "MallocAsync is raw cudaMallocAsync/cudaFreeAsync on the legacy stream, on the default\n"
      "pool whose release threshold the async allocator has set to keep memory cached.\n");
  for (int k = 0; k < 3; k++) rs_context_destroy(ctx[k]);
  return failed ? 1 : 0;
}
