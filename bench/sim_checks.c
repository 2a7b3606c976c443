/* What the simulator's memory and race checks cost (RESIDENT_SIM_CHECKS): the same
 * kernels on two simulator contexts, one with the checks (the default) and one without -
 * the compile of a kernel (no disk cache) and the median of its launches.
 *   bench/sim_checks [elements]     (default 4194304)
 * Kernels: saxpy (global loads and stores only), a shared-memory block reduction with
 * barriers (shared traffic, the race check's shadow) and a tiled transpose. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "resident.h"

static const char *src =
    "extern \"C\" __global__ void saxpy(float *y, const float *x, float a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void block_sum(float *out, const float *x, int n) {\n"
    "  __shared__ float s[256];\n"
    "  int t = threadIdx.x, i = blockIdx.x * 256 + t;\n"
    "  s[t] = i < n ? x[i] : 0.0f;\n"
    "  __syncthreads();\n"
    "  for (int k = 128; k > 0; k >>= 1) {\n"
    "    if (t < k) s[t] += s[t + k];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) out[blockIdx.x] = s[0];\n"
    "}\n"
    "extern \"C\" __global__ void transpose(float *out, const float *in, int w) {\n"
    "  __shared__ float tile[32][33];\n"
    "  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;\n"
    "  tile[threadIdx.y][threadIdx.x] = in[y * w + x];\n"
    "  __syncthreads();\n"
    "  x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;\n"
    "  out[y * w + x] = tile[threadIdx.x][threadIdx.y];\n"
    "}\n";

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

#define TRY(call)                                                               \
  do {                                                                          \
    rs_status st_ = (call);                                                     \
    if (st_ != RS_OK) {                                                         \
      fprintf(stderr, "%s failed: %s\n", #call, rs_last_error());               \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

/* compile ms and median launch ms of kernel name */
static void measure(rs_context *ctx, const char *name, rs_launch_config cfg, int nargs, const rs_arg *args,
                    double *compile, double *run) {
  rs_kernel *k = NULL;
  double t0 = now_ms();
  TRY(rs_kernel_create(&k, ctx, src, name, NULL));
  *compile = now_ms() - t0;
  double times[7];
  TRY(rs_kernel_launch(k, &cfg, nargs, args)); /* warm */
  TRY(rs_kernel_synchronize(k, NULL));
  for (int r = 0; r < 7; r++) {
    t0 = now_ms();
    TRY(rs_kernel_launch(k, &cfg, nargs, args));
    TRY(rs_kernel_synchronize(k, NULL));
    times[r] = now_ms() - t0;
  }
  qsort(times, 7, sizeof *times, cmp);
  *run = times[3];
  rs_kernel_destroy(k);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4194304;
  int w = 1024; /* transpose: w x w */
  if (n < w * w) n = w * w;
  double c[2][3], r[2][3];
  for (int on = 1; on >= 0; on--) {
    setenv("RESIDENT_BACKEND", "sim", 1);
    setenv("RESIDENT_CACHE_DIR", "off", 1); /* every compile is a real one */
    setenv("RESIDENT_SIM_CHECKS", on ? "1" : "0", 1);
    rs_context *ctx = NULL;
    TRY(rs_context_create(&ctx, RS_BACKEND_SIM, 0));
    int64_t shape = n, nb = (n + 255) / 256;
    rs_array *x = NULL, *y = NULL, *o = NULL;
    TRY(rs_device_array(&x, ctx, 1, &shape, RS_FLOAT32, NULL, RS_ORDER_C));
    TRY(rs_device_array(&y, ctx, 1, &shape, RS_FLOAT32, NULL, RS_ORDER_C));
    TRY(rs_device_array(&o, ctx, 1, &nb, RS_FLOAT32, NULL, RS_ORDER_C));
    rs_launch_config flat = {.grid = {(unsigned)nb}, .block = {256}};
    rs_launch_config tiles = {.grid = {(unsigned)(w / 32), (unsigned)(w / 32), 1}, .block = {32, 32, 1}};
    measure(ctx, "saxpy", flat, RS_ARGS(rs_arg_array(y), rs_arg_array(x), rs_arg_f32(2.0f), rs_arg_i32(n)),
            &c[on][0], &r[on][0]);
    measure(ctx, "block_sum", flat, RS_ARGS(rs_arg_array(o), rs_arg_array(x), rs_arg_i32(n)), &c[on][1], &r[on][1]);
    measure(ctx, "transpose", tiles, RS_ARGS(rs_arg_array(y), rs_arg_array(x), rs_arg_i32(w)), &c[on][2], &r[on][2]);
    rs_array_release(x);
    rs_array_release(y);
    rs_array_release(o);
    rs_context_destroy(ctx);
  }
  static const char *const names[] = {"saxpy", "block_sum (barriers)", "transpose 1024^2 (tiles)"};
  printf("simulator checks (RESIDENT_SIM_CHECKS), %d elements; compile without cache, median of 7 launches\n", n);
  printf("%-26s %12s %12s %8s %12s %12s %8s\n", "kernel", "run off ms", "run on ms", "x", "compile off", "compile on",
         "x");
  for (int i = 0; i < 3; i++)
    printf("%-26s %12.1f %12.1f %8.2f %12.0f %12.0f %8.2f\n", names[i], r[0][i], r[1][i], r[1][i] / r[0][i], c[0][i],
           c[1][i], c[1][i] / c[0][i]);
  return 0;
}
