/* One element to the host: the only way a device value becomes a C value, and it is an
 * explicit copy the ledger records (a 0-d view copied into the caller's memory). */
#include <complex.h>
#include <string.h>
#include "core/error.h"
#include "core/half.h"
#include "ops/ops_internal.h"
#include "transfer/copy.h"

rs_status rs_array_item_to_host(const rs_array *a, const int64_t *index, void *dst, rs_stream *stream) {
  const char *who = "rs_array_item_to_host";
  RS_TRY(rs_array_check(a, who));
  if (!dst) return rs_fail(RS_ERR_NULL_POINTER, "%s: dst is NULL", who);
  int64_t off = a->offset;
  if (!index) {
    if (rs_array_size(a) != 1)
      return rs_fail(RS_ERR_INDEX, "%s: an array of %lld elements needs an index", who, (long long)rs_array_size(a));
  } else {
    for (int k = 0; k < a->ndim; k++) {
      int64_t i = index[k] < 0 ? index[k] + a->shape[k] : index[k];
      if (i < 0 || i >= a->shape[k])
        return rs_fail(RS_ERR_INDEX, "%s: index %lld is out of bounds for axis %d with size %lld", who,
                       (long long)index[k], k, (long long)a->shape[k]);
      off += i * a->strides[k];
    }
  }
  rs_array *view = NULL, *host = NULL;
  RS_TRY(rs_array_new_view(&view, a, 0, NULL, NULL, off));
  rs_status st = rs_host_array_wrap(&host, a->ctx, dst, 0, NULL, a->dtype, NULL);
  if (st == RS_OK) st = rs_copy_path(host, view, stream, &RS_EXPLICIT("rs_array_item_to_host"));
  rs_array_release(host);
  rs_array_release(view);
  return st;
}

/* The element as double and as int64 (complex: its real part). */
static rs_status item_values(double *d, int64_t *i, const rs_array *a, const int64_t *index, rs_stream *stream) {
  _Alignas(16) unsigned char raw[16];
  RS_TRY(rs_array_item_to_host(a, index, raw, stream));
  switch (a->dtype) {
#define RS_ITEM_(DT, T)    \
  case DT: {               \
    T v;                   \
    memcpy(&v, raw, sizeof v); \
    *d = (double)v;        \
    *i = (int64_t)v;       \
    break;                 \
  }
    RS_ITEM_(RS_INT8, int8_t)
    RS_ITEM_(RS_INT16, int16_t)
    RS_ITEM_(RS_INT32, int32_t)
    RS_ITEM_(RS_INT64, int64_t)
    RS_ITEM_(RS_UINT8, uint8_t)
    RS_ITEM_(RS_UINT16, uint16_t)
    RS_ITEM_(RS_UINT32, uint32_t)
#undef RS_ITEM_
    case RS_BOOL:
      *d = raw[0] != 0;
      *i = raw[0] != 0;
      break;
    case RS_UINT64: {
      uint64_t v;
      memcpy(&v, raw, sizeof v);
      *d = (double)v;
      *i = (int64_t)v;
      break;
    }
    case RS_FLOAT16: {
      uint16_t h;
      memcpy(&h, raw, sizeof h);
      *d = rs_half_to_float(h);
      break;
    }
    case RS_FLOAT32: {
      float v;
      memcpy(&v, raw, sizeof v);
      *d = v;
      break;
    }
    case RS_FLOAT64:
    case RS_COMPLEX128:
      memcpy(d, raw, sizeof *d);
      break;
    case RS_COMPLEX64: {
      float v;
      memcpy(&v, raw, sizeof v);
      *d = v;
      break;
    }
    default:
      return rs_fail(RS_ERR_DTYPE, "item: invalid dtype");
  }
  if (a->dtype >= RS_FLOAT16) /* floats truncate towards zero, out of range as astype gives */
    *i = (*d >= -9223372036854775808.0 && *d < 9223372036854775808.0) ? (int64_t)*d : INT64_MIN;
  return RS_OK;
}

rs_status rs_array_item_double(const rs_array *a, const int64_t *index, double *out, rs_stream *stream) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_array_item_double: out is NULL");
  int64_t i;
  return item_values(out, &i, a, index, stream);
}

rs_status rs_array_item_int64(const rs_array *a, const int64_t *index, int64_t *out, rs_stream *stream) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_array_item_int64: out is NULL");
  double d;
  return item_values(&d, out, a, index, stream);
}
