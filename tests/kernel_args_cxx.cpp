// RS_ARGS from C++ (no compound literals there: resident/kernel.h builds the argument
// list as an initializer_list, alive for the launch call): a real launch on the
// simulator with four arguments, the result read back.
#include <cstdio>
#include <resident.h>

int main() {
  rs_context *ctx;
  if (rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK) return 1;
  const char *src = "extern \"C\" __global__ void axpb(float *x, int n, float a, float b) {"
                    " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * a + b; }";
  rs_kernel *k = nullptr;
  rs_array *x = nullptr;
  int64_t n = 1000, last = n - 1;
  double v = 0;
  rs_launch_config cfg = {};
  cfg.elements = n;
  cfg.flags = RS_LAUNCH_SYNC;
  rs_status st = rs_kernel_create(&k, ctx, src, "axpb", nullptr);
  if (st == RS_OK) st = rs_full(&x, ctx, RS_MEM_DEVICE, 1, &n, RS_FLOAT32, rs_scalar_float(2), nullptr);
  if (st == RS_OK)
    st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32((int)n), rs_arg_f32(3.0f), rs_arg_f32(1.0f)));
  if (st == RS_OK) st = rs_array_item_double(x, &last, &v, nullptr);
  if (st != RS_OK) std::printf("%s: %s\n", rs_status_name(st), rs_last_error());
  std::printf("x[%lld] = %g (2 * 3 + 1 = 7 expected)\n", (long long)last, v);
  rs_array_release(x);
  rs_kernel_destroy(k);
  rs_context_destroy(ctx);
  return st == RS_OK && v == 7.0 ? 0 : 1;
}
