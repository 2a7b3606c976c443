/* Launching a user kernel through THE launch path (kernel/launch.h): arguments checked,
 * configuration resolved, host arrays staged with implicit copies, the launch recorded by
 * the ledger, writable staged arrays copied back.
 *
 * The common case - device arrays, a configuration already seen - allocates nothing,
 * parses nothing and takes no lock of its own: the arguments live on this stack, the
 * occupancy answer is one atomic load, and only the ledger's record locks. */
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_args.h"
#include "kernel/kernel_internal.h"
#include "ledger/ledger_hooks.h"
#include "transfer/copy.h"

/* A fault an earlier launch recorded (the backend's message names the kernel and block). */
static rs_status rs_take_fault(rs_kernel *k) { return k->kb->take_fault(k->module); }

/* Wait for stream and report a fault of k's launches there. */
static rs_status rs_wait_and_check(rs_kernel *k, void *native, const char *why) {
  rs_context *ctx = k->ctx;
  rs_status st = rs_ledger_timed_wait(ctx, RS_WAIT_STREAM, native, why);
  if (st != RS_OK) return rs_fail_prefix(st, "kernel '%s': ", k->name);
  return rs_take_fault(k);
}

rs_status rs_kernel_launch(rs_kernel *k, const rs_launch_config *cfg, int nargs, const rs_arg *args) {
  RS_TRY(rs_kernel_check(k, "rs_kernel_launch"));
  if (!cfg) return rs_fail(RS_ERR_NULL_POINTER, "rs_kernel_launch: kernel '%s': cfg is NULL", k->name);
  if (cfg->flags & ~RS_LAUNCH_SYNC)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "rs_kernel_launch: kernel '%s': unknown flag bits 0x%x (known: RS_LAUNCH_SYNC)", k->name,
                   cfg->flags & ~RS_LAUNCH_SYNC);
  RS_TRY(rs_take_fault(k));
  rs_context *ctx = k->ctx;
  if (cfg->stream) {
    /* checked here too for a message that names the kernel (a destroyed stream, ...) */
    void *native = NULL;
    rs_status st = rs_stream_resolve(ctx, cfg->stream, &native, "rs_kernel_launch");
    if (st != RS_OK) return rs_fail_prefix(st, "kernel '%s': ", k->name);
  }
  rs_launch_args la;
  la.kernel = k->name;
  la.ctx = ctx;
  la.stream_handle = cfg->stream;
  la.stream = NULL;
  rs_kargs ka;
  /* Trailing parameters with a default may be omitted (kernel_defaults.c). */
  rs_arg full[RS_KERNEL_MAX_PARAMS];
  if (nargs < k->nparams && rs_kargs_defaults(k, nargs, args, full) == k->nparams) {
    nargs = k->nparams;
    args = full;
  }
  RS_TRY(rs_kargs_bind(k, nargs, args, &la, &ka));
  RS_TRY(rs_kconfig_grant_shared(k, cfg->shared_bytes));
  rs_kernel_dims d;
  RS_TRY(rs_kconfig_resolve(k, cfg, &d));
  rs_kconfig_check_idle(k, &d, cfg->elements > 0 ? cfg->elements : ka.largest);

  RS_TRY(rs_launch_stage_in(&la));
  rs_kargs_pack(k, args, &la, &ka);
  rs_ledger_token t = rs_ledger_kernel_begin(ctx, k->name, la.stream);
  rs_status st = k->kb->launch(ctx->be, k->module, k->fn, &d, ka.argv, k->kinds, k->nparams, la.stream);
  rs_ledger_kernel_end(ctx, t, k->name, la.stream);
  if (st == RS_OK)
    atomic_fetch_add_explicit(&k->launches, 1, memory_order_relaxed);
  else
    rs_fail_prefix(st, "kernel '%s': ", k->name);
  int staged = 0;
  for (int i = 0; i < la.count; i++) staged |= la.staged[i] != NULL;
  st = rs_launch_stage_out(&la, st);
  if (st != RS_OK) return st;
  /* Staging synchronized already, so a fault is known now: report it with this launch. */
  if (cfg->flags & RS_LAUNCH_SYNC) return rs_wait_and_check(k, la.stream, "rs_kernel_launch (RS_LAUNCH_SYNC)");
  if (staged) return rs_take_fault(k);
  return RS_OK;
}

rs_status rs_kernel_synchronize(rs_kernel *k, rs_stream *stream) {
  RS_TRY(rs_kernel_check(k, "rs_kernel_synchronize"));
  void *native = NULL;
  RS_TRY(rs_stream_resolve(k->ctx, stream, &native, "rs_kernel_synchronize"));
  return rs_wait_and_check(k, native, "rs_kernel_synchronize");
}

/* Constant memory: a __constant__ (or __device__) variable of a kernel's module filled
 * from an array, or read into one. The bytes move through the one copy path - as an
 * explicit copy, counted by the ledger and asked of the guard - to or from a device view
 * wrapped over the variable. */
static rs_status rs_symbol_copy(rs_kernel *k, const char *symbol, rs_array *arr, rs_stream *stream, int into_symbol,
                                const char *who) {
  RS_TRY(rs_kernel_check(k, who));
  if (!symbol || !symbol[0]) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: kernel '%s': the symbol name is empty", who, k->name);
  RS_TRY(rs_array_check(arr, who));
  if (arr->ctx != k->ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the array belongs to another context than kernel '%s'", who, k->name);
  void *dptr = NULL;
  size_t bytes = 0;
  rs_status st = k->kb->get_symbol(k->ctx->be, k->module, symbol, &dptr, &bytes);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: kernel '%s': ", who, k->name);
  size_t n = rs_array_nbytes(arr);
  if (n > bytes)
    return rs_fail(RS_ERR_SHAPE, "%s: '%s' of kernel '%s' holds %zu bytes; the array has %zu", who, symbol, k->name,
                   bytes, n);
  if (n == 0) return RS_OK;
  rs_array *var = NULL;
  RS_TRY(rs_device_array_wrap(&var, k->ctx, dptr, arr->ndim, arr->shape, arr->dtype, NULL, NULL, NULL, NULL));
  rs_copy_cause cause = RS_EXPLICIT(who);
  st = into_symbol ? rs_copy_path(var, arr, stream, &cause) : rs_copy_path(arr, var, stream, &cause);
  /* The wrapper owns nothing: releasing it while the copy is queued frees no memory. */
  rs_array_release(var);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: '%s' of kernel '%s': ", who, symbol, k->name);
  return RS_OK;
}

rs_status rs_kernel_set_constant(rs_kernel *k, const char *symbol, const rs_array *src, rs_stream *stream) {
  /* the source is only read: the copy path takes it as const */
  return rs_symbol_copy(k, symbol, (rs_array *)src, stream, 1, "rs_kernel_set_constant");
}

rs_status rs_kernel_get_constant(rs_kernel *k, const char *symbol, rs_array *dst, rs_stream *stream) {
  return rs_symbol_copy(k, symbol, dst, stream, 0, "rs_kernel_get_constant");
}
