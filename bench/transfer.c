/* bench/transfer: resident's copies against raw cudaMemcpy, same sizes, same process.
 *
 * For each size: host->device and device->host from pageable and from pinned memory, and
 * device->device. Every timing is host wall clock around the call plus a synchronize,
 * so both sides pay the same for launch and completion. One warm-up run, then the
 * median of several. GB = 1e9 bytes. D2D counts read + write bytes (2 x size), as
 * CuPy's and the design's figures do. Exit status 0 only if every copy succeeded and
 * the data arrived intact. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "resident/context.h"
#include "resident/array.h"
#include "resident/memory.h"
#include "resident/stream.h"
#include "resident/transfer.h"

#define MIB ((size_t)1 << 20)
#define MAX_REPS 16

enum op { H2D_PAGEABLE, D2H_PAGEABLE, H2D_PINNED, D2H_PINNED, D2D, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"H2D pageable", "D2H pageable", "H2D pinned",
                                               "D2H pinned", "D2D (r+w)"};

typedef struct {
  rs_context *ctx;
  rs_array *host_src, *host_dst, *pinned_src, *pinned_dst, *dev_a, *dev_b;
} res_bufs;

typedef struct {
  void *host_src, *host_dst, *pinned_src, *pinned_dst, *dev_a, *dev_b;
} raw_bufs;

static int failed;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int res_check(rs_status st, const char *what) {
  if (st == RS_OK) return 0;
  fprintf(stderr, "transfer: %s: %s: %s\n", what, rs_status_name(st), rs_last_error());
  failed = 1;
  return -1;
}

static int cuda_check(cudaError_t err, const char *what) {
  if (err == cudaSuccess) return 0;
  fprintf(stderr, "transfer: %s: %s: %s\n", what, cudaGetErrorName(err), cudaGetErrorString(err));
  failed = 1;
  return -1;
}

static int res_run(const res_bufs *b, enum op op) {
  rs_status st = RS_OK;
  switch (op) {
    case H2D_PAGEABLE: st = rs_to_device_into(b->dev_a, b->host_src, NULL); break;
    case D2H_PAGEABLE: st = rs_copy_to_host_into(b->host_dst, b->dev_a, NULL); break;
    case H2D_PINNED: st = rs_to_device_into(b->dev_a, b->pinned_src, NULL); break;
    case D2H_PINNED: st = rs_copy_to_host_into(b->pinned_dst, b->dev_a, NULL); break;
    default: st = rs_array_copy(b->dev_b, b->dev_a, NULL); break;
  }
  if (res_check(st, op_names[op])) return -1;
  /* The context-wide wait is the counterpart of cudaDeviceSynchronize below. */
  return res_check(rs_context_synchronize(b->ctx), "rs_context_synchronize");
}

static int raw_run(const raw_bufs *b, size_t bytes, enum op op) {
  cudaError_t err;
  switch (op) {
    case H2D_PAGEABLE: err = cudaMemcpy(b->dev_a, b->host_src, bytes, cudaMemcpyHostToDevice); break;
    case D2H_PAGEABLE: err = cudaMemcpy(b->host_dst, b->dev_a, bytes, cudaMemcpyDeviceToHost); break;
    case H2D_PINNED: err = cudaMemcpy(b->dev_a, b->pinned_src, bytes, cudaMemcpyHostToDevice); break;
    case D2H_PINNED: err = cudaMemcpy(b->pinned_dst, b->dev_a, bytes, cudaMemcpyDeviceToHost); break;
    default: err = cudaMemcpy(b->dev_b, b->dev_a, bytes, cudaMemcpyDeviceToDevice); break;
  }
  if (cuda_check(err, op_names[op])) return -1;
  return cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median ms of reps runs after one warm-up; -1 on failure. */
static double time_res(const res_bufs *b, enum op op, int reps) {
  double t[MAX_REPS];
  if (res_run(b, op)) return -1;
  for (int i = 0; i < reps; i++) {
    double t0 = now_ms();
    if (res_run(b, op)) return -1;
    t[i] = now_ms() - t0;
  }
  return median(t, reps);
}

static double time_raw(const raw_bufs *b, size_t bytes, enum op op, int reps) {
  double t[MAX_REPS];
  if (raw_run(b, bytes, op)) return -1;
  for (int i = 0; i < reps; i++) {
    double t0 = now_ms();
    if (raw_run(b, bytes, op)) return -1;
    t[i] = now_ms() - t0;
  }
  return median(t, reps);
}

static void fill(void *dst, size_t n, unsigned seed) {
  unsigned char *p = dst;
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i += sizeof x) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5; /* xorshift: no run of equal bytes to hide a bug */
    memcpy(p + i, &x, n - i < sizeof x ? n - i : sizeof x);
  }
}

static void verify(const void *expect, const void *got, size_t n, const char *what) {
  if (memcmp(expect, got, n) == 0) return;
  fprintf(stderr, "transfer: %s: data differs after the copies\n", what);
  failed = 1;
}

static void release_res(res_bufs *b) {
  rs_array *all[] = {b->host_src, b->host_dst, b->pinned_src, b->pinned_dst, b->dev_a, b->dev_b};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) rs_array_release(all[i]);
  memset(b, 0, sizeof *b);
}

static int alloc_res(res_bufs *b, rs_context *ctx, size_t bytes) {
  int64_t shape[1] = {(int64_t)bytes};
  memset(b, 0, sizeof *b);
  b->ctx = ctx;
  if (res_check(rs_host_array(&b->host_src, ctx, 1, shape, RS_UINT8, NULL, RS_ORDER_C), "rs_host_array") ||
      res_check(rs_host_array(&b->host_dst, ctx, 1, shape, RS_UINT8, NULL, RS_ORDER_C), "rs_host_array") ||
      res_check(rs_pinned_array(&b->pinned_src, ctx, 1, shape, RS_UINT8, NULL, RS_ORDER_C, 0), "rs_pinned_array") ||
      res_check(rs_pinned_array(&b->pinned_dst, ctx, 1, shape, RS_UINT8, NULL, RS_ORDER_C, 0), "rs_pinned_array") ||
      res_check(rs_device_array(&b->dev_a, ctx, 1, shape, RS_UINT8, NULL, RS_ORDER_C), "rs_device_array") ||
      res_check(rs_device_array(&b->dev_b, ctx, 1, shape, RS_UINT8, NULL, RS_ORDER_C), "rs_device_array")) {
    release_res(b);
    return -1;
  }
  /* Touch every page first: first-touch faults are not what is measured. */
  fill(rs_array_host_data(b->host_src), bytes, 1);
  fill(rs_array_host_data(b->pinned_src), bytes, 2);
  memset(rs_array_host_data(b->host_dst), 0, bytes);
  memset(rs_array_host_data(b->pinned_dst), 0, bytes);
  return 0;
}

static void free_raw(raw_bufs *b) {
  free(b->host_src);
  free(b->host_dst);
  cudaFreeHost(b->pinned_src);
  cudaFreeHost(b->pinned_dst);
  cudaFree(b->dev_a);
  cudaFree(b->dev_b);
  memset(b, 0, sizeof *b);
}

static int alloc_raw(raw_bufs *b, size_t bytes) {
  memset(b, 0, sizeof *b);
  b->host_src = malloc(bytes);
  b->host_dst = malloc(bytes);
  if (!b->host_src || !b->host_dst) {
    fprintf(stderr, "transfer: malloc(%zu) failed\n", bytes);
    failed = 1;
    free_raw(b);
    return -1;
  }
  if (cuda_check(cudaMallocHost(&b->pinned_src, bytes), "cudaMallocHost") ||
      cuda_check(cudaMallocHost(&b->pinned_dst, bytes), "cudaMallocHost") ||
      cuda_check(cudaMalloc(&b->dev_a, bytes), "cudaMalloc") ||
      cuda_check(cudaMalloc(&b->dev_b, bytes), "cudaMalloc")) {
    free_raw(b);
    return -1;
  }
  fill(b->host_src, bytes, 1);
  fill(b->pinned_src, bytes, 2);
  memset(b->host_dst, 0, bytes);
  memset(b->pinned_dst, 0, bytes);
  return 0;
}

static void print_row(size_t bytes, enum op op, double res_ms, double raw_ms) {
  double counted = (double)bytes * (op == D2D ? 2 : 1);
  char size[32];
  snprintf(size, sizeof size, "%zu MiB", bytes / MIB);
  printf("%-9s %-13s", size, op_names[op]);
  if (res_ms > 0) printf(" %10.3f %8.2f", res_ms, counted / (res_ms * 1e6));
  else printf(" %10s %8s", "failed", "-");
  if (raw_ms > 0) printf(" %10.3f %8.2f", raw_ms, counted / (raw_ms * 1e6));
  else printf(" %10s %8s", "failed", "-");
  if (res_ms > 0 && raw_ms > 0) printf(" %8.2f\n", raw_ms / res_ms);
  else printf(" %8s\n", "-");
}

static void bench_size(rs_context *ctx, size_t bytes, int reps) {
  double res_ms[OP_COUNT], raw_ms[OP_COUNT];
  for (int i = 0; i < OP_COUNT; i++) res_ms[i] = raw_ms[i] = -1;

  res_bufs rb;
  if (alloc_res(&rb, ctx, bytes) == 0) {
    for (int op = 0; op < OP_COUNT; op++) {
      /* D2H reads what H2D wrote: each D2H row follows its H2D row. */
      res_ms[op] = time_res(&rb, (enum op)op, reps);
    }
    verify(rs_array_host_data(rb.host_src), rs_array_host_data(rb.host_dst), bytes, "resident pageable");
    verify(rs_array_host_data(rb.pinned_src), rs_array_host_data(rb.pinned_dst), bytes, "resident pinned");
    if (res_check(rs_copy_to_host_into(rb.host_dst, rb.dev_b, NULL), "D2D check") == 0 &&
        res_check(rs_context_synchronize(ctx), "rs_context_synchronize") == 0)
      verify(rs_array_host_data(rb.pinned_src), rs_array_host_data(rb.host_dst), bytes, "resident D2D");
    release_res(&rb);
  }

  raw_bufs wb;
  if (alloc_raw(&wb, bytes) == 0) {
    for (int op = 0; op < OP_COUNT; op++) raw_ms[op] = time_raw(&wb, bytes, (enum op)op, reps);
    verify(wb.host_src, wb.host_dst, bytes, "raw pageable");
    verify(wb.pinned_src, wb.pinned_dst, bytes, "raw pinned");
    free_raw(&wb);
  }

  for (int op = 0; op < OP_COUNT; op++) print_row(bytes, (enum op)op, res_ms[op], raw_ms[op]);
}

int main(void) {
  rs_context *ctx = NULL;
  if (res_check(rs_context_create(&ctx, RS_BACKEND_CUDA, 0), "rs_context_create(cuda, 0)")) return 1;
  rs_device_props props;
  if (res_check(rs_context_get_props(ctx, &props), "rs_context_get_props")) {
    rs_context_destroy(ctx);
    return 1;
  }
  printf("transfer: resident vs raw cudaMemcpy on %s", props.name);
  if (props.pcie_generation > 0)
    printf(", PCIe gen%d x%d (%.1f GB/s per direction)", props.pcie_generation, props.pcie_width,
           props.pcie_gbytes_per_s);
  printf("\nGB = 1e9 bytes; median of the runs after one warm-up; D2D counts read + write "
         "(2 x size); ratio = resident GB/s / raw GB/s\n\n");
  printf("%-9s %-13s %10s %8s %10s %8s %8s\n", "size", "copy", "res ms", "res GB/s", "raw ms",
         "raw GB/s", "ratio");

  static const struct { size_t bytes; int reps; } sizes[] = {{100 * MIB, 10}, {1024 * MIB, 5}};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) bench_size(ctx, sizes[i].bytes, sizes[i].reps);

  rs_context_destroy(ctx);
  if (failed) printf("\ntransfer: FAILED (see the messages above)\n");
  return failed ? 1 : 0;
}
