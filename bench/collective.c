/* bench/collective: resident's peer copy and all-reduce beside the raw calls, same sizes,
 * same process (issue 19's targets: >= 90% of cudaMemcpyPeer and of NCCL).
 *
 *   peer copy   rs_array_copy between arrays of devices 0 and 1 beside cudaMemcpyPeer
 *   all-reduce  rs_comm_all_reduce (sum, float32, in place) over every visible GPU beside
 *               ncclAllReduce over communicators of ncclCommInitAll, one stream per GPU
 *
 * Each timing is host wall clock around the call and the synchronize of every device; one
 * warm-up, then the median of --repeat runs. GB = 1e9 bytes. Bus bandwidth is NCCL's
 * all_reduce_perf figure: size / time * 2 (n - 1) / n. With one GPU there is no peer link
 * and no bus: the peer copy is then between two contexts of device 0 (a device-to-device
 * copy) and the all-reduce has one rank; the program says so and still runs both sides.
 * Usage: collective [--size MiB (1024)] [--repeat N (7)]. Exit status 0 only if every
 * call succeeded and the results are right. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#include "resident.h"

#if __has_include(<nccl.h>)
#include <nccl.h>
#define HAVE_NCCL_H 1
#endif

#define MAXDEV 16
#define MAXREP 32

static int failed;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return v[n / 2];
}

#define RS_OK_OR(call)                                                                            \
  do {                                                                                            \
    rs_status s_ = (call);                                                                        \
    if (s_ != RS_OK) {                                                                            \
      fprintf(stderr, "%s: %s: %s\n", #call, rs_status_name(s_), rs_last_error());                \
      failed = 1;                                                                                 \
      goto done;                                                                                  \
    }                                                                                             \
  } while (0)

#define CUDA_OR(call)                                                                             \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                                 \
      failed = 1;                                                                                 \
      goto done;                                                                                  \
    }                                                                                             \
  } while (0)

static void peer_copy(size_t bytes, int ndev, int reps) {
  int src_dev = 0, dst_dev = ndev > 1 ? 1 : 0;
  rs_context *cs = NULL, *cd = NULL;
  rs_array *a = NULL, *b = NULL;
  void *ra = NULL, *rb = NULL;
  double t_res[MAXREP], t_raw[MAXREP];
  int64_t n = (int64_t)(bytes / 4);
  printf("peer copy %zu MiB, device %d -> device %d%s\n", bytes >> 20, src_dev, dst_dev,
         ndev > 1 ? "" : " (one GPU: two contexts of one device, a D2D copy, not a peer link)");
  RS_OK_OR(rs_context_create(&cs, RS_BACKEND_CUDA, src_dev));
  RS_OK_OR(rs_context_create(&cd, RS_BACKEND_CUDA, dst_dev));
  RS_OK_OR(rs_ones(&a, cs, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  RS_OK_OR(rs_zeros(&b, cd, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  RS_OK_OR(rs_context_synchronize(cs));
  for (int r = -1; r < reps; r++) {
    double t0 = now_ms();
    RS_OK_OR(rs_array_copy(b, a, NULL)); /* returns with the copy finished */
    if (r >= 0) t_res[r] = now_ms() - t0;
  }
  double last = 0;
  RS_OK_OR(rs_array_item_double(b, (int64_t[]){n - 1}, &last, NULL));
  if (last != 1.0) {
    fprintf(stderr, "peer copy: the last element is %g, not 1\n", last);
    failed = 1;
  }
  CUDA_OR(cudaSetDevice(src_dev));
  CUDA_OR(cudaMalloc(&ra, bytes));
  CUDA_OR(cudaMemset(ra, 1, bytes));
  CUDA_OR(cudaSetDevice(dst_dev));
  CUDA_OR(cudaMalloc(&rb, bytes));
  if (dst_dev != src_dev) {
    int can = 0;
    CUDA_OR(cudaDeviceCanAccessPeer(&can, dst_dev, src_dev));
    if (can && cudaDeviceEnablePeerAccess(src_dev, 0) != cudaSuccess) (void)cudaGetLastError();
  }
  for (int r = -1; r < reps; r++) {
    double t0 = now_ms();
    CUDA_OR(cudaMemcpyPeer(rb, dst_dev, ra, src_dev, bytes));
    CUDA_OR(cudaDeviceSynchronize());
    if (r >= 0) t_raw[r] = now_ms() - t0;
  }
  double mr = median(t_res, reps), mw = median(t_raw, reps);
  printf("  %-28s %9.3f ms %8.1f GB/s\n", "rs_array_copy", mr, (double)bytes / mr / 1e6);
  printf("  %-28s %9.3f ms %8.1f GB/s\n", "cudaMemcpyPeer", mw, (double)bytes / mw / 1e6);
  printf("  resident / raw: %.1f%% of cudaMemcpyPeer's bandwidth (target >= 90%% on 2 GPUs)\n", 100.0 * mw / mr);
done:
  if (ra) cudaFree(ra);
  if (rb) cudaFree(rb);
  rs_array_release(a);
  rs_array_release(b);
  rs_context_destroy(cs);
  rs_context_destroy(cd);
}

static double bus(size_t bytes, int ndev, double ms) {
  return (double)bytes / ms / 1e6 * (ndev > 1 ? 2.0 * (ndev - 1) / ndev : 1.0);
}

#ifdef HAVE_NCCL_H
/* NCCL's own calls, from the same library resident loads. */
typedef struct raw_nccl {
  ncclResult_t (*init_all)(ncclComm_t *, int, const int *);
  ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  ncclResult_t (*destroy)(ncclComm_t);
} raw_nccl;

static int load_raw(raw_nccl *n) {
  void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libnccl.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return 0;
  *(void **)&n->init_all = dlsym(lib, "ncclCommInitAll");
  *(void **)&n->all_reduce = dlsym(lib, "ncclAllReduce");
  *(void **)&n->group_start = dlsym(lib, "ncclGroupStart");
  *(void **)&n->group_end = dlsym(lib, "ncclGroupEnd");
  *(void **)&n->destroy = dlsym(lib, "ncclCommDestroy");
  return n->init_all && n->all_reduce && n->group_start && n->group_end && n->destroy;
}

static void raw_all_reduce(size_t bytes, int ndev, int reps, double *out_ms) {
  raw_nccl api;
  ncclComm_t comms[MAXDEV] = {0};
  cudaStream_t streams[MAXDEV] = {0};
  void *buf[MAXDEV] = {0};
  int devs[MAXDEV];
  double t[MAXREP];
  *out_ms = -1;
  if (!load_raw(&api)) {
    printf("  raw NCCL: libnccl.so.2 could not be loaded\n");
    return;
  }
  for (int i = 0; i < ndev; i++) devs[i] = i;
  if (api.init_all(comms, ndev, devs) != ncclSuccess) {
    fprintf(stderr, "ncclCommInitAll failed\n");
    failed = 1;
    return;
  }
  for (int i = 0; i < ndev; i++) {
    CUDA_OR(cudaSetDevice(i));
    CUDA_OR(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    CUDA_OR(cudaMalloc(&buf[i], bytes));
    CUDA_OR(cudaMemset(buf[i], 0, bytes));
  }
  for (int r = -1; r < reps; r++) {
    double t0 = now_ms();
    api.group_start();
    for (int i = 0; i < ndev; i++)
      api.all_reduce(buf[i], buf[i], bytes / 4, ncclFloat32, ncclSum, comms[i], streams[i]);
    if (api.group_end() != ncclSuccess) {
      fprintf(stderr, "raw ncclAllReduce failed\n");
      failed = 1;
      goto done;
    }
    for (int i = 0; i < ndev; i++) {
      CUDA_OR(cudaSetDevice(i));
      CUDA_OR(cudaStreamSynchronize(streams[i]));
    }
    if (r >= 0) t[r] = now_ms() - t0;
  }
  *out_ms = median(t, reps);
done:
  for (int i = 0; i < ndev; i++) {
    cudaSetDevice(i);
    if (buf[i]) cudaFree(buf[i]);
    if (streams[i]) cudaStreamDestroy(streams[i]);
    if (comms[i]) api.destroy(comms[i]);
  }
}
#endif

static void all_reduce(size_t bytes, int ndev, int reps) {
  rs_context *ctx[MAXDEV] = {0};
  rs_array *a[MAXDEV] = {0};
  rs_comm *comm = NULL;
  double t[MAXREP], raw_ms = -1;
  int64_t n = (int64_t)(bytes / 4);
  printf("all-reduce %zu MiB float32 (sum, in place) over %d GPU(s)%s\n", bytes >> 20, ndev,
         ndev > 1 ? "" : " (one GPU: one rank, no bus: the figures measure the call, not the links)");
  for (int i = 0; i < ndev; i++) {
    RS_OK_OR(rs_context_create(&ctx[i], RS_BACKEND_CUDA, i));
    RS_OK_OR(rs_ones(&a[i], ctx[i], RS_MEM_DEVICE, 1, &n, RS_FLOAT32, NULL));
  }
  RS_OK_OR(rs_comm_create(&comm, ctx, ndev));
  for (int r = -1; r < reps; r++) {
    double t0 = now_ms();
    RS_OK_OR(rs_comm_all_reduce(comm, (const rs_array *const *)a, a, RS_REDUCE_SUM, NULL));
    for (int i = 0; i < ndev; i++) RS_OK_OR(rs_context_synchronize(ctx[i]));
    if (r >= 0) t[r] = now_ms() - t0;
  }
  double v = 0;
  RS_OK_OR(rs_array_item_double(a[0], (int64_t[]){n - 1}, &v, NULL));
  double want = 1;
  for (int r = 0; r < reps + 1; r++) want *= ndev; /* every run sums ndev copies of the last result */
  if (v != want) {
    fprintf(stderr, "all-reduce: the last element is %g, not %g\n", v, want);
    failed = 1;
  }
  double ms = median(t, reps);
  printf("  %-28s %9.3f ms  algbw %7.1f GB/s  busbw %7.1f GB/s\n", "rs_comm_all_reduce", ms,
         (double)bytes / ms / 1e6, bus(bytes, ndev, ms));
#ifdef HAVE_NCCL_H
  raw_all_reduce(bytes, ndev, reps, &raw_ms);
  if (raw_ms > 0) {
    printf("  %-28s %9.3f ms  algbw %7.1f GB/s  busbw %7.1f GB/s\n", "ncclAllReduce (raw)", raw_ms,
           (double)bytes / raw_ms / 1e6, bus(bytes, ndev, raw_ms));
    printf("  resident / raw: %.1f%% of NCCL's bus bandwidth (target >= 90%% on 2 GPUs)\n", 100.0 * raw_ms / ms);
  }
#else
  printf("  raw NCCL: this build has no nccl.h\n");
#endif
done:
  rs_comm_destroy(comm);
  for (int i = 0; i < ndev; i++) {
    rs_array_release(a[i]);
    rs_context_destroy(ctx[i]);
  }
}

int main(int argc, char **argv) {
  size_t mib = 1024;
  int reps = 7;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--size") == 0) mib = (size_t)strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--repeat") == 0) reps = atoi(argv[i + 1]);
  }
  if (reps < 1) reps = 1;
  if (reps > MAXREP) reps = MAXREP;
  if (mib < 1) mib = 1;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
    printf("no GPU: nothing to measure\n");
    return 0;
  }
  if (ndev > MAXDEV) ndev = MAXDEV;
  printf("%d GPU(s) visible%s\n", ndev, ndev > 1 ? "" : "; the targets need 2 (the runs below still check the calls)");
  peer_copy(mib << 20, ndev, reps);
  all_reduce(mib << 20, ndev, reps);
  return failed;
}
