/* The simulator as a debugger: a kernel that indexes a __shared__ or local array out of
 * bounds, or dereferences a misaligned or NULL pointer, stops with RS_ERR_KERNEL_FAULT
 * naming the thread, the block, the line and what it did, and the context stays usable.
 * (On a GPU these are memcheck's findings and the context is lost: simulator only.) */
#include "harness.h"
#include "kernel_test_util.h"

static const char *bad_src =
    "extern \"C\" __global__ void bad(float *out, int how) {\n"
    "  __shared__ float s[32];\n"
    "  float local[8];\n"
    "  for (int i = 0; i < 8; i++) local[i] = (float)i;\n"
    "  int t = threadIdx.x;\n"
    "  if (how == 0) s[t + 1] = 1.0f;\n"
    "  if (how == 1) out[t] = local[t % 9];\n"
    "  if (how == 2) { float4 v = *(const float4 *)(out + 1 + (t & 2)); out[t] = v.x; }\n"
    "  if (how == 3) { float *p = t == 5 ? (float *)0 : out + t; out[t] = *p; }\n"
    "  __syncthreads();\n"
    "  out[t] = s[t % 32] * 0.0f + local[t % 8];\n"
    "}\n";

static void test_faults_named(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* on a GPU: memcheck's job, and the context dies */
  float out[32];
  rs_array *a = kt_wrap(ctx, out, 32, RS_FLOAT32);
  static const char *const want[][4] = {
      {"thread (31,0,0)", "out-of-bounds index 32", "float [32]", ":6)"},
      {"thread (8,0,0)", "out-of-bounds index 8", "float [8]", ":7)"},
      {"thread (0,0,0)", "misaligned address", "16-byte alignment", ":8)"},
      {"thread (5,0,0)", "NULL pointer", "float", ":9)"},
  };
  for (int how = 0; how < 4; how++) {
    char msg[1024];
    rs_status st = kt_run(ctx, bad_src, "bad", 2, 32, RS_ARGS(rs_arg_array(a), rs_arg_i32(how)), msg, sizeof msg);
    CHECK_MSG(st == RS_ERR_KERNEL_FAULT, "how %d: %s", how, msg);
    for (int i = 0; i < 4; i++) CHECK_MSG(strstr(msg, want[how][i]) != NULL, "how %d: %s", how, msg);
    CHECK_MSG(strstr(msg, "block (") && strstr(msg, "still usable"), "%s", msg);
  }
  char msg[1024];
  CHECK_OK(kt_run(ctx, bad_src, "bad", 2, 32, RS_ARGS(rs_arg_array(a), rs_arg_i32(9)), msg, sizeof msg));
  for (int t = 0; t < 32; t++) CHECK_NEAR(out[t], (double)(t % 8), 0.0);
  rs_array_release(a);
}

static const rs_test_case tests[] = {
    RS_TEST(test_faults_named),
};
RS_TEST_MAIN(tests)
