/* The one copy path within a context: checks, guard, ledger, then the data movement for
 * every pair of memory kinds and layouts (copy_path.c enters here, or copy_across.c for two
 * contexts, which comes back here for each leg). Only the contiguous move and the device-side strided copy
 * are backend calls; the decisions are made here, once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/layout.h"
#include "core/strided.h"
#include "memory/allocator.h"
#include "transfer/copy.h"
#include "ledger/ledger_hooks.h"
#include "transfer/staging.h"

int rs_kind_on_device(rs_mem_kind kind) { return kind == RS_MEM_DEVICE || kind == RS_MEM_MANAGED; }

static rs_copy_dir rs_copy_direction(const rs_array *dst, const rs_array *src) {
  int d = rs_kind_on_device(dst->buf->kind), s = rs_kind_on_device(src->buf->kind);
  if (s && d) return RS_DIR_D2D;
  if (s) return RS_DIR_D2H;
  if (d) return RS_DIR_H2D;
  return RS_DIR_H2H;
}

/* The address a copy uses for one side: device-side arrays by their device address,
 * host-side arrays (mapped included) by their host address. */
static void *rs_side_ptr(const rs_array *a) {
  return rs_kind_on_device(a->buf->kind) ? rs_array_device_ptr(a) : rs_array_host_ptr(a);
}

static int rs_is_c(const rs_array *a) {
  return rs_layout_is_c_contiguous(a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype));
}

int rs_same_dense_layout(const rs_array *a, const rs_array *b) {
  size_t item = rs_dtype_size(a->dtype);
  if (rs_is_c(a) && rs_is_c(b)) return 1;
  return rs_layout_is_f_contiguous(a->ndim, a->shape, a->strides, item) &&
         rs_layout_is_f_contiguous(b->ndim, b->shape, b->strides, item);
}

rs_status rs_copy_check_pair(const rs_array *dst, const rs_array *src, const char *who) {
  RS_TRY(rs_array_check(dst, who));
  RS_TRY(rs_array_check(src, who));
  char d[600], s[600];
  int same_shape = dst->ndim == src->ndim;
  for (int i = 0; same_shape && i < dst->ndim; i++) same_shape = dst->shape[i] == src->shape[i];
  if (!same_shape)
    return rs_fail(RS_ERR_SHAPE, "%s: cannot copy %s into %s: shapes differ", who,
                   rs_array_describe(src, s, sizeof s), rs_array_describe(dst, d, sizeof d));
  if (dst->dtype != src->dtype)
    return rs_fail(RS_ERR_DTYPE, "%s: cannot copy %s into %s: dtypes differ (convert with astype)",
                   who, rs_array_describe(src, s, sizeof s), rs_array_describe(dst, d, sizeof d));
  if (dst->buf == src->buf) {
    size_t item = rs_dtype_size(dst->dtype);
    int64_t dlo, dhi, slo, shi;
    int de, se;
    rs_layout_extent(&dlo, &dhi, &de, dst->ndim, dst->shape, dst->strides, item);
    rs_layout_extent(&slo, &shi, &se, src->ndim, src->shape, src->strides, item);
    int identical = dst->offset == src->offset &&
                    memcmp(dst->strides, src->strides, (size_t)dst->ndim * sizeof(int64_t)) == 0;
    if (!de && !identical && dst->offset + dlo < src->offset + shi &&
        src->offset + slo < dst->offset + dhi)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "%s: source and destination overlap in the same buffer; copy through a "
                     "temporary array",
                     who);
  }
  return RS_OK;
}

/* A contiguous C-order temporary on one side, for gathering or scattering. Device ones
 * come from the context's allocator; host ones from the pinned pool, so the block that
 * crosses the bus is page-locked and the transfer runs at full speed (plain host memory
 * if no pinned memory can be had). Temporaries are freed only after the stream has been
 * synchronized, so they are never still in use. */
typedef struct rs_temp {
  void *ptr;
  size_t bytes;
  int on_device;
  int pinned;
  rs_mem_track track; /* device: allocated for the copy's stream, used only there */
} rs_temp;

static rs_status rs_temp_alloc(rs_temp *t, rs_context *ctx, size_t bytes, int on_device,
                               void *stream) {
  t->on_device = on_device;
  t->ptr = NULL;
  t->bytes = bytes;
  t->pinned = 0;
  if (on_device) return rs_device_malloc_tracked(ctx, bytes, stream, &t->ptr, &t->track);
  if (rs_pinned_malloc(ctx, bytes, 0, &t->ptr) == RS_OK) {
    t->pinned = 1;
    return RS_OK;
  }
  t->ptr = malloc(bytes);
  if (!t->ptr) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "copy: no host memory for a %zu-byte staging buffer", bytes);
  return RS_OK;
}

static void rs_temp_free(rs_temp *t, rs_context *ctx) {
  if (!t->ptr) return;
  if (t->on_device)
    (void)rs_device_mfree_tracked(ctx, t->ptr, t->bytes, &t->track); /* synchronized: idle */
  else if (t->pinned)
    (void)rs_pinned_mfree(ctx, t->ptr, t->bytes, 0, NULL);
  else
    free(t->ptr);
  t->ptr = NULL;
}

static void rs_c_strides(int64_t *strides, const rs_array *a) {
  rs_layout_contiguous_strides(strides, a->ndim, a->shape, rs_dtype_size(a->dtype), RS_ORDER_C, "copy");
}

/* Strided copy between a view and a C-order block on the same side. */
static rs_status rs_side_strided(rs_context *ctx, int on_device, void *dst, const int64_t *dst_strides,
                                 const void *src, const int64_t *src_strides, const rs_array *a,
                                 void *stream) {
  rs_strided_copy c;
  rs_strided_setup(&c, dst, dst_strides, src, src_strides, a->ndim, a->shape, rs_dtype_size(a->dtype));
  if (on_device) return ctx->vt->copy_strided_async(ctx->be, &c, stream);
  /* Host-side strided work runs on this thread: earlier queued work on the stream may
   * still use these buffers, so let it finish first. */
  RS_TRY(ctx->vt->stream_synchronize(ctx->be, stream));
  rs_strided_copy_host(&c);
  return RS_OK;
}

/* One contiguous block across the bus or within a side. A large block with a pageable
 * host side goes through the pinned staging ring (src/transfer/staging.c). */
static rs_status rs_move_block(rs_context *ctx, void *dst, const void *src, size_t bytes, rs_copy_dir dir,
                               void *stream, int pageable, int *finished) {
  if (pageable && rs_staging_applies(ctx, bytes, dir))
    return rs_staged_copy(ctx, dst, src, bytes, dir, stream, finished);
  return ctx->vt->copy_async(ctx->be, dst, src, bytes, dir, stream);
}

static int rs_is_pageable(const rs_array *a) { return rs_buffer_effective_kind(a->buf) == RS_MEM_HOST; }

/* Move the bytes. Returns with the work queued; the caller synchronizes when a
 * temporary is in use. *finished: set to 1 by a staged block whose work on the stream is
 * known to be complete already (a temporary's gather or scatter aside: the caller's). */
static rs_status rs_move(rs_array *dst, const rs_array *src, rs_copy_dir dir, void *stream,
                         rs_temp *stage_src, rs_temp *stage_dst, int *finished) {
  rs_context *ctx = dst->ctx;
  size_t bytes = rs_array_nbytes(dst);
  void *dptr = rs_side_ptr(dst);
  const void *sptr = rs_side_ptr(src);
  int src_dev = rs_kind_on_device(src->buf->kind), dst_dev = rs_kind_on_device(dst->buf->kind);
  if (rs_same_dense_layout(dst, src)) {
    /* Element 0 is the lowest address of a dense view. */
    int pageable = (!src_dev && rs_is_pageable(src)) || (!dst_dev && rs_is_pageable(dst));
    return rs_move_block(ctx, dptr, sptr, bytes, dir, stream, pageable, finished);
  }
  if (src_dev == dst_dev)
    return rs_side_strided(ctx, src_dev, dptr, dst->strides, sptr, src->strides, dst, stream);
  int64_t cstr[RS_MAX_DIMS];
  rs_c_strides(cstr, dst);
  /* Source side: a C-order block to send. */
  const void *block = sptr;
  int block_pageable = !src_dev && rs_is_pageable(src);
  if (!rs_is_c(src)) {
    RS_TRY(rs_temp_alloc(stage_src, ctx, bytes, src_dev, stream));
    RS_TRY(rs_side_strided(ctx, src_dev, stage_src->ptr, cstr, sptr, src->strides, src, stream));
    block = stage_src->ptr;
    block_pageable = !src_dev && !stage_src->pinned;
  }
  if (rs_is_c(dst))
    return rs_move_block(ctx, dptr, block, bytes, dir, stream, block_pageable || (!dst_dev && rs_is_pageable(dst)),
                         finished);
  /* Destination side: receive the block, then scatter it into the view. */
  RS_TRY(rs_temp_alloc(stage_dst, ctx, bytes, dst_dev, stream));
  RS_TRY(rs_move_block(ctx, stage_dst->ptr, block, bytes, dir, stream,
                       block_pageable || (!dst_dev && !stage_dst->pinned), finished));
  return rs_side_strided(ctx, dst_dev, dptr, dst->strides, stage_dst->ptr, cstr, dst, stream);
}

/* Block until the stream is idle, recording the wait if there was anything to wait for. */
static rs_status rs_wait_for_earlier_work(rs_context *ctx, void *stream, const char *who) {
  int idle = 0;
  RS_TRY(ctx->vt->stream_query(ctx->be, stream, &idle));
  if (idle) return RS_OK;
  char cause[64];
  snprintf(cause, sizeof cause, "%s: earlier work", who);
  return rs_ledger_timed_wait(ctx, RS_WAIT_STREAM, stream, cause);
}

rs_status rs_copy_within(rs_array *dst, const rs_array *src, rs_stream *stream,
                         const rs_copy_cause *cause) {
  const char *who = cause->what;
  RS_TRY(rs_copy_check_pair(dst, src, who));
  rs_context *ctx = dst->ctx;
  if (src->ctx != ctx) return rs_fail(RS_ERR_INTERNAL, "%s: a copy within one context given two", who);
  void *native = NULL;
  RS_TRY(rs_stream_resolve(ctx, stream, &native, who));
  rs_copy_dir dir = rs_copy_direction(dst, src);
  size_t bytes = rs_array_nbytes(dst);
  RS_TRY(rs_guard_check(ctx, dir, bytes, cause));
  int pageable = rs_buffer_effective_kind(dst->buf) == RS_MEM_HOST ||
                 rs_buffer_effective_kind(src->buf) == RS_MEM_HOST;
  /* A copy that needs the host (a pageable side, or a temporary for a non-contiguous
   * one, both synchronized below) cannot be captured into a graph. */
  int strided_host = !rs_same_dense_layout(dst, src) && dir != RS_DIR_D2D;
  RS_TRY(rs_guard_capture_check(ctx, native, dir, pageable || strided_host, cause));
  if (bytes == 0) return RS_OK;

  /* Memory reused from a cache may still be in use by earlier work on the stream it was
   * allocated for: a copy on another stream is ordered after that work. */
  RS_TRY(rs_memory_prepare_use(dst->buf, native));
  RS_TRY(rs_memory_prepare_use(src->buf, native));

  /* Pageable memory cannot be reached asynchronously: the copy is only done when the
   * stream is. The host then waits for the earlier work on the stream as well (and for
   * what the stream was just told to wait for); that wait is recorded on its own, so a
   * slow blocking copy shows whether it was copying or waiting for kernels (the seed's
   * slow `print(out[2])`). From an idle stream to the synchronize below, the host's
   * clock times the copy itself. */
  if (pageable) RS_TRY(rs_wait_for_earlier_work(ctx, native, who));
  rs_ledger_token token = rs_ledger_copy_begin(ctx, dir, bytes, cause, native, pageable);
  rs_temp stage_src = {0}, stage_dst = {0};
  int finished = 0;
  rs_status st = rs_move(dst, src, dir, native, &stage_src, &stage_dst, &finished);
  if (st == RS_OK) rs_ledger_mark_end(ctx, &token, native);
  /* Temporaries must outlive the queued work that reads them. A staged copy that saw its
   * last DMA complete, on a stream idle before it, has nothing left to wait for. */
  int done = st == RS_OK && finished && !stage_src.ptr && !stage_dst.ptr;
  if ((pageable || stage_src.ptr || stage_dst.ptr) && !done) {
    rs_status sync = ctx->vt->stream_synchronize(ctx->be, native);
    if (st == RS_OK) st = sync;
  } else if (st == RS_OK && !pageable && !cause->caller_waits) {
    /* Still queued: memory used on a stream other than its own must not be reused
     * before this copy is done (the memory layer records an event where needed). */
    rs_memory_note_use(dst->buf, native);
    rs_memory_note_use(src->buf, native);
  }
  rs_ledger_copy_end(ctx, token, dir, bytes, cause, native, dst->ndim, dst->shape);
  rs_temp_free(&stage_src, ctx);
  rs_temp_free(&stage_dst, ctx);
  if (st != RS_OK) return rs_fail_prefix(st, "%s: ", who);
  return RS_OK;
}
