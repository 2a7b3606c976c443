/* Issue 19, items 1 and 2: contexts on several devices (RESIDENT_SIM_DEVICES on the
 * simulator), and copies between arrays of two contexts through the one copy path: a peer
 * copy device to device (its own ledger direction, P2P), host arrays reachable from every
 * context (H2D, D2H, H2H), views of any layout. On a machine with one GPU the two contexts
 * share device 0, which still goes through every cross-context path. */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "resident/ops.h"

#define N 4096

/* A second context: on device 1 where there is one (the simulator is given 2). */
static rs_context *second_context(rs_context *ctx, int *device) {
  setenv("RESIDENT_SIM_DEVICES", "2", 1);
  int count = 0;
  rs_context *c = NULL;
  if (rs_device_count(rs_context_backend(ctx), &count) != RS_OK) count = 1;
  *device = count > 1 ? 1 : 0;
  if (rs_context_create(&c, rs_context_backend(ctx), *device) != RS_OK) c = NULL;
  unsetenv("RESIDENT_SIM_DEVICES");
  return c;
}

static void ramp(float *x, int64_t n, float base) {
  for (int64_t i = 0; i < n; i++) x[i] = base + (float)i * 0.5f;
}

/* Copies of kind dir in ctx's ledger since its last reset, and their bytes. */
static int64_t copies_of(rs_context *ctx, rs_direction dir, int64_t *bytes) {
  rs_ledger_stats s;
  if (rs_ledger_get_stats(ctx, &s) != RS_OK) return -1;
  if (bytes) *bytes = s.bytes[dir][0] + s.bytes[dir][1];
  return s.copies[dir][0] + s.copies[dir][1];
}

static void test_simulated_devices(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* a GPU machine has what it has */
  setenv("RESIDENT_SIM_DEVICES", "3", 1);
  int count = 0;
  rs_device_props p;
  rs_context *c2 = NULL;
  rs_status count_st = rs_device_count(RS_BACKEND_SIM, &count);
  rs_status props_st = rs_device_get_props(RS_BACKEND_SIM, 2, &p);
  rs_status open_st = rs_context_create(&c2, RS_BACKEND_SIM, 2);
  int dev = c2 ? rs_context_device(c2) : -1;
  if (c2) rs_context_destroy(c2);
  rs_context *c3 = NULL;
  rs_status past = rs_context_create(&c3, RS_BACKEND_SIM, 3);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  setenv("RESIDENT_SIM_DEVICES", "0", 1);
  rs_status zero = rs_context_create(&c3, RS_BACKEND_SIM, 0);
  char zero_msg[512];
  snprintf(zero_msg, sizeof zero_msg, "%s", rs_last_error());
  setenv("RESIDENT_SIM_DEVICES", "2x", 1);
  rs_status junk = rs_context_create(&c3, RS_BACKEND_SIM, 0);
  setenv("RESIDENT_SIM_DEVICES", "65", 1);
  rs_status many = rs_context_create(&c3, RS_BACKEND_SIM, 0);
  unsetenv("RESIDENT_SIM_DEVICES");
  CHECK_OK(count_st);
  CHECK_EQ_I64(count, 3);
  CHECK_OK(props_st);
  CHECK_MSG(strstr(p.name, "simulator 2") != NULL, "device 2 is named '%s'", p.name);
  CHECK_OK(open_st);
  CHECK_EQ_I64(dev, 2);
  CHECK(past == RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, "device 3") && strstr(msg, "3 devices") && strstr(msg, "RESIDENT_SIM_DEVICES"), "message: %s", msg);
  CHECK(zero == RS_ERR_PARSE && junk == RS_ERR_PARSE && many == RS_ERR_PARSE);
  CHECK_MSG(strstr(zero_msg, "RESIDENT_SIM_DEVICES") != NULL, "message: %s", zero_msg);
  CHECK(c3 == NULL);
}

/* Device to device across contexts: one P2P copy in the destination's ledger, the data
 * exact, nothing in the source's ledger but the wait for its queued work. */
static void test_peer_copy(rs_context *ctx) {
  int dev = 0;
  rs_context *c1 = second_context(ctx, &dev);
  CHECK(c1 != NULL);
  if (!c1) return;
  float *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
  CHECK(want && got);
  const int64_t n[1] = {N};
  rs_array *a = NULL, *b = NULL;
  CHECK_OK(rs_device_array(&a, ctx, 1, n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&b, c1, 1, n, RS_FLOAT32, NULL, RS_ORDER_C));
  ramp(want, N, 3.0f);
  CHECK_OK(rs_t_write_(a, want));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_ledger_reset(c1));
  CHECK_OK(rs_array_copy(b, a, NULL));
  int64_t bytes = 0;
  CHECK_EQ_I64(copies_of(c1, RS_P2P, &bytes), 1);
  CHECK_EQ_I64(bytes, N * 4);
  CHECK_EQ_I64(copies_of(ctx, RS_P2P, NULL) + copies_of(ctx, RS_D2D, NULL) + copies_of(ctx, RS_D2H, NULL), 0);
  rs_ledger_entry e;
  int64_t count = 0, dropped = 0;
  CHECK_OK(rs_ledger_count(c1, &count, &dropped));
  CHECK_EQ_I64(count, 1);
  CHECK_OK(rs_ledger_entry_at(c1, 0, &e));
  CHECK_STREQ(rs_direction_name(e.dir), "P2P");
  CHECK_OK(rs_t_read_(b, got));
  CHECK(memcmp(got, want, N * sizeof *got) == 0);
  /* and back, into a view of a's other half: a strided destination */
  rs_array *a_even = NULL, *b_half = NULL;
  const rs_slice even = {0, N, 2}, upper = {N / 2, N, 1};
  CHECK_OK(rs_array_slice(&a_even, a, 1, &even));
  CHECK_OK(rs_array_slice(&b_half, b, 1, &upper));
  CHECK_OK(rs_zeros_into(a, NULL));
  CHECK_OK(rs_array_copy(a_even, b_half, NULL));
  CHECK_OK(rs_t_read_(a, got));
  int bad = 0;
  for (int64_t i = 0; i < N; i++) bad += got[i] != (i % 2 ? 0.0f : want[N / 2 + i / 2]);
  CHECK_EQ_I64(bad, 0);
  CHECK_OK(rs_array_release(a_even));
  CHECK_OK(rs_array_release(b_half));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_array_release(b));
  free(want);
  free(got);
  rs_context_destroy(c1);
}

/* A host side: host memory is reachable from any context; the copy is the H2D, D2H or H2H
 * it is, in the context of its device side. */
static void test_host_sides(rs_context *ctx) {
  int dev = 0;
  rs_context *c1 = second_context(ctx, &dev);
  CHECK(c1 != NULL);
  if (!c1) return;
  float want[64], got[64];
  ramp(want, 64, -7.0f);
  const int64_t n[1] = {64};
  rs_array *h0 = NULL, *h1 = NULL, *d1 = NULL;
  CHECK_OK(rs_host_array(&h0, ctx, 1, n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_host_array(&h1, c1, 1, n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_device_array(&d1, c1, 1, n, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_t_write_(h0, want));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_ledger_reset(c1));
  CHECK_OK(rs_array_copy(h1, h0, NULL)); /* H2H, in the destination's context */
  CHECK_EQ_I64(copies_of(c1, RS_H2H, NULL), 1);
  CHECK_OK(rs_t_read_(h1, got));
  CHECK(memcmp(got, want, sizeof got) == 0);
  CHECK_OK(rs_array_copy(d1, h0, NULL)); /* H2D, in the device side's context */
  CHECK_EQ_I64(copies_of(c1, RS_H2D, NULL), 1);
  CHECK_OK(rs_t_read_(d1, got));
  CHECK(memcmp(got, want, sizeof got) == 0);
  CHECK_OK(rs_zeros_into(h0, NULL));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_ledger_reset(c1)); /* the reads above copied too */
  CHECK_OK(rs_array_copy(h0, d1, NULL)); /* D2H, in the device side's context */
  CHECK_EQ_I64(copies_of(c1, RS_D2H, NULL), 1);
  CHECK_EQ_I64(copies_of(ctx, RS_D2H, NULL) + copies_of(ctx, RS_H2D, NULL) + copies_of(ctx, RS_H2H, NULL), 0);
  CHECK_OK(rs_t_read_(h0, got));
  CHECK(memcmp(got, want, sizeof got) == 0);
  CHECK_OK(rs_array_release(h0));
  CHECK_OK(rs_array_release(h1));
  CHECK_OK(rs_array_release(d1));
  rs_context_destroy(c1);
}

/* Bad input: a peer copy on the source's stream, shapes that differ, the guard refusing
 * P2P. Each a status and a message, the destination untouched. */
static void test_bad_cross_context(rs_context *ctx) {
  int dev = 0;
  rs_context *c1 = second_context(ctx, &dev);
  CHECK(c1 != NULL);
  if (!c1) return;
  const int64_t n[1] = {16}, m[1] = {8};
  rs_array *a = NULL, *b = NULL, *small = NULL;
  rs_stream *s0 = NULL;
  CHECK_OK(rs_full(&a, ctx, RS_MEM_DEVICE, 1, n, RS_FLOAT32, rs_scalar_float(2.0), NULL));
  CHECK_OK(rs_full(&b, c1, RS_MEM_DEVICE, 1, n, RS_FLOAT32, rs_scalar_float(5.0), NULL));
  CHECK_OK(rs_device_array(&small, c1, 1, m, RS_FLOAT32, NULL, RS_ORDER_C));
  CHECK_OK(rs_stream_create(&s0, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_STATUS(rs_array_copy(b, a, s0), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("stream of the destination");
  CHECK_STATUS(rs_array_copy(small, a, NULL), RS_ERR_SHAPE);
  CHECK_OK(rs_guard_set(c1, RS_P2P, RS_GUARD_DISALLOW_EXPLICIT));
  CHECK_STATUS(rs_array_copy(b, a, NULL), RS_ERR_TRANSFER_REFUSED);
  CHECK_OK(rs_guard_set(c1, RS_P2P, RS_GUARD_ALLOW));
  float got[16];
  CHECK_OK(rs_t_read_(b, got));
  int untouched = 1;
  for (int i = 0; i < 16; i++) untouched &= got[i] == 5.0f;
  CHECK_MSG(untouched, "a refused copy wrote into its destination");
  CHECK_OK(rs_stream_destroy(s0));
  CHECK_OK(rs_array_release(a));
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(small));
  rs_context_destroy(c1);
}

static const rs_test_case tests[] = {
    RS_TEST(test_simulated_devices),
    RS_TEST(test_peer_copy),
    RS_TEST(test_host_sides),
    RS_TEST(test_bad_cross_context),
};

RS_TEST_MAIN(tests)
