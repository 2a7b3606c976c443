/* Default arguments of kernel parameters (`__global__ void k(float *y, int n, float a =
 * 1.0f)`): a launch may omit trailing parameters that have one, as a CUDA <<<>>> call
 * may. The default is a literal the library reads itself - an integer (decimal, hex or
 * octal, with u/l suffixes), a floating constant (with f/l suffixes), true/false, or for a
 * pointer nullptr/NULL/0 - since a launch packs arguments itself and no compiler
 * evaluates the call. Any other default (an expression, a macro) keeps the parameter
 * required. Both backends launch through here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kernel/kernel_internal.h"

static int rs_dtype_of(rs_scalar_family f, size_t size, rs_dtype *dt) {
  static const rs_dtype ints[] = {RS_INT8, RS_INT16, RS_INT32, RS_INT64};
  static const rs_dtype uints[] = {RS_UINT8, RS_UINT16, RS_UINT32, RS_UINT64};
  int at = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
  if (f == RS_FAMILY_BOOL && size == 1) *dt = RS_BOOL;
  else if (f == RS_FAMILY_INT && at >= 0) *dt = ints[at];
  else if (f == RS_FAMILY_UINT && at >= 0) *dt = uints[at];
  else if (f == RS_FAMILY_FLOAT && (size == 4 || size == 8)) *dt = size == 4 ? RS_FLOAT32 : RS_FLOAT64;
  else return 0;
  return 1;
}

/* Only the suffix letters in s (u, l, f as allowed) remain after a number. */
static int rs_suffix_only(const char *s, const char *allowed) {
  for (; *s; s++)
    if (!strchr(allowed, *s)) return 0;
  return 1;
}

void rs_kparam_default(rs_kparam *p) {
  p->has_default = 0;
  const char *v = p->defval;
  if (!v[0]) return;
  rs_arg *a = &p->default_arg;
  memset(a, 0, sizeof *a);
  if (p->kind == RS_PARAM_POINTER) {
    if (!strcmp(v, "nullptr") || !strcmp(v, "NULL") || !strcmp(v, "0")) {
      a->kind = RS_ARG_NULL;
      p->has_default = 1;
    }
    return;
  }
  rs_dtype dt;
  if (p->kind != RS_PARAM_SCALAR || p->lanes > 1 || !rs_dtype_of(p->family, p->declared_size, &dt)) return;
  a->kind = RS_ARG_SCALAR;
  a->dtype = dt;
  /* the parser joins tokens with spaces: "- 1" is a negative literal */
  char text[64];
  size_t n = 0;
  for (const char *c = v; *c && n + 1 < sizeof text; c++)
    if (*c != ' ') text[n++] = *c;
  text[n] = '\0';
  if (!strcmp(text, "true") || !strcmp(text, "false")) {
    if (p->family != RS_FAMILY_BOOL) return;
    a->value.u8 = text[0] == 't';
    p->has_default = 1;
    return;
  }
  char *end = NULL;
  errno = 0;
  if (p->family == RS_FAMILY_FLOAT) {
    double d = strtod(text, &end);
    if (end == text || errno || !rs_suffix_only(end, "fFlL")) return;
    if (dt == RS_FLOAT32) a->value.f32 = (float)d;
    else a->value.f64 = d;
  } else {
    /* integers, and integer literals for bool (0 or 1) */
    long long x = strtoll(text, &end, 0);
    if (end == text || errno || !rs_suffix_only(end, "uUlL")) return;
    switch (dt) {
      case RS_BOOL: a->value.u8 = x != 0; break;
      case RS_INT8: a->value.i8 = (signed char)x; break;
      case RS_INT16: a->value.i16 = (short)x; break;
      case RS_INT32: a->value.i32 = (int)x; break;
      case RS_UINT8: a->value.u8 = (unsigned char)x; break;
      case RS_UINT16: a->value.u16 = (unsigned short)x; break;
      case RS_UINT32: a->value.u32 = (unsigned)x; break;
      default: a->value.i64 = x; break; /* 8 bytes, signed or not */
    }
  }
  p->has_default = 1;
}

int rs_kargs_defaults(const rs_kernel *k, int nargs, const rs_arg *args, rs_arg *full) {
  if (nargs < 0 || nargs >= k->nparams || (nargs > 0 && !args)) return nargs;
  for (int i = nargs; i < k->nparams; i++)
    if (!k->params[i].has_default) return nargs;
  if (nargs > 0) memcpy(full, args, (size_t)nargs * sizeof *full);
  for (int i = nargs; i < k->nparams; i++) full[i] = k->params[i].default_arg;
  return k->nparams;
}
