/* Constant memory: a __constant__ (or __device__) variable of a kernel's module filled
 * from an array. The bytes move through the one copy path - as an explicit copy, counted
 * by the ledger and asked of the guard - into a device view wrapped over the variable. */
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"
#include "transfer/copy.h"

rs_status rs_kernel_set_constant(rs_kernel *k, const char *symbol, const rs_array *src, rs_stream *stream) {
  const char *who = "rs_kernel_set_constant";
  RS_TRY(rs_kernel_check(k, who));
  if (!symbol || !symbol[0]) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: kernel '%s': the symbol name is empty", who, k->name);
  RS_TRY(rs_array_check(src, who));
  if (src->ctx != k->ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the array belongs to another context than kernel '%s'", who, k->name);
  void *dptr = NULL;
  size_t bytes = 0;
  rs_status st = k->kb->get_symbol(k->ctx->be, k->module, symbol, &dptr, &bytes);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: kernel '%s': ", who, k->name);
  size_t n = rs_array_nbytes(src);
  if (n > bytes)
    return rs_fail(RS_ERR_SHAPE, "%s: '%s' of kernel '%s' holds %zu bytes; the array has %zu", who, symbol, k->name,
                   bytes, n);
  if (n == 0) return RS_OK;
  rs_array *dst = NULL;
  RS_TRY(rs_device_array_wrap(&dst, k->ctx, dptr, src->ndim, src->shape, src->dtype, NULL, NULL, NULL, NULL));
  rs_copy_cause cause = RS_EXPLICIT("rs_kernel_set_constant");
  st = rs_copy_path(dst, src, stream, &cause);
  /* The wrapper owns nothing: releasing it while the copy is queued frees no memory. */
  rs_array_release(dst);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: '%s' of kernel '%s': ", who, symbol, k->name);
  return RS_OK;
}
