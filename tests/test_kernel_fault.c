/* A kernel that faults on the GPU (an illegal address) becomes RS_ERR_KERNEL_FAULT, and the
 * message says the CUDA context can no longer be used. After such a fault every CUDA call
 * of the process fails, so this file holds that one test (and runs it last of its kind).
 *
 * The simulator runs kernels as host code: a wild pointer there is a wild pointer in this
 * process, not a reported fault, so on the simulator the test checks the fault that it does
 * report - __trap() - and that the context stays usable. */
#include "harness.h"
#include "kernel_test_util.h"

static const char *poke_src =
    "extern \"C\" __global__ void poke(int *ok, int bad) {\n"
    "  ok[threadIdx.x] = 1;\n"
    "  if (bad) *(volatile int *)(8ull + 4ull * threadIdx.x) = 1;  // nothing is mapped there\n"
    "}\n";

static const char *trap_src =
    "extern \"C\" __global__ void poke(int *ok, int bad) {\n"
    "  ok[threadIdx.x] = 1;\n"
    "  if (bad) __trap();\n"
    "}\n";

static void test_kernel_fault_is_reported(rs_context *ctx) {
  int sim = rs_context_backend(ctx) == RS_BACKEND_SIM;
  rs_kernel *k = NULL;
  KT_CREATE(k, ctx, sim ? trap_src : poke_src, "poke");
  int64_t n = 32;
  rs_array *ok = NULL;
  CHECK_OK(rs_device_array(&ok, ctx, 1, &n, RS_INT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.grid = {1}, .block = {32}};
  /* a good launch first */
  rs_status good = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ok), rs_arg_i32(0)));
  if (good == RS_OK) good = rs_kernel_synchronize(k, NULL);
  /* the fault: the launch itself is accepted, the synchronization reports it */
  rs_status launched = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ok), rs_arg_i32(1)));
  rs_status fault = rs_kernel_synchronize(k, NULL);
  char m[1024];
  snprintf(m, sizeof m, "%s", rs_last_error());
  /* and later: on CUDA the context is gone, on the simulator it works on */
  rs_status later = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(ok), rs_arg_i32(0)));
  if (later == RS_OK) later = rs_kernel_synchronize(k, NULL);
  rs_array_release(ok);
  rs_kernel_destroy(k);
  CHECK_OK(good);
  CHECK_OK(launched);
  CHECK(fault == RS_ERR_KERNEL_FAULT);
  CHECK_MSG(strstr(m, "poke") != NULL, "%s", m);
  if (sim) {
    CHECK_MSG(strstr(m, "__trap()") && strstr(m, "still usable"), "%s", m);
    CHECK_OK(later);
  } else {
    CHECK_MSG(strstr(m, "no longer usable") != NULL, "%s", m);
    CHECK(later != RS_OK);
  }
}

static const rs_test_case tests[] = {
    RS_TEST(test_kernel_fault_is_reported),
};
RS_TEST_MAIN(tests)
