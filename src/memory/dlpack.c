/* DLPack export and import (resident/dlpack.h). An export is a view of the array kept
 * alive by the tensor; an import is a wrapped buffer whose release callback is the
 * producer's deleter, so it inherits the stream-ordered release of foreign memory
 * (foreign.c): the producer gets its memory back only after the work queued on it. */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "memory/buffer.h"
#include "resident/dlpack.h"

/* ---- the two mappings, kept side by side so they stay each other's inverse ------------- */

static const struct {
  rs_dtype dtype;
  uint8_t code, bits;
} dtype_map[] = {
    {RS_BOOL, RS_DL_BOOL, 8},        {RS_INT8, RS_DL_INT, 8},         {RS_INT16, RS_DL_INT, 16},
    {RS_INT32, RS_DL_INT, 32},       {RS_INT64, RS_DL_INT, 64},       {RS_UINT8, RS_DL_UINT, 8},
    {RS_UINT16, RS_DL_UINT, 16},     {RS_UINT32, RS_DL_UINT, 32},     {RS_UINT64, RS_DL_UINT, 64},
    {RS_FLOAT16, RS_DL_FLOAT, 16},   {RS_FLOAT32, RS_DL_FLOAT, 32},   {RS_FLOAT64, RS_DL_FLOAT, 64},
    {RS_COMPLEX64, RS_DL_COMPLEX, 64}, {RS_COMPLEX128, RS_DL_COMPLEX, 128},
};
#define NDTYPES (sizeof dtype_map / sizeof dtype_map[0])

static int32_t device_type_of(rs_mem_kind kind) {
  switch (kind) {
    case RS_MEM_HOST: return RS_DL_CPU;
    case RS_MEM_DEVICE: return RS_DL_CUDA;
    case RS_MEM_PINNED:
    case RS_MEM_MAPPED: return RS_DL_CUDA_HOST;
    case RS_MEM_MANAGED: return RS_DL_CUDA_MANAGED;
  }
  return 0;
}

static int kind_of(int32_t device_type, rs_mem_kind *kind) {
  switch (device_type) {
    case RS_DL_CPU: *kind = RS_MEM_HOST; return 1;
    case RS_DL_CUDA: *kind = RS_MEM_DEVICE; return 1;
    case RS_DL_CUDA_HOST: *kind = RS_MEM_PINNED; return 1;
    case RS_DL_CUDA_MANAGED: *kind = RS_MEM_MANAGED; return 1;
  }
  return 0;
}

/* ---- export ---------------------------------------------------------------------------- */

typedef struct exported {
  rs_dl_managed_tensor_versioned t; /* first: the tensor's address is the block's */
  rs_array *view;                   /* keeps the memory */
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
} exported;

static void export_deleter(rs_dl_managed_tensor_versioned *self) {
  if (!self) return;
  exported *e = (exported *)self;
  rs_array_release(e->view);
  free(e);
}

rs_status rs_array_to_dlpack(rs_dl_managed_tensor_versioned **out, const rs_array *a) {
  const char *who = "rs_array_to_dlpack";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  RS_TRY(rs_array_check(a, who));
  size_t i = 0;
  while (i < NDTYPES && dtype_map[i].dtype != a->dtype) i++;
  if (i == NDTYPES) return rs_fail(RS_ERR_DTYPE, "%s: %s has no DLPack type", who, rs_dtype_name(a->dtype));
  int64_t item = (int64_t)rs_dtype_size(a->dtype);
  exported *e = calloc(1, sizeof *e);
  if (!e) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", who);
  for (int d = 0; d < a->ndim; d++) {
    if (a->strides[d] % item != 0) {
      free(e);
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "%s: stride %lld bytes of axis %d is not a whole number of %lld-byte elements "
                     "(DLPack strides count elements)",
                     who, (long long)a->strides[d], d, (long long)item);
    }
    e->shape[d] = a->shape[d];
    e->strides[d] = a->strides[d] / item;
  }
  rs_status st = rs_array_new_view(&e->view, a, a->ndim, a->shape, a->strides, a->offset);
  if (st != RS_OK) {
    free(e);
    return rs_fail_prefix(st, "%s: ", who);
  }
  rs_buffer *buf = a->buf;
  e->t.version = (rs_dl_version){RS_DLPACK_MAJOR_VERSION, RS_DLPACK_MINOR_VERSION};
  e->t.manager_ctx = e;
  e->t.deleter = export_deleter;
  e->t.flags = 0;
  rs_dl_tensor *dl = &e->t.dl_tensor;
  dl->data = buf->ptr;
  dl->device.device_type = device_type_of(buf->kind);
  dl->device.device_id = dl->device.device_type == RS_DL_CPU ? 0 : a->ctx->device;
  dl->ndim = a->ndim;
  dl->dtype = (rs_dl_data_type){dtype_map[i].code, dtype_map[i].bits, 1};
  dl->shape = e->shape;
  dl->strides = e->strides;
  dl->byte_offset = (uint64_t)a->offset;
  *out = &e->t;
  return RS_OK;
}

/* ---- import ---------------------------------------------------------------------------- */

static void call_deleter(void *user_data) {
  rs_dl_managed_tensor_versioned *t = user_data;
  if (t->deleter) t->deleter(t);
}

static void call_legacy_deleter(void *user_data) {
  rs_dl_managed_tensor *t = user_data;
  if (t->deleter) t->deleter(t);
}

/* Everything rs_array_wrap does not check itself (the version is the caller's). */
static rs_status check_import(const rs_dl_tensor *dl, uint64_t flags, rs_context *ctx, rs_mem_kind *kind,
                              rs_dtype *dtype, int64_t *strides, const char *who) {
  if (flags & RS_DL_FLAG_READ_ONLY)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the tensor is read-only and arrays here are writable", who);
  if (!kind_of(dl->device.device_type, kind))
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: DLPack device type %d is not one this library maps "
                   "(1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed)", who, (int)dl->device.device_type);
  if (*kind != RS_MEM_HOST && dl->device.device_id != ctx->device)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the tensor is on device %d, the context on device %d", who,
                   (int)dl->device.device_id, ctx->device);
  size_t i = 0;
  while (i < NDTYPES && !(dtype_map[i].code == dl->dtype.code && dtype_map[i].bits == dl->dtype.bits)) i++;
  if (i == NDTYPES || dl->dtype.lanes != 1)
    return rs_fail(RS_ERR_DTYPE, "%s: DLPack dtype (code %u, bits %u, lanes %u) has no rs_dtype", who,
                   (unsigned)dl->dtype.code, (unsigned)dl->dtype.bits, (unsigned)dl->dtype.lanes);
  *dtype = dtype_map[i].dtype;
  if (dl->ndim < 0 || dl->ndim > RS_MAX_DIMS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: ndim %d is outside 0..%d", who, (int)dl->ndim, RS_MAX_DIMS);
  if (dl->ndim > 0 && !dl->shape) return rs_fail(RS_ERR_NULL_POINTER, "%s: shape is NULL", who);
  int64_t item = (int64_t)rs_dtype_size(*dtype);
  for (int d = 0; d < dl->ndim && dl->strides; d++) {
    int64_t s = dl->strides[d];
    if (s > INT64_MAX / item || s < -(INT64_MAX / item))
      return rs_fail(RS_ERR_OVERFLOW, "%s: stride %lld of axis %d overflows in bytes", who, (long long)s, d);
    strides[d] = s * item;
  }
  if (dl->byte_offset > (uint64_t)INT64_MAX)
    return rs_fail(RS_ERR_OVERFLOW, "%s: byte_offset %llu is too large", who,
                   (unsigned long long)dl->byte_offset);
  return RS_OK;
}

/* Both imports: st is what the caller found so far; on any failure the tensor goes back
 * through release now (rs_array_wrap calls no callback when it fails). */
static rs_status import(rs_array **out, rs_context *ctx, const rs_dl_tensor *dl, uint64_t flags, rs_status st,
                        rs_release_fn release, void *tensor, const char *who) {
  if (st == RS_OK && !out) st = rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  if (st == RS_OK && !ctx) st = rs_fail(RS_ERR_NULL_POINTER, "%s: ctx is NULL", who);
  rs_mem_kind kind = RS_MEM_HOST;
  rs_dtype dtype = RS_FLOAT32;
  int64_t strides[RS_MAX_DIMS];
  if (st == RS_OK) st = check_import(dl, flags, ctx, &kind, &dtype, strides, who);
  if (st == RS_OK) {
    char *data = dl->data ? (char *)dl->data + dl->byte_offset : NULL;
    st = rs_array_wrap(out, ctx, kind, data, dl->ndim, dl->shape, dtype, dl->strides ? strides : NULL,
                       release, tensor, who);
  }
  if (st != RS_OK) release(tensor);
  return st;
}

rs_status rs_array_from_dlpack(rs_array **out, rs_context *ctx, rs_dl_managed_tensor_versioned *t) {
  const char *who = "rs_array_from_dlpack";
  if (out) *out = NULL;
  if (!t) return rs_fail(RS_ERR_NULL_POINTER, "%s: the tensor is NULL", who);
  rs_status st = RS_OK;
  if (t->version.major != RS_DLPACK_MAJOR_VERSION)
    st = rs_fail(RS_ERR_UNSUPPORTED, "%s: DLPack version %u.%u (this library reads %d.x)", who,
                 (unsigned)t->version.major, (unsigned)t->version.minor, RS_DLPACK_MAJOR_VERSION);
  return import(out, ctx, &t->dl_tensor, t->flags, st, call_deleter, t, who);
}

rs_status rs_array_from_dlpack_legacy(rs_array **out, rs_context *ctx, rs_dl_managed_tensor *t) {
  const char *who = "rs_array_from_dlpack_legacy";
  if (out) *out = NULL;
  if (!t) return rs_fail(RS_ERR_NULL_POINTER, "%s: the tensor is NULL", who);
  return import(out, ctx, &t->dl_tensor, 0, RS_OK, call_legacy_deleter, t, who);
}
