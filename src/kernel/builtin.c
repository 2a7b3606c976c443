/* Built-in kernels: the library's own, on every backend, through the launch path. */
#include "core/error.h"
#include "kernel/launch.h"
#include "resident/kernel.h"
#include "ledger/ledger_hooks.h"

rs_status rs_launch_builtin_axpb(rs_array *x, double a, double c, rs_stream *stream) {
  const char *name = "axpb";
  RS_TRY(rs_array_check(x, name));
  if (x->dtype != RS_FLOAT32 && x->dtype != RS_FLOAT64)
    return rs_fail(RS_ERR_DTYPE, "%s: dtype %s is not float32 or float64", name, rs_dtype_name(x->dtype));
  if (!rs_array_is_c_contiguous(x) && !rs_array_is_f_contiguous(x))
    return rs_fail(RS_ERR_NOT_CONTIGUOUS, "%s: the array must be contiguous", name);
  rs_launch_args la = {.kernel = name, .count = 1, .ctx = x->ctx, .stream_handle = stream};
  la.given[0] = x;
  RS_TRY(rs_launch_stage_in(&la));
  rs_context *ctx = x->ctx;
  rs_ledger_token t = rs_ledger_kernel_begin(ctx, la.stream);
  rs_status st = rs_array_size(x) == 0 ? RS_OK
                                       : ctx->vt->kernel_axpb(ctx->be, x->dtype, rs_launch_arg_ptr(&la, 0),
                                                              rs_array_size(x), a, c, la.stream);
  rs_ledger_kernel_end(ctx, t, name, la.stream);
  return rs_launch_stage_out(&la, st);
}

rs_status rs_launch_builtin_sleep(rs_context *ctx, double ms, rs_stream *stream) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "sleep: context is NULL");
  if (!(ms >= 0 && ms <= 60000))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sleep: %g ms is outside [0, 60000]", ms);
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, "sleep"));
  rs_ledger_token t = rs_ledger_kernel_begin(ctx, native);
  rs_status st = ctx->vt->kernel_sleep(ctx->be, ms, native);
  rs_ledger_kernel_end(ctx, t, "sleep", native);
  return st;
}
