/* The linalg extension's norms and SVD-based operations, composed from existing ops:
 * vector_norm and matrix_norm (abs, powers and reductions; the spectral and nuclear
 * norms from the singular values), svdvals, matrix_rank and pinv (rs_svd, a cutoff
 * relative to the largest singular value), and lstsq (the same SVD: x = V S^+ U^H b). */
#include <float.h>
#include <math.h>
#include <string.h>
#include "core/dtype_rules.h"
#include "core/error.h"
#include "ops/into.h"
#include "ops/linalg_internal.h"
#include "resident/linalg.h"
#include "resident/ops.h"
#include "resident/reduce.h"

/* |x| in a float dtype (integers and bool as float64, as NumPy's norms do). */
static rs_status abs_float(rs_array **out, const rs_array *x, rs_stream *stream, const char *who) {
  RS_TRY(rs_array_check(x, who));
  if (x->dtype == RS_BOOL || rs_dtype_is_integer(x->dtype)) {
    rs_array *f = NULL;
    RS_TRY(rs_astype(&f, x, RS_FLOAT64, stream));
    rs_status st = rs_unary(out, RS_OP_ABS, f, stream);
    rs_array_release(f);
    return st;
  }
  return rs_unary(out, RS_OP_ABS, x, stream);
}

/* The norm of |x| (ax, real) over the given axes. */
static rs_status norm_of_abs(rs_array **out, const rs_array *ax, int naxes, const int *axes, int keepdims, double ord,
                             rs_stream *stream) {
  rs_array *t = NULL, *u = NULL;
  rs_status st;
  if (isinf(ord)) return (ord > 0 ? rs_max : rs_min)(out, ax, naxes, axes, keepdims, stream);
  if (ord == 1) return rs_sum(out, ax, naxes, axes, keepdims, stream);
  if (ord == 0) { /* the count of nonzero elements, in the real dtype */
    st = rs_binary_scalar(&t, RS_OP_NOT_EQUAL, ax, rs_scalar_float(0), stream);
    if (st == RS_OK) st = rs_astype(&u, t, ax->dtype, stream);
    if (st == RS_OK) st = rs_sum(out, u, naxes, axes, keepdims, stream);
  } else if (ord == 2) {
    st = rs_multiply(&t, ax, ax, stream);
    if (st == RS_OK) st = rs_sum(&u, t, naxes, axes, keepdims, stream);
    if (st == RS_OK) st = rs_sqrt(out, u, stream);
  } else {
    st = rs_binary_scalar(&t, RS_OP_POWER, ax, rs_scalar_float(ord), stream);
    if (st == RS_OK) st = rs_sum(&u, t, naxes, axes, keepdims, stream);
    if (st == RS_OK) st = rs_binary_scalar(out, RS_OP_POWER, u, rs_scalar_float(1.0 / ord), stream);
  }
  rs_array_release(t);
  rs_array_release(u);
  return st;
}

static rs_status vector_norm(rs_array **out, const rs_array *x, int naxes, const int *axes, int keepdims, double ord,
                             rs_stream *stream) {
  if (isnan(ord)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "vector_norm: ord is NaN");
  rs_array *ax = NULL;
  RS_TRY(abs_float(&ax, x, stream, "vector_norm"));
  rs_status st = norm_of_abs(out, ax, naxes, axes, keepdims, ord, stream);
  rs_array_release(ax);
  return st;
}
RS_COMPOSE_PAIR(rs_vector_norm,
                (const rs_array *x, int naxes, const int *axes, int keepdims, double ord, rs_stream *stream),
                vector_norm, (x, naxes, axes, keepdims, ord, stream))

static rs_status need_matrix(const rs_array *x, const char *who) {
  RS_TRY(rs_array_check(x, who));
  if (x->ndim < 2) return rs_fail(RS_ERR_SHAPE, "%s: %d-dimensional array given, the last two axes must be a matrix", who, x->ndim);
  return RS_OK;
}

static rs_status svdvals(rs_array **out, const rs_array *x, rs_stream *stream) {
  RS_TRY(need_matrix(x, "svdvals"));
  return rs_svd(NULL, out, NULL, x, 0, stream);
}
RS_COMPOSE_PAIR(rs_svdvals, (const rs_array *x, rs_stream *stream), svdvals, (x, stream))

/* r (..., ) as (..., 1, 1) when keepdims. */
static rs_status keep2(rs_array **out, rs_array *r, int keepdims) {
  if (!keepdims) return rs_array_retain(*out = r);
  int64_t shape[RS_MAX_DIMS];
  memcpy(shape, r->shape, (size_t)r->ndim * sizeof(int64_t));
  shape[r->ndim] = shape[r->ndim + 1] = 1;
  return rs_array_reshape(out, r, r->ndim + 2, shape);
}

static rs_status matrix_norm(rs_array **out, const rs_array *x, rs_matrix_norm_ord ord, int keepdims, rs_stream *stream) {
  const char *who = "matrix_norm";
  RS_TRY(need_matrix(x, who));
  int last2[2] = {-2, -1}, last = -1, inner = -2;
  rs_array *t = NULL, *u = NULL, *r = NULL;
  rs_status st = RS_OK;
  switch (ord) {
    case RS_NORM_FRO: return vector_norm(out, x, 2, last2, keepdims, 2, stream);
    case RS_NORM_NUC:
    case RS_NORM_2:
    case RS_NORM_NEG2:
      st = svdvals(&t, x, stream);
      if (st == RS_OK) st = (ord == RS_NORM_NUC ? rs_sum : ord == RS_NORM_2 ? rs_max : rs_min)(&r, t, 1, &last, 0, stream);
      break;
    case RS_NORM_1:
    case RS_NORM_NEG1:
    case RS_NORM_INF:
    case RS_NORM_NEG_INF: /* max/min over columns (1) or rows (inf) of the sums of |x| */
      st = abs_float(&t, x, stream, who);
      if (st == RS_OK) st = rs_sum(&u, t, 1, ord == RS_NORM_1 || ord == RS_NORM_NEG1 ? &inner : &last, 0, stream);
      if (st == RS_OK) st = (ord == RS_NORM_1 || ord == RS_NORM_INF ? rs_max : rs_min)(&r, u, 1, &last, 0, stream);
      break;
    default: return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: unknown ord %d", who, (int)ord);
  }
  if (st == RS_OK) st = keep2(out, r, keepdims);
  rs_array_release(t);
  rs_array_release(u);
  rs_array_release(r);
  return st;
}
RS_COMPOSE_PAIR(rs_matrix_norm, (const rs_array *x, rs_matrix_norm_ord ord, int keepdims, rs_stream *stream), matrix_norm,
                (x, ord, keepdims, stream))

/* s > rtol * max(s) along the last axis (rtol < 0: max(m, n) * eps of the real dtype). */
static rs_status above_cutoff(rs_array **mask, const rs_array *s, int64_t m, int64_t n, double rtol, rs_stream *stream) {
  if (rtol < 0) rtol = (double)(m > n ? m : n) * (s->dtype == RS_FLOAT32 ? FLT_EPSILON : DBL_EPSILON);
  int last = -1;
  rs_array *mx = NULL, *cut = NULL;
  rs_status st = rs_max(&mx, s, 1, &last, 1, stream);
  if (st == RS_OK) st = rs_multiply_scalar(&cut, mx, rs_scalar_float(rtol), stream);
  if (st == RS_OK) st = rs_binary(mask, RS_OP_GREATER, s, cut, stream);
  rs_array_release(mx);
  rs_array_release(cut);
  return st;
}

static rs_status matrix_rank(rs_array **out, const rs_array *x, double rtol, rs_stream *stream) {
  RS_TRY(need_matrix(x, "matrix_rank"));
  if (isnan(rtol)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "matrix_rank: rtol is NaN");
  rs_array *s = NULL, *mask = NULL;
  int last = -1;
  rs_status st = svdvals(&s, x, stream);
  if (st == RS_OK) st = above_cutoff(&mask, s, x->shape[x->ndim - 2], x->shape[x->ndim - 1], rtol, stream);
  if (st == RS_OK) st = rs_sum(out, mask, 1, &last, 0, stream);
  rs_array_release(s);
  rs_array_release(mask);
  return st;
}
RS_COMPOSE_PAIR(rs_matrix_rank, (const rs_array *x, double rtol, rs_stream *stream), matrix_rank, (x, rtol, stream))

/* x^H (last two axes swapped, conjugated when complex) */
static rs_status herm(rs_array **out, const rs_array *x, rs_stream *stream) {
  int perm[RS_MAX_DIMS];
  for (int i = 0; i < x->ndim; i++) perm[i] = i;
  perm[x->ndim - 1] = x->ndim - 2, perm[x->ndim - 2] = x->ndim - 1;
  rs_array *t = NULL;
  RS_TRY(rs_array_permute(&t, x, perm));
  rs_status st = x->dtype == RS_COMPLEX64 || x->dtype == RS_COMPLEX128 ? rs_unary(out, RS_OP_CONJ, t, stream)
                                                                       : rs_array_retain(*out = t);
  rs_array_release(t);
  return st;
}

/* V S^+ U^H of x's economy SVD (the pseudo-inverse); also s and the mask of kept values. */
static rs_status svd_pinv(rs_array **out, rs_array **s_out, rs_array **mask_out, const rs_array *x, double rtol,
                          rs_stream *stream, const char *who) {
  RS_TRY(need_matrix(x, who));
  if (isnan(rtol)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rtol is NaN", who);
  rs_array *u = NULL, *s = NULL, *vh = NULL, *mask = NULL, *rec = NULL, *zero = NULL, *sinv = NULL, *sx = NULL, *v = NULL,
           *vs = NULL, *uh = NULL;
  rs_status st = rs_svd(&u, &s, &vh, x, 0, stream);
  if (st == RS_OK) st = above_cutoff(&mask, s, x->shape[x->ndim - 2], x->shape[x->ndim - 1], rtol, stream);
  if (st == RS_OK) st = rs_unary(&rec, RS_OP_RECIPROCAL, s, stream);
  if (st == RS_OK) st = rs_zeros_like(&zero, s, rs_ops_on_device(s) ? RS_MEM_DEVICE : RS_MEM_HOST, stream);
  if (st == RS_OK) st = rs_where(&sinv, mask, rec, zero, stream);
  if (st == RS_OK) st = rs_array_expand_dims(&sx, sinv, -2);
  if (st == RS_OK) st = herm(&v, vh, stream);
  if (st == RS_OK) st = rs_multiply(&vs, v, sx, stream);
  if (st == RS_OK) st = herm(&uh, u, stream);
  if (st == RS_OK) st = rs_matmul(out, vs, uh, stream);
  if (st == RS_OK && s_out) st = rs_array_retain(*s_out = s);
  if (st == RS_OK && mask_out) st = rs_array_retain(*mask_out = mask);
  rs_array_release(u), rs_array_release(s), rs_array_release(vh), rs_array_release(mask), rs_array_release(rec);
  rs_array_release(zero), rs_array_release(sinv), rs_array_release(sx), rs_array_release(v), rs_array_release(vs);
  rs_array_release(uh);
  return st;
}

static rs_status pinv(rs_array **out, const rs_array *x, double rtol, rs_stream *stream) {
  return svd_pinv(out, NULL, NULL, x, rtol, stream, "pinv");
}
RS_COMPOSE_PAIR(rs_pinv, (const rs_array *x, double rtol, rs_stream *stream), pinv, (x, rtol, stream))

/* NumPy's lstsq for one matrix a (m, n) and b (m,) or (m, k). */
static rs_status lstsq(rs_array **x, rs_array **residuals, rs_array **rank, rs_array **sv, const rs_array *a,
                       const rs_array *b, double rcond, rs_stream *stream) {
  const char *who = "lstsq";
  RS_TRY(rs_array_check(a, who));
  RS_TRY(rs_array_check(b, who));
  if (a->ndim != 2) return rs_fail(RS_ERR_SHAPE, "%s: a must be 2-d (%d-d given)", who, a->ndim);
  if ((b->ndim != 1 && b->ndim != 2) || b->shape[0] != a->shape[0]) {
    char sa[512], sb[512];
    return rs_fail(RS_ERR_SHAPE, "%s: a %s and b %s do not match (b: (m,) or (m, k))", who,
                   rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape), rs_ops_shape_str(sb, sizeof sb, b->ndim, b->shape));
  }
  int64_t m = a->shape[0], n = a->shape[1];
  rs_array *p = NULL, *s = NULL, *mask = NULL, *xs = NULL, *rk = NULL, *res = NULL, *ax = NULL, *d = NULL, *ad = NULL;
  rs_status st = svd_pinv(&p, &s, &mask, a, rcond, stream, who);
  int last = -1, first = 0;
  if (st == RS_OK) st = rs_matmul(&xs, p, b, stream);
  if (st == RS_OK) st = rs_sum(&rk, mask, 1, &last, 0, stream);
  if (st == RS_OK && residuals) { /* sum |b - a x|^2 per column when full rank and m > n, else empty */
    int64_t r = 0;
    st = rs_array_item_int64(rk, NULL, &r, stream);
    if (st == RS_OK && r == n && m > n) {
      st = rs_matmul(&ax, a, xs, stream);
      if (st == RS_OK) st = rs_subtract(&d, b, ax, stream);
      if (st == RS_OK) st = abs_float(&ad, d, stream, who);
      if (st == RS_OK) st = norm_of_abs(&res, ad, 1, &first, b->ndim == 1, 2, stream);
      if (st == RS_OK) {
        rs_array *sq = NULL;
        st = rs_multiply(&sq, res, res, stream);
        rs_array_release(res);
        res = sq;
      }
    } else if (st == RS_OK) {
      int64_t zero = 0;
      st = rs_empty(&res, a->ctx, rs_ops_on_device(a) || rs_ops_on_device(b) ? RS_MEM_DEVICE : RS_MEM_HOST, 1, &zero,
                    rs_array_dtype(s));
    }
  }
  if (st == RS_OK) {
    *x = xs, xs = NULL;
    if (residuals) *residuals = res, res = NULL;
    if (rank) *rank = rk, rk = NULL;
    if (sv) *sv = s, s = NULL;
  }
  rs_array_release(p), rs_array_release(s), rs_array_release(mask), rs_array_release(xs), rs_array_release(rk);
  rs_array_release(res), rs_array_release(ax), rs_array_release(d), rs_array_release(ad);
  return st;
}

rs_status rs_lstsq(rs_array **x, rs_array **residuals, rs_array **rank, rs_array **s, const rs_array *a, const rs_array *b,
                   double rcond, rs_stream *stream) {
  if (!x) return rs_fail(RS_ERR_NULL_POINTER, "lstsq: x is NULL");
  if (isnan(rcond)) return rs_fail(RS_ERR_INVALID_ARGUMENT, "lstsq: rcond is NaN");
  rs_array *nx = NULL, *nr = NULL, *nk = NULL, *ns = NULL; /* the caller's pointers are never read */
  RS_TRY(lstsq(&nx, residuals ? &nr : NULL, rank ? &nk : NULL, s ? &ns : NULL, a, b, rcond, stream));
  *x = nx;
  if (residuals) *residuals = nr;
  if (rank) *rank = nk;
  if (s) *s = ns;
  return RS_OK;
}
