/* User kernels' arguments: checked against the parameter list parsed from the source
 * (count, kind, dtype), scalars of every dtype, descriptors of strided views, and the
 * implicit copies of host arrays - const parameters never copied back, device, managed
 * and mapped arrays never copied at all. */
#include "harness.h"
#include "kernel_test_util.h"
#include "resident/ledger.h"
#include "resident/ops.h"
#include "resident_device.h"

static const char *three_src =
    "extern \"C\" __global__ void three(const float *in, float *out, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = 2.0f * in[i];\n"
    "}\n";

static void test_argument_count(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, three_src, "three");
  int64_t n = 16;
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.elements = n};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(a)));
  rs_array_release(a);
  rs_kernel_destroy(k);
  CHECK(st == RS_ERR_LAUNCH);
  CHECK_ERRMSG("takes 3 arguments but 2 were passed");
}

static void test_argument_kinds(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, three_src, "three");
  int64_t n = 16;
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.elements = n};
  /* a scalar where a pointer is declared */
  rs_status st1 = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_f32(1), rs_arg_array(a), rs_arg_i32(16)));
  char m1[1024];
  snprintf(m1, sizeof m1, "%s", rs_last_error());
  /* an array where a scalar is declared */
  rs_status st2 = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(a), rs_arg_array(a)));
  char m2[1024];
  snprintf(m2, sizeof m2, "%s", rs_last_error());
  /* a descriptor where a pointer is declared */
  rs_status st3 = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_desc(a), rs_arg_array(a), rs_arg_i32(16)));
  char m3[1024];
  snprintf(m3, sizeof m3, "%s", rs_last_error());
  /* an invalid scalar */
  rs_status st4 = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(a), rs_arg_scalar(RS_DTYPE_COUNT, &n)));
  rs_kernel_info info;
  CHECK_OK(rs_kernel_get_info(k, &info));
  rs_array_release(a);
  rs_kernel_destroy(k);
  CHECK(st1 == RS_ERR_LAUNCH && st2 == RS_ERR_LAUNCH && st3 == RS_ERR_LAUNCH && st4 == RS_ERR_LAUNCH);
  CHECK_MSG(strstr(m1, "parameter 0 'in'") && strstr(m1, "const float *") && strstr(m1, "a scalar"), "%s", m1);
  CHECK_MSG(strstr(m2, "parameter 2 'n'") && strstr(m2, "rs_arg_array"), "%s", m2);
  CHECK_MSG(strstr(m3, "rs_arg_desc"), "%s", m3);
  CHECK_EQ_I64(info.launches, 0); /* nothing was launched */
}

static const char *scalars_src =
    "typedef struct { unsigned short bits; } half_bits;\n"
    "extern \"C\" __global__ void scalars(bool b, signed char i8, short i16, int i32, long long i64,\n"
    "    unsigned char u8, unsigned short u16, unsigned int u32, unsigned long long u64, half_bits f16,\n"
    "    float f32, double f64, float2 c64, double2 c128, double *out) {\n"
    "  out[0] = b; out[1] = i8; out[2] = i16; out[3] = i32; out[4] = (double)i64;\n"
    "  out[5] = u8; out[6] = u16; out[7] = u32; out[8] = (double)u64; out[9] = f16.bits;\n"
    "  out[10] = f32; out[11] = f64; out[12] = c64.x; out[13] = c64.y; out[14] = c128.x; out[15] = c128.y;\n"
    "}\n";

static void test_scalars_of_every_dtype(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, scalars_src, "scalars");
  int64_t n = 16;
  rs_array *out = NULL;
  CHECK_OK(rs_device_array(&out, ctx, 1, &n, RS_FLOAT64, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {1}, .block = {1}};
  unsigned short h = 0x3C00; /* 1.0 in IEEE half */
  rs_status st = rs_kernel_launch(
      k, &cfg,
      RS_ARGS(rs_arg_bool(1), rs_arg_i8(-8), rs_arg_i16(-1600), rs_arg_i32(-320000), rs_arg_i64(-(1LL << 40)),
              rs_arg_u8(200), rs_arg_u16(60000), rs_arg_u32(4000000000u), rs_arg_u64(1ULL << 50),
              rs_arg_scalar(RS_FLOAT16, &h), rs_arg_f32(1.5f), rs_arg_f64(-2.25), rs_arg_c64(3.5f, -4.5f),
              rs_arg_c128(5.25, -6.75), rs_arg_array(out)));
  double got[16] = {0};
  if (st == RS_OK) st = rs_t_read_(out, got);
  rs_array_release(out);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  const double want[16] = {1, -8, -1600, -320000, -(double)(1LL << 40), 200, 60000, 4000000000.0,
                           (double)(1ULL << 50), 0x3C00, 1.5, -2.25, 3.5, -4.5, 5.25, -6.75};
  for (int i = 0; i < 16; i++) CHECK_MSG(got[i] == want[i], "value %d: %g, want %g", i, got[i], want[i]);
}

static void test_scalar_dtype_checks(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, three_src, "three");
  int64_t n = 16;
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.elements = n};
  rs_status wide = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(a), rs_arg_i64(16)));
  char m1[1024];
  snprintf(m1, sizeof m1, "%s", rs_last_error());
  rs_status flt = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(a), rs_arg_f32(16)));
  rs_status uns = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(a), rs_arg_u32(16)));
  if (uns == RS_OK) uns = rs_context_synchronize(ctx);
  rs_array_release(a);
  rs_kernel_destroy(k);
  CHECK(wide == RS_ERR_LAUNCH);
  CHECK_MSG(strstr(m1, "declared 'int' (4 bytes") && strstr(m1, "int64"), "%s", m1);
  CHECK(flt == RS_ERR_LAUNCH);
  CHECK_OK(uns); /* the same bits: unsigned into int is accepted */
}

static void test_pointer_dtype_checks(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void bytes(const unsigned char *raw, float *f, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) f[i] = raw[4 * i] == 0 ? 1.0f : 0.0f;\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "bytes");
  int64_t n = 8;
  rs_array *f = NULL, *d = NULL;
  CHECK_OK(rs_device_array(&f, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d, ctx, 1, &n, RS_FLOAT64, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.elements = n};
  rs_status wrong = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(f), rs_arg_array(d), rs_arg_i32(8)));
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  /* a byte pointer takes any array; d is zeros, so every f[i] becomes 1 */
  rs_status bytes = rs_zeros_into(d, NULL);
  if (bytes == RS_OK) bytes = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(d), rs_arg_array(f), rs_arg_i32(8)));
  if (bytes == RS_OK) bytes = rs_context_synchronize(ctx);
  double got = 0;
  for (int64_t i = 0; bytes == RS_OK && i < n; i++) {
    bytes = rs_array_item_double(f, &i, &got, NULL);
    if (bytes == RS_OK && got != 1.0) bytes = RS_ERR_INTERNAL;
  }
  rs_array_release(f);
  rs_array_release(d);
  rs_kernel_destroy(k);
  CHECK(wrong == RS_ERR_DTYPE);
  CHECK_MSG(strstr(m, "float *") && strstr(m, "float64"), "%s", m);
  CHECK_OK(bytes);
}

static void test_parsed_parameters(rs_context *ctx) {
  static const char *src =
      "#include <resident_device.h>\n"
      "/* a comment with __global__ void decoy(int x) */\n"
      "#define UNUSED(x) (void)(x)\n"
      "template <typename T> __device__ T twice(T v) { return v + v; }\n"
      "extern \"C\" __global__ void __launch_bounds__(256)\n"
      "params(const float *__restrict__ a, float *const b, const int *const *c, unsigned long long n,\n"
      "       const double x[], rs_array_const_desc d, rs_array_desc e, float2 z) {\n"
      "  UNUSED(a); UNUSED(b); UNUSED(c); UNUSED(n); UNUSED(x); UNUSED(d); UNUSED(e); UNUSED(z);\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "params");
  struct {
    const char *name;
    rs_param_kind kind;
    int read_only;
    size_t size;
  } want[] = {{"a", RS_PARAM_POINTER, 1, 8},     {"b", RS_PARAM_POINTER, 0, 8},
              /* c points at const pointers: what it points at is read-only */
              {"c", RS_PARAM_POINTER, 1, 8},     {"n", RS_PARAM_SCALAR, 0, 8},
              {"x", RS_PARAM_POINTER, 1, 8},     {"d", RS_PARAM_DESCRIPTOR, 1, sizeof(rs_array_desc)},
              {"e", RS_PARAM_DESCRIPTOR, 0, sizeof(rs_array_desc)}, {"z", RS_PARAM_SCALAR, 0, 8}};
  rs_kernel_info info;
  rs_status st = rs_kernel_get_info(k, &info);
  rs_kernel_param p[8];
  for (int i = 0; st == RS_OK && i < 8; i++) st = rs_kernel_get_param(k, i, &p[i]);
  rs_status past = rs_kernel_get_param(k, 8, &p[0]);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_EQ_I64(info.nparams, 8);
  CHECK(past == RS_ERR_INDEX);
  for (int i = 0; i < 8; i++) {
    CHECK_STREQ(p[i].name, want[i].name);
    CHECK_MSG(p[i].kind == want[i].kind && p[i].read_only == want[i].read_only && p[i].size == want[i].size,
              "parameter %d '%s' (%s): kind %d read-only %d size %zu", i, p[i].name, p[i].type, (int)p[i].kind,
              p[i].read_only, p[i].size);
  }
  CHECK_STREQ(p[0].type, "const float * __restrict__");
}

/* A prototype before the definition, __global__ after the return type, an extern "C"
 * block: the parser finds the same list in each. */
static void test_declaration_forms(rs_context *ctx) {
  static const char *src =
      "extern \"C\" {\n"
      "__global__ void twice_n(int *x,\n"
      "                        int n);\n"
      "}\n"
      "extern \"C\" void __global__ twice_n(int *x, int n) {\n"
      "  if ((int)threadIdx.x < n) x[threadIdx.x] = 2 * n;\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "twice_n");
  int64_t len = 8;
  rs_array *x = NULL;
  CHECK_OK(rs_device_array(&x, ctx, 1, &len, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {1}, .block = {8}};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32(8)));
  int out[8] = {0};
  if (st == RS_OK) st = rs_t_read_(x, out);
  rs_kernel_param p1;
  if (st == RS_OK) st = rs_kernel_get_param(k, 1, &p1);
  rs_array_release(x);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_STREQ(p1.name, "n");
  CHECK(out[0] == 16 && out[7] == 16);
}

/* Host arrays are staged: in before, out after - but never out for const parameters. */
static const char *mixed_src =
    "#include <resident_device.h>\n"
    "extern \"C\" __global__ void mixed(const float *in, float *out, const float *in2,\n"
    "                                   rs_array_desc d, rs_array_const_desc cd, long long n) {\n"
    "  long long i = RS_GLOBAL_ID();\n"
    "  if (i < n) {\n"
    "    out[i] = in[i] + in2[i];\n"
    "    RS_AT(float, d, i) = RS_AT(float, cd, i) * 10.0f;\n"
    "  }\n"
    "}\n";

static void test_const_never_copied_back(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, mixed_src, "mixed");
  enum { N = 1000 };
  int64_t n = N;
  static float in[N], out[N], in2[N], d[N], cd[N];
  for (int i = 0; i < N; i++) {
    in[i] = (float)i;
    in2[i] = 1.0f;
    cd[i] = (float)(i % 10);
    out[i] = d[i] = -1.0f;
  }
  rs_array *a[5] = {NULL};
  float *bufs[5] = {in, out, in2, d, cd};
  rs_status st = RS_OK;
  for (int i = 0; i < 5 && st == RS_OK; i++) st = rs_host_array_wrap(&a[i], ctx, bufs[i], 1, &n, RS_FLOAT32, NULL);
  CHECK_OK(rs_ledger_reset(ctx));
  rs_launch_config cfg = {.elements = n};
  if (st == RS_OK)
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a[0]), rs_arg_array(a[1]), rs_arg_array(a[2]),
                                           rs_arg_desc(a[3]), rs_arg_desc(a[4]), rs_arg_i64(n)));
  rs_ledger_stats s;
  memset(&s, 0, sizeof s);
  if (st == RS_OK) st = rs_ledger_get_stats(ctx, &s);
  /* which arguments came back */
  int back[6] = {0};
  int64_t count = 0, dropped = 0;
  if (st == RS_OK) st = rs_ledger_count(ctx, &count, &dropped);
  for (int64_t e = 0; st == RS_OK && e < count; e++) {
    rs_ledger_entry ent;
    st = rs_ledger_entry_at(ctx, e, &ent);
    if (st == RS_OK && ent.kind == RS_ENTRY_COPY && ent.dir == RS_D2H && ent.arg >= 0 && ent.arg < 6) back[ent.arg]++;
  }
  for (int i = 0; i < 5; i++) rs_array_release(a[i]);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_EQ_I64(s.copies[RS_H2D][1], 5);
  CHECK_EQ_I64(s.copies[RS_D2H][1], 2);
  CHECK_EQ_I64(s.bytes[RS_D2H][1], 2 * N * 4);
  CHECK(back[1] == 1 && back[3] == 1 && back[0] + back[2] + back[4] == 0);
  CHECK_EQ_I64(s.kernels, 1);
  for (int i = 0; i < N; i++) {
    CHECK(out[i] == (float)i + 1.0f);
    CHECK(d[i] == (float)(i % 10) * 10.0f);
    CHECK(in[i] == (float)i && cd[i] == (float)(i % 10)); /* inputs untouched */
  }
}

static const char *inc_src =
    "extern \"C\" __global__ void inc(float *x, long long n) {\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] += 1.0f;\n"
    "}\n";

/* Device, managed and mapped memory is reachable by kernels: no copies at all. */
static void test_device_managed_mapped_not_copied(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, inc_src, "inc");
  int64_t n = 4096;
  rs_array *dev = NULL, *man = NULL, *map = NULL;
  CHECK_OK(rs_device_array(&dev, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_managed_array(&man, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  CHECK_OK(rs_mapped_array(&map, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C, 0));
  float *hm = rs_array_host_data(man), *hp = rs_array_host_data(map);
  for (int64_t i = 0; i < n; i++) hm[i] = hp[i] = (float)i;
  float zeros[4096] = {0};
  CHECK_OK(rs_t_write_(dev, zeros));
  CHECK_OK(rs_ledger_reset(ctx));
  rs_launch_config cfg = {.elements = n};
  rs_status st = RS_OK;
  rs_array *arrs[3] = {dev, man, map};
  for (int i = 0; i < 3 && st == RS_OK; i++) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(arrs[i]), rs_arg_i64(n)));
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  rs_ledger_stats s;
  memset(&s, 0, sizeof s);
  if (st == RS_OK) st = rs_ledger_get_stats(ctx, &s);
  int good = 1;
  for (int64_t i = 0; st == RS_OK && i < n; i++) good &= hm[i] == (float)i + 1.0f && hp[i] == (float)i + 1.0f;
  rs_array_release(dev);
  rs_array_release(man);
  rs_array_release(map);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 0);
  CHECK_EQ_I64(s.kernels, 3);
  CHECK(good);
}

/* A strided view goes as a descriptor; as a pointer it is refused. */
static void test_descriptor_of_strided_view(rs_context *ctx) {
  static const char *src =
      "#include <resident_device.h>\n"
      "extern \"C\" __global__ void twice_all(rs_array_desc v) {\n"
      "  for (long long i = RS_GLOBAL_ID(); i < v.size; i += RS_GRID_STRIDE())\n"
      "    RS_ATN(double, v, i) *= 2.0;\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "twice_all");
  int64_t shape[2] = {6, 8};
  double host[48];
  for (int i = 0; i < 48; i++) host[i] = i;
  rs_array *d = NULL, *t = NULL;
  CHECK_OK(rs_device_array(&d, ctx, 2, shape, RS_FLOAT64, NULL, RS_ORDER_C));
  CHECK_OK(rs_t_write_(d, host));
  CHECK_OK(rs_array_transpose(&t, d)); /* 8 x 6, F order: as a descriptor fine */
  rs_slice sl[2] = {{0, 6, 2}, {1, 8, 3}};
  rs_array *v = NULL;
  CHECK_OK(rs_array_slice(&v, d, 2, sl)); /* rows 0,2,4 x cols 1,4,7: strided */
  rs_launch_config cfg = {.elements = 9};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_desc(v)));
  rs_status as_ptr = RS_OK;
  {
    rs_kernel *kp = NULL;
    rs_status c = rs_kernel_create(&kp, ctx, inc_src, "inc", NULL);
    if (c == RS_OK) as_ptr = rs_kernel_launch(kp, &cfg, RS_ARGS(rs_arg_array(v), rs_arg_i64(9)));
    rs_kernel_destroy(kp);
  }
  double back[48];
  if (st == RS_OK) st = rs_t_read_(d, back);
  rs_array_release(v);
  rs_array_release(t);
  rs_array_release(d);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(as_ptr == RS_ERR_NOT_CONTIGUOUS || as_ptr == RS_ERR_DTYPE);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 8; c++) {
      int in_view = r % 2 == 0 && c % 3 == 1;
      CHECK_MSG(back[r * 8 + c] == (in_view ? 2.0 : 1.0) * (r * 8 + c), "(%d,%d) = %g", r, c, back[r * 8 + c]);
    }
}

/* The guard is asked before anything moves: a refused launch copies and runs nothing. */
static void test_guard_refuses_implicit(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, inc_src, "inc");
  float x[64] = {0};
  int64_t n = 64;
  rs_array *h = NULL;
  CHECK_OK(rs_host_array_wrap(&h, ctx, x, 1, &n, RS_FLOAT32, NULL));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_guard_push(ctx, RS_ALL_DIRECTIONS, RS_GUARD_DISALLOW));
  rs_launch_config cfg = {.elements = n};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(h), rs_arg_i64(n)));
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  CHECK_OK(rs_guard_pop(ctx));
  rs_ledger_stats s;
  CHECK_OK(rs_ledger_get_stats(ctx, &s));
  rs_kernel_info info;
  CHECK_OK(rs_kernel_get_info(k, &info));
  rs_array_release(h);
  rs_kernel_destroy(k);
  CHECK(st == RS_ERR_TRANSFER_REFUSED);
  CHECK_MSG(strstr(m, "inc"), "%s", m);
  CHECK_EQ_I64(rs_ledger_copies(&s, -1), 0);
  CHECK_EQ_I64(info.launches, 0);
  CHECK(x[0] == 0.0f);
}

static const rs_test_case tests[] = {
    RS_TEST(test_argument_count),
    RS_TEST(test_argument_kinds),
    RS_TEST(test_scalars_of_every_dtype),
    RS_TEST(test_scalar_dtype_checks),
    RS_TEST(test_pointer_dtype_checks),
    RS_TEST(test_parsed_parameters),
    RS_TEST(test_declaration_forms),
    RS_TEST(test_const_never_copied_back),
    RS_TEST(test_device_managed_mapped_not_copied),
    RS_TEST(test_descriptor_of_strided_view),
    RS_TEST(test_guard_refuses_implicit),
};
RS_TEST_MAIN(tests)
