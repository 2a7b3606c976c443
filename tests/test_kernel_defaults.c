/* Defaulted kernel parameters may be omitted at launch, as in a CUDA <<<>>> call, on both
 * backends: trailing parameters whose default is a literal (integers, floating constants,
 * true/false, nullptr for pointers) are passed their default; a default the library cannot
 * read (an expression) keeps the parameter required, with the count in the message. */
#include "harness.h"
#include "kernel_test_util.h"

static const char *src =
    "extern \"C\" __global__ void affine(float *y, int n, float a = 2.5f, int b = -3, bool twice = false,\n"
    "                                   unsigned long long mask = 0xffu, const float *bias = nullptr) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float v = a * (float)(i & (int)mask) + (float)b + (bias ? bias[i] : 0.0f);\n"
    "  y[i] = twice ? 2.0f * v : v;\n"
    "}\n"
    "extern \"C\" __global__ void computed(float *y, float a = 2.0f * 3.0f) { y[threadIdx.x] = a; }\n";

static double want(int i, double a, int b, int twice, unsigned mask, double bias) {
  double v = a * (double)(i & (int)mask) + b + bias;
  return twice ? 2 * v : v;
}

static void test_defaults_filled(rs_context *ctx) {
  enum { N = 300 };
  float y[N], bias[N];
  for (int i = 0; i < N; i++) bias[i] = 0.5f * (float)i;
  rs_array *ya = kt_wrap(ctx, y, N, RS_FLOAT32), *ba = kt_wrap(ctx, bias, N, RS_FLOAT32);
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "affine");
  rs_launch_config cfg = {.grid = {2}, .block = {256}};
  /* only the required two */
  CHECK_OK(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ya), rs_arg_i32(N))));
  for (int i = 0; i < N; i++) CHECK_NEAR(y[i], want(i, 2.5, -3, 0, 0xff, 0), 1e-6);
  /* some given, the rest defaulted */
  CHECK_OK(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ya), rs_arg_i32(N), rs_arg_f32(1.0f), rs_arg_i32(4),
                                             rs_arg_bool(1))));
  for (int i = 0; i < N; i++) CHECK_NEAR(y[i], want(i, 1.0, 4, 1, 0xff, 0), 1e-6);
  /* all given */
  CHECK_OK(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ya), rs_arg_i32(N), rs_arg_f32(1.0f), rs_arg_i32(0),
                                             rs_arg_bool(0), rs_arg_u64(0x7), rs_arg_array(ba))));
  for (int i = 0; i < N; i++) CHECK_NEAR(y[i], want(i, 1.0, 0, 0, 0x7, 0.5 * i), 1e-6);
  /* a required parameter still is */
  CHECK_STATUS(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ya))), RS_ERR_LAUNCH);
  CHECK_MSG(strstr(rs_last_error(), "takes 7 arguments but 1 was passed") != NULL, "%s", rs_last_error());
  rs_kernel_destroy(k);
  /* a default that is an expression cannot be read by the library: required */
  KT_CREATE(k, ctx, src, "computed");
  rs_launch_config one = {.grid = {1}, .block = {4}};
  CHECK_STATUS(rs_kernel_launch(k, &one, RS_ARGS(rs_arg_array(ya))), RS_ERR_LAUNCH);
  CHECK_MSG(strstr(rs_last_error(), "takes 2 arguments but 1 was passed") != NULL, "%s", rs_last_error());
  CHECK_OK(rs_kernel_launch(k, &one, RS_ARGS(rs_arg_array(ya), rs_arg_f32(7.0f))));
  for (int i = 0; i < 4; i++) CHECK_NEAR(y[i], 7.0, 0.0);
  rs_kernel_destroy(k);
  rs_array_release(ya);
  rs_array_release(ba);
}

static const rs_test_case tests[] = {
    RS_TEST(test_defaults_filled),
};
RS_TEST_MAIN(tests)
