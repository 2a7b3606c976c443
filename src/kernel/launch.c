/* The launch path: host arrays are staged through device temporaries with implicit,
 * guarded, recorded copies - the same path built-in and user kernels take.
 *
 * One temporary per host buffer and launch. Arguments over one buffer (the same array
 * twice, a const input and the out it is also, views of one array) or over overlapping
 * host memory (two wraps of one block) form a group led by the first of them, and share:
 *  - a temporary like the array when every one is the same view (the common case: it
 *    moves exactly the view's elements, a strided view included);
 *  - else a byte temporary over the host span the views reach, each argument a view into
 *    it at its own place: one copy in and one copy back for the whole span. (Refused,
 *    with a message, only where a view's elements could not be aligned in it.)
 * So the device sees the aliasing the host has, and copies back cannot overwrite each
 * other's results.
 *
 * What is copied in: the temporary is filled from the host unless every argument over it
 * is write-only (an op's out: written entirely, never read) and it is like the view -
 * then the copy back moves only the view's elements, all of them written, and the other
 * bytes of the buffer (under a strided view) are never touched. A span temporary is always
 * filled: the bytes in it that no argument writes (gaps between the views, read-only
 * views) travel back with the copy back and must be the host's. */
#include <string.h>
#include "core/error.h"
#include "core/layout.h"
#include "kernel/launch.h"
#include "memory/allocator.h"
#include "transfer/copy.h"
#include "ledger/ledger_hooks.h"

/* Host and pinned memory is not reachable by kernels; mapped and managed memory is. */
static int rs_needs_staging(const rs_array *a) {
  return a->buf->kind == RS_MEM_HOST || a->buf->kind == RS_MEM_PINNED;
}

static int rs_param_of(const rs_launch_args *la, int i) { return la->arg_index ? la->arg_index[i] : i; }

static int rs_same_view(const rs_array *a, const rs_array *b) {
  size_t n = (size_t)a->ndim * sizeof(int64_t);
  return a->buf == b->buf && a->offset == b->offset && a->dtype == b->dtype && a->ndim == b->ndim &&
         memcmp(a->shape, b->shape, n) == 0 && memcmp(a->strides, b->strides, n) == 0;
}

static uintptr_t rs_host_addr(const rs_array *a) { return (uintptr_t)rs_array_host_ptr(a); }

/* [lo, hi): the host addresses a reaches (a is not empty). */
static void rs_host_span(const rs_array *a, uintptr_t *lo, uintptr_t *hi) {
  int64_t l = 0, h = 0;
  int empty = 0;
  rs_layout_extent(&l, &h, &empty, a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype));
  *lo = rs_host_addr(a) - (uintptr_t)-l; /* l <= 0 <= h */
  *hi = rs_host_addr(a) + (uintptr_t)h;
}

/* Whether two staged arguments must share a temporary: views of one buffer, or arrays
 * over host memory that overlaps (two wraps of one block). */
static int rs_aliases(const rs_array *a, const rs_array *b) {
  if (a->buf == b->buf) return 1;
  uintptr_t alo, ahi, blo, bhi;
  rs_host_span(a, &alo, &ahi);
  rs_host_span(b, &blo, &bhi);
  return alo < bhi && blo < ahi;
}

/* What a group moves: whether it is filled from the host and copied back, and how it is
 * laid out (one view: like it; several: the host span [lo, hi)). */
typedef struct rs_group {
  int copy_in, copy_out, one_view, one_buffer;
  uintptr_t lo, hi;
} rs_group;

static rs_group rs_group_of(const rs_launch_args *la, int lead) {
  rs_group g = {0, 0, 1, 1, 0, 0};
  const rs_array *low = la->given[lead];
  rs_host_span(low, &g.lo, &g.hi);
  for (int i = lead; i < la->count; i++) {
    if (la->lead[i] != lead) continue;
    const rs_array *a = la->given[i];
    g.copy_in |= !la->write_only[i];
    g.copy_out |= !la->read_only[i];
    g.one_buffer &= a->buf == la->given[lead]->buf;
    if (rs_same_view(a, la->given[lead])) continue;
    g.one_view = 0;
    uintptr_t lo, hi;
    rs_host_span(a, &lo, &hi);
    if (lo < g.lo) g.lo = lo, low = a;
    if (hi > g.hi) g.hi = hi;
  }
  if (!g.one_view) {
    g.copy_in = 1;
    /* Start at a 16-byte boundary, so views into the temporary keep the alignment their
     * elements have on the host - but never below the buffer that holds lo. */
    uintptr_t start = (uintptr_t)low->buf->ptr, down = g.lo - g.lo % 16;
    g.lo = down > start ? down : start;
  }
  return g;
}

static size_t rs_group_bytes(const rs_launch_args *la, int lead, const rs_group *g) {
  return g->one_view ? rs_array_nbytes(la->given[lead]) : (size_t)(g->hi - g->lo);
}

/* Group the staged arguments: each joins the lowest-numbered one it aliases, directly or
 * through others (which leads the group). Empty views move nothing and alias nothing:
 * each is its own group. */
static void rs_launch_group(rs_launch_args *la) {
  for (int i = 0; i < la->count; i++) {
    la->span_host[i] = la->span_dev[i] = NULL;
    la->lead[i] = rs_needs_staging(la->given[i]) ? i : -1;
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (int i = 0; i < la->count; i++)
      for (int j = i + 1; j < la->count; j++) {
        if (la->lead[i] < 0 || la->lead[j] < 0 || la->lead[i] == la->lead[j]) continue;
        if (!rs_array_size(la->given[i]) || !rs_array_size(la->given[j])) continue;
        if (!rs_aliases(la->given[i], la->given[j])) continue;
        int l = la->lead[i] < la->lead[j] ? la->lead[i] : la->lead[j];
        la->lead[i] = la->lead[j] = l;
        changed = 1;
      }
  }
}

/* Views into a shared temporary sit where their elements sit in the host span: one whose
 * elements are not aligned there (memory wrapped at an odd address) would be misaligned on
 * the device, so such a group is refused. */
static rs_status rs_group_check(const rs_launch_args *la, int lead, const rs_group *g) {
  if (g->one_view) return RS_OK;
  for (int i = lead; i < la->count; i++) {
    if (la->lead[i] != lead) continue;
    size_t item = rs_dtype_size(la->given[i]->dtype);
    if ((rs_host_addr(la->given[i]) - g->lo) % item == 0) continue;
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "kernel '%s': argument %d shares host memory with argument %d but its %zu-byte elements are "
                   "not aligned in it, so they cannot share one device temporary; pass aligned arrays",
                   la->kernel, rs_param_of(la, i), rs_param_of(la, lead), item);
  }
  return RS_OK;
}

static void rs_launch_release_staged(rs_launch_args *la) {
  for (int i = 0; i < la->count; i++) {
    rs_array_release(la->staged[i]);
    rs_array_release(la->span_dev[i]);
    rs_array_release(la->span_host[i]);
    la->staged[i] = la->span_dev[i] = la->span_host[i] = NULL;
  }
}

/* The host side and device side a group's copies move between. */
static rs_array *rs_group_host(const rs_launch_args *la, int lead) {
  return la->span_host[lead] ? la->span_host[lead] : la->given[lead];
}
static rs_array *rs_group_dev(const rs_launch_args *la, int lead) {
  return la->span_dev[lead] ? la->span_dev[lead] : la->staged[lead];
}

/* Allocate the group's temporary, fill it if it must be, and point every member at it. */
static rs_status rs_stage_group(rs_launch_args *la, int lead) {
  rs_group g = rs_group_of(la, lead);
  rs_array *host = la->given[lead];
  if (g.one_view) {
    RS_TRY(rs_device_array_like(&la->staged[lead], host));
  } else {
    int64_t n = (int64_t)(g.hi - g.lo), one = 1, at = (int64_t)(g.lo - (uintptr_t)host->buf->ptr);
    if (g.one_buffer)
      RS_TRY(rs_array_new_typed_view(&la->span_host[lead], host, RS_UINT8, 1, &n, &one, at));
    else /* overlapping memory of several buffers: the span itself, wrapped */
      RS_TRY(rs_array_wrap(&la->span_host[lead], la->ctx, RS_MEM_HOST, (void *)g.lo, 1, &n, RS_UINT8, NULL, NULL,
                           NULL, la->kernel));
    RS_TRY(rs_array_alloc(&la->span_dev[lead], la->ctx, RS_MEM_DEVICE, 0, 1, &n, RS_UINT8, NULL, RS_ORDER_C,
                          la->kernel));
  }
  if (g.copy_in) {
    rs_copy_cause cause = RS_IMPLICIT(la->kernel, rs_param_of(la, lead));
    RS_TRY(rs_copy_path(rs_group_dev(la, lead), rs_group_host(la, lead), la->stream_handle, &cause));
  }
  for (int i = lead; i < la->count; i++) {
    if (la->lead[i] != lead || la->staged[i]) continue;
    const rs_array *a = la->given[i];
    if (g.one_view) {
      RS_TRY(rs_array_retain(la->staged[lead]));
      la->staged[i] = la->staged[lead];
    } else {
      RS_TRY(rs_array_new_typed_view(&la->staged[i], la->span_dev[lead], a->dtype, a->ndim, a->shape, a->strides,
                        (int64_t)(rs_host_addr(a) - g.lo)));
    }
  }
  return RS_OK;
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
  rs_launch_group(la);
  /* Ask the guard about every copy first, so a refusal leaves everything untouched. */
  for (int i = 0; i < la->count; i++) {
    if (la->lead[i] != i) continue;
    rs_group g = rs_group_of(la, i);
    RS_TRY(rs_group_check(la, i, &g));
    rs_copy_cause cause = RS_IMPLICIT(la->kernel, rs_param_of(la, i));
    size_t bytes = rs_group_bytes(la, i, &g);
    /* Inside a graph capture an implicit copy is refused before anything is allocated. */
    if (g.copy_in || g.copy_out)
      RS_TRY(rs_guard_capture_check(la->ctx, la->stream, g.copy_in ? RS_DIR_H2D : RS_DIR_D2H, 1, &cause));
    if (g.copy_in) RS_TRY(rs_guard_precheck(la->ctx, RS_DIR_H2D, bytes, &cause));
    if (g.copy_out) RS_TRY(rs_guard_precheck(la->ctx, RS_DIR_D2H, bytes, &cause));
  }
  for (int i = 0; i < la->count; i++) {
    if (la->lead[i] != i) continue;
    rs_status st = rs_stage_group(la, i);
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
    if (la->lead[i] != i || !la->staged[i]) continue;
    staged = 1;
    if (st != RS_OK || !rs_group_of(la, i).copy_out) continue;
    rs_copy_cause cause = RS_IMPLICIT(la->kernel, rs_param_of(la, i));
    st = rs_copy_path(rs_group_host(la, i), rs_group_dev(la, i), la->stream_handle, &cause);
  }
  /* Temporaries may only go once the queued work that reads them is done. */
  if (staged) {
    rs_status sync = la->ctx->vt->stream_synchronize(la->ctx->be, la->stream);
    if (st == RS_OK) st = sync;
  }
  rs_launch_release_staged(la);
  return st;
}
