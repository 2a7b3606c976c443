/* Managed memory's prefetch and advice (resident/memory.h). Here in the stream layer
 * because a prefetch is ordered on a stream and recorded by the ledger (both below this
 * layer are reachable from here, not from the memory layer). */
#include "backend/backend.h"
#include "core/error.h"
#include "core/layout.h"
#include "ledger/ledger_hooks.h"
#include "memory/buffer.h"
#include "stream/stream.h"

/* The managed span of a: its first byte and length; *bytes = 0 for an empty array. */
static rs_status managed_span(const rs_array *a, rs_mem_kind where, const char **ptr, size_t *bytes,
                              const char *who) {
  RS_TRY(rs_array_check(a, who));
  if (a->buf->kind != RS_MEM_MANAGED)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: the array is %s memory; only managed memory has pages that migrate "
                   "(copy other kinds: rs_to_device, rs_copy_to_host)", who, rs_mem_kind_name(a->buf->kind));
  if (where != RS_MEM_DEVICE && where != RS_MEM_HOST)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: where must be RS_MEM_DEVICE or RS_MEM_HOST, not %d", who,
                   (int)where);
  int64_t lo = 0, hi = 0;
  int empty = 0;
  if (rs_layout_extent(&lo, &hi, &empty, a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype)))
    return rs_fail(RS_ERR_OVERFLOW, "%s: the array's span overflows", who);
  *ptr = (const char *)a->buf->ptr + a->offset + lo;
  *bytes = empty ? 0 : (size_t)(hi - lo);
  return RS_OK;
}

rs_status rs_array_prefetch(const rs_array *a, rs_mem_kind where, rs_stream *stream) {
  const char *who = "rs_array_prefetch";
  const char *p = NULL;
  size_t bytes = 0;
  RS_TRY(managed_span(a, where, &p, &bytes, who));
  rs_context *ctx = a->ctx;
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  if (bytes == 0) return RS_OK;
  if (!ctx->vt->managed_prefetch)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend cannot prefetch", who, ctx->vt->name);
  int to_device = where == RS_MEM_DEVICE;
  rs_ledger_token t = rs_ledger_prefetch_begin(ctx, native);
  rs_status st = ctx->vt->managed_prefetch(ctx->be, p, bytes, to_device, native);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  rs_ledger_prefetch_end(ctx, t, to_device, bytes, who, native);
  return RS_OK;
}

rs_status rs_array_advise(const rs_array *a, rs_mem_advice advice, rs_mem_kind where) {
  const char *who = "rs_array_advise";
  const char *p = NULL;
  size_t bytes = 0;
  RS_TRY(managed_span(a, where, &p, &bytes, who));
  if (advice < RS_ADVISE_READ_MOSTLY || advice > RS_ADVISE_UNSET_ACCESSED_BY)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: advice %d is not an rs_mem_advice", who, (int)advice);
  rs_context *ctx = a->ctx;
  if (bytes == 0) return RS_OK;
  if (!ctx->vt->managed_advise)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend takes no advice", who, ctx->vt->name);
  rs_status st = ctx->vt->managed_advise(ctx->be, p, bytes, (int)advice, where == RS_MEM_DEVICE);
  return st == RS_OK ? RS_OK : rs_fail_prefix(st, "%s: ", who);
}
