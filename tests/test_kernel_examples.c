/* The examples under examples/, built into this test and run on each backend: vector add
 * (implicit copies, const inputs not copied back), grid-stride add, the shared-memory tree
 * and one-atomic-per-thread sums against the CPU's, and the memory-spaces example - their
 * functions with checks here, and their main programs as they are. */
#define main kt_main_grid_stride
#include "../examples/kernel_grid_stride.c"
#undef main
#define main kt_main_reduce
#include "../examples/kernel_reduce.c"
#undef main
#define main kt_main_shared_memory
#include "../examples/kernel_shared_memory.c"
#undef main
#define main kt_main_vector_add
#include "../examples/kernel_vector_add.c"
#undef main
#include "harness.h"
#include "kernel_test_util.h"

static void test_vector_add(rs_context *ctx) {
  double err = -1;
  int64_t in = 0, out = 0;
  CHECK_OK(example_vector_add(ctx, 1000003, &err, &in, &out));
  CHECK_NEAR(err, 0.0, 0.0);
  CHECK_EQ_I64(in, 3);  /* a, b and c go in */
  CHECK_EQ_I64(out, 1); /* only c comes back: a and b are const float * */
}

static void test_grid_stride(rs_context *ctx) {
  double err = -1;
  CHECK_OK(example_grid_stride(ctx, 1000003, 3, &err));
  CHECK_NEAR(err, 0.0, 0.0);
}

static void test_reduce_tree_and_atomic(rs_context *ctx) {
  char path[4096];
  kt_source_path(path, sizeof path, "examples/kernel_reduce.cu");
  double tree = 0, atomic = 0, cpu = 0;
  CHECK_OK(example_reduce(ctx, path, 1 << 20, &tree, &atomic, &cpu));
  CHECK(cpu > 0);
  /* float sums in another order: equal within tolerance, not bit for bit */
  CHECK_NEAR(tree, cpu, 1e-5 * cpu);
  CHECK_NEAR(atomic, cpu, 1e-3 * cpu);
}

static void test_shared_memory(rs_context *ctx) {
  double err = -1;
  int64_t count_err = -1;
  CHECK_OK(example_shared_memory(ctx, 100003, 128, &err, &count_err));
  CHECK_NEAR(err, 0.0, 1e-6);
  CHECK_EQ_I64(count_err, 0);
  CHECK_OK(example_shared_memory(ctx, 5000, 256, &err, &count_err));
  CHECK_NEAR(err, 0.0, 1e-6);
  CHECK_EQ_I64(count_err, 0);
}

/* The programs themselves (each makes its own context and checks its own result). */
static void test_example_programs(rs_context *ctx) {
  (void)ctx;
  char path[4096];
  kt_source_path(path, sizeof path, "examples/kernel_reduce.cu");
  char *argv[] = {"kernel_reduce", path, "1000000", NULL}; /* fewer elements: sanitizer builds */
  CHECK_EQ_I64(kt_main_vector_add(), 0);
  CHECK_EQ_I64(kt_main_grid_stride(), 0);
  CHECK_EQ_I64(kt_main_shared_memory(), 0);
  CHECK_EQ_I64(kt_main_reduce(3, argv), 0);
}

static const rs_test_case tests[] = {
    RS_TEST(test_vector_add),
    RS_TEST(test_grid_stride),
    RS_TEST(test_reduce_tree_and_atomic),
    RS_TEST(test_shared_memory),
    RS_TEST(test_example_programs),
};
RS_TEST_MAIN(tests)
