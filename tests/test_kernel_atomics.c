/* The atomic functions in user kernels, the same source on every backend, each against a
 * plain C loop over the same operands: 32-bit int and unsigned (add, sub, exch, min, max,
 * and, or, xor, CAS, inc, dec), 64-bit (add, and, or, xor, min, max, a CAS loop), float
 * and double add, float exch. 1024 threads in 4 blocks meet on every address. */
#include <limits.h>
#include "harness.h"
#include "kernel_test_util.h"

#define T 1024

static const char *atom_src =
    "extern \"C\" __global__ void atoms(int *i32, unsigned *u32, long long *i64, unsigned long long *u64,\n"
    "                                   float *f32, double *f64, int *olds) {\n"
    "  int t = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  atomicAdd(&i32[0], t % 7 - 3);\n"
    "  atomicSub(&i32[1], t % 5);\n"
    "  atomicMin(&i32[2], 100 - (t * 37) % 1001);\n"
    "  atomicMax(&i32[3], (t * 37) % 1001 - 500);\n"
    "  atomicAnd(&i32[4], ~(1 << (t % 29)));\n"
    "  atomicOr(&i32[5], 1 << (t % 13));\n"
    "  atomicXor(&i32[6], (int)((unsigned)t * 2654435761u));\n"
    "  olds[t] = atomicExch(&i32[7], t + 1000);\n"
    "  if (atomicCAS(&i32[8], 0, t + 1) == 0) atomicAdd(&i32[9], 1);\n"
    "  atomicAdd(&u32[0], (unsigned)t * 3u);\n"
    "  atomicInc(&u32[1], 17u);\n"
    "  atomicDec(&u32[2], 17u);\n"
    "  atomicMin(&u32[3], (unsigned)(t * 7919) % 100003u + 5u);\n"
    "  atomicMax(&u32[4], (unsigned)(t * 7919) % 100003u);\n"
    "  atomicSub(&u32[5], 3u);\n"
    "  atomicAdd(&u64[0], (unsigned long long)t << 33);\n"
    "  atomicAnd(&u64[1], ~(1ull << (t % 50)));\n"
    "  atomicOr(&u64[2], 1ull << (t % 61));\n"
    "  atomicXor(&u64[3], (unsigned long long)t * 0x9E3779B97F4A7C15ull);\n"
    "  atomicMin(&u64[4], (unsigned long long)(t + 7) * 0x100000001ull);\n"
    "  atomicMax(&u64[5], (unsigned long long)(t % 300) << 40);\n"
    "  unsigned long long old = u64[6], assumed;\n"
    "  do {\n"
    "    assumed = old;\n"
    "    old = atomicCAS(&u64[6], assumed, assumed + (unsigned long long)t);\n"
    "  } while (old != assumed);\n"
    "  atomicExch(&u64[7], 77ull);\n"
    "  atomicMin(&i64[0], -(long long)t * 1000000007LL);\n"
    "  atomicMax(&i64[1], (long long)(t % 100) << 40);\n"
    "  atomicAdd(&f32[0], (t % 4) * 0.25f);\n"
    "  atomicExch(&f32[1], 2.5f);\n"
    "  atomicAdd(&f64[0], t * 0.5);\n"
    "}\n";

static void test_atomics(rs_context *ctx) {
  int i32[10] = {5, 1000, INT_MAX, INT_MIN, -1, 0, 12345, 7, 0, 0};
  unsigned u32[6] = {1, 0, 5, UINT_MAX, 0, 10000};
  long long i64[2] = {LLONG_MAX, LLONG_MIN};
  unsigned long long u64[8] = {3, ~0ull, 0, 99, ~0ull, 0, 11, 0};
  float f32[2] = {1.0f, 0.0f};
  double f64[1] = {0.25};
  static int olds[T];
  rs_array *a[7] = {kt_wrap(ctx, i32, 10, RS_INT32), kt_wrap(ctx, u32, 6, RS_UINT32), kt_wrap(ctx, i64, 2, RS_INT64),
                    kt_wrap(ctx, u64, 8, RS_UINT64), kt_wrap(ctx, f32, 2, RS_FLOAT32), kt_wrap(ctx, f64, 1, RS_FLOAT64),
                    kt_wrap(ctx, olds, T, RS_INT32)};
  char msg[1024];
  rs_status st = kt_run(ctx, atom_src, "atoms", 4, T / 4,
                        RS_ARGS(rs_arg_array(a[0]), rs_arg_array(a[1]), rs_arg_array(a[2]), rs_arg_array(a[3]),
                                rs_arg_array(a[4]), rs_arg_array(a[5]), rs_arg_array(a[6])),
                        msg, sizeof msg);
  for (int i = 0; i < 7; i++) rs_array_release(a[i]);
  CHECK_MSG(st == RS_OK, "%s", msg);
  /* the same operations, one thread after another */
  int r32[10] = {5, 1000, INT_MAX, INT_MIN, -1, 0, 12345, 7, 0, 0};
  unsigned ru[6] = {1, 0, 5, UINT_MAX, 0, 10000};
  long long r64[2] = {LLONG_MAX, LLONG_MIN};
  unsigned long long ru64[8] = {3, ~0ull, 0, 99, ~0ull, 0, 11, 77};
  double fsum = 1.0, dsum = 0.25;
  for (int t = 0; t < T; t++) {
    r32[0] += t % 7 - 3;
    r32[1] -= t % 5;
    int mn = 100 - (t * 37) % 1001, mx = (t * 37) % 1001 - 500;
    if (mn < r32[2]) r32[2] = mn;
    if (mx > r32[3]) r32[3] = mx;
    r32[4] &= ~(1 << (t % 29));
    r32[5] |= 1 << (t % 13);
    r32[6] ^= (int)((unsigned)t * 2654435761u);
    ru[0] += (unsigned)t * 3u;
    ru[1] = ru[1] >= 17u ? 0u : ru[1] + 1u;
    ru[2] = (ru[2] == 0u || ru[2] > 17u) ? 17u : ru[2] - 1u;
    unsigned um = (unsigned)(t * 7919) % 100003u;
    if (um + 5u < ru[3]) ru[3] = um + 5u;
    if (um > ru[4]) ru[4] = um;
    ru[5] -= 3u;
    ru64[0] += (unsigned long long)t << 33;
    ru64[1] &= ~(1ull << (t % 50));
    ru64[2] |= 1ull << (t % 61);
    ru64[3] ^= (unsigned long long)t * 0x9E3779B97F4A7C15ull;
    unsigned long long m4 = (unsigned long long)(t + 7) * 0x100000001ull, m5 = (unsigned long long)(t % 300) << 40;
    if (m4 < ru64[4]) ru64[4] = m4;
    if (m5 > ru64[5]) ru64[5] = m5;
    ru64[6] += (unsigned long long)t;
    long long l0 = -(long long)t * 1000000007LL, l1 = (long long)(t % 100) << 40;
    if (l0 < r64[0]) r64[0] = l0;
    if (l1 > r64[1]) r64[1] = l1;
    fsum += (t % 4) * 0.25;
    dsum += t * 0.5;
  }
  for (int i = 0; i < 7; i++) CHECK_MSG(i32[i] == r32[i], "int slot %d: %d, want %d", i, i32[i], r32[i]);
  for (int i = 0; i < 6; i++) CHECK_MSG(u32[i] == ru[i], "unsigned slot %d: %u, want %u", i, u32[i], ru[i]);
  for (int i = 0; i < 2; i++) CHECK_MSG(i64[i] == r64[i], "long long slot %d: %lld, want %lld", i, i64[i], r64[i]);
  for (int i = 0; i < 8; i++)
    CHECK_MSG(u64[i] == ru64[i], "unsigned long long slot %d: %llx, want %llx", i, u64[i], ru64[i]);
  CHECK_NEAR(f32[0], fsum, 0.0); /* quarters: every partial sum is exact in float */
  CHECK_NEAR(f32[1], 2.5, 0.0);
  CHECK_NEAR(f64[0], dsum, 0.0);
  /* exchange: the old values and the last one are the first value and every written one */
  static int seen[T + 1];
  memset(seen, 0, sizeof seen);
  seen[T] += i32[7] == 7;
  for (int t = 0; t < T; t++) {
    if (olds[t] == 7) seen[T]++;
    else if (olds[t] >= 1000 && olds[t] < 1000 + T) seen[olds[t] - 1000]++;
  }
  if (i32[7] >= 1000 && i32[7] < 1000 + T) seen[i32[7] - 1000]++;
  for (int t = 0; t <= T; t++) CHECK_MSG(seen[t] == 1, "exchange value %d seen %d times", t, seen[t]);
  /* compare-and-swap from 0: exactly one thread won, and its value is there */
  CHECK_EQ_I64(i32[9], 1);
  CHECK(i32[8] >= 1 && i32[8] <= T);
}

static const rs_test_case tests[] = {
    RS_TEST(test_atomics),
};
RS_TEST_MAIN(tests)
