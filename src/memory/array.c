/* Array handles: creation, reference counting and metadata. */
#include <stdio.h>
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "core/layout.h"
#include "memory/buffer.h"

/* The reference count, tagged with the handle's generation (core/handles.h): a step
 * through a stale handle does not match and changes nothing. */
#define RS_REFS_COUNT ((INT64_C(1) << 48) - 1)
static int64_t rs_refs_word(const rs_array *a, int64_t count) {
  return (int64_t)(rs_handle_tag(a) << 48) | count;
}

static rs_status rs_array_handle(rs_array **out, rs_context *ctx, rs_buffer *buf, int ndim,
                                 rs_dtype dtype, const int64_t *shape, const int64_t *strides,
                                 int64_t offset) {
  rs_array *a = rs_slab_alloc(&ctx->arrays, RS_MAGIC_ARRAY);
  if (!a) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "out of host memory for an array handle");
  atomic_store(&a->refs, rs_refs_word(a, 1));
  a->ctx = ctx;
  a->buf = buf;
  a->ndim = ndim;
  a->dtype = dtype;
  a->offset = offset;
  if (ndim > 0) {
    memcpy(a->shape, shape, (size_t)ndim * sizeof *shape);
    memcpy(a->strides, strides, (size_t)ndim * sizeof *strides);
  }
  *out = a;
  return RS_OK;
}

/* The invariant every array keeps (core/checked.h): its element count times the item
 * size fits int64, and every byte it reaches is inside its buffer - so nothing that walks
 * an array can overflow, and no view reads memory that is not its own. */
static rs_status rs_view_check(const rs_array *base, rs_dtype dtype, int ndim, const int64_t *shape,
                               const int64_t *strides, int64_t offset) {
  size_t item = rs_dtype_size(dtype);
  int64_t elements = 0, bytes = 0, low = 0, high = 0, first = 0, last = 0;
  int empty = 0;
  RS_TRY(rs_layout_count(&elements, ndim, shape, "view"));
  char s[512];
  if (rs_mul_i64(elements, (int64_t)item, &bytes) ||
      rs_layout_extent(&low, &high, &empty, ndim, shape, strides, item))
    return rs_fail(RS_ERR_OVERFLOW, "view %s: the byte offsets overflow int64",
                   rs_layout_shape_str(s, sizeof s, ndim, shape));
  if (empty) return RS_OK;
  if (rs_add_i64(offset, low, &first) || rs_add_i64(offset, high, &last) || first < 0 ||
      (uint64_t)last > (uint64_t)base->buf->bytes)
    return rs_fail(RS_ERR_OVERFLOW, "view %s: it would reach outside its memory of %zu bytes",
                   rs_layout_shape_str(s, sizeof s, ndim, shape), base->buf->bytes);
  return RS_OK;
}

rs_status rs_array_new_view(rs_array **out, const rs_array *base, int ndim, const int64_t *shape,
                            const int64_t *strides, int64_t offset) {
  return rs_array_new_typed_view(out, base, base->dtype, ndim, shape, strides, offset);
}

rs_status rs_array_new_typed_view(rs_array **out, const rs_array *base, rs_dtype dtype, int ndim,
                                  const int64_t *shape, const int64_t *strides, int64_t offset) {
  RS_TRY(rs_view_check(base, dtype, ndim, shape, strides, offset));
  rs_buffer_retain(base->buf);
  rs_status st = rs_array_handle(out, base->ctx, base->buf, ndim, dtype, shape, strides,
                                 offset);
  if (st != RS_OK) rs_buffer_release(base->buf);
  return st;
}

/* Shared checks of every constructor: out, ctx, dtype, shape, and the layout. */
static rs_status rs_layout_for_new(int64_t *strides_out, size_t *bytes, rs_context *ctx,
                                   rs_array **out, int ndim, const int64_t *shape,
                                   rs_dtype dtype, const int64_t *strides, rs_order order,
                                   const char *who) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (!rs_dtype_valid(dtype))
    return rs_fail(RS_ERR_DTYPE, "%s: dtype value %d is not a dtype", who, (int)dtype);
  int64_t elements = 0;
  RS_TRY(rs_layout_count(&elements, ndim, shape, who));
  size_t itemsize = rs_dtype_size(dtype);
  if (strides) {
    memcpy(strides_out, strides, (size_t)ndim * sizeof *strides);
    return rs_layout_alloc_bytes(bytes, ndim, shape, strides, itemsize, who);
  }
  if (order != RS_ORDER_C && order != RS_ORDER_F)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: order %d is neither C nor F", who, (int)order);
  RS_TRY(rs_layout_contiguous_strides(strides_out, ndim, shape, itemsize, order, who));
  *bytes = (size_t)elements * itemsize;
  return RS_OK;
}

rs_status rs_array_alloc(rs_array **out, rs_context *ctx, rs_mem_kind kind, unsigned flags,
                         int ndim, const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                         rs_order order, const char *who) {
  return rs_array_alloc_on(out, ctx, kind, flags, NULL, ndim, shape, dtype, strides, order, who);
}

rs_status rs_array_alloc_on(rs_array **out, rs_context *ctx, rs_mem_kind kind, unsigned flags,
                            void *stream, int ndim, const int64_t *shape, rs_dtype dtype,
                            const int64_t *strides, rs_order order, const char *who) {
  int64_t st_bytes[RS_MAX_DIMS];
  size_t bytes = 0;
  RS_TRY(rs_layout_for_new(st_bytes, &bytes, ctx, out, ndim, shape, dtype, strides, order, who));
  rs_buffer *buf = NULL;
  rs_status st = rs_buffer_alloc_on(&buf, ctx, kind, bytes, flags, stream);
  if (st != RS_OK) {
    char s[512];
    return rs_fail_prefix(st, "%s %s %s: ", who, rs_dtype_name(dtype),
                          rs_layout_shape_str(s, sizeof s, ndim, shape));
  }
  st = rs_array_handle(out, ctx, buf, ndim, dtype, shape, st_bytes, 0);
  if (st != RS_OK) rs_buffer_release(buf);
  return st;
}

rs_status rs_device_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                          rs_dtype dtype, const int64_t *strides, rs_order order) {
  return rs_array_alloc(out, ctx, RS_MEM_DEVICE, 0, ndim, shape, dtype, strides, order,
                        "rs_device_array");
}

rs_status rs_host_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                        rs_dtype dtype, const int64_t *strides, rs_order order) {
  return rs_array_alloc(out, ctx, RS_MEM_HOST, 0, ndim, shape, dtype, strides, order,
                        "rs_host_array");
}

/* The layout a *_like constructor copies: contiguous layouts keep their order. */
static rs_order rs_like_order(const rs_array *like) {
  size_t item = rs_dtype_size(like->dtype);
  if (!rs_layout_is_c_contiguous(like->ndim, like->shape, like->strides, item) &&
      rs_layout_is_f_contiguous(like->ndim, like->shape, like->strides, item))
    return RS_ORDER_F;
  return RS_ORDER_C;
}

rs_status rs_array_alloc_like(rs_array **out, const rs_array *like, rs_mem_kind kind,
                              unsigned flags, const char *who) {
  if (out) *out = NULL;
  RS_TRY(rs_array_check(like, who));
  return rs_array_alloc(out, like->ctx, kind, flags, like->ndim, like->shape, like->dtype, NULL,
                        rs_like_order(like), who);
}

rs_status rs_device_array_like(rs_array **out, const rs_array *like) {
  return rs_array_alloc_like(out, like, RS_MEM_DEVICE, 0, "rs_device_array_like");
}

rs_status rs_host_array_like(rs_array **out, const rs_array *like) {
  return rs_array_alloc_like(out, like, RS_MEM_HOST, 0, "rs_host_array_like");
}

/* Host memory flags: a bit the library does not know is refused, not dropped. */
static rs_status rs_host_flags_check(rs_array **out, unsigned flags, const char *who) {
  unsigned unknown = flags & ~(RS_HOST_PORTABLE | RS_HOST_WRITE_COMBINED);
  if (!unknown) return RS_OK;
  if (out) *out = NULL;
  return rs_fail(RS_ERR_INVALID_ARGUMENT,
                 "%s: unknown flag bits 0x%x in flags 0x%x (known: RS_HOST_PORTABLE, "
                 "RS_HOST_WRITE_COMBINED)",
                 who, unknown, flags);
}

rs_status rs_pinned_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                          rs_dtype dtype, const int64_t *strides, rs_order order,
                          unsigned flags) {
  RS_TRY(rs_host_flags_check(out, flags, "rs_pinned_array"));
  return rs_array_alloc(out, ctx, RS_MEM_PINNED, flags, ndim, shape, dtype, strides, order,
                        "rs_pinned_array");
}

rs_status rs_pinned_array_like(rs_array **out, const rs_array *like) {
  return rs_array_alloc_like(out, like, RS_MEM_PINNED, 0, "rs_pinned_array_like");
}

rs_status rs_mapped_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                          rs_dtype dtype, const int64_t *strides, rs_order order,
                          unsigned flags) {
  RS_TRY(rs_host_flags_check(out, flags, "rs_mapped_array"));
  return rs_array_alloc(out, ctx, RS_MEM_MAPPED, flags, ndim, shape, dtype, strides, order,
                        "rs_mapped_array");
}

rs_status rs_mapped_array_like(rs_array **out, const rs_array *like) {
  return rs_array_alloc_like(out, like, RS_MEM_MAPPED, 0, "rs_mapped_array_like");
}

rs_status rs_managed_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                           rs_dtype dtype, const int64_t *strides, rs_order order,
                           rs_attach attach) {
  if (attach != RS_ATTACH_GLOBAL && attach != RS_ATTACH_HOST) {
    if (out) *out = NULL;
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_managed_array: attach %d is neither global nor host",
                   (int)attach);
  }
  return rs_array_alloc(out, ctx, RS_MEM_MANAGED, (unsigned)attach, ndim, shape, dtype, strides,
                        order, "rs_managed_array");
}

rs_status rs_array_wrap(rs_array **out, rs_context *ctx, rs_mem_kind kind, void *data, int ndim,
                        const int64_t *shape, rs_dtype dtype, const int64_t *strides,
                        rs_release_fn release, void *user_data, const char *who) {
  int64_t st_bytes[RS_MAX_DIMS];
  size_t bytes = 0;
  RS_TRY(rs_layout_for_new(st_bytes, &bytes, ctx, out, ndim, shape, dtype, strides, RS_ORDER_C,
                           who));
  if (!data && bytes > 0) return rs_fail(RS_ERR_NULL_POINTER, "%s: data is NULL", who);
  rs_buffer *buf = NULL;
  RS_TRY(rs_buffer_wrap(&buf, ctx, kind, data, bytes, release, user_data));
  rs_status st = rs_array_handle(out, ctx, buf, ndim, dtype, shape, st_bytes, 0);
  if (st != RS_OK) {
    buf->release = NULL; /* failed call: the owner keeps its memory, no callback */
    rs_buffer_release(buf);
  }
  return st;
}

rs_status rs_host_array_wrap(rs_array **out, rs_context *ctx, void *data, int ndim,
                             const int64_t *shape, rs_dtype dtype, const int64_t *strides) {
  return rs_array_wrap(out, ctx, RS_MEM_HOST, data, ndim, shape, dtype, strides, NULL, NULL,
                 "rs_host_array_wrap");
}

/* Move the count by delta unless it is already 0: the check of the handle and the
 * change are one step, so of two threads releasing the last reference exactly one
 * succeeds (a check-then-decrement would let both through). 0 if it was gone. */
static int rs_array_refs_step(rs_array *a, int64_t delta, int64_t *now) {
  int64_t word = atomic_load(&a->refs), tag = rs_refs_word(a, 0);
  do {
    if ((word & ~RS_REFS_COUNT) != tag || (word & RS_REFS_COUNT) == 0) return 0;
  } while (!atomic_compare_exchange_weak(&a->refs, &word, word + delta));
  *now = (word + delta) & RS_REFS_COUNT;
  return 1;
}

static rs_status rs_array_gone(const char *who) {
  return rs_fail(RS_ERR_RELEASED, "%s: array was already released", who);
}

rs_status rs_array_retain(rs_array *a) {
  RS_TRY(rs_array_check(a, "rs_array_retain"));
  int64_t now = 0;
  if (!rs_array_refs_step(a, 1, &now)) return rs_array_gone("rs_array_retain");
  return RS_OK;
}

rs_status rs_array_release(rs_array *a) {
  if (!a) return RS_OK;
  RS_TRY(rs_array_check(a, "rs_array_release"));
  int64_t now = 0;
  if (!rs_array_refs_step(a, -1, &now)) return rs_array_gone("rs_array_release");
  if (now != 0) return RS_OK;
  rs_buffer *buf = a->buf;
  rs_context *ctx = a->ctx;
  rs_slab_free(&ctx->arrays, a);
  /* The array is gone either way; a pending-deallocation flush it set off may report. */
  return rs_buffer_release(buf);
}

/* ---- metadata ---- */
static int rs_live(const rs_array *a) { return a && rs_handle_magic(a) == RS_MAGIC_ARRAY; }

int rs_array_ndim(const rs_array *a) { return rs_live(a) ? a->ndim : 0; }
const int64_t *rs_array_shape(const rs_array *a) { return rs_live(a) ? a->shape : NULL; }
const int64_t *rs_array_strides(const rs_array *a) { return rs_live(a) ? a->strides : NULL; }
rs_dtype rs_array_dtype(const rs_array *a) { return rs_live(a) ? a->dtype : RS_DTYPE_COUNT; }
rs_mem_kind rs_array_kind(const rs_array *a) {
  return rs_live(a) ? rs_buffer_effective_kind(a->buf) : RS_MEM_HOST;
}
rs_context *rs_array_context(const rs_array *a) { return rs_live(a) ? a->ctx : NULL; }
size_t rs_array_itemsize(const rs_array *a) { return rs_live(a) ? rs_dtype_size(a->dtype) : 0; }
int64_t rs_array_offset(const rs_array *a) { return rs_live(a) ? a->offset : 0; }

int64_t rs_array_size(const rs_array *a) {
  if (!rs_live(a)) return 0;
  int64_t n = 1;
  for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
  return n;
}

size_t rs_array_nbytes(const rs_array *a) {
  return (size_t)rs_array_size(a) * rs_array_itemsize(a);
}

int rs_array_is_c_contiguous(const rs_array *a) {
  return rs_live(a) &&
         rs_layout_is_c_contiguous(a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype));
}

int rs_array_is_f_contiguous(const rs_array *a) {
  return rs_live(a) &&
         rs_layout_is_f_contiguous(a->ndim, a->shape, a->strides, rs_dtype_size(a->dtype));
}

void *rs_array_host_ptr(const rs_array *a) {
  if (a->buf->kind == RS_MEM_DEVICE || !a->buf->ptr) return NULL;
  return (char *)a->buf->ptr + a->offset;
}

void *rs_array_device_ptr(const rs_array *a) {
  if (!a->buf->device_alias) return NULL;
  return (char *)a->buf->device_alias + a->offset;
}

void *rs_array_host_data(const rs_array *a) { return rs_live(a) ? rs_array_host_ptr(a) : NULL; }
void *rs_array_device_data(const rs_array *a) { return rs_live(a) ? rs_array_device_ptr(a) : NULL; }

const char *rs_array_describe(const rs_array *a, char *buf, size_t len) {
  if (!buf || len == 0) return "";
  if (!rs_live(a)) {
    snprintf(buf, len, "<%s array>", a ? "released" : "NULL");
    return buf;
  }
  char shape[512];
  const char *layout = rs_array_is_c_contiguous(a)   ? "C"
                       : rs_array_is_f_contiguous(a) ? "F"
                                                     : "strided";
  snprintf(buf, len, "%s%s %s %s", rs_dtype_name(a->dtype),
           rs_layout_shape_str(shape, sizeof shape, a->ndim, a->shape),
           rs_mem_kind_name(rs_array_kind(a)), layout);
  return buf;
}
