/* The conventions of resident.h, each shown on the calls it governs: write-only
 * out-parameters, the `_into` destination form, one destroy signature that takes NULL,
 * NULL as the default stream, one argument order, enum-typed parameters. */
#include <stdatomic.h>
#include <stdint.h>
#include "harness.h"
#include "resident.h"

/* A non-NULL value no handle ever has: an out-parameter that read it would crash or fail. */
#define GARBAGE ((void *)(uintptr_t)0x5a5a5a5a5a5a5a5aull)

static int64_t live_arrays(rs_context *ctx) {
  rs_live_stats s;
  return rs_context_get_live_stats(ctx, &s) == RS_OK ? s.arrays : -1;
}

static double item(const rs_array *a, int64_t i) {
  double v = -1;
  return rs_array_item_double(a, &i, &v, NULL) == RS_OK ? v : -1;
}

/* 1. Out-parameters are write-only: garbage in *out is never read, the call gives a new
 * array and nothing else changes; a second call gives a second array; a failure gives
 * nothing to release. */
static void test_out_is_write_only(rs_context *ctx) {
  int64_t n = 6, sq[2] = {2, 2};
  rs_array *a = NULL, *b = NULL, *m = NULL, *rhs = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 6, 1, RS_FLOAT64, NULL));
  CHECK_OK(rs_full(&b, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, rs_scalar_float(10), NULL));
  CHECK_OK(rs_eye(&m, ctx, RS_MEM_DEVICE, 2, -1, 0, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&rhs, ctx, RS_MEM_DEVICE, 1, sq, RS_FLOAT64, NULL));
  int64_t before = live_arrays(ctx);

  rs_array *y = GARBAGE, *y2 = GARBAGE, *s = GARBAGE, *srt = GARBAGE, *mm = GARBAGE, *x = GARBAGE;
  rs_array *u = GARBAGE, *sv = GARBAGE, *vh = GARBAGE, *z = GARBAGE, *v = GARBAGE, *h = GARBAGE;
  rs_array *r = GARBAGE, *e_out = GARBAGE;
  CHECK_OK(rs_add(&y, a, b, NULL));
  CHECK(y != GARBAGE && y != a && y != b);
  CHECK_NEAR(item(y, 5), 15, 0);
  CHECK_NEAR(item(a, 5), 5, 0); /* the inputs are untouched */
  CHECK_NEAR(item(b, 5), 10, 0);
  CHECK_OK(rs_add(&y2, a, b, NULL)); /* the same call again: a second, distinct array */
  CHECK(y2 != GARBAGE && y2 != y);
  CHECK_OK(rs_sum(&s, a, 0, NULL, 0, NULL));
  CHECK_NEAR(item(s, 0), 15, 0);
  CHECK_OK(rs_sort(&srt, a, NULL));
  CHECK_OK(rs_matmul(&mm, m, m, NULL));
  CHECK_OK(rs_solve(&x, m, rhs, NULL));
  CHECK_OK(rs_svd(&u, &sv, &vh, m, 0, NULL));
  CHECK(u != GARBAGE && sv != GARBAGE && vh != GARBAGE);
  CHECK_OK(rs_zeros(&z, ctx, RS_MEM_DEVICE, 1, &n, RS_INT32, NULL));
  CHECK_OK(rs_array_reshape(&v, a, 2, (int64_t[]){2, 3}));
  CHECK_OK(rs_copy_to_host(&h, a, NULL));
  rs_rng rng = rs_rng_seed(7);
  CHECK_OK(rs_random_uniform(&r, &rng, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, 0, 1, NULL));
  rs_expr *e = GARBAGE;
  CHECK_OK(rs_expr_create(&e, ctx));
  CHECK(e != GARBAGE);
  int root = rs_expr_binary(e, RS_OP_MULTIPLY, rs_expr_array(e, a), rs_expr_scalar(e, rs_scalar_float(2)));
  CHECK_OK(rs_expr_eval(&e_out, e, root, NULL));
  CHECK_NEAR(item(e_out, 4), 8, 0);
  CHECK_OK(rs_expr_destroy(e));
  CHECK_EQ_I64(live_arrays(ctx), before + 14); /* exactly the new arrays, nothing else */
  rs_stream *st = GARBAGE;
  rs_event *ev = GARBAGE;
  CHECK_OK(rs_stream_create(&st, ctx, 0));
  CHECK_OK(rs_event_create(&ev, ctx, 0));
  CHECK(st != GARBAGE && ev != GARBAGE);
  CHECK_OK(rs_event_destroy(ev));
  CHECK_OK(rs_stream_destroy(st));

  /* a failure: nothing returned, nothing to release */
  rs_array *bad = NULL, *short_ = NULL;
  CHECK_OK(rs_ones(&short_, ctx, RS_MEM_DEVICE, 1, (int64_t[]){4}, RS_FLOAT64, NULL));
  int64_t mid = live_arrays(ctx);
  CHECK_STATUS(rs_add(&bad, a, short_, NULL), RS_ERR_BROADCAST);
  CHECK_EQ_I64(live_arrays(ctx), mid);
  rs_array *all[] = {y, y2, s, srt, mm, x, u, sv, vh, z, v, h, r, e_out, short_, a, b, m, rhs};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CHECK_OK(rs_array_release(all[i]));
}

/* 2. A destination is an explicit argument: the _into form writes into dst (in place, a
 * view, another dtype) and allocates nothing; a dst that does not fit is refused. */
static void test_into_writes_the_destination(rs_context *ctx) {
  int64_t n = 6, sq[2] = {2, 2}, big[2] = {2, 6};
  rs_array *a = NULL, *b = NULL, *dst = NULL, *wide = NULL, *row = NULL, *d0 = NULL, *i8 = NULL;
  rs_array *m = NULL, *mm = NULL, *rhs = NULL, *x = NULL, *u = NULL, *sv = NULL, *vh = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 6, 1, RS_FLOAT64, NULL));
  CHECK_OK(rs_full(&b, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, rs_scalar_float(10), NULL));
  CHECK_OK(rs_empty(&dst, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64));
  CHECK_OK(rs_zeros(&wide, ctx, RS_MEM_DEVICE, 2, big, RS_FLOAT64, NULL));
  CHECK_OK(rs_array_slice(&row, wide, 1, (rs_slice[]){{1, 2, 1}}));
  CHECK_OK(rs_empty(&d0, ctx, RS_MEM_DEVICE, 0, NULL, RS_FLOAT64));
  CHECK_OK(rs_empty(&i8, ctx, RS_MEM_DEVICE, 1, &n, RS_INT8));
  CHECK_OK(rs_eye(&m, ctx, RS_MEM_DEVICE, 2, -1, 0, RS_FLOAT64, NULL));
  CHECK_OK(rs_empty(&mm, ctx, RS_MEM_DEVICE, 2, sq, RS_FLOAT64));
  CHECK_OK(rs_ones(&rhs, ctx, RS_MEM_DEVICE, 1, sq, RS_FLOAT64, NULL));
  CHECK_OK(rs_empty(&x, ctx, RS_MEM_DEVICE, 1, sq, RS_FLOAT64));
  CHECK_OK(rs_empty(&u, ctx, RS_MEM_DEVICE, 2, sq, RS_FLOAT64));
  CHECK_OK(rs_empty(&sv, ctx, RS_MEM_DEVICE, 1, sq, RS_FLOAT64));
  CHECK_OK(rs_empty(&vh, ctx, RS_MEM_DEVICE, 2, sq, RS_FLOAT64));
  int64_t before = live_arrays(ctx);

  CHECK_OK(rs_add_into(dst, a, b, NULL));
  CHECK_NEAR(item(dst, 5), 15, 0);
  CHECK_OK(rs_multiply_scalar_into(a, a, rs_scalar_float(3), NULL)); /* in place */
  CHECK_NEAR(item(a, 5), 15, 0);
  CHECK_OK(rs_add_into(row, a, b, NULL)); /* a view: row 1 of wide */
  double w = -1;
  CHECK_OK(rs_array_item_double(wide, (int64_t[]){1, 5}, &w, NULL));
  CHECK_NEAR(w, 25, 0);
  CHECK_OK(rs_array_item_double(wide, (int64_t[]){0, 5}, &w, NULL));
  CHECK_NEAR(w, 0, 0); /* row 0 untouched */
  CHECK_OK(rs_sum_into(d0, a, 0, NULL, 0, NULL));
  CHECK_NEAR(item(d0, 0), 45, 0);
  CHECK_OK(rs_sort_into(dst, b, NULL));
  CHECK_OK(rs_astype_into(i8, a, RS_INT8, NULL));
  CHECK_NEAR(item(i8, 5), 15, 0);
  CHECK_OK(rs_matmul_into(mm, m, m, NULL));
  CHECK_OK(rs_solve_into(x, m, rhs, NULL));
  CHECK_NEAR(item(x, 1), 1, 0);
  CHECK_OK(rs_svd_into(u, sv, vh, m, 0, NULL));
  CHECK_NEAR(item(sv, 0), 1, 1e-12);
  CHECK_OK(rs_full_into(dst, rs_scalar_float(4), NULL)); /* creation's destination form */
  CHECK_NEAR(item(dst, 0), 4, 0);
  rs_rng rng = rs_rng_seed(1);
  CHECK_OK(rs_random_uniform_into(dst, &rng, 0, 1, NULL));
  CHECK_OK(rs_array_copy(dst, b, NULL)); /* the copy's destination comes first too */
  CHECK_NEAR(item(dst, 2), 10, 0);
  rs_expr *e = NULL;
  CHECK_OK(rs_expr_create(&e, ctx));
  int root = rs_expr_unary(e, RS_OP_NEGATIVE, rs_expr_array(e, b));
  CHECK_OK(rs_expr_eval_into(dst, e, root, NULL));
  CHECK_NEAR(item(dst, 3), -10, 0);
  CHECK_OK(rs_expr_destroy(e));
  CHECK_EQ_I64(live_arrays(ctx), before); /* nothing allocated */

  CHECK_STATUS(rs_add_into(mm, a, b, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_astype_into(i8, a, RS_FLOAT32, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_add_into(NULL, a, b, NULL), RS_ERR_NULL_POINTER);
  CHECK_ERRMSG("dst");
  rs_array *all[] = {a, b, dst, wide, row, d0, i8, m, mm, rhs, x, u, sv, vh};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) CHECK_OK(rs_array_release(all[i]));
}

/* 3. One destroy signature: NULL is RS_OK everywhere; a stale handle is an error with a
 * message. */
static void test_destroy_null_and_stale(rs_context *ctx) {
  CHECK_OK(rs_array_release(NULL));
  CHECK_OK(rs_stream_destroy(NULL));
  CHECK_OK(rs_event_destroy(NULL));
  CHECK_OK(rs_kernel_destroy(NULL));
  CHECK_OK(rs_expr_destroy(NULL));
  CHECK_OK(rs_context_destroy(NULL));
  CHECK_OK(rs_bench_result_destroy(NULL));

  rs_array *a = NULL;
  rs_stream *s = NULL;
  rs_event *ev = NULL;
  rs_kernel *k = NULL;
  rs_context *other = NULL;
  CHECK_OK(rs_zeros(&a, ctx, RS_MEM_DEVICE, 0, NULL, RS_FLOAT32, NULL));
  CHECK_OK(rs_stream_create(&s, ctx, 0));
  CHECK_OK(rs_event_create(&ev, ctx, 0));
  CHECK_OK(rs_kernel_create(&k, ctx, "extern \"C\" __global__ void nothing() {}\n", "nothing", NULL));
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  CHECK_OK(rs_array_release(a));
  CHECK_STATUS(rs_array_release(a), RS_ERR_RELEASED);
  CHECK_ERRMSG("released");
  CHECK_OK(rs_stream_destroy(s));
  CHECK_STATUS(rs_stream_destroy(s), RS_ERR_DESTROYED);
  CHECK_ERRMSG("rs_stream_destroy", "destroyed");
  CHECK_OK(rs_event_destroy(ev));
  CHECK_STATUS(rs_event_destroy(ev), RS_ERR_DESTROYED);
  CHECK_ERRMSG("rs_event_destroy", "destroyed");
  CHECK_OK(rs_kernel_destroy(k));
  CHECK_STATUS(rs_kernel_destroy(k), RS_ERR_DESTROYED);
  CHECK_ERRMSG("rs_kernel_destroy", "destroyed");
  CHECK_OK(rs_context_destroy(other));
  CHECK_STATUS(rs_context_destroy(other), RS_ERR_DESTROYED);
  CHECK_ERRMSG("rs_context_destroy", "destroyed");
}

static void count_callback(void *arg) { atomic_fetch_add((_Atomic int *)arg, 1); }

/* 4. NULL is the default stream, also in the calls that take nothing but a stream. */
static void test_null_is_the_default_stream(rs_context *ctx) {
  CHECK_OK(rs_t_kernels_warm(ctx));
  CHECK_OK(rs_stream_synchronize(NULL));
  CHECK_OK(rs_t_sleep(ctx, 60, NULL)); /* on ctx's default stream */
  int done = 1;
  CHECK_OK(rs_stream_query(NULL, &done));
  CHECK_EQ_I64(done, 0);
  _Atomic int calls = 0;
  CHECK_OK(rs_stream_add_callback(NULL, count_callback, &calls));
  double t0 = rs_t_now_ms_();
  CHECK_OK(rs_stream_synchronize(NULL));
  double waited = rs_t_now_ms_() - t0;
  CHECK_MSG(waited >= 40, "rs_stream_synchronize(NULL) returned after %.1f ms, before the 60 ms kernel", waited);
  CHECK_OK(rs_stream_query(NULL, &done));
  CHECK_EQ_I64(done, 1);
  for (int i = 0; i < 200 && atomic_load(&calls) == 0; i++) rs_t_sleep_ms_(5);
  CHECK_EQ_I64(atomic_load(&calls), 1);
  CHECK_OK(rs_stream_auto_synchronize_begin(NULL));
  CHECK_OK(rs_t_sleep(ctx, 30, NULL));
  t0 = rs_t_now_ms_();
  CHECK_OK(rs_stream_auto_synchronize_end(NULL));
  CHECK_MSG(rs_t_now_ms_() - t0 >= 15, "auto_synchronize_end(NULL) did not wait for the default stream");
  CHECK_STATUS(rs_stream_auto_synchronize_end(NULL), RS_ERR_STATE);
  rs_event *ev = NULL;
  CHECK_OK(rs_event_create(&ev, ctx, 0));
  CHECK_OK(rs_event_record(ev, NULL));
  CHECK_OK(rs_stream_wait_event(NULL, ev));
  CHECK_OK(rs_event_destroy(ev));

  /* with two contexts, the stream-only calls cover both default streams */
  rs_context *other = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  rs_status st = rs_t_kernels_warm(other);
  if (st == RS_OK) st = rs_t_sleep(other, 60, NULL);
  if (st == RS_OK) st = rs_stream_add_callback(NULL, count_callback, &calls); /* once, after both */
  t0 = rs_t_now_ms_();
  if (st == RS_OK) st = rs_stream_synchronize(NULL);
  waited = rs_t_now_ms_() - t0;
  rs_context_destroy(other);
  CHECK_OK(st);
  CHECK_MSG(waited >= 40, "rs_stream_synchronize(NULL) did not wait for the other context (%.1f ms)", waited);
  for (int i = 0; i < 200 && atomic_load(&calls) == 1; i++) rs_t_sleep_ms_(5);
  CHECK_EQ_I64(atomic_load(&calls), 2);
}

/* 5. One argument order (object first, results last; new handles first) and enum-typed
 * parameters, checked by the compiler: each line compiles only with these types. */
static void test_signatures(rs_context *ctx) {
  rs_status (*ledger_stats)(rs_context *, rs_ledger_stats *) = rs_ledger_get_stats;
  rs_status (*memory_stats)(rs_context *, rs_mem_space, rs_memory_stats *) = rs_memory_get_stats;
  rs_status (*props)(const rs_context *, rs_device_props *) = rs_context_get_props;
  rs_status (*elapsed)(rs_event *, rs_event *, float *) = rs_event_elapsed_ms;
  rs_status (*guard_set)(rs_context *, rs_direction, rs_guard_mode) = rs_guard_set;
  rs_status (*guard_push)(rs_context *, rs_direction, rs_guard_mode) = rs_guard_push;
  rs_status (*add_into)(rs_array *, const rs_array *, const rs_array *, rs_stream *) = rs_add_into;
  rs_status (*ctx_destroy)(rs_context *) = (rs_context_destroy);
  rs_status (*kernel_destroy)(rs_kernel *) = rs_kernel_destroy;
  rs_status (*expr_destroy)(rs_expr *) = rs_expr_destroy;
  rs_status (*bench_destroy)(rs_bench_result *) = rs_bench_result_destroy;
  CHECK(ledger_stats && memory_stats && props && elapsed && guard_set && guard_push && add_into && ctx_destroy &&
        kernel_destroy && expr_destroy && bench_destroy);
  rs_memory_stats ms;
  CHECK_OK(rs_memory_get_stats(ctx, RS_SPACE_DEVICE, &ms));
  CHECK_OK(rs_guard_set(ctx, RS_ALL_DIRECTIONS, RS_GUARD_ALLOW));
}

static const rs_test_case tests[] = {
    RS_TEST(test_out_is_write_only),
    RS_TEST(test_into_writes_the_destination),
    RS_TEST(test_destroy_null_and_stale),
    RS_TEST(test_null_is_the_default_stream),
    RS_TEST(test_signatures),
};
RS_TEST_MAIN(tests)
