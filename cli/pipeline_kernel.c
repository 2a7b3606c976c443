/* The pipeline's kernel as CUDA C source: 16-byte accesses where the array is aligned to
 * them (the kernel is bound by memory, and wider transactions come closer to the copy
 * bandwidth), one element at a time for the rest. */
#include "cli/pipeline_kernel.h"

static const char *const rs_pipe_src =
    "extern \"C\" __global__ void axpb(REAL *x, long long n, REAL a, REAL c) {\n"
    "  const long long step = (long long)gridDim.x * blockDim.x;\n"
    "  const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  long long done = 0;\n"
    "  if (((unsigned long long)x & 15) == 0) {\n"
    "    VEC *xv = (VEC *)x;\n"
    "    const long long nv = n / LANES;\n"
    "    for (long long i = first; i < nv; i += step) {\n"
    "      VEC v = xv[i];\n"
    "      REAL *e = (REAL *)&v;\n"
    "#pragma unroll\n"
    "      for (int k = 0; k < LANES; ++k) e[k] = e[k] * a + c;\n"
    "      xv[i] = v;\n"
    "    }\n"
    "    done = nv * LANES;\n"
    "  }\n"
    "  for (long long i = done + first; i < n; i += step) x[i] = x[i] * a + c;\n"
    "}\n";

#define RS_PIPE_BLOCK 256

rs_status rs_pipe_kernel_create(rs_pipe_kernel *pk, rs_context *ctx, rs_dtype dtype) {
  static const char *const f32[] = {"-DREAL=float", "-DVEC=float4", "-DLANES=4"};
  static const char *const f64[] = {"-DREAL=double", "-DVEC=double2", "-DLANES=2"};
  if (dtype != RS_FLOAT32 && dtype != RS_FLOAT64) return RS_ERR_DTYPE;
  rs_kernel_options o = {.noptions = 3, .options = dtype == RS_FLOAT32 ? f32 : f64};
  rs_device_props props;
  rs_status st = rs_context_get_props(ctx, &props);
  if (st != RS_OK) return st;
  pk->dtype = dtype;
  pk->max_blocks = (unsigned)(props.multiprocessors > 0 ? props.multiprocessors : 1) * (2048 / RS_PIPE_BLOCK);
  return rs_kernel_create(&pk->k, ctx, rs_pipe_src, "axpb", &o);
}

rs_status rs_pipe_kernel_launch(const rs_pipe_kernel *pk, rs_array *x, double a, double c) {
  return rs_pipe_kernel_launch_on(pk, x, a, c, NULL);
}

rs_status rs_pipe_kernel_launch_on(const rs_pipe_kernel *pk, rs_array *x, double a, double c, rs_stream *stream) {
  int64_t n = rs_array_size(x);
  int64_t per_thread = pk->dtype == RS_FLOAT32 ? 4 : 2;
  int64_t want = (n / per_thread + RS_PIPE_BLOCK - 1) / RS_PIPE_BLOCK;
  unsigned blocks = want < 1 ? 1 : (want < pk->max_blocks ? (unsigned)want : pk->max_blocks);
  rs_launch_config cfg = {.grid = {blocks}, .block = {RS_PIPE_BLOCK}, .stream = stream, .elements = n};
  if (pk->dtype == RS_FLOAT32)
    return rs_kernel_launch(pk->k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i64(n), rs_arg_f32((float)a), rs_arg_f32((float)c)));
  return rs_kernel_launch(pk->k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i64(n), rs_arg_f64(a), rs_arg_f64(c)));
}

rs_status rs_pipe_kernel_destroy(rs_pipe_kernel *pk) {
  rs_status st = rs_kernel_destroy(pk->k);
  pk->k = NULL;
  return st;
}

rs_status rs_pipe_chain_step(rs_array *in, rs_array *out, rs_stream *s, void *user) {
  const rs_pipe_chain *ch = user;
  (void)out; /* in place: out is in */
  for (long k = 0; k < ch->kernels; k++) {
    rs_status st = rs_pipe_kernel_launch_on(ch->pk, in, ch->a, ch->c, s);
    if (st != RS_OK) return st;
  }
  return RS_OK;
}
