/* Kernel API met by real code, on every backend: a `static __constant__` table set from
 * the host; a __device__ variable the kernel writes, read back with
 * rs_kernel_get_constant; NULL for an optional pointer; float4 * and float2 * parameters
 * fed float32 arrays whose last axis is 4 or 2; a kernel in a namespace found by its
 * qualified name. */
#include "harness.h"
#include "kernel_test_util.h"

static const char *sym_src =
    "static __constant__ float scale[4];\n"
    "__device__ int hits;\n"
    "__device__ float last[2];\n"
    "extern \"C\" __global__ void apply(const float4 *in, float2 *out, int *optional, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  float4 v = in[i];\n"
    "  out[i] = make_float2(v.x * scale[0] + v.y * scale[1], v.z * scale[2] + v.w * scale[3]);\n"
    "  if (optional) optional[i] = i;\n"
    "  atomicAdd(&hits, 1);\n"
    "  if (i == n - 1) { last[0] = v.x; last[1] = v.w; }\n"
    "}\n";

static void test_symbols_null_and_vectors(rs_context *ctx) {
  enum { N = 300 };
  static float in[N][4], out[N][2];
  int opt[N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < 4; j++) in[i][j] = (float)(i * 4 + j);
  float scale[4] = {1.0f, 2.0f, 0.5f, -1.0f};
  int64_t s_in[2] = {N, 4}, s_out[2] = {N, 2}, four = 4, one = 1, two = 2;
  rs_array *ain = NULL, *aout = NULL, *asc = NULL, *aopt = kt_wrap(ctx, opt, N, RS_INT32);
  CHECK_OK(rs_host_array_wrap(&ain, ctx, in, 2, s_in, RS_FLOAT32, NULL));
  CHECK_OK(rs_host_array_wrap(&aout, ctx, out, 2, s_out, RS_FLOAT32, NULL));
  CHECK_OK(rs_host_array_wrap(&asc, ctx, scale, 1, &four, RS_FLOAT32, NULL));
  int hits = -1, zero = 0;
  float last[2] = {0, 0};
  rs_array *ahits = kt_wrap(ctx, &hits, 1, RS_INT32), *azero = kt_wrap(ctx, &zero, 1, RS_INT32);
  rs_array *alast = NULL;
  CHECK_OK(rs_host_array_wrap(&alast, ctx, last, 1, &two, RS_FLOAT32, NULL));
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, ctx, sym_src, "apply", NULL);
  char msg[1024] = "";
  rs_launch_config cfg = {.grid = {3}, .block = {128}};
  if (st == RS_OK) st = rs_kernel_set_constant(k, "scale", asc, NULL);
  if (st == RS_OK) st = rs_kernel_set_constant(k, "hits", azero, NULL);
  /* NULL for the optional output, then an array */
  if (st == RS_OK)
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ain), rs_arg_array(aout), rs_arg_null(), rs_arg_i32(N)));
  if (st == RS_OK)
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ain), rs_arg_array(aout), rs_arg_array(aopt), rs_arg_i32(N)));
  if (st == RS_OK) st = rs_kernel_get_constant(k, "hits", ahits, NULL);
  if (st == RS_OK) st = rs_kernel_get_constant(k, "last", alast, NULL);
  if (st != RS_OK) snprintf(msg, sizeof msg, "%s", rs_last_error());
  /* a float32 array whose last axis is not 4 is refused for float4 *, naming the rule */
  rs_status wrong = RS_OK;
  char wmsg[1024] = "";
  if (st == RS_OK) {
    wrong = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(aout), rs_arg_array(aout), rs_arg_null(), rs_arg_i32(N)));
    snprintf(wmsg, sizeof wmsg, "%s", rs_last_error());
  }
  /* reading more bytes than the variable holds */
  rs_status big = st == RS_OK ? rs_kernel_get_constant(k, "hits", alast, NULL) : RS_OK;
  rs_kernel_destroy(k);
  rs_array *all[] = {ain, aout, asc, aopt, ahits, azero, alast};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) rs_array_release(all[i]);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int i = 0; i < N; i++) {
    CHECK_NEAR(out[i][0], in[i][0] * 1.0 + in[i][1] * 2.0, 0.0);
    CHECK_NEAR(out[i][1], in[i][2] * 0.5 - in[i][3], 0.0);
    CHECK_EQ_I64(opt[i], i);
  }
  CHECK_EQ_I64(hits, 2 * N);
  CHECK_NEAR(last[0], in[N - 1][0], 0.0);
  CHECK_NEAR(last[1], in[N - 1][3], 0.0);
  CHECK(wrong == RS_ERR_SHAPE);
  CHECK_MSG(strstr(wmsg, "last axis has 4") != NULL, "%s", wmsg);
  CHECK(big == RS_ERR_SHAPE);
  (void)one;
}

static const char *ns_src =
    "namespace physics {\n"
    "namespace detail { __device__ float sq(float x) { return x * x; } }\n"
    "__global__ void energy(const float *v, float *e, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) e[i] = 0.5f * detail::sq(v[i]);\n"
    "}\n"
    "}\n";

static void test_qualified_kernel_name(rs_context *ctx) {
  enum { N = 100 };
  float v[N], e[N];
  for (int i = 0; i < N; i++) v[i] = (float)i;
  rs_array *av = kt_wrap(ctx, v, N, RS_FLOAT32), *ae = kt_wrap(ctx, e, N, RS_FLOAT32);
  char msg[1024];
  rs_status st = kt_run(ctx, ns_src, "physics::energy", 1, 128,
                        RS_ARGS(rs_arg_array(av), rs_arg_array(ae), rs_arg_i32(N)), msg, sizeof msg);
  rs_array_release(av);
  rs_array_release(ae);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int i = 0; i < N; i++) CHECK_NEAR(e[i], 0.5 * i * i, 0.0);
}

static const rs_test_case tests[] = {
    RS_TEST(test_symbols_null_and_vectors),
    RS_TEST(test_qualified_kernel_name),
};
RS_TEST_MAIN(tests)
