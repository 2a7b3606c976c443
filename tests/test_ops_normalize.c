/* The seed exercise (examples/normalize.c, built into this test): random numbers, sort,
 * rows of 5, normalised by their sums, every row summing to 1 - on the device and on the
 * host path; and where the data is, only one scalar crosses to the host. The size is
 * 50 million on a GPU, 2 million on the simulator (two cores). */
#define RS_EXAMPLE_NO_MAIN
#include "../examples/normalize.c"
#include "ops_testlib.h"

static int64_t size_for(rs_context *ctx) { return rs_context_backend(ctx) == RS_BACKEND_CUDA ? 50000000 : 2000000; }

static void test_normalize_device(rs_context *ctx) {
  double worst = -1;
  rs_ledger_stats st;
  CHECK_OK(example_normalize(ctx, size_for(ctx), RS_MEM_DEVICE, 42, &worst, &st));
  CHECK_MSG(worst < 1e-12, "worst |row sum - 1| = %g", worst);
  CHECK_EQ_I64(rs_ledger_copies(&st, 1), 0);       /* nothing implicit */
  CHECK_EQ_I64(st.copies[RS_H2D][0], 0);            /* nothing up */
  CHECK_EQ_I64(st.copies[RS_D2H][0], 1);            /* one scalar down */
  CHECK_EQ_I64(st.bytes[RS_D2H][0], 8);
  CHECK(st.kernels >= 6);
}

static void test_normalize_host(rs_context *ctx) {
  double worst = -1;
  rs_ledger_stats st;
  CHECK_OK(example_normalize(ctx, 1000000, RS_MEM_HOST, 42, &worst, &st));
  CHECK_MSG(worst < 1e-12, "worst |row sum - 1| = %g", worst);
  CHECK_EQ_I64(rs_ledger_copies(&st, 1), 0);
  CHECK_EQ_I64(st.copies[RS_H2D][0] + st.copies[RS_D2H][0] + st.copies[RS_D2D][0], 0);
}

/* Small enough to check every row against a C loop over the same numbers. */
static void test_normalize_rows_exact(rs_context *ctx) {
  int64_t n = 5000;
  rs_rng rng = rs_rng_seed(5);
  rs_array *x = NULL, *rows = NULL, *sums = NULL;
  CHECK_OK(rs_random_uniform(&x, &rng, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT64, 0, 1, NULL));
  double *orig = malloc((size_t)n * sizeof *orig), *got = malloc((size_t)n * sizeof *got);
  CHECK_OK(rs_t_read_(x, orig));
  CHECK_OK(rs_sort_into(x, x, NULL));
  int64_t shape[2] = {-1, 5};
  int axis = 1;
  CHECK_OK(rs_array_reshape(&rows, x, 2, shape));
  CHECK_OK(rs_sum(&sums, rows, 1, &axis, 1, NULL));
  CHECK_OK(rs_divide_into(rows, rows, sums, NULL));
  CHECK_OK(rs_t_read_(rows, got));
  /* reference: qsort, then the same row arithmetic */
  for (int64_t i = 1; i < n; i++)
    for (int64_t j = i; j > 0 && orig[j - 1] > orig[j]; j--) {
      double t = orig[j];
      orig[j] = orig[j - 1];
      orig[j - 1] = t;
    }
  int ok = 1;
  for (int64_t r = 0; r < n / 5 && ok; r++) {
    double s = 0, total = 0;
    for (int k = 0; k < 5; k++) s += orig[r * 5 + k];
    for (int k = 0; k < 5; k++) {
      ok = ok && fabs(got[r * 5 + k] - orig[r * 5 + k] / s) <= 1e-15 * fabs(orig[r * 5 + k] / s);
      total += got[r * 5 + k];
    }
    ok = ok && fabs(total - 1) < 1e-14;
  }
  free(orig);
  free(got);
  tl_release(3, x, rows, sums);
  CHECK(ok);
}

static const rs_test_case tests[] = {RS_TEST(test_normalize_device), RS_TEST(test_normalize_host),
                                     RS_TEST(test_normalize_rows_exact)};
RS_TEST_MAIN(tests)
