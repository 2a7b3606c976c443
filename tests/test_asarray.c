/* Issue 13 item 3: asarray makes no copy where none is needed, one explicit copy where
 * one is; the _like family makes arrays shaped like another in any memory kind. The
 * ledger proves which calls moved bytes. */
#include "harness.h"
#include "resident/ops.h"

static const rs_mem_kind kinds[] = {RS_MEM_DEVICE, RS_MEM_HOST, RS_MEM_PINNED, RS_MEM_MAPPED, RS_MEM_MANAGED};
#define NKINDS (int)(sizeof kinds / sizeof kinds[0])

static int64_t ledger_copies(rs_context *ctx, int implicit) {
  rs_ledger_stats st;
  if (rs_ledger_get_stats(ctx, &st) != RS_OK) return -1;
  return rs_ledger_copies(&st, implicit);
}

static int64_t ledger_entries(rs_context *ctx) {
  int64_t n = -1, dropped = 0;
  if (rs_ledger_count(ctx, &n, &dropped) != RS_OK) return -1;
  return n + dropped;
}

static const void *data_of(const rs_array *a) {
  return rs_array_kind(a) == RS_MEM_DEVICE ? rs_array_device_data(a) : rs_array_host_data(a);
}

/* Already of the kind asked for: the same memory under a new handle, nothing recorded. */
static void test_asarray_same_kind_is_no_copy(rs_context *ctx) {
  const int64_t shape[2] = {4, 5};
  for (int k = 0; k < NKINDS; k++) {
    rs_array *a = NULL, *b = NULL;
    CHECK_OK(rs_arange(&a, ctx, kinds[k], 0, 20, 1, RS_FLOAT64, NULL));
    rs_array *a2 = NULL;
    CHECK_OK(rs_array_reshape(&a2, a, 2, shape));
    CHECK_OK(rs_array_release(a));
    a = a2;
    CHECK_OK(rs_context_synchronize(ctx));
    CHECK_OK(rs_ledger_reset(ctx));
    int64_t before = ledger_entries(ctx);
    CHECK_OK(rs_asarray(&b, a, kinds[k], NULL));
    CHECK(b != a);
    CHECK(data_of(b) == data_of(a));
    CHECK_EQ_I64(rs_array_kind(b), kinds[k]);
    CHECK_EQ_I64(ledger_entries(ctx), before);
    CHECK_EQ_I64(ledger_copies(ctx, -1), 0);
    /* One memory: a write through the new handle is seen through the old one. */
    CHECK_OK(rs_full_into(b, rs_scalar_float(7.0), NULL));
    const int64_t i[2] = {3, 4};
    double v = 0;
    CHECK_OK(rs_array_release(b)); /* the memory stays: a still holds it */
    CHECK_OK(rs_array_item_double(a, i, &v, NULL));
    CHECK_NEAR(v, 7.0, 0);
    CHECK_OK(rs_array_release(a));
  }
}

/* Wrapped memory is of its kind too: asarray hands the caller's own buffer back. */
static void test_asarray_wrapped_host_is_no_copy(rs_context *ctx) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  const int64_t n[1] = {6};
  rs_array *h = NULL, *b = NULL;
  CHECK_OK(rs_host_array_wrap(&h, ctx, data, 1, n, RS_FLOAT32, NULL));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_asarray(&b, h, RS_MEM_HOST, NULL));
  CHECK(rs_array_host_data(b) == (void *)data);
  CHECK_EQ_I64(ledger_copies(ctx, -1), 0);
  CHECK_OK(rs_array_release(h));
  CHECK_OK(rs_array_release(b));
}

/* Elsewhere: one explicit copy through the copy path, with the values and the layout. */
static void test_asarray_other_kind_copies_once(rs_context *ctx) {
  const int64_t shape[2] = {3, 4};
  for (int from = 0; from < NKINDS; from++) {
    for (int to = 0; to < NKINDS; to++) {
      if (from == to) continue;
      rs_array *a = NULL, *a2 = NULL, *f = NULL, *b = NULL, *back = NULL;
      CHECK_OK(rs_arange(&a, ctx, kinds[from], 0, 12, 1, RS_FLOAT32, NULL));
      CHECK_OK(rs_array_reshape(&a2, a, 2, shape));
      CHECK_OK(rs_array_transpose(&f, a2)); /* 4x3, F-contiguous */
      CHECK_OK(rs_context_synchronize(ctx));
      CHECK_OK(rs_ledger_reset(ctx));
      CHECK_OK(rs_asarray(&b, f, kinds[to], NULL));
      CHECK_OK(rs_context_synchronize(ctx));
      CHECK_EQ_I64(ledger_copies(ctx, 0), 1);
      CHECK_EQ_I64(ledger_copies(ctx, 1), 0);
      CHECK_EQ_I64(rs_array_kind(b), kinds[to]);
      CHECK(data_of(b) != data_of(f));
      CHECK(rs_array_is_f_contiguous(b));
      CHECK_EQ_I64(rs_array_shape(b)[0], 4);
      CHECK_EQ_I64(rs_array_shape(b)[1], 3);
      /* back where it came from, to compare there */
      CHECK_OK(rs_asarray(&back, b, kinds[from], NULL));
      int same = 0;
      CHECK_OK(rs_array_equal(back, f, &same, NULL));
      CHECK_MSG(same, "%s -> %s -> %s changed the values", rs_mem_kind_name(kinds[from]),
                rs_mem_kind_name(kinds[to]), rs_mem_kind_name(kinds[from]));
      CHECK_OK(rs_array_release(back));
      CHECK_OK(rs_array_release(b));
      CHECK_OK(rs_array_release(f));
      CHECK_OK(rs_array_release(a2));
      CHECK_OK(rs_array_release(a));
    }
  }
}

/* A strided view copied elsewhere becomes a C-ordered array of its values. */
static void test_asarray_strided_view(rs_context *ctx) {
  rs_array *a = NULL, *v = NULL, *b = NULL;
  CHECK_OK(rs_arange(&a, ctx, RS_MEM_DEVICE, 0, 10, 1, RS_INT32, NULL));
  rs_slice every_other = {1, RS_SLICE_DEFAULT, 2};
  CHECK_OK(rs_array_slice(&v, a, 1, &every_other)); /* 1 3 5 7 9 */
  CHECK_OK(rs_asarray(&b, v, RS_MEM_HOST, NULL));
  CHECK(rs_array_is_c_contiguous(b));
  CHECK_EQ_I64(rs_array_shape(b)[0], 5);
  const int32_t *h = rs_array_host_data(b);
  CHECK(h != NULL);
  for (int i = 0; i < 5; i++) CHECK_EQ_I64(h[i], 2 * i + 1);
  CHECK_OK(rs_array_release(b));
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(a));
}

/* The _like family: like's shape, dtype and order, in any kind, filled as asked; the
 * values of like are never read, so nothing is copied. */
static void test_like_family_every_kind(rs_context *ctx) {
  const int64_t shape[2] = {2, 3};
  rs_array *c = NULL, *like = NULL;
  CHECK_OK(rs_zeros(&c, ctx, RS_MEM_DEVICE, 2, shape, RS_INT16, NULL));
  CHECK_OK(rs_array_transpose(&like, c)); /* 3x2, F order */
  for (int k = 0; k < NKINDS; k++) {
    rs_array *made[4] = {NULL, NULL, NULL, NULL};
    CHECK_OK(rs_context_synchronize(ctx));
    CHECK_OK(rs_ledger_reset(ctx));
    CHECK_OK(rs_empty_like(&made[0], like, kinds[k]));
    CHECK_OK(rs_zeros_like(&made[1], like, kinds[k], NULL));
    CHECK_OK(rs_ones_like(&made[2], like, kinds[k], NULL));
    CHECK_OK(rs_full_like(&made[3], like, kinds[k], rs_scalar_int(-9), NULL));
    CHECK_OK(rs_context_synchronize(ctx));
    CHECK_EQ_I64(ledger_copies(ctx, -1), 0);
    const double want[4] = {0, 0, 1, -9};
    for (int m = 0; m < 4; m++) {
      CHECK_EQ_I64(rs_array_kind(made[m]), kinds[k]);
      CHECK_EQ_I64(rs_array_dtype(made[m]), RS_INT16);
      CHECK_EQ_I64(rs_array_ndim(made[m]), 2);
      CHECK_EQ_I64(rs_array_shape(made[m])[0], 3);
      CHECK_EQ_I64(rs_array_shape(made[m])[1], 2);
      CHECK(rs_array_is_f_contiguous(made[m]));
      if (m == 0) continue; /* empty: values undefined */
      const int64_t last[2] = {2, 1};
      double v = 99;
      CHECK_OK(rs_array_item_double(made[m], last, &v, NULL));
      CHECK_NEAR(v, want[m], 0);
    }
    for (int m = 0; m < 4; m++) CHECK_OK(rs_array_release(made[m]));
  }
  CHECK_OK(rs_array_release(like));
  CHECK_OK(rs_array_release(c));
}

static const rs_test_case tests[] = {
    RS_TEST(test_asarray_same_kind_is_no_copy),
    RS_TEST(test_asarray_wrapped_host_is_no_copy),
    RS_TEST(test_asarray_other_kind_copies_once),
    RS_TEST(test_asarray_strided_view),
    RS_TEST(test_like_family_every_kind),
};
RS_TEST_MAIN(tests)
