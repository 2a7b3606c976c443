/* One kernel source for both backends: a header shared with host code (host prototypes,
 * unannotated helpers) compiles under NVRTC as on the simulator, and a body under
 * `#if __CUDA_ARCH__ >= 700` runs on both (the simulator imitates sm_90). */
#include "harness.h"
#include "kernel_test_util.h"

static const char *portable_src =
    "// as a header shared with host code would declare them\n"
    "int host_count(const char *path);\n"
    "void host_report(float *values, int n);\n"
    "static inline int twice(int x) { return 2 * x; }\n"
    "int plus_one(int x) { return x + 1; }\n"
    "extern \"C\" __global__ void portable(int *out, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  out[i] = -1;\n"
    "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n"
    "  out[i] = plus_one(twice(i)) + __CUDA_ARCH__ * 0;\n"
    "#endif\n"
    "}\n";

static void test_one_source_both_backends(rs_context *ctx) {
  enum { N = 300 };
  int out[N];
  rs_array *a = kt_wrap(ctx, out, N, RS_INT32);
  char msg[1024];
  rs_status st = kt_run(ctx, portable_src, "portable", 3, 128, RS_ARGS(rs_arg_array(a), rs_arg_i32(N)), msg, sizeof msg);
  rs_array_release(a);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int i = 0; i < N; i++) CHECK_EQ_I64(out[i], 2 * i + 1);
}

static const rs_test_case tests[] = {
    RS_TEST(test_one_source_both_backends),
};
RS_TEST_MAIN(tests)
