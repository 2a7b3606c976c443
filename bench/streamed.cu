// bench/streamed: the seed pipeline (N kernels a = a*1.0001 + 1 over a float32 array)
// streamed through the GPU, resident's rs_streamed_run next to a raw CUDA version written
// here (16 chunks over 4 streams: copy in, N launches, copy out per chunk), and the serial
// floor (copy in, N kernels, copy out, one after the other), in one process.
//
//   streamed [--repeat N] [--quick]      (--quick: 100 MB only)
//   streamed --sweep [--repeat N]        chunks x streams, raw and resident side by side,
//                                        10 kernels over 100 MB and 1 GiB pinned
//
// For 100 MB and 1 GiB, pinned and pageable host memory, 3 and 10 kernels: medians of
// host wall time with a synchronize, in ms. Columns:
//   raw serial     cudaMemcpy H2D, N kernels, cudaMemcpy D2H on one stream
//   raw chunked    16 chunks over 4 streams (cudaMemcpyAsync; from pageable memory the
//                  driver makes it synchronous, which is what users meet)
//   raw cs         pinned: the run's own schedule in raw CUDA with the sizes it chose (copies
//                  in on one stream, copies out on another, kernels over `streams` streams)
//   res explicit   rs_to_device_into, N launches, rs_copy_to_host_into (serial)
//   res streamed   rs_streamed_run, chunk size and streams chosen by the run
//   res 16x4       rs_streamed_run with 16 chunks over 4 streams given
//   stage max      max(H2D alone, D2H alone, N kernels alone), raw, pinned: the bound an
//                  overlapped run approaches
// Targets (issue 16): 10 kernels, 100 MB pinned: res streamed <= 2.4 ms (raw chunked);
// 1 GiB: <= 1.15 x stage max; pageable <= 1.25 x the pinned streamed time.
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>
#include "cli/pipeline_kernel.h"
#include "resident.h"

#include "bench_cuda_check.h"
#define RK(x)                                                                                          \
  do {                                                                                                 \
    rs_status s_ = (x);                                                                                \
    if (s_ != RS_OK) {                                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s: %s\n", __FILE__, __LINE__, #x, rs_status_name(s_), rs_last_error()); \
      std::exit(1);                                                                                    \
    }                                                                                                  \
  } while (0)

static const float kA = 1.0001f, kC = 1.0f;

// The same kernel as cli/pipeline_kernel.c's (16-byte accesses, grid-stride loop).
__global__ void axpb(float *x, long long n, float a, float c) {
  const long long step = (long long)gridDim.x * blockDim.x;
  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long done = 0;
  if (((unsigned long long)x & 15) == 0) {
    float4 *xv = (float4 *)x;
    const long long nv = n / 4;
    for (long long i = first; i < nv; i += step) {
      float4 v = xv[i];
      v.x = v.x * a + c, v.y = v.y * a + c, v.z = v.z * a + c, v.w = v.w * a + c;
      xv[i] = v;
    }
    done = nv * 4;
  }
  for (long long i = done + first; i < n; i += step) x[i] = x[i] * a + c;
}

static int g_max_blocks = 1;

static void launch(float *x, long long n, cudaStream_t s) {
  long long want = (n / 4 + 255) / 256;
  int blocks = (int)std::max(1LL, std::min<long long>(want, g_max_blocks));
  axpb<<<blocks, 256, 0, s>>>(x, n, kA, kC);
}

static double now_ms() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Raw {
  float *dev;
  cudaStream_t st[8];
  cudaEvent_t loaded[16], computed[16], freed[16];
};

static void raw_events(Raw &r, int make) {
  for (int i = 0; i < 16; i++) {
    if (make) {
      CK(cudaEventCreateWithFlags(&r.loaded[i], cudaEventDisableTiming));
      CK(cudaEventCreateWithFlags(&r.computed[i], cudaEventDisableTiming));
      CK(cudaEventCreateWithFlags(&r.freed[i], cudaEventDisableTiming));
    } else {
      CK(cudaEventDestroy(r.loaded[i]));
      CK(cudaEventDestroy(r.computed[i]));
      CK(cudaEventDestroy(r.freed[i]));
    }
  }
}

static void raw_serial(Raw &r, float *host, size_t n, int kernels) {
  CK(cudaMemcpyAsync(r.dev, host, n * 4, cudaMemcpyHostToDevice, r.st[0]));
  for (int k = 0; k < kernels; k++) launch(r.dev, (long long)n, r.st[0]);
  CK(cudaMemcpyAsync(host, r.dev, n * 4, cudaMemcpyDeviceToHost, r.st[0]));
  CK(cudaStreamSynchronize(r.st[0]));
}

static void raw_chunked(Raw &r, float *host, size_t n, int kernels, int chunks = 16, int streams = 4) {
  size_t per = (n + chunks - 1) / chunks;
  per = (per + 3) / 4 * 4;  // keep every chunk 16-byte aligned
  for (int c = 0; c < chunks; c++) {
    size_t off = (size_t)c * per;
    if (off >= n) break;
    size_t len = std::min(per, n - off);
    cudaStream_t s = r.st[c % streams];
    CK(cudaMemcpyAsync(r.dev + off, host + off, len * 4, cudaMemcpyHostToDevice, s));
    for (int k = 0; k < kernels; k++) launch(r.dev + off, (long long)len, s);
    CK(cudaMemcpyAsync(host + off, r.dev + off, len * 4, cudaMemcpyDeviceToHost, s));
  }
  for (int i = 0; i < streams; i++) CK(cudaStreamSynchronize(r.st[i]));
}

// The schedule rs_streamed_run uses: every copy in on one stream (st[0]), every copy out
// on another (st[1]), the kernels of chunk c on st[2 + c % slots] in buffer c % slots of
// r.dev, events handing each buffer on. slots <= 6.
static void raw_copy_streams(Raw &r, float *host, size_t n, int kernels, int chunks, int slots) {
  size_t per = (n + chunks - 1) / chunks;
  per = (per + 3) / 4 * 4;
  for (int c = 0; c < chunks; c++) {
    size_t off = (size_t)c * per;
    if (off >= n) break;
    size_t len = std::min(per, n - off);
    int b = c % slots;
    float *buf = r.dev + (size_t)b * per;
    cudaStream_t ks = r.st[2 + b];
    if (c >= slots) CK(cudaStreamWaitEvent(r.st[0], r.freed[b], 0));
    CK(cudaMemcpyAsync(buf, host + off, len * 4, cudaMemcpyHostToDevice, r.st[0]));
    CK(cudaEventRecord(r.loaded[b], r.st[0]));
    CK(cudaStreamWaitEvent(ks, r.loaded[b], 0));
    for (int k = 0; k < kernels; k++) launch(buf, (long long)len, ks);
    CK(cudaEventRecord(r.computed[b], ks));
    CK(cudaStreamWaitEvent(r.st[1], r.computed[b], 0));
    CK(cudaMemcpyAsync(host + off, buf, len * 4, cudaMemcpyDeviceToHost, r.st[1]));
    CK(cudaEventRecord(r.freed[b], r.st[1]));
  }
  for (int i = 0; i < 8; i++) CK(cudaStreamSynchronize(r.st[i]));
}

// One stage alone on the device, event-timed (ms).
static double stage_ms(Raw &r, float *pinned, size_t n, int which, int kernels) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int i = 0; i < 5; i++) {
    CK(cudaEventRecord(a, r.st[0]));
    if (which == 0) CK(cudaMemcpyAsync(r.dev, pinned, n * 4, cudaMemcpyHostToDevice, r.st[0]));
    if (which == 1) CK(cudaMemcpyAsync(pinned, r.dev, n * 4, cudaMemcpyDeviceToHost, r.st[0]));
    if (which == 2)
      for (int k = 0; k < kernels; k++) launch(r.dev, (long long)n, r.st[0]);
    CK(cudaEventRecord(b, r.st[0]));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  return median(t);
}

struct Res {
  rs_context *ctx;
  rs_pipe_kernel pk;
  rs_array *dev;
};

static void res_explicit(Res &r, rs_array *host, int kernels) {
  RK(rs_to_device_into(r.dev, host, NULL));
  for (int k = 0; k < kernels; k++) RK(rs_pipe_kernel_launch(&r.pk, r.dev, kA, kC));
  RK(rs_copy_to_host_into(host, r.dev, NULL));
  RK(rs_stream_synchronize(rs_stream_legacy(r.ctx)));
}

static rs_streamed_report res_streamed(Res &r, rs_array *host, int kernels, int given, int chunks = 16,
                                       int streams = 4) {
  /* One chain per kernel count at a fixed address: the run remembers its chosen sizes per
   * step and user pointer, and 3 and 10 kernels want different ones. */
  static rs_pipe_chain chains[2];
  rs_pipe_chain *chain = &chains[kernels == 3 ? 0 : 1];
  *chain = (rs_pipe_chain){&r.pk, kernels, kA, kC};
  rs_streamed_options o = RS_STREAMED_OPTIONS_AUTO;
  if (given) {
    int64_t rows = rs_array_shape(host)[0];
    o.chunk_rows = (rows + chunks - 1) / chunks;
    o.streams = streams;
  }
  rs_streamed_report rep;
  RK(rs_streamed_run(host, host, rs_pipe_chain_step, chain, &o, &rep));
  return rep;
}

// The streamed result against the CPU loop (input i % 1024 / 1024, `kernels` steps).
static double check(const float *p, size_t n, int kernels) {
  double worst = 0;
  for (size_t i = 0; i < n; i += 997) {
    float v = (float)(i % 1024) / 1024.0f;
    for (int k = 0; k < kernels; k++) v = v * kA + kC;
    double err = std::fabs((double)p[i] - v) / std::fabs((double)v);
    if (!(err <= worst)) worst = err;
  }
  return worst;
}

static void fill(float *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (float)(i % 1024) / 1024.0f;
}

template <class F>
static double timed(int repeat, F f) {
  f();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < repeat; i++) {
    double t0 = now_ms();
    f();
    t.push_back(now_ms() - t0);
  }
  return median(t);
}

// Chunk counts and stream counts side by side, raw and resident with the same schedule; the
// report's wall and device span say how much of resident's time is the host's setup.
static void sweep(Res &res, int repeat) {
  const size_t sizes[2] = {100000000, (size_t)1 << 30};
  const int chunk_set[] = {8, 12, 16, 24, 32, 48, 64, 96, 128};
  const int stream_set[] = {2, 3, 4, 6, 8};
  std::printf("%-8s %6s %7s %9s %9s %9s %9s %9s %9s\n", "size", "chunks", "streams", "raw", "raw cs", "resident",
              "res/rawcs", "res wall", "res span");
  for (int si = 0; si < 2; si++) {
    size_t n = sizes[si] / 4;
    int64_t en = (int64_t)n;
    rs_array *pinned = NULL;
    RK(rs_pinned_array(&pinned, res.ctx, 1, &en, RS_FLOAT32, NULL, RS_ORDER_C, 0));
    float *hp = (float *)rs_array_host_data(pinned);
    fill(hp, n);
    Raw raw;
    CK(cudaMalloc(&raw.dev, sizes[si]));
    for (int i = 0; i < 8; i++) CK(cudaStreamCreateWithFlags(&raw.st[i], cudaStreamNonBlocking));
    raw_events(raw, 1);
    double best_raw = 1e30, best_res = 1e30;
    for (int chunks : chunk_set)
      for (int streams : stream_set) {
        if (streams > chunks) continue;
        double rc = timed(repeat, [&] { raw_chunked(raw, hp, n, 10, chunks, streams); });
        double rcs = streams <= 6 ? timed(repeat, [&] { raw_copy_streams(raw, hp, n, 10, chunks, streams); }) : 0;
        rs_streamed_report rep{};
        double rr = timed(repeat, [&] { rep = res_streamed(res, pinned, 10, 1, chunks, streams); });
        best_raw = std::min(best_raw, std::min(rc, rcs > 0 ? rcs : rc));
        best_res = std::min(best_res, rr);
        std::printf("%-8s %6d %7d %9.3f %9.3f %9.3f %9.2f %9.3f %9.3f\n", si == 0 ? "100 MB" : "1 GiB", chunks, streams,
                    rc, rcs, rr, rcs > 0 ? rr / rcs : 0.0, rep.wall_ms, rep.span_ms);
      }
    std::printf("%-8s best raw %.3f ms, best resident %.3f ms\n", si == 0 ? "100 MB" : "1 GiB", best_raw, best_res);
    raw_events(raw, 0);
    for (int i = 0; i < 8; i++) CK(cudaStreamDestroy(raw.st[i]));
    CK(cudaFree(raw.dev));
    RK(rs_array_release(pinned));
  }
}

int main(int argc, char **argv) {
  int repeat = 7, quick = 0, do_sweep = 0;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick")) quick = 1;
    else if (!std::strcmp(argv[i], "--sweep")) do_sweep = 1;
    else {
      std::fprintf(stderr, "usage: streamed [--repeat N] [--quick | --sweep]\n");
      return 2;
    }
  }
  if (repeat < 1) repeat = 1;
  Res res;
  RK(rs_context_create(&res.ctx, RS_BACKEND_CUDA, 0));
  rs_device_props props;
  RK(rs_context_get_props(res.ctx, &props));
  RK(rs_pipe_kernel_create(&res.pk, res.ctx, RS_FLOAT32));
  g_max_blocks = props.multiprocessors * (2048 / 256);
  if (do_sweep) {
    sweep(res, repeat);
    RK(rs_pipe_kernel_destroy(&res.pk));
    rs_context_destroy(res.ctx);
    return 0;
  }
  std::printf("streamed pipeline on %s: N kernels a = a*1.0001 + 1 over float32, median of %d (ms, host wall + sync)\n",
              props.name, repeat);
  std::printf("%-8s %-8s %2s %9s %9s %9s %9s %9s %9s %9s %7s %7s %7s %s\n", "size", "host", "N", "raw ser", "raw 16x4",
              "raw cs", "res expl", "res strm", "res 16x4", "stage max", "strm/raw", "x stage", "hidden",
              "chunks x streams, copies");
  const size_t sizes[2] = {100000000, (size_t)1 << 30};
  int fail = 0;
  double pinned_streamed[2][2] = {{0, 0}, {0, 0}};
  for (int si = 0; si < (quick ? 1 : 2); si++) {
    size_t bytes = sizes[si], n = bytes / 4;
    int64_t en = (int64_t)n;
    rs_array *pinned = NULL, *pageable = NULL;
    RK(rs_pinned_array(&pinned, res.ctx, 1, &en, RS_FLOAT32, NULL, RS_ORDER_C, 0));
    RK(rs_host_array(&pageable, res.ctx, 1, &en, RS_FLOAT32, NULL, RS_ORDER_C));
    RK(rs_device_array(&res.dev, res.ctx, 1, &en, RS_FLOAT32, NULL, RS_ORDER_C));
    Raw raw;
    CK(cudaMalloc(&raw.dev, bytes));
    for (int i = 0; i < 8; i++) CK(cudaStreamCreateWithFlags(&raw.st[i], cudaStreamNonBlocking));
    raw_events(raw, 1);
    int rep_n = bytes > 200000000 ? std::max(3, repeat / 2) : repeat;
    for (int h = 0; h < 2; h++) {
      rs_array *host = h == 0 ? pinned : pageable;
      float *hp = (float *)rs_array_host_data(host);
      fill(hp, n);
      for (int ki = 0; ki < 2; ki++) {
        int kernels = ki == 0 ? 3 : 10;
        // Correctness first, from a fresh fill: the chosen streamed run against the CPU loop.
        fill(hp, n);
        rs_streamed_report rep = res_streamed(res, host, kernels, 0);
        double err = check(hp, n, kernels);
        if (err > 4e-6 * (kernels + 1)) {
          std::printf("  WRONG result: streamed, relative error %.3g\n", err);
          fail = 1;
        }
        double rs_ = timed(rep_n, [&] { raw_serial(raw, hp, n, kernels); });
        double rc = timed(rep_n, [&] { raw_chunked(raw, hp, n, kernels); });
        double re = timed(rep_n, [&] { res_explicit(res, host, kernels); });
        double rst = timed(rep_n, [&] { rep = res_streamed(res, host, kernels, 0); });
        double r164 = timed(rep_n, [&] { res_streamed(res, host, kernels, 1); });
        // The raw version of the run's own schedule, with the sizes it chose (pinned only:
        // from pageable memory the driver's copies are synchronous).
        int cs_streams = (int)std::min<int64_t>(std::min(rep.streams, 6), rep.chunks);
        double rcs = h == 0 ? timed(rep_n, [&] { raw_copy_streams(raw, hp, n, kernels, (int)rep.chunks, cs_streams); }) : 0;
        float *pin = (float *)rs_array_host_data(pinned);
        double smax = std::max(std::max(stage_ms(raw, pin, n, 0, 0), stage_ms(raw, pin, n, 1, 0)),
                               stage_ms(raw, pin, n, 2, kernels));
        if (h == 0) pinned_streamed[si][ki] = rst;
        char name[16];
        std::snprintf(name, sizeof name, "%s", si == 0 ? "100 MB" : "1 GiB");
        std::printf("%-8s %-8s %2d %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %7.2f %7.2f %6.0f%% %lldx%d, %lld\n", name,
                    h == 0 ? "pinned" : "pageable", kernels, rs_, rc, rcs, re, rst, r164, smax, rst / rc, rst / smax,
                    rep.copy_ms > 0 ? 100.0 * rep.hidden_ms / rep.copy_ms : 0.0, (long long)rep.chunks, rep.streams,
                    (long long)rep.copies);
        if (h == 1) {
          std::printf("%-8s %-8s %2d   pageable streamed / pinned streamed = %.2f (target <= 1.25)\n", "", "", kernels,
                      rst / pinned_streamed[si][ki]);
          // The pageable array page-locked in place for the run instead of staged.
          double reg = timed(rep_n, [&] {
            RK(rs_pinned_begin(host));
            res_streamed(res, host, kernels, 1);
            RK(rs_pinned_end(host));
          });
          std::printf("%-8s %-8s %2d   page-locked for the run (rs_pinned_begin, 16x4, rs_pinned_end): %.3f ms = %.2f x pinned\n",
                      "", "", kernels, reg, reg / pinned_streamed[si][ki]);
        }
      }
    }
    raw_events(raw, 0);
    for (int i = 0; i < 8; i++) CK(cudaStreamDestroy(raw.st[i]));
    CK(cudaFree(raw.dev));
    RK(rs_array_release(res.dev));
    RK(rs_array_release(pinned));
    RK(rs_array_release(pageable));
  }
  RK(rs_pipe_kernel_destroy(&res.pk));
  rs_context_destroy(res.ctx);
  std::printf("targets: 10 kernels 100 MB pinned res strm <= 2.4 ms and <= raw 16x4; 1 GiB x stage <= 1.15; "
              "pageable / pinned <= 1.25\n");
  return fail;
}
