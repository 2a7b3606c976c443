/* examples/kernel_shared_memory.c - the device's memory spaces in one kernel:
 *   - dynamic shared memory carved into two disjoint views (a float tile and an int
 *     histogram): every `extern __shared__` array names the SAME bytes, so there is one
 *     declaration and the views are offsets into it, each aligned for its type;
 *   - __constant__ coefficients filled from a host array before the launch;
 *   - a local (per-thread) array;
 *   - atomics on shared and on global memory, and two barriers.
 *
 *   cc kernel_shared_memory.c $(pkg-config --cflags --libs resident) && ./a.out
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <resident.h>

static const char *shared_memory_source =
    "#include <resident_device.h>\n"
    "__constant__ float coef[4];\n"
    "extern \"C\" __global__ void mirror_poly(const float *x, float *y, int *counts, long long n) {\n"
    "  extern __shared__ unsigned char smem[];          // cfg.shared_bytes, one block of bytes\n"
    "  float *tile = (float *)smem;                      // view 1: blockDim.x floats\n"
    "  int *hist = (int *)(smem + ((blockDim.x * sizeof(float) + 15) & ~(size_t)15)); // view 2\n"
    "  unsigned t = threadIdx.x;\n"
    "  long long i = RS_GLOBAL_ID();\n"
    "  if (t < 4) hist[t] = 0;\n"
    "  tile[t] = i < n ? x[i] : 0.0f;\n"
    "  __syncthreads();\n"
    "  float v = tile[blockDim.x - 1 - t];                // another thread's element\n"
    "  float p[4];                                        // a local array\n"
    "  p[0] = 1.0f;\n"
    "  for (int k = 1; k < 4; k++) p[k] = p[k - 1] * v;\n"
    "  float acc = 0.0f;\n"
    "  for (int k = 0; k < 4; k++) acc += coef[k] * p[k];\n"
    "  if (i < n) {\n"
    "    y[i] = acc;\n"
    "    atomicAdd(&hist[(int)v & 3], 1);\n"
    "  }\n"
    "  __syncthreads();\n"
    "  if (t < 4) atomicAdd(&counts[t], hist[t]);\n"
    "}\n";

/* Runs mirror_poly over n elements in blocks of `block` threads; *max_err compares y and
 * *count_err the histogram with the CPU's. */
rs_status example_shared_memory(rs_context *ctx, int64_t n, unsigned block, double *max_err, int64_t *count_err) {
  const float coef[4] = {1.0f, -0.5f, 0.25f, 0.125f};
  int64_t four = 4;
  float *x = malloc((size_t)n * sizeof *x), *y = calloc((size_t)n, sizeof *y);
  int counts[4] = {0, 0, 0, 0};
  rs_array *hx = NULL, *hy = NULL, *hc = NULL, *hcoef = NULL;
  rs_kernel *k = NULL;
  rs_status st = x && y ? RS_OK : RS_ERR_HOST_OUT_OF_MEMORY;
  for (int64_t i = 0; st == RS_OK && i < n; i++) x[i] = (float)(i % 5);
  if (st == RS_OK) st = rs_host_array_wrap(&hx, ctx, x, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hy, ctx, y, 1, &n, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hc, ctx, counts, 1, &four, RS_INT32, NULL);
  if (st == RS_OK) st = rs_host_array_wrap(&hcoef, ctx, (void *)coef, 1, &four, RS_FLOAT32, NULL);
  if (st == RS_OK) st = rs_kernel_create(&k, ctx, shared_memory_source, "mirror_poly", NULL);
  if (st == RS_OK) st = rs_kernel_set_constant(k, "coef", hcoef, NULL); /* before the launch, same stream */
  if (st == RS_OK) {
    rs_launch_config cfg = {.grid = {(unsigned)((n + block - 1) / block)}, .block = {block}};
    cfg.shared_bytes = ((block * sizeof(float) + 15) & ~(size_t)15) + 4 * sizeof(int);
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(hx), rs_arg_array(hy), rs_arg_array(hc), rs_arg_i64(n)));
  }
  double err = 0;
  int want[4] = {0, 0, 0, 0};
  for (int64_t i = 0; st == RS_OK && i < n; i++) {
    int64_t b0 = i / block * block, j = b0 + (block - 1 - (i - b0));
    float v = j < n ? x[j] : 0.0f, p = 1.0f, acc = 0.0f;
    for (int e = 0; e < 4; e++) {
      acc += coef[e] * p;
      p *= v;
    }
    err = fmax(err, fabs((double)y[i] - acc));
    want[(int)v & 3]++;
  }
  *max_err = err;
  *count_err = 0;
  for (int e = 0; e < 4; e++) *count_err += llabs((long long)counts[e] - want[e]);
  rs_kernel_destroy(k);
  rs_array_release(hx);
  rs_array_release(hy);
  rs_array_release(hc);
  rs_array_release(hcoef);
  free(x);
  free(y);
  return st;
}

#ifndef RS_EXAMPLE_NO_MAIN
int main(void) {
  rs_context *ctx = NULL;
  rs_status st = rs_context_create(&ctx, RS_BACKEND_AUTO, 0);
  double err = 0;
  int64_t count_err = 0;
  if (st == RS_OK) st = example_shared_memory(ctx, 100000, 128, &err, &count_err);
  if (st != RS_OK) {
    fprintf(stderr, "shared_memory: %s: %s\n", rs_status_name(st), rs_last_error());
    rs_context_destroy(ctx);
    return 1;
  }
  printf("shared memory on %s: max error %g, histogram off by %lld\n", rs_backend_name(rs_context_backend(ctx)), err,
         (long long)count_err);
  rs_context_destroy(ctx);
  return err <= 1e-6 && count_err == 0 ? 0 : 1;
}
#endif
