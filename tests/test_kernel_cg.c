/* cooperative_groups in user kernels, the same source on every backend: a block sum with
 * this_thread_block(), tiled_partition<32>, cg::reduce and a tile's shfl_down, and the
 * votes and ranks of tiles made both ways, against plain C. On the simulator what its
 * cooperative_groups.h lacks is a compile error naming the construct. */
#include <stdlib.h>
#include "harness.h"
#include "kernel_test_util.h"

static const char *cg_src =
    "#include <cooperative_groups.h>\n"
    "#include <cooperative_groups/reduce.h>\n"
    "namespace cg = cooperative_groups;\n"
    "extern \"C\" __global__ void cg_sum(const float *x, float *block_sums, unsigned *info, int n) {\n"
    "  cg::thread_block block = cg::this_thread_block();\n"
    "  __shared__ float warp_sums[32];\n"
    "  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);\n"
    "  int i = (int)(block.group_index().x * block.num_threads() + block.thread_rank());\n"
    "  float v = i < n ? x[i] : 0.0f;\n"
    "  float s = cg::reduce(warp, v, cg::plus<float>());\n"
    "  if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = s;\n"
    "  block.sync();\n"
    "  if (warp.meta_group_rank() == 0) {\n"
    "    float w = warp.thread_rank() < warp.meta_group_size() ? warp_sums[warp.thread_rank()] : 0.0f;\n"
    "    for (int o = 16; o > 0; o /= 2) w += warp.shfl_down(w, o);\n"
    "    if (block.thread_rank() == 0) block_sums[block.group_index().x] = w;\n"
    "  }\n"
    "  cg::thread_group t16 = cg::tiled_partition(block, 16);\n"
    "  t16.sync();\n"
    "  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);\n"
    "  unsigned b = t8.ballot(t8.thread_rank() % 3 == 0);\n"
    "  unsigned any = t8.any(block.thread_rank() == 5) ? 1u : 0u;\n"
    "  unsigned all = t8.all(v >= 0.0f) ? 1u : 0u;\n"
    "  unsigned idx = block.thread_index().x == threadIdx.x && block.group_dim().x == blockDim.x;\n"
    "  int mx = cg::reduce(t8, (int)t8.thread_rank() * 3, cg::greater<int>());\n"
    "  int x8 = t8.shfl_xor((int)block.thread_rank(), 3);\n"
    "  info[i * 2] = b | any << 8 | all << 9 | idx << 10 | (unsigned)t16.thread_rank() << 12 |\n"
    "                (unsigned)t16.size() << 20;\n"
    "  info[i * 2 + 1] = (unsigned)mx | (unsigned)x8 << 8;\n"
    "}\n";

static void test_block_reduce_and_tiles(rs_context *ctx) {
  enum { N = 1000, BLOCK = 256, GRID = (N + BLOCK - 1) / BLOCK };
  static float x[N];
  float sums[GRID];
  static unsigned info[GRID * BLOCK * 2];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 5);
  rs_array *ax = kt_wrap(ctx, x, N, RS_FLOAT32), *as = kt_wrap(ctx, sums, GRID, RS_FLOAT32);
  rs_array *ai = kt_wrap(ctx, info, GRID * BLOCK * 2, RS_UINT32);
  char msg[1024];
  rs_status st = kt_run(ctx, cg_src, "cg_sum", GRID, BLOCK,
                        RS_ARGS(rs_arg_array(ax), rs_arg_array(as), rs_arg_array(ai), rs_arg_i32(N)), msg, sizeof msg);
  rs_array_release(ax);
  rs_array_release(as);
  rs_array_release(ai);
  CHECK_MSG(st == RS_OK, "%s", msg);
  for (int b = 0; b < GRID; b++) {
    double ref = 0;
    for (int i = b * BLOCK; i < (b + 1) * BLOCK && i < N; i++) ref += x[i];
    CHECK_NEAR(sums[b], ref, 0.0);
  }
  for (int i = 0; i < GRID * BLOCK; i++) {
    unsigned r = (unsigned)(i % BLOCK), want = 0x49u | (r < 8) << 8 | 1u << 9 | 1u << 10 | (r % 16) << 12 | 16u << 20;
    CHECK_EQ_I64(info[i * 2], want);
    CHECK_EQ_I64(info[i * 2 + 1], 21u | (r ^ 3u) << 8);
  }
}

/* What the simulator's cooperative_groups.h lacks: named, never a raw compiler error. */
static void test_unsupported_named(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return; /* NVRTC has the toolkit's header */
  static const char *const srcs[][2] = {
      {"#include <cooperative_groups.h>\n"
       "namespace cg = cooperative_groups;\n"
       "extern \"C\" __global__ void k(int *x) { cg::this_grid().sync(); x[0] = 1; }\n",
       "this_grid"},
      {"#include <cooperative_groups.h>\n"
       "namespace cg = cooperative_groups;\n"
       "extern \"C\" __global__ void k(int *x) {\n"
       "  auto g = cg::labeled_partition(cg::this_thread_block(), x[0]);\n"
       "  x[0] = g.thread_rank();\n"
       "}\n",
       "cooperative_groups::labeled_partition"},
      {"#include <cooperative_groups.h>\n"
       "namespace cg = cooperative_groups;\n"
       "extern \"C\" __global__ void k(int *x) { x[0] = cg::this_thread_block().cluster_rank(); }\n",
       "cluster_rank"},
  };
  for (size_t i = 0; i < sizeof srcs / sizeof srcs[0]; i++) {
    rs_kernel *k = NULL;
    rs_status st = rs_kernel_create(&k, ctx, srcs[i][0], "k", NULL);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", rs_last_error());
    rs_kernel_destroy(k);
    CHECK_MSG(st == RS_ERR_COMPILE, "%zu: %s", i, msg);
    CHECK_MSG(strstr(msg, srcs[i][1]) && strstr(msg, "does not support"), "%zu: %s", i, msg);
  }
}

static const rs_test_case tests[] = {
    RS_TEST(test_block_reduce_and_tiles),
    RS_TEST(test_unsupported_named),
};
RS_TEST_MAIN(tests)
