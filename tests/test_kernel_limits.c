/* Per-block and per-thread memory as CUDA counts it, on every backend: static __shared__
 * bytes reported by rs_kernel_get_info and refused above 48 KiB; a per-thread local array
 * of 400 KiB beside a barrier runs (the simulator's fiber stacks hold CUDA's 512 KiB of
 * local memory per thread) and one above 512 KiB is a compile error naming the size and
 * the line. */
#include "harness.h"
#include "kernel_test_util.h"

static const char *shared_src =
    "extern \"C\" __global__ void shared_user(float *out) {\n"
    "  __shared__ float a[1000];\n"
    "  __shared__ int b[24];\n"
    "  extern __shared__ float dyn[];\n"
    "  a[threadIdx.x] = (float)threadIdx.x;\n"
    "  b[threadIdx.x % 24] = 1;\n"
    "  dyn[threadIdx.x] = 2.0f;\n"
    "  __syncthreads();\n"
    "  out[threadIdx.x] = a[(threadIdx.x + 1) % blockDim.x] + (float)b[0] + dyn[0];\n"
    "}\n";

static void test_static_shared_reported_and_limited(rs_context *ctx) {
  int sim = rs_context_backend(ctx) == RS_BACKEND_SIM;
  rs_kernel *k = NULL;
  CHECK_OK(rs_kernel_create(&k, ctx, shared_src, "shared_user", NULL));
  rs_kernel_info info;
  CHECK_OK(rs_kernel_get_info(k, &info));
  /* 4096 bytes declared; the simulator's thread-local layout may pad a little */
  CHECK_MSG(info.static_shared_bytes >= 4096 && info.static_shared_bytes <= 4096 + 64, "%zu",
            (size_t)info.static_shared_bytes);
  float out[128];
  rs_array *a = kt_wrap(ctx, out, 128, RS_FLOAT32);
  rs_launch_config cfg = {.grid = {1}, .block = {128}, .shared_bytes = 128 * sizeof(float)};
  CHECK_OK(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a))));
  for (int t = 0; t < 128; t++) CHECK_NEAR(out[t], (double)((t + 1) % 128) + 3.0, 0.0);
  if (sim) {
    /* static and dynamic share the 48 KiB of a block, as on CUDA without an opt-in */
    cfg.shared_bytes = 48 * 1024 - info.static_shared_bytes + 1;
    CHECK_STATUS(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a))), RS_ERR_LAUNCH);
  }
  rs_array_release(a);
  rs_kernel_destroy(k);
  static const char *big =
      "extern \"C\" __global__ void too_big(float *out) {\n"
      "  __shared__ float s[13000];\n"
      "  s[threadIdx.x] = 1.0f;\n"
      "  __syncthreads();\n"
      "  out[threadIdx.x] = s[0];\n"
      "}\n";
  rs_status st = rs_kernel_create(&k, ctx, big, "too_big", NULL);
  CHECK(st != RS_OK); /* 52000 bytes: NVRTC's ptxas and the simulator both refuse */
  if (sim) {
    CHECK(st == RS_ERR_COMPILE);
    CHECK_ERRMSG("static __shared__");
  }
}

static const char *local_src =
    "extern \"C\" __global__ void local_array(const int *in, int *out, int words) {\n"
    "  int local[LOCAL_WORDS];\n"
    "  for (int i = 0; i < words; i++) local[i] = in[threadIdx.x] + i;\n"
    "  __syncthreads();\n"
    "  int s = 0;\n"
    "  for (int i = 0; i < words; i += 997) s += local[i];\n"
    "  out[threadIdx.x] = s;\n"
    "}\n";

static void test_large_local_arrays(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* a GPU reserves it for every resident thread */
  enum { T = 32, WORDS = 100 * 1024 }; /* 400 KiB per thread */
  int in[T], out[T];
  for (int t = 0; t < T; t++) in[t] = t * 10;
  rs_array *ai = kt_wrap(ctx, in, T, RS_INT32), *ao = kt_wrap(ctx, out, T, RS_INT32);
  const char *opt[] = {"-DLOCAL_WORDS=102400"};
  rs_kernel_options o = {.noptions = 1, .options = opt};
  rs_kernel *k = NULL;
  CHECK_OK(rs_kernel_create(&k, ctx, local_src, "local_array", &o));
  rs_launch_config cfg = {.grid = {2}, .block = {T}};
  CHECK_OK(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ai), rs_arg_array(ao), rs_arg_i32(WORDS))));
  rs_kernel_destroy(k);
  for (int t = 0; t < T; t++) {
    int s = 0;
    for (int i = 0; i < WORDS; i += 997) s += in[t] + i;
    CHECK_EQ_I64(out[t], s);
  }
  /* 600 KiB: over CUDA's limit, refused at compile time with the size and the line */
  const char *opt2[] = {"-DLOCAL_WORDS=153600"};
  rs_kernel_options o2 = {.noptions = 1, .options = opt2};
  CHECK_STATUS(rs_kernel_create(&k, ctx, local_src, "local_array", &o2), RS_ERR_COMPILE);
  CHECK_ERRMSG("per-thread local memory");
  CHECK_ERRMSG("614");
  CHECK_ERRMSG(":1");
  rs_array_release(ai);
  rs_array_release(ao);
}

static const rs_test_case tests[] = {
    RS_TEST(test_static_shared_reported_and_limited),
    RS_TEST(test_large_local_arrays),
};
RS_TEST_MAIN(tests)
