/* Launching user kernels: configurations computed from occupancy and checked against the
 * limits, 1-3 dimensional grids and blocks, streams (asynchrony, a destroyed stream), the
 * idle-device warning, static and dynamic shared memory, constant memory, barriers and
 * their counting forms, and - on the simulator - a barrier not every thread reaches. */
#include "harness.h"
#include "kernel_test_util.h"
#include "resident/kernel.h"
#include "resident/ledger.h"

static const char *index_src =
    "extern \"C\" __global__ void where(int *out, int nx, int ny) {\n"
    "  int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  int y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "  int z = blockIdx.z * blockDim.z + threadIdx.z;\n"
    "  out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z;\n"
    "}\n";

static void test_grid_and_block_in_3d(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, index_src, "where");
  const int nx = 8, ny = 6, nz = 6;
  int64_t n = nx * ny * nz;
  rs_array *out = NULL;
  CHECK_OK(rs_device_array(&out, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {2, 3, 2}, .block = {4, 2, 3}};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(out), rs_arg_i32(nx), rs_arg_i32(ny)));
  int got[8 * 6 * 6];
  if (st == RS_OK) st = rs_t_read_(out, got);
  rs_array_release(out);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++) CHECK(got[(z * ny + y) * nx + x] == x + 100 * y + 10000 * z);
}

static void test_config_from_occupancy(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, index_src, "where");
  rs_kernel_info info;
  CHECK_OK(rs_kernel_get_info(k, &info));
  rs_launch_config big = {.elements = 10000000}, small = {.elements = 100}, r1, r2;
  rs_status st = rs_kernel_resolve_config(k, &big, &r1);
  if (st == RS_OK) st = rs_kernel_resolve_config(k, &small, &r2);
  rs_launch_config fixed_block = {.block = {64}, .elements = 1000}, r3;
  if (st == RS_OK) st = rs_kernel_resolve_config(k, &fixed_block, &r3);
  rs_launch_config two_d = {.block = {0, 4}, .elements = 1000};
  rs_status bad = rs_kernel_resolve_config(k, &two_d, &r3);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  unsigned b = r1.block[0];
  CHECK(b >= 32 && b <= (unsigned)info.max_threads_per_block && b % 32 == 0);
  CHECK(r1.block[1] == 1 && r1.block[2] == 1 && r1.grid[1] == 1 && r1.grid[2] == 1);
  CHECK_EQ_I64(r1.grid[0], (10000000 + b - 1) / b); /* covers every element, one per thread */
  CHECK((uint64_t)r2.grid[0] * r2.block[0] >= 100 && r2.block[0] <= b);
  CHECK(r3.block[0] == 64 && r3.grid[0] == 16);
  CHECK(bad == RS_ERR_LAUNCH);
}

static void test_limits_refused(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, index_src, "where");
  int64_t n = 64;
  rs_array *out = NULL;
  CHECK_OK(rs_device_array(&out, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config over = {.grid = {1}, .block = {2048}};
  rs_status s1 = rs_kernel_launch(k, &over, RS_ARGS(rs_arg_array(out), rs_arg_i32(1), rs_arg_i32(1)));
  char m1[1024];
  snprintf(m1, sizeof m1, "%s", rs_last_error());
  rs_launch_config threads = {.grid = {1}, .block = {32, 32, 2}}; /* 2048 threads in all */
  rs_status s2 = rs_kernel_launch(k, &threads, RS_ARGS(rs_arg_array(out), rs_arg_i32(1), rs_arg_i32(1)));
  char m2[1024];
  snprintf(m2, sizeof m2, "%s", rs_last_error());
  rs_launch_config shared = {.grid = {1}, .block = {32}, .shared_bytes = (size_t)1 << 22};
  rs_status s3 = rs_kernel_launch(k, &shared, RS_ARGS(rs_arg_array(out), rs_arg_i32(1), rs_arg_i32(1)));
  char m3[1024];
  snprintf(m3, sizeof m3, "%s", rs_last_error());
  rs_launch_config none = {0};
  rs_status s4 = rs_kernel_launch(k, &none, RS_ARGS(rs_arg_array(out), rs_arg_i32(1), rs_arg_i32(1)));
  rs_launch_config flags = {.grid = {1}, .block = {1}, .flags = 0x80};
  rs_status s5 = rs_kernel_launch(k, &flags, RS_ARGS(rs_arg_array(out), rs_arg_i32(1), rs_arg_i32(1)));
  rs_kernel_info info;
  CHECK_OK(rs_kernel_get_info(k, &info));
  rs_array_release(out);
  rs_kernel_destroy(k);
  CHECK(s1 == RS_ERR_LAUNCH && s2 == RS_ERR_LAUNCH && s3 == RS_ERR_LAUNCH && s4 == RS_ERR_LAUNCH);
  CHECK(s5 == RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(m1, "2048") && strstr(m1, "limit"), "%s", m1);
  CHECK_MSG(strstr(m2, "2048 threads") && strstr(m2, "limit"), "%s", m2);
  CHECK_MSG(strstr(m3, "4194304 bytes of dynamic shared memory") && strstr(m3, "limit"), "%s", m3);
  CHECK_EQ_I64(info.launches, 0);
}

static void test_destroyed_stream(rs_context *ctx) {
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, index_src, "where");
  int64_t n = 1;
  rs_array *out = NULL;
  CHECK_OK(rs_device_array(&out, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_stream *s = NULL;
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_stream_destroy(s));
  rs_launch_config cfg = {.grid = {1}, .block = {1}, .stream = s};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(out), rs_arg_i32(1), rs_arg_i32(1)));
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  rs_array_release(out);
  rs_kernel_destroy(k);
  CHECK(st == RS_ERR_DESTROYED);
  CHECK_MSG(strstr(m, "where") && strstr(m, "destroyed"), "%s", m);
}

/* The launch returns before the kernel has run; the stream orders it after earlier work. */
static void test_asynchronous_on_a_stream(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void set(int *x, int v) { x[threadIdx.x] = v; }\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "set");
  int64_t n = 32;
  rs_array *x = NULL;
  rs_stream *s = NULL;
  CHECK_OK(rs_device_array(&x, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  rs_launch_config cfg = {.grid = {1}, .block = {32}, .stream = s};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32(1)));
  if (st == RS_OK) st = rs_t_sleep(ctx, 300, s);
  double t0 = rs_t_now_ms_();
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32(2)));
  double queued_ms = rs_t_now_ms_() - t0;
  int done = 1;
  if (st == RS_OK) st = rs_stream_query(s, &done);
  if (st == RS_OK) st = rs_kernel_synchronize(k, s);
  int out[32] = {0};
  if (st == RS_OK) st = rs_t_read_(x, out);
  rs_stream_destroy(s);
  rs_array_release(x);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_MSG(queued_ms < 200, "the launch took %.1f ms: it waited for the stream", queued_ms);
  CHECK(done == 0);
  CHECK(out[0] == 2 && out[31] == 2);
}

typedef struct kt_log {
  int lines;
  char first[512];
} kt_log;

static void kt_log_fn(const char *line, void *user) {
  kt_log *l = user;
  if (strstr(line, "kernel '") == NULL) return;
  if (l->lines++ == 0) snprintf(l->first, sizeof l->first, "%s", line);
}

/* 1 block of 1 thread over a million elements: correct with a grid-stride loop, and a
 * waste of the device - said once in the log. */
static void test_idle_launch_is_flagged(rs_context *ctx) {
  static const char *src =
      "#include <resident_device.h>\n"
      "extern \"C\" __global__ void ones(float *x, long long n) {\n"
      "  for (long long i = RS_GLOBAL_ID(); i < n; i += RS_GRID_STRIDE()) x[i] = 1.0f;\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "ones");
  int64_t n = 1 << 20;
  rs_array *x = NULL;
  CHECK_OK(rs_device_array(&x, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  kt_log log = {0};
  rs_set_log_handler(kt_log_fn, &log);
  rs_launch_config one = {.grid = {1}, .block = {1}};
  rs_status st = rs_kernel_launch(k, &one, RS_ARGS(rs_arg_array(x), rs_arg_i64(n)));
  if (st == RS_OK) st = rs_kernel_launch(k, &one, RS_ARGS(rs_arg_array(x), rs_arg_i64(n)));
  int after_bad = log.lines;
  rs_launch_config good = {.elements = n};
  if (st == RS_OK) st = rs_kernel_launch(k, &good, RS_ARGS(rs_arg_array(x), rs_arg_i64(n)));
  if (st == RS_OK) st = rs_context_synchronize(ctx);
  rs_set_log_handler(NULL, NULL);
  rs_kernel_info info;
  memset(&info, 0, sizeof info);
  if (st == RS_OK) st = rs_kernel_get_info(k, &info);
  rs_array_release(x);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_EQ_I64(after_bad, 1); /* once per kernel */
  CHECK_EQ_I64(log.lines, 1);
  CHECK_MSG(strstr(log.first, "'ones'") && strstr(log.first, "1048576 elements") && strstr(log.first, "occupancy"),
            "%s", log.first);
  CHECK_EQ_I64(info.idle_launches, 2);
  CHECK_EQ_I64(info.launches, 3);
}

/* Static shared memory is one copy per block; __syncthreads_count/and/or agree. */
static void test_shared_memory_and_barrier_forms(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void blocks(int *out) {\n"
      "  __shared__ int tile[128];\n"
      "  __shared__ int total;\n"
      "  unsigned t = threadIdx.x;\n"
      "  if (t == 0) total = 0;\n"
      "  tile[t] = (int)(blockIdx.x * 1000 + t);\n"
      "  __syncthreads();\n"
      "  atomicAdd(&total, tile[blockDim.x - 1 - t]);\n"
      "  int odd = __syncthreads_count(t & 1);\n"
      "  int all = __syncthreads_and(t < 1000);\n"
      "  int any = __syncthreads_or(t == 5);\n"
      "  int none = __syncthreads_or(0);\n"
      "  if (t == 0) {\n"
      "    out[5 * blockIdx.x] = total;\n"
      "    out[5 * blockIdx.x + 1] = odd;\n"
      "    out[5 * blockIdx.x + 2] = all;\n"
      "    out[5 * blockIdx.x + 3] = any;\n"
      "    out[5 * blockIdx.x + 4] = none;\n"
      "  }\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "blocks");
  const int blocks = 40;
  int64_t n = 5 * blocks;
  rs_array *out = NULL;
  CHECK_OK(rs_device_array(&out, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {blocks}, .block = {128}};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(out)));
  int got[5 * 40];
  if (st == RS_OK) st = rs_t_read_(out, got);
  rs_kernel_info info;
  memset(&info, 0, sizeof info);
  if (st == RS_OK) st = rs_kernel_get_info(k, &info);
  rs_array_release(out);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(info.uses_barrier);
  for (int b = 0; b < blocks; b++) {
    CHECK_EQ_I64(got[5 * b], b * 1000 * 128 + 127 * 128 / 2);
    CHECK_EQ_I64(got[5 * b + 1], 64);
    CHECK(got[5 * b + 2] != 0 && got[5 * b + 3] != 0 && got[5 * b + 4] == 0);
  }
}

/* Dynamic shared memory above the default 48 KiB is granted where the device allows it. */
static void test_large_dynamic_shared_memory(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void big(float *out, int words) {\n"
      "  extern __shared__ float buf[];\n"
      "  for (int i = threadIdx.x; i < words; i += blockDim.x) buf[i] = (float)i;\n"
      "  __syncthreads();\n"
      "  if (threadIdx.x == 0) out[0] = buf[words - 1];\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "big");
  rs_kernel_info info;
  CHECK_OK(rs_kernel_get_info(k, &info));
  size_t bytes = info.max_dynamic_shared_bytes > 96 * 1024 ? 96 * 1024 : info.max_dynamic_shared_bytes;
  int words = (int)(bytes / 4);
  int64_t one = 1;
  rs_array *out = NULL;
  CHECK_OK(rs_device_array(&out, ctx, 1, &one, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {2}, .block = {256}, .shared_bytes = bytes};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(out), rs_arg_i32(words)));
  float got = 0;
  if (st == RS_OK) st = rs_t_read_(out, &got);
  rs_launch_config over = cfg;
  over.shared_bytes = info.max_dynamic_shared_bytes + 4;
  rs_status too_much = rs_kernel_launch(k, &over, RS_ARGS(rs_arg_array(out), rs_arg_i32(words)));
  rs_array_release(out);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(got == (float)(words - 1));
  CHECK(too_much == RS_ERR_LAUNCH);
}

static void test_constant_memory(rs_context *ctx) {
  static const char *src =
      "__constant__ double table[8];\n"
      "extern \"C\" __global__ void lookup(const int *idx, double *out, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) out[i] = table[idx[i] & 7];\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "lookup");
  double table[8] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5}, big[9] = {0};
  int idx[100];
  for (int i = 0; i < 100; i++) idx[i] = i * 3;
  int64_t eight = 8, nine = 9, n = 100;
  rs_array *ht = NULL, *hbig = NULL, *hi = NULL, *d = NULL;
  CHECK_OK(rs_host_array_wrap(&ht, ctx, table, 1, &eight, RS_FLOAT64, NULL));
  CHECK_OK(rs_host_array_wrap(&hbig, ctx, big, 1, &nine, RS_FLOAT64, NULL));
  CHECK_OK(rs_host_array_wrap(&hi, ctx, idx, 1, &n, RS_INT32, NULL));
  CHECK_OK(rs_device_array(&d, ctx, 1, &n, RS_FLOAT64, NULL, RS_ORDER_C));
  CHECK_OK(rs_ledger_reset(ctx));
  rs_status st = rs_kernel_set_constant(k, "table", ht, NULL);
  rs_ledger_stats s;
  memset(&s, 0, sizeof s);
  if (st == RS_OK) st = rs_ledger_get_stats(ctx, &s);
  rs_launch_config cfg = {.elements = n};
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(hi), rs_arg_array(d), rs_arg_i32(100)));
  double out[100];
  if (st == RS_OK) st = rs_t_read_(d, out);
  rs_status unknown = rs_kernel_set_constant(k, "no_such_symbol", ht, NULL);
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  rs_status too_big = rs_kernel_set_constant(k, "table", hbig, NULL);
  rs_array_release(ht);
  rs_array_release(hbig);
  rs_array_release(hi);
  rs_array_release(d);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK_EQ_I64(s.copies[RS_H2D][0], 1); /* the fill: one explicit copy */
  CHECK_EQ_I64(s.bytes[RS_H2D][0], 64);
  for (int i = 0; i < 100; i++) CHECK(out[i] == table[(i * 3) & 7]);
  CHECK(unknown == RS_ERR_NOT_FOUND);
  CHECK_MSG(strstr(m, "no_such_symbol"), "%s", m);
  CHECK(too_big == RS_ERR_SHAPE);
}

static void test_kernel_without_parameters(rs_context *ctx) {
  static const char *src = "__device__ int counter;\nextern \"C\" __global__ void tick() { atomicAdd(&counter, 1); }\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "tick");
  rs_launch_config cfg = {.grid = {3}, .block = {64}, .flags = RS_LAUNCH_SYNC};
  rs_status st = rs_kernel_launch(k, &cfg, 0, NULL);
  rs_status extra = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_i32(1)));
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(extra == RS_ERR_LAUNCH);
}

/* ---- the simulator's barrier checks ---------------------------------------------------- */

static void test_divergent_barrier_is_an_error(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* a GPU would hang or misbehave */
  char path[4096];
  kt_source_path(path, sizeof path, "examples/kernel_reduce.cu");
  rs_kernel *bad = NULL, *good = NULL;
  CHECK_OK(rs_kernel_create_from_file(&bad, ctx, path, "block_sum_divergent", NULL));
  CHECK_OK(rs_kernel_create_from_file(&good, ctx, path, "block_sum", NULL));
  int64_t n = 4096, nb = 16;
  rs_array *a = NULL, *p = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&p, ctx, 1, &nb, RS_FLOAT32, NULL, RS_ORDER_C));
  float ones[4096];
  for (int i = 0; i < 4096; i++) ones[i] = 1.0f;
  CHECK_OK(rs_t_write_(a, ones));
  /* reported by a synchronous launch ... */
  rs_launch_config sync = {.grid = {16}, .block = {256}, .flags = RS_LAUNCH_SYNC};
  rs_status s1 = rs_kernel_launch(bad, &sync, RS_ARGS(rs_arg_array(a), rs_arg_array(p), rs_arg_i64(n)));
  char m1[1024];
  snprintf(m1, sizeof m1, "%s", rs_last_error());
  /* ... or, asynchronously, by rs_kernel_synchronize and then not again */
  rs_launch_config async = {.grid = {16}, .block = {256}};
  rs_status s2 = rs_kernel_launch(bad, &async, RS_ARGS(rs_arg_array(a), rs_arg_array(p), rs_arg_i64(n)));
  rs_status s3 = rs_kernel_synchronize(bad, NULL);
  rs_status s4 = rs_kernel_synchronize(bad, NULL);
  /* the context is still usable */
  rs_status s5 = rs_kernel_launch(good, &async, RS_ARGS(rs_arg_array(a), rs_arg_array(p), rs_arg_i64(n)));
  float part[16] = {0};
  if (s5 == RS_OK) s5 = rs_t_read_(p, part);
  rs_array_release(a);
  rs_array_release(p);
  rs_kernel_destroy(bad);
  rs_kernel_destroy(good);
  CHECK(s1 == RS_ERR_KERNEL_FAULT);
  CHECK_MSG(strstr(m1, "block_sum_divergent") && strstr(m1, "block (") && strstr(m1, "__syncthreads()") &&
                strstr(m1, "kernel_reduce.cu:") && strstr(m1, "still usable"),
            "%s", m1);
  CHECK_OK(s2);
  CHECK(s3 == RS_ERR_KERNEL_FAULT);
  CHECK_OK(s4);
  CHECK_OK(s5);
  for (int b = 0; b < 16; b++) CHECK(part[b] == 256.0f);
}

static void test_different_barriers_are_an_error(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return;
  static const char *src =
      "extern \"C\" __global__ void split(int *x) {\n"
      "  if (threadIdx.x < 16) {\n"
      "    x[threadIdx.x] = 1;\n"
      "    __syncthreads();\n"
      "  } else {\n"
      "    x[threadIdx.x] = 2;\n"
      "    __syncthreads();\n"
      "  }\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "split");
  int64_t n = 32;
  rs_array *x = NULL;
  CHECK_OK(rs_device_array(&x, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {1}, .block = {32}, .flags = RS_LAUNCH_SYNC};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x)));
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  rs_array_release(x);
  rs_kernel_destroy(k);
  CHECK(st == RS_ERR_KERNEL_FAULT);
  CHECK_MSG(strstr(m, "threads 0-15") && strstr(m, "threads 16-31") && strstr(m, "<string>:4") &&
                strstr(m, "<string>:7"),
            "%s", m);
}

static void test_trap_stops_the_block(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* on a GPU __trap() ends the context */
  static const char *src =
      "extern \"C\" __global__ void trap_at(int *x, int bad) {\n"
      "  if (blockIdx.x * blockDim.x + threadIdx.x == bad) __trap();\n"
      "  x[blockIdx.x * blockDim.x + threadIdx.x] = 1;\n"
      "}\n";
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, src, "trap_at");
  int64_t n = 256;
  rs_array *x = NULL;
  CHECK_OK(rs_device_array(&x, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {4}, .block = {64}, .flags = RS_LAUNCH_SYNC};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32(70)));
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  rs_status again = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32(-1)));
  rs_array_release(x);
  rs_kernel_destroy(k);
  CHECK(st == RS_ERR_KERNEL_FAULT);
  CHECK_MSG(strstr(m, "trap_at") && strstr(m, "block (1,0,0)") && strstr(m, "__trap()"), "%s", m);
  CHECK_OK(again);
}

static const rs_test_case tests[] = {
    RS_TEST(test_grid_and_block_in_3d),
    RS_TEST(test_config_from_occupancy),
    RS_TEST(test_limits_refused),
    RS_TEST(test_destroyed_stream),
    RS_TEST(test_asynchronous_on_a_stream),
    RS_TEST(test_idle_launch_is_flagged),
    RS_TEST(test_shared_memory_and_barrier_forms),
    RS_TEST(test_large_dynamic_shared_memory),
    RS_TEST(test_constant_memory),
    RS_TEST(test_kernel_without_parameters),
    RS_TEST(test_divergent_barrier_is_an_error),
    RS_TEST(test_different_barriers_are_an_error),
    RS_TEST(test_trap_stops_the_block),
};
RS_TEST_MAIN(tests)
