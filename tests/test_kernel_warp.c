/* Warp intrinsics in user kernels, the same source on every backend: the shuffles (with
 * widths), the votes, __activemask in a divergent branch, __match_*_sync,
 * __reduce_*_sync and __syncwarp, each against CUDA's documented rule written out here
 * in plain C. On the simulator, misuse a GPU would hang on or leave undefined - a width
 * that is not a power of two, a lane of the mask that never arrives, a mask without the
 * caller - is a kernel fault naming the thread and the line, and the context goes on. */
#include <stdlib.h>
#include "harness.h"
#include "kernel_test_util.h"

#define NT 64 /* two warps */

static const char *shfl_src =
    "#define FULL 0xffffffffu\n"
    "extern \"C\" __global__ void shfl(int *out, double *outd) {\n"
    "  int t = threadIdx.x, lane = t % 32, v = t * 3 + 1;\n"
    "  int *o = out + t * 8;\n"
    "  o[0] = __shfl_sync(FULL, v, (lane * 7 + 3) % 32);\n"
    "  o[1] = __shfl_up_sync(FULL, v, 3);\n"
    "  o[2] = __shfl_down_sync(FULL, v, 5);\n"
    "  o[3] = __shfl_xor_sync(FULL, v, 6);\n"
    "  o[4] = __shfl_sync(FULL, v, lane + 5, 8);\n"
    "  o[5] = __shfl_up_sync(FULL, v, 2, 16);\n"
    "  o[6] = __shfl_down_sync(FULL, v, 3, 8);\n"
    "  o[7] = __shfl_xor_sync(FULL, v, 5, 4);\n"
    "  outd[t] = __shfl_down_sync(FULL, v * 0.5, 1);\n"
    "}\n";

/* CUDA's rules as the programming guide states them, for lane `lane` of segments of w. */
static int ref_idx(const int *v, int base, int lane, int src, int w) { return v[base + (lane / w) * w + src % w]; }
static int ref_up(const int *v, int base, int lane, int d, int w) {
  return lane % w >= d ? v[base + lane - d] : v[base + lane];
}
static int ref_down(const int *v, int base, int lane, int d, int w) {
  return lane % w + d < w ? v[base + lane + d] : v[base + lane];
}
static int ref_xor(const int *v, int base, int lane, int m, int w) {
  int j = lane ^ m; /* a lane of an earlier segment may be read, a later one not */
  return j < (lane / w + 1) * w ? v[base + j] : v[base + lane];
}

static void test_shuffles(rs_context *ctx) {
  int out[NT * 8], v[NT];
  double outd[NT];
  memset(out, 0, sizeof out);
  for (int t = 0; t < NT; t++) v[t] = t * 3 + 1;
  rs_array *a = kt_wrap(ctx, out, NT * 8, RS_INT32), *d = kt_wrap(ctx, outd, NT, RS_FLOAT64);
  char msg[1024];
  rs_status st = kt_run(ctx, shfl_src, "shfl", 1, NT, RS_ARGS(rs_arg_array(a), rs_arg_array(d)), msg, sizeof msg);
  rs_array_release(a);
  rs_array_release(d);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int t = 0; t < NT; t++) {
    int base = t / 32 * 32, lane = t % 32;
    const int *o = out + t * 8;
    CHECK_EQ_I64(o[0], ref_idx(v, base, lane, (lane * 7 + 3) % 32, 32));
    CHECK_EQ_I64(o[1], ref_up(v, base, lane, 3, 32));
    CHECK_EQ_I64(o[2], ref_down(v, base, lane, 5, 32));
    CHECK_EQ_I64(o[3], ref_xor(v, base, lane, 6, 32));
    CHECK_EQ_I64(o[4], ref_idx(v, base, lane, lane + 5, 8));
    CHECK_EQ_I64(o[5], ref_up(v, base, lane, 2, 16));
    CHECK_EQ_I64(o[6], ref_down(v, base, lane, 3, 8));
    CHECK_EQ_I64(o[7], ref_xor(v, base, lane, 5, 4));
    CHECK_NEAR(outd[t], ref_down(v, base, lane, 1, 32) * 0.5, 0.0);
  }
}

static const char *vote_src =
    "#define FULL 0xffffffffu\n"
    "extern \"C\" __global__ void vote(unsigned *out) {\n"
    "  int t = threadIdx.x, lane = t % 32;\n"
    "  unsigned *o = out + t * 12;\n"
    "  o[0] = __ballot_sync(FULL, (t * 5) % 3 == 0);\n"
    "  o[1] = __any_sync(FULL, t == 37);\n"
    "  o[2] = __all_sync(FULL, t >= 0);\n"
    "  o[3] = __all_sync(FULL, lane != 5);\n"
    "  if (lane < 10) o[4] = __activemask();\n"
    "  else o[4] = __activemask();\n"
    "  o[5] = __match_any_sync(FULL, (lane * 5) % 7);\n"
    "  int pred = -1;\n"
    "  o[6] = __match_all_sync(FULL, 42, &pred);\n"
    "  o[7] = (unsigned)pred;\n"
    "  o[8] = __match_all_sync(FULL, lane < 16 ? 1.0 : 2.0, &pred) | (unsigned)pred;\n"
    "  o[9] = __reduce_add_sync(FULL, (unsigned)t);\n"
    "  o[10] = (unsigned)__reduce_min_sync(FULL, 5 - t);\n"
    "  o[11] = __reduce_max_sync(FULL, (unsigned)lane * 3u) ^ __reduce_or_sync(FULL, 1u << (lane % 8));\n"
    "}\n";

static void test_votes(rs_context *ctx) {
  unsigned out[NT * 12];
  memset(out, 0xee, sizeof out);
  rs_array *a = kt_wrap(ctx, out, NT * 12, RS_UINT32);
  char msg[1024];
  rs_status st = kt_run(ctx, vote_src, "vote", 1, NT, RS_ARGS(rs_arg_array(a)), msg, sizeof msg);
  rs_array_release(a);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int t = 0; t < NT; t++) {
    int base = t / 32 * 32, lane = t % 32;
    const unsigned *o = out + t * 12;
    unsigned ballot = 0, match = 0, sum = 0;
    int mn = 1 << 30;
    for (int l = 0; l < 32; l++) {
      if (((base + l) * 5) % 3 == 0) ballot |= 1u << l;
      if ((l * 5) % 7 == (lane * 5) % 7) match |= 1u << l;
      sum += (unsigned)(base + l);
      if (5 - (base + l) < mn) mn = 5 - (base + l);
    }
    CHECK_EQ_I64(o[0], ballot);
    CHECK_EQ_I64(o[1], t >= 32); /* thread 37 is in the second warp */
    CHECK_EQ_I64(o[2], 1);
    CHECK_EQ_I64(o[3], 0);
    CHECK_EQ_I64(o[4], lane < 10 ? 0x3ffu : ~0x3ffu);
    CHECK_EQ_I64(o[5], match);
    CHECK_EQ_I64(o[6], 0xffffffffu);
    CHECK_EQ_I64(o[7], 1);
    CHECK_EQ_I64(o[8], 0);
    CHECK_EQ_I64(o[9], sum);
    CHECK_EQ_I64((int)o[10], mn);
    CHECK_EQ_I64(o[11], 93u ^ 0xffu);
  }
}

/* __syncwarp orders shared memory within a warp; masks of half a warp with width 16. */
static const char *syncwarp_src =
    "extern \"C\" __global__ void halves(int *out) {\n"
    "  __shared__ int s[64];\n"
    "  int t = threadIdx.x, lane = t % 32;\n"
    "  s[t] = t * t;\n"
    "  __syncwarp();\n"
    "  int x = s[(t / 32) * 32 + (lane + 1) % 32];\n"
    "  unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;\n"
    "  int y = __shfl_down_sync(half, x, 1, 16);\n"
    "  __syncwarp(half);\n"
    "  out[t] = y;\n"
    "}\n";

static void test_syncwarp_and_half_masks(rs_context *ctx) {
  int out[NT], x[NT];
  for (int t = 0; t < NT; t++) x[t] = ((t / 32) * 32 + (t % 32 + 1) % 32) * ((t / 32) * 32 + (t % 32 + 1) % 32);
  rs_array *a = kt_wrap(ctx, out, NT, RS_INT32);
  char msg[1024];
  rs_status st = kt_run(ctx, syncwarp_src, "halves", 1, NT, RS_ARGS(rs_arg_array(a)), msg, sizeof msg);
  rs_array_release(a);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int t = 0; t < NT; t++) CHECK_EQ_I64(out[t], ref_down(x, t / 32 * 32, t % 32, 1, 16));
}

/* ---- misuse: simulator faults (a GPU hangs or returns garbage, so only there) ---- */

static const char *bad_src =
    "extern \"C\" __global__ void bad(int *out, int how) {\n"
    "  int lane = threadIdx.x % 32, v = lane;\n"
    "  if (how == 0) v = __shfl_xor_sync(0xffffffffu, v, 1, 12);\n"
    "  if (how == 1 && lane < 16) v = __shfl_sync(0xffffffffu, v, 0);\n"
    "  if (how == 2) v = __ballot_sync(1u << ((lane + 1) % 32), v);\n"
    "  if (how == 3) { if (lane == 3) __syncthreads(); else v = __any_sync(0xffffffffu, v); }\n"
    "  if (how == 4) { if (lane < 16) __syncthreads(); else __syncthreads(); }\n"
    "  out[threadIdx.x] = v;\n"
    "}\n";

static void test_misuse_is_a_fault(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* undefined or a hang on a GPU */
  int out[32];
  rs_array *a = kt_wrap(ctx, out, 32, RS_INT32);
  static const char *const want[][3] = {
      {"thread (0,0,0)", "width 12", ":3)"},
      {"lane 16 of the mask has exited", "__shfl_sync", ":4)"},
      {"does not name the calling lane 0", "__ballot_sync", ":5)"},
      {"waits at __syncthreads()", "__any_sync", ":6)"},
      /* two barriers on one line are two barriers */
      {"threads 0-15 wait at __syncthreads()", "threads 16-31 wait at another one", ":7)"},
  };
  for (int how = 0; how < 5; how++) {
    char msg[1024];
    rs_status st = kt_run(ctx, bad_src, "bad", 1, 32, RS_ARGS(rs_arg_array(a), rs_arg_i32(how)), msg, sizeof msg);
    CHECK_MSG(st == RS_ERR_KERNEL_FAULT, "how %d: %s", how, msg);
    for (int i = 0; i < 3; i++) CHECK_MSG(strstr(msg, want[how][i]) != NULL, "how %d: %s", how, msg);
    CHECK_MSG(strstr(msg, "still usable") != NULL, "%s", msg);
  }
  /* and the context works on */
  char msg[1024];
  CHECK_OK(kt_run(ctx, bad_src, "bad", 1, 32, RS_ARGS(rs_arg_array(a), rs_arg_i32(9)), msg, sizeof msg));
  for (int t = 0; t < 32; t++) CHECK_EQ_I64(out[t], t);
  rs_array_release(a);
}

static const rs_test_case tests[] = {
    RS_TEST(test_shuffles),
    RS_TEST(test_votes),
    RS_TEST(test_syncwarp_and_half_masks),
    RS_TEST(test_misuse_is_a_fault),
};
RS_TEST_MAIN(tests)
