/* The simulator's memory checks (RESIDENT_SIM_CHECKS, on by default): a kernel that
 * writes past the end or before the start of a device array through a pointer, accesses a
 * misaligned address, runs past its dynamic shared memory or races on shared memory
 * between two barriers (a write and another thread's read, or two writes of different
 * values) stops with RS_ERR_KERNEL_FAULT naming the thread, the line and the
 * address relative to the nearest allocation (memcheck's and racecheck's reports); the
 * context stays usable and correct kernels report nothing. (On a GPU these are
 * compute-sanitizer's findings: simulator only.) */
#include <stdlib.h>
#include "harness.h"
#include "kernel_test_util.h"

static const char *oob_src =
    "extern \"C\" __global__ void oob(float *out, int n, int how) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i >= n) return;\n"
    "  if (how == 0 && i == n - 1) out[i + 1] = 1.0f;\n"
    "  if (how == 1 && i == 3) out[i - 4] = 1.0f;\n"
    "  if (how == 2 && i == 7) { char *c = (char *)out; *(int *)(c + 2) = 5; }\n"
    "  if (how == 3 && i == 0) out[n + 100] = out[0];\n"
    "  out[i] = (float)i;\n"
    "}\n";

/* Every thread of the block writes its slot, then reads its neighbour's: with the barrier
 * (how 0) correct, without it (how 1) a read-after-write race. how 2: a write past the
 * dynamic shared memory. */
static const char *race_src =
    "extern \"C\" __global__ void shared_race(float *out, int how) {\n"
    "  extern __shared__ float dyn[];\n"
    "  __shared__ float tile[64];\n"
    "  int t = threadIdx.x;\n"
    "  tile[t] = (float)t;\n"
    "  dyn[t] = 2.0f * t;\n"
    "  if (how != 1) __syncthreads();\n"
    "  float v = tile[(t + 1) % 64] + dyn[(t + 1) % 64];\n"
    "  if (how == 2 && t == 9) dyn[64] = v;\n"
    "  __syncthreads();\n"
    "  out[t] = v;\n"
    "}\n";

/* Write-write: how 0, every thread of the block stores its own index into s[0] before
 * the barrier (racecheck's write-after-write hazard, the values differ); how 1, every
 * thread stores the same flag (benign, not reported); how 2, only thread 0 stores (correct).
 * how 3: the values differ and come back (1, 2, 1 ... ending on the first one's). */
static const char *ww_src =
    "extern \"C\" __global__ void shared_ww(int *out, int how) {\n"
    "  __shared__ int s[2];\n"
    "  int t = threadIdx.x;\n"
    "  if (how == 0) s[0] = t;\n"
    "  if (how == 1) s[0] = 1;\n"
    "  if (how == 2 && t == 0) s[0] = 7;\n"
    "  if (how == 3) s[0] = t % 2 == 0 ? 1 : 2;\n"
    "  if (how == 3 && t == blockDim.x - 1) s[0] = 1;\n"
    "  __syncthreads();\n"
    "  out[t] = s[0];\n"
    "}\n";

/* No barrier in the source (the simulator runs the threads one after another, no fibers):
 * the race is found at the block's end. Dynamic shared memory: a write-only __shared__
 * variable would be removed by the compiler. */
static const char *ww_direct_src =
    "extern \"C\" __global__ void shared_ww_direct(int *out) {\n"
    "  extern __shared__ int dyn[];\n"
    "  dyn[1] = threadIdx.x;\n"
    "  out[threadIdx.x] = 1;\n"
    "}\n";

static rs_status run_dev(rs_context *ctx, const char *src, const char *name, unsigned grid, unsigned block,
                         size_t shared, int nargs, const rs_arg *args, char *msg, size_t len) {
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, ctx, src, name, NULL);
  if (st == RS_OK) {
    rs_launch_config cfg = {.grid = {grid}, .block = {block}, .shared_bytes = shared};
    st = rs_kernel_launch(k, &cfg, nargs, args);
    if (st == RS_OK) st = rs_kernel_synchronize(k, NULL);
  }
  snprintf(msg, len, "%s", st == RS_OK ? "" : rs_last_error());
  rs_kernel_destroy(k);
  return st;
}

static int checks_on(rs_context *ctx) {
  const char *v = getenv("RESIDENT_SIM_CHECKS");
  return rs_context_backend(ctx) == RS_BACKEND_SIM && !(v && !strcmp(v, "0"));
}

static void test_global_out_of_bounds(rs_context *ctx) {
  if (!checks_on(ctx)) return; /* on a GPU: compute-sanitizer's job, and the context dies */
  int64_t n = 1024;            /* 4096 bytes: a pool block of exactly that size */
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  static const char *const want[][4] = {
      {"thread (255,0,0)", "block (3,0,0)", "out-of-bounds write of 4 bytes",
       "0 bytes after the end of a 4096-byte allocation"},
      {"thread (3,0,0)", "block (0,0,0)", "out-of-bounds write of 4 bytes",
       "4 bytes before the start of a 4096-byte allocation"},
      {"thread (7,0,0)", "block (0,0,0)", "misaligned address", "4-byte alignment"},
      {"thread (0,0,0)", "block (0,0,0)", "out-of-bounds write of 4 bytes",
       "400 bytes after the end of a 4096-byte allocation"},
  };
  static const char *const line[] = {":4)", ":5)", ":6)", ":7)"};
  for (int how = 0; how < 4; how++) {
    char msg[1024];
    rs_status st = run_dev(ctx, oob_src, "oob", 4, 256, 0, RS_ARGS(rs_arg_array(a), rs_arg_i32((int)n), rs_arg_i32(how)),
                           msg, sizeof msg);
    CHECK_MSG(st == RS_ERR_KERNEL_FAULT, "how %d: %s", how, msg);
    for (int i = 0; i < 4; i++) CHECK_MSG(strstr(msg, want[how][i]) != NULL, "how %d: %s", how, msg);
    CHECK_MSG(strstr(msg, line[how]) && strstr(msg, "still usable"), "how %d: %s", how, msg);
  }
  /* the context goes on: a correct launch, checked values */
  char msg[1024];
  CHECK_OK(run_dev(ctx, oob_src, "oob", 4, 256, 0, RS_ARGS(rs_arg_array(a), rs_arg_i32((int)n), rs_arg_i32(9)), msg,
                   sizeof msg));
  float host[1024];
  rs_array *h = kt_wrap(ctx, host, n, RS_FLOAT32);
  CHECK_OK(rs_copy_to_host_into(h, a, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  for (int i = 0; i < n; i++) CHECK_NEAR(host[i], (double)i, 0.0);
  rs_array_release(h);
  rs_array_release(a);
}

static void test_shared_race_and_bounds(rs_context *ctx) {
  if (!checks_on(ctx)) return;
  float out[64];
  rs_array *a = kt_wrap(ctx, out, 64, RS_FLOAT32);
  char msg[1024];
  CHECK_OK(run_dev(ctx, race_src, "shared_race", 2, 64, 256, RS_ARGS(rs_arg_array(a), rs_arg_i32(0)), msg,
                   sizeof msg));
  for (int t = 0; t < 64; t++) CHECK_NEAR(out[t], 3.0 * ((t + 1) % 64), 0.0);
  rs_status st = run_dev(ctx, race_src, "shared_race", 2, 64, 256, RS_ARGS(rs_arg_array(a), rs_arg_i32(1)), msg,
                         sizeof msg);
  CHECK_MSG(st == RS_ERR_KERNEL_FAULT, "%s", msg);
  /* thread 0 has read tile[1] (line 8) before thread 1 writes it (line 5): no barrier between */
  CHECK_MSG(strstr(msg, "thread (1,0,0)") && strstr(msg, "shared-memory race") &&
                strstr(msg, "a read by thread (0,0,0)") && strstr(msg, ":8,") && strstr(msg, ":5)") &&
                strstr(msg, "write-after-read") && strstr(msg, "of the block's static shared memory"),
            "%s", msg);
  st = run_dev(ctx, race_src, "shared_race", 2, 64, 256, RS_ARGS(rs_arg_array(a), rs_arg_i32(2)), msg, sizeof msg);
  CHECK_MSG(st == RS_ERR_KERNEL_FAULT, "%s", msg);
  CHECK_MSG(strstr(msg, "thread (9,0,0)") && strstr(msg, "out-of-bounds write of 4 bytes in shared memory") &&
                strstr(msg, "0 bytes after the end of the block's 256-byte dynamic shared memory") &&
                strstr(msg, ":9)"),
            "%s", msg);
  rs_array_release(a);
}

static void test_shared_write_write(rs_context *ctx) {
  if (!checks_on(ctx)) return;
  int out[64];
  rs_array *a = kt_wrap(ctx, out, 64, RS_INT32);
  char msg[1024];
  rs_status st = run_dev(ctx, ww_src, "shared_ww", 2, 64, 0, RS_ARGS(rs_arg_array(a), rs_arg_i32(0)), msg, sizeof msg);
  CHECK_MSG(st == RS_ERR_KERNEL_FAULT, "%s", msg);
  /* thread 1's store (line 4) found thread 0's value; thread 2's found thread 1's, another */
  CHECK_MSG(strstr(msg, "shared-memory race") && strstr(msg, "write-after-write") && strstr(msg, "thread (1,0,0)") &&
                strstr(msg, "a write of a different value by thread (0,0,0)") && strstr(msg, ":4,") &&
                strstr(msg, ":4)") && strstr(msg, "this write of 4 bytes at offset 0 of the block's static shared") &&
                strstr(msg, "still usable"),
            "%s", msg);
  st = run_dev(ctx, ww_src, "shared_ww", 2, 64, 0, RS_ARGS(rs_arg_array(a), rs_arg_i32(3)), msg, sizeof msg);
  CHECK_MSG(st == RS_ERR_KERNEL_FAULT && strstr(msg, "write-after-write"), "%s", msg);
  st = run_dev(ctx, ww_direct_src, "shared_ww_direct", 1, 64, 16, RS_ARGS(rs_arg_array(a)), msg, sizeof msg);
  CHECK_MSG(st == RS_ERR_KERNEL_FAULT && strstr(msg, "write-after-write") && strstr(msg, "thread (1,0,0)") &&
                strstr(msg, "by thread (0,0,0) at <string>:3,") &&
                strstr(msg, "at offset 4 of the block's dynamic shared memory"),
            "%s", msg);
  /* the benign idiom and the correct kernel: no report, the values checked */
  static const int want[] = {0, 1, 7};
  for (int how = 1; how <= 2; how++) {
    CHECK_OK(run_dev(ctx, ww_src, "shared_ww", 2, 64, 0, RS_ARGS(rs_arg_array(a), rs_arg_i32(how)), msg, sizeof msg));
    for (int t = 0; t < 64; t++) CHECK_MSG(out[t] == want[how], "how %d: out[%d] = %d", how, t, out[t]);
  }
  /* and the race check of reads still works after the report */
  float f[64];
  rs_array *fa = kt_wrap(ctx, f, 64, RS_FLOAT32);
  CHECK_OK(run_dev(ctx, race_src, "shared_race", 2, 64, 256, RS_ARGS(rs_arg_array(fa), rs_arg_i32(0)), msg,
                   sizeof msg));
  for (int t = 0; t < 64; t++) CHECK_NEAR(f[t], 3.0 * ((t + 1) % 64), 0.0);
  rs_array_release(fa);
  rs_array_release(a);
}

/* RESIDENT_SIM_CHECKS=0: the same write past the end goes unreported (into the pool's
 * rounding of the block, harmlessly), as on a GPU without compute-sanitizer. */
static void test_checks_off(rs_context *ctx) {
  if (!checks_on(ctx)) return;
  setenv("RESIDENT_SIM_CHECKS", "0", 1);
  rs_context *off = NULL;
  rs_status st = rs_context_create(&off, RS_BACKEND_SIM, 0);
  unsetenv("RESIDENT_SIM_CHECKS");
  CHECK_OK(st);
  if (!off) return;
  int64_t n = 1000; /* a 4000-byte array in a 4096-byte pool block */
  rs_array *a = NULL;
  CHECK_OK(rs_device_array(&a, off, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  char msg[1024];
  CHECK_OK(run_dev(off, oob_src, "oob", 4, 256, 0, RS_ARGS(rs_arg_array(a), rs_arg_i32((int)n), rs_arg_i32(0)), msg,
                   sizeof msg));
  rs_array_release(a);
  rs_context_destroy(off);
}

static const rs_test_case tests[] = {
    RS_TEST(test_global_out_of_bounds),
    RS_TEST(test_shared_race_and_bounds),
    RS_TEST(test_checks_off),
    RS_TEST(test_shared_write_write),
};
RS_TEST_MAIN(tests)
