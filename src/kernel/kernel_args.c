/* Kernel arguments: checked against the parsed parameter list (count, kind, dtype), bound
 * to the launch path's array slots, and packed as the pointers-to-values CUDA expects. */
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_args.h"

rs_arg rs_arg_scalar(rs_dtype dtype, const void *value) {
  rs_arg r;
  memset(&r, 0, sizeof r);
  r.array = NULL;
  size_t size = rs_dtype_size(dtype);
  if (!value || size == 0 || size > sizeof r.value.bytes) {
    r.kind = RS_ARG_NONE;
    r.dtype = dtype;
    return r;
  }
  r.kind = RS_ARG_SCALAR;
  r.dtype = dtype;
  memcpy(r.value.bytes, value, size);
  return r;
}

static rs_scalar_family rs_dtype_family(rs_dtype dt) {
  switch (dt) {
    case RS_BOOL:
      return RS_FAMILY_BOOL;
    case RS_INT8:
    case RS_INT16:
    case RS_INT32:
    case RS_INT64:
      return RS_FAMILY_INT;
    case RS_UINT8:
    case RS_UINT16:
    case RS_UINT32:
    case RS_UINT64:
      return RS_FAMILY_UINT;
    case RS_FLOAT16:
    case RS_FLOAT32:
    case RS_FLOAT64:
      return RS_FAMILY_FLOAT;
    case RS_COMPLEX64:
    case RS_COMPLEX128:
      return RS_FAMILY_COMPLEX;
    default:
      return RS_FAMILY_UNKNOWN;
  }
}

static const char *rs_family_name(rs_scalar_family f) {
  static const char *const names[] = {"unknown", "bool", "signed integer", "unsigned integer", "floating",
                                      "complex"};
  return names[f];
}

/* Same bits, same meaning: integers of either signedness agree, and bytes with bool. */
static int rs_family_compatible(rs_scalar_family declared, rs_scalar_family given, size_t size) {
  if (declared == given) return 1;
  int ints = (declared == RS_FAMILY_INT || declared == RS_FAMILY_UINT) &&
             (given == RS_FAMILY_INT || given == RS_FAMILY_UINT);
  int byte_bool = size == 1 && (declared == RS_FAMILY_BOOL || given == RS_FAMILY_BOOL) &&
                  declared != RS_FAMILY_FLOAT && given != RS_FAMILY_FLOAT;
  return ints || byte_bool;
}

static const char *rs_arg_kind_name(rs_arg_kind kind) {
  switch (kind) {
    case RS_ARG_ARRAY:
      return "an array as a pointer (rs_arg_array)";
    case RS_ARG_DESC:
      return "an array as a descriptor (rs_arg_desc)";
    case RS_ARG_SCALAR:
      return "a scalar";
    case RS_ARG_NULL:
      return "NULL (rs_arg_null)";
    default:
      return "an invalid argument (rs_arg_scalar with a bad dtype or a NULL value)";
  }
}

static const char *rs_param_kind_name(rs_param_kind kind) {
  switch (kind) {
    case RS_PARAM_POINTER:
      return "a pointer: pass rs_arg_array";
    case RS_PARAM_DESCRIPTOR:
      return "a descriptor: pass rs_arg_desc";
    default:
      return "a scalar: pass rs_arg_i32, rs_arg_f64, ... or rs_arg_scalar";
  }
}

static rs_status rs_check_scalar(const rs_kernel *k, int i, const rs_kparam *p, const rs_arg *a) {
  size_t size = rs_dtype_size(a->dtype);
  rs_scalar_family fam = rs_dtype_family(a->dtype);
  if (p->declared_size) {
    if (size != p->declared_size || !rs_family_compatible(p->family, fam, size))
      return rs_fail(RS_ERR_LAUNCH,
                     "kernel '%s' parameter %d '%s' is declared '%s' (%zu bytes, %s) but a scalar of dtype %s "
                     "(%zu bytes, %s) was passed",
                     k->name, i, p->name, p->type, p->declared_size, rs_family_name(p->family),
                     rs_dtype_name(a->dtype), size, rs_family_name(fam));
  } else if (p->size && size != p->size) {
    return rs_fail(RS_ERR_LAUNCH,
                   "kernel '%s' parameter %d '%s' is declared '%s' (%zu bytes) but a scalar of dtype %s (%zu "
                   "bytes) was passed",
                   k->name, i, p->name, p->type, p->size, rs_dtype_name(a->dtype), size);
  }
  return RS_OK;
}

static rs_status rs_check_array(const rs_kernel *k, int i, const rs_kparam *p, const rs_arg *a) {
  /* The name is formatted only for a message: this runs on every launch. */
  rs_status st = rs_array_check(a->array, "the array");
  if (st != RS_OK) return rs_fail_prefix(st, "kernel '%s' parameter %d '%s': ", k->name, i, p->name);
  char who[256];
#define RS_WHO() (snprintf(who, sizeof who, "kernel '%s' parameter %d '%s'", k->name, i, p->name), who)
  if (a->array->ctx != k->ctx)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the array belongs to another context than the kernel", RS_WHO());
  rs_dtype dt = a->array->dtype;
  if (p->kind == RS_PARAM_POINTER) {
    if (!rs_array_is_c_contiguous(a->array) && !rs_array_is_f_contiguous(a->array))
      return rs_fail(RS_ERR_NOT_CONTIGUOUS,
                     "%s (%s) gets the address of element 0, but the array is not contiguous: pass it with "
                     "rs_arg_desc to an rs_array_desc parameter, or copy it first",
                     RS_WHO(), p->type);
    /* A vector type's lanes as the array's last axis (float4 *: float32 of shape (..., 4)). */
    const rs_array *v = a->array;
    if (p->lanes > 1 && rs_dtype_size(dt) == p->lane_size &&
        rs_family_compatible(p->lane_family, rs_dtype_family(dt), p->lane_size)) {
      if (v->ndim < 1 || v->shape[v->ndim - 1] != p->lanes || !rs_array_is_c_contiguous(v))
        return rs_fail(RS_ERR_SHAPE,
                       "%s is declared '%s': an array of dtype %s goes there when it is C-contiguous and its last "
                       "axis has %d elements (one %s each)",
                       RS_WHO(), p->type, rs_dtype_name(dt), p->lanes, p->type);
      return RS_OK;
    }
    if (p->lanes > 1 && (p->declared_size == 0 || rs_dtype_size(dt) != p->declared_size ||
                         !rs_family_compatible(p->family, rs_dtype_family(dt), p->declared_size)))
      return rs_fail(RS_ERR_DTYPE,
                     "%s is declared '%s' but an array of dtype %s was passed: pass %d-byte %s elements with a last "
                     "axis of %d%s",
                     RS_WHO(), p->type, rs_dtype_name(dt), (int)p->lane_size,
                     p->lane_family == RS_FAMILY_FLOAT ? "floating" : "integer", p->lanes,
                     p->lanes == 2 && p->lane_family == RS_FAMILY_FLOAT ? " (or a complex array)" : "");
    /* char-sized pointees are byte buffers by convention: any array may go there. */
    if (p->declared_size > 1 && (rs_dtype_size(dt) != p->declared_size ||
                                 !rs_family_compatible(p->family, rs_dtype_family(dt), p->declared_size)))
      return rs_fail(RS_ERR_DTYPE, "%s is declared '%s' but an array of dtype %s was passed", RS_WHO(), p->type,
                     rs_dtype_name(dt));
  } else if (a->array->ndim > RS_DEVICE_MAX_DIMS) {
    return rs_fail(RS_ERR_TOO_MANY_DIMS, "%s: a descriptor holds at most %d dimensions, the array has %d", RS_WHO(),
                   RS_DEVICE_MAX_DIMS, a->array->ndim);
  }
  return RS_OK;
#undef RS_WHO
}

rs_status rs_kargs_bind(const rs_kernel *k, int nargs, const rs_arg *args, rs_launch_args *la,
                        rs_kargs *out) {
  if (nargs != k->nparams)
    return rs_fail(RS_ERR_LAUNCH, "kernel '%s' takes %d argument%s but %d %s passed", k->name, k->nparams,
                   k->nparams == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
  if (nargs > 0 && !args) return rs_fail(RS_ERR_NULL_POINTER, "kernel '%s': args is NULL", k->name);
  la->count = 0;
  out->largest = 0;
  for (int i = 0; i < nargs; i++) {
    const rs_kparam *p = &k->params[i];
    const rs_arg *a = &args[i];
    int want = p->kind == RS_PARAM_POINTER ? RS_ARG_ARRAY : p->kind == RS_PARAM_DESCRIPTOR ? RS_ARG_DESC : RS_ARG_SCALAR;
    if (want == RS_ARG_ARRAY && a->kind == RS_ARG_NULL) {
      out->slot[i] = -2; /* packed as a NULL pointer */
      continue;
    }
    if ((int)a->kind != want)
      return rs_fail(RS_ERR_LAUNCH, "kernel '%s' parameter %d '%s' is declared '%s', %s; %s was passed", k->name,
                     i, p->name, p->type, rs_param_kind_name(p->kind), rs_arg_kind_name(a->kind));
    if (want == RS_ARG_SCALAR) {
      RS_TRY(rs_check_scalar(k, i, p, a));
      out->slot[i] = -1;
      continue;
    }
    RS_TRY(rs_check_array(k, i, p, a));
    if (la->count == RS_MAX_KERNEL_ARRAYS)
      return rs_fail(RS_ERR_LAUNCH, "kernel '%s': more than %d array arguments", k->name, RS_MAX_KERNEL_ARRAYS);
    int s = la->count++;
    la->given[s] = a->array;
    la->read_only[s] = p->read_only;
    la->write_only[s] = 0; /* a pointer parameter may be read: filled from the host */
    out->arg_index[s] = i;
    out->slot[i] = s;
    int64_t n = rs_array_size(a->array);
    if (n > out->largest) out->largest = n;
  }
  la->arg_index = out->arg_index;
  return RS_OK;
}

void rs_kargs_pack(const rs_kernel *k, const rs_arg *args, const rs_launch_args *la, rs_kargs *out) {
  for (int i = 0; i < k->nparams; i++) {
    int s = out->slot[i];
    if (s == -2) {
      out->ptrs[i] = NULL;
      out->argv[i] = &out->ptrs[i];
      continue;
    }
    if (s < 0) {
      out->argv[i] = (void *)(uintptr_t)&args[i].value; /* read, never written, by the launch */
      continue;
    }
    if (k->params[i].kind == RS_PARAM_POINTER) {
      out->ptrs[i] = rs_launch_arg_ptr(la, s);
      out->argv[i] = &out->ptrs[i];
      continue;
    }
    /* A staged host array is described by its device temporary, whose layout may differ. */
    const rs_array *a = la->staged[s] ? la->staged[s] : la->given[s];
    rs_array_desc *d = &out->descs[i];
    d->data = rs_launch_arg_ptr(la, s);
    d->ndim = a->ndim;
    d->itemsize = (int)rs_dtype_size(a->dtype);
    d->size = rs_array_size(a);
    for (int j = 0; j < RS_DEVICE_MAX_DIMS; j++) {
      d->shape[j] = j < a->ndim ? a->shape[j] : 1;
      d->strides[j] = j < a->ndim ? a->strides[j] : 0;
    }
    out->argv[i] = d;
  }
}
