/* Kernels in the idioms real CUDA code is written in, run unchanged on every backend and
 * checked against plain C loops: a warp-shuffle scan, a shared-memory histogram with
 * atomics, a tiled transpose, a constant-memory convolution, a bitonic sort and a
 * last-block-finishes reduction with __threadfence. (The cooperative-groups block
 * reduction is in test_kernel_cg.c.) */
#include <stdlib.h>
#include "harness.h"
#include "kernel_test_util.h"

/* ---- warp-shuffle inclusive scan of each block ---- */
static const char *scan_src =
    "extern \"C\" __global__ void block_scan(const int *in, int *out, int n) {\n"
    "  __shared__ int warp_total[32];\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;\n"
    "  int v = i < n ? in[i] : 0;\n"
    "  for (int d = 1; d < warpSize; d *= 2) {\n"
    "    int up = __shfl_up_sync(0xffffffffu, v, d);\n"
    "    if (lane >= d) v += up;\n"
    "  }\n"
    "  if (lane == warpSize - 1) warp_total[warp] = v;\n"
    "  __syncthreads();\n"
    "  if (warp == 0) {\n"
    "    int nw = blockDim.x / warpSize;\n"
    "    int t = lane < nw ? warp_total[lane] : 0;\n"
    "    for (int d = 1; d < warpSize; d *= 2) {\n"
    "      int up = __shfl_up_sync(0xffffffffu, t, d);\n"
    "      if (lane >= d) t += up;\n"
    "    }\n"
    "    if (lane < nw) warp_total[lane] = t;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  if (warp > 0) v += warp_total[warp - 1];\n"
    "  if (i < n) out[i] = v;\n"
    "}\n";

static void test_warp_shuffle_scan(rs_context *ctx) {
  enum { N = 1000, B = 256 };
  static int in[N], out[N];
  for (int i = 0; i < N; i++) in[i] = (i * 7) % 11 - 5;
  rs_array *a = kt_wrap(ctx, in, N, RS_INT32), *b = kt_wrap(ctx, out, N, RS_INT32);
  char msg[1024];
  rs_status st = kt_run(ctx, scan_src, "block_scan", (N + B - 1) / B, B,
                        RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(N)), msg, sizeof msg);
  rs_array_release(a);
  rs_array_release(b);
  CHECK_MSG(st == RS_OK, "%s", msg);
  int run = 0;
  for (int i = 0; i < N; i++) {
    if (i % B == 0) run = 0;
    run += in[i];
    CHECK_MSG(out[i] == run, "element %d: %d, want %d", i, out[i], run);
  }
}

/* ---- histogram: per-block counts in shared memory, then global atomics ---- */
static const char *hist_src =
    "#define BINS 64\n"
    "extern \"C\" __global__ void histogram(const unsigned char *data, unsigned *bins, int n) {\n"
    "  __shared__ unsigned local[BINS];\n"
    "  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;\n"
    "  __syncthreads();\n"
    "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)\n"
    "    atomicAdd(&local[data[i] % BINS], 1u);\n"
    "  __syncthreads();\n"
    "  for (int b = threadIdx.x; b < BINS; b += blockDim.x)\n"
    "    if (local[b]) atomicAdd(&bins[b], local[b]);\n"
    "}\n";

static void test_shared_histogram(rs_context *ctx) {
  enum { N = 100003 };
  static unsigned char data[N];
  unsigned bins[64] = {0}, ref[64] = {0};
  for (int i = 0; i < N; i++) {
    data[i] = (unsigned char)((i * 2654435761u) >> 13);
    ref[data[i] % 64]++;
  }
  rs_array *a = kt_wrap(ctx, data, N, RS_UINT8), *b = kt_wrap(ctx, bins, 64, RS_UINT32);
  char msg[1024];
  rs_status st = kt_run(ctx, hist_src, "histogram", 20, 128, RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(N)),
                        msg, sizeof msg);
  rs_array_release(a);
  rs_array_release(b);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int i = 0; i < 64; i++) CHECK_EQ_I64(bins[i], ref[i]);
}

/* ---- transpose through a padded 32x32 shared tile, 32x8 threads per block ---- */
static const char *transpose_src =
    "#define TILE 32\n"
    "#define ROWS 8\n"
    "extern \"C\" __global__ void transpose(const float *in, float *out, int w, int h) {\n"
    "  __shared__ float tile[TILE][TILE + 1];\n"
    "  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;\n"
    "  for (int j = 0; j < TILE; j += ROWS)\n"
    "    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];\n"
    "  __syncthreads();\n"
    "  x = blockIdx.y * TILE + threadIdx.x;\n"
    "  y = blockIdx.x * TILE + threadIdx.y;\n"
    "  for (int j = 0; j < TILE; j += ROWS)\n"
    "    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];\n"
    "}\n";

static void test_tiled_transpose(rs_context *ctx) {
  enum { W = 100, H = 70 };
  static float in[W * H], out[W * H];
  for (int i = 0; i < W * H; i++) in[i] = (float)i;
  rs_array *a = kt_wrap(ctx, in, W * H, RS_FLOAT32), *b = kt_wrap(ctx, out, W * H, RS_FLOAT32);
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, ctx, transpose_src, "transpose", NULL);
  if (st == RS_OK) {
    rs_launch_config cfg = {.grid = {(W + 31) / 32, (H + 31) / 32}, .block = {32, 8}};
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(W), rs_arg_i32(H)));
  }
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", st == RS_OK ? "" : rs_last_error());
  rs_kernel_destroy(k);
  rs_array_release(a);
  rs_array_release(b);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) CHECK_NEAR(out[x * H + y], in[y * W + x], 0.0);
}

/* ---- 1-D convolution with taps in constant memory ---- */
static const char *conv_src =
    "#define R 4\n"
    "__constant__ float taps[2 * R + 1];\n"
    "extern \"C\" __global__ void convolve(const float *in, float *out, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float s = 0.0f;\n"
    "#pragma unroll\n"
    "  for (int k = -R; k <= R; k++) {\n"
    "    int j = i + k;\n"
    "    if (j >= 0 && j < n) s += taps[k + R] * in[j];\n"
    "  }\n"
    "  out[i] = s;\n"
    "}\n";

static void test_constant_convolution(rs_context *ctx) {
  enum { N = 5000 };
  static float in[N], out[N];
  float taps[9];
  for (int i = 0; i < N; i++) in[i] = (float)(i % 17) - 8.0f;
  for (int k = 0; k < 9; k++) taps[k] = (float)(k + 1) * 0.125f; /* small dyadic: exact sums */
  rs_array *a = kt_wrap(ctx, in, N, RS_FLOAT32), *b = kt_wrap(ctx, out, N, RS_FLOAT32);
  rs_array *t = kt_wrap(ctx, taps, 9, RS_FLOAT32);
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, ctx, conv_src, "convolve", NULL);
  if (st == RS_OK) st = rs_kernel_set_constant(k, "taps", t, NULL);
  if (st == RS_OK) {
    rs_launch_config cfg = {.elements = N};
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(b), rs_arg_i32(N)));
  }
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", st == RS_OK ? "" : rs_last_error());
  rs_kernel_destroy(k);
  rs_array_release(a);
  rs_array_release(b);
  rs_array_release(t);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int d = -4; d <= 4; d++)
      if (i + d >= 0 && i + d < N) s += taps[d + 4] * in[i + d];
    CHECK_NEAR(out[i], s, 0.0);
  }
}

/* ---- bitonic sort of 1024 keys in one block's shared memory ---- */
static const char *bitonic_src =
    "#define N 1024\n"
    "extern \"C\" __global__ void bitonic(int *keys) {\n"
    "  __shared__ int s[N];\n"
    "  for (int i = threadIdx.x; i < N; i += blockDim.x) s[i] = keys[i];\n"
    "  __syncthreads();\n"
    "  for (int size = 2; size <= N; size <<= 1) {\n"
    "    for (int stride = size >> 1; stride > 0; stride >>= 1) {\n"
    "      for (int i = threadIdx.x; i < N; i += blockDim.x) {\n"
    "        int j = i ^ stride;\n"
    "        if (j > i) {\n"
    "          bool up = (i & size) == 0;\n"
    "          int a = s[i], b = s[j];\n"
    "          if ((a > b) == up) { s[i] = b; s[j] = a; }\n"
    "        }\n"
    "      }\n"
    "      __syncthreads();\n"
    "    }\n"
    "  }\n"
    "  for (int i = threadIdx.x; i < N; i += blockDim.x) keys[i] = s[i];\n"
    "}\n";

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

static void test_bitonic_sort(rs_context *ctx) {
  static int keys[1024], ref[1024];
  for (int i = 0; i < 1024; i++) ref[i] = keys[i] = (int)((i * 2654435761u) >> 7) % 5000 - 2500;
  qsort(ref, 1024, sizeof ref[0], cmp_int);
  rs_array *a = kt_wrap(ctx, keys, 1024, RS_INT32);
  char msg[1024];
  rs_status st = kt_run(ctx, bitonic_src, "bitonic", 1, 256, RS_ARGS(rs_arg_array(a)), msg, sizeof msg);
  rs_array_release(a);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int i = 0; i < 1024; i++) CHECK_EQ_I64(keys[i], ref[i]);
}

/* ---- the last block to finish sums the partial sums (__threadfence + a ticket) ---- */
static const char *last_block_src =
    "extern \"C\" __global__ void sum_last_block(const float *x, float *partial, unsigned *ticket,\n"
    "                                             float *total, int n) {\n"
    "  __shared__ float s[256];\n"
    "  __shared__ bool last;\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  s[threadIdx.x] = i < n ? x[i] : 0.0f;\n"
    "  __syncthreads();\n"
    "  for (int h = blockDim.x / 2; h > 0; h /= 2) {\n"
    "    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (threadIdx.x == 0) {\n"
    "    partial[blockIdx.x] = s[0];\n"
    "    __threadfence();\n"
    "    unsigned done = atomicInc(ticket, gridDim.x);\n"
    "    last = done == gridDim.x - 1;\n"
    "  }\n"
    "  __syncthreads();\n"
    "  if (last && threadIdx.x == 0) {\n"
    "    float t = 0.0f;\n"
    "    for (unsigned b = 0; b < gridDim.x; b++) t += ((volatile float *)partial)[b];\n"
    "    *total = t;\n"
    "    *ticket = 0;\n"
    "  }\n"
    "}\n";

static void test_last_block_reduction(rs_context *ctx) {
  enum { N = 50000, B = 256, G = (N + B - 1) / B };
  static float x[N], partial[G];
  unsigned ticket = 0;
  float total = -1;
  double ref = 0;
  for (int i = 0; i < N; i++) ref += x[i] = (float)(i % 3);
  rs_array *a[4] = {kt_wrap(ctx, x, N, RS_FLOAT32), kt_wrap(ctx, partial, G, RS_FLOAT32),
                    kt_wrap(ctx, &ticket, 1, RS_UINT32), kt_wrap(ctx, &total, 1, RS_FLOAT32)};
  char msg[1024];
  rs_status st = kt_run(ctx, last_block_src, "sum_last_block", G, B,
                        RS_ARGS(rs_arg_array(a[0]), rs_arg_array(a[1]), rs_arg_array(a[2]), rs_arg_array(a[3]),
                                rs_arg_i32(N)),
                        msg, sizeof msg);
  for (int i = 0; i < 4; i++) rs_array_release(a[i]);
  CHECK_MSG(st == RS_OK, "%s", msg);
  CHECK_NEAR(total, ref, 0.0); /* integers below 2^24: exact in any order */
  CHECK_EQ_I64(ticket, 0);
}

static const rs_test_case tests[] = {
    RS_TEST(test_warp_shuffle_scan), RS_TEST(test_shared_histogram),  RS_TEST(test_tiled_transpose),
    RS_TEST(test_constant_convolution), RS_TEST(test_bitonic_sort), RS_TEST(test_last_block_reduction),
};
RS_TEST_MAIN(tests)
