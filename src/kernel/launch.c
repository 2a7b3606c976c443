/* The launch path: host arrays are staged through device temporaries with implicit,
 * guarded, recorded copies - the same path built-in and user kernels take. */
#include <string.h>
#include "core/error.h"
#include "kernel/launch.h"
#include "memory/allocator.h"
#include "transfer/copy.h"
#include "ledger/ledger_hooks.h"

/* Host and pinned memory is not reachable by kernels; mapped and managed memory is. */
static int rs_needs_staging(const rs_array *a) {
  return a->buf->kind == RS_MEM_HOST || a->buf->kind == RS_MEM_PINNED;
}

static int rs_param_of(const rs_launch_args *la, int i) { return la->arg_index ? la->arg_index[i] : i; }

static void rs_launch_release_staged(rs_launch_args *la) {
  for (int i = 0; i < la->count; i++) {
    rs_array_release(la->staged[i]);
    la->staged[i] = NULL;
  }
}

rs_status rs_launch_stage_in(rs_launch_args *la) {
  if (la->count < 0 || la->count > RS_MAX_KERNEL_ARRAYS)
    return rs_fail(RS_ERR_LAUNCH, "kernel '%s': %d array arguments (at most %d)", la->kernel, la->count,
                   RS_MAX_KERNEL_ARRAYS);
  for (int i = 0; i < la->count; i++) {
    la->staged[i] = NULL;
    rs_status st = rs_array_check(la->given[i], la->kernel);
    if (st != RS_OK) return rs_fail_prefix(st, "argument %d: ", rs_param_of(la, i));
    if (la->given[i]->ctx != la->ctx)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "kernel '%s': argument %d belongs to another context", la->kernel,
                     rs_param_of(la, i));
  }
  RS_TRY(rs_stream_resolve(la->ctx, la->stream_handle, &la->stream, la->kernel));
  /* Ask the guard about every copy first, so a refusal leaves everything untouched. */
  for (int i = 0; i < la->count; i++) {
    if (!rs_needs_staging(la->given[i])) continue;
    rs_copy_cause cause = {1, la->kernel, rs_param_of(la, i)};
    size_t bytes = rs_array_nbytes(la->given[i]);
    RS_TRY(rs_guard_precheck(la->ctx, RS_DIR_H2D, bytes, &cause));
    if (!la->read_only[i]) RS_TRY(rs_guard_precheck(la->ctx, RS_DIR_D2H, bytes, &cause));
  }
  for (int i = 0; i < la->count; i++) {
    if (!rs_needs_staging(la->given[i])) continue;
    rs_copy_cause cause = {1, la->kernel, rs_param_of(la, i)};
    rs_status st = rs_device_array_like(&la->staged[i], la->given[i]);
    if (st == RS_OK) st = rs_copy_path(la->staged[i], la->given[i], la->stream_handle, &cause);
    if (st != RS_OK) {
      rs_launch_release_staged(la);
      return rs_fail_prefix(st, "kernel '%s' argument %d: ", la->kernel, rs_param_of(la, i));
    }
  }
  /* Device arrays used on another stream than their own: order the launch after the
   * memory's earlier users (the copy path does this for the staged ones). */
  for (int i = 0; i < la->count; i++) {
    if (la->staged[i]) continue;
    rs_status st = rs_memory_prepare_use(la->given[i]->buf, la->stream);
    if (st != RS_OK) {
      rs_launch_release_staged(la);
      return rs_fail_prefix(st, "kernel '%s' argument %d: ", la->kernel, rs_param_of(la, i));
    }
  }
  return RS_OK;
}

void *rs_launch_arg_ptr(const rs_launch_args *la, int i) {
  const rs_array *a = la->staged[i] ? la->staged[i] : la->given[i];
  return rs_array_device_ptr(a);
}

rs_status rs_launch_stage_out(rs_launch_args *la, rs_status kernel_status) {
  rs_status st = kernel_status;
  int staged = 0;
  /* The kernel is queued: memory it uses on a stream other than its own must not be
   * reused before it is done. */
  for (int i = 0; i < la->count; i++)
    if (!la->staged[i]) rs_memory_note_use(la->given[i]->buf, la->stream);
  for (int i = 0; i < la->count; i++) {
    if (!la->staged[i]) continue;
    staged = 1;
    if (st != RS_OK || la->read_only[i]) continue;
    rs_copy_cause cause = {1, la->kernel, rs_param_of(la, i)};
    st = rs_copy_path(la->given[i], la->staged[i], la->stream_handle, &cause);
  }
  /* Temporaries may only go once the queued work that reads them is done. */
  if (staged) {
    rs_status sync = la->ctx->vt->stream_synchronize(la->ctx->be, la->stream);
    if (st == RS_OK) st = sync;
  }
  rs_launch_release_staged(la);
  return st;
}
