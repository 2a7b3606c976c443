/* The linalg extension's operations composed from existing ops (no kernels of their own):
 * diagonal (a strided view, copied), trace (a sum over that view), outer (a broadcast
 * multiply), vecdot (conj multiply and sum), tensordot (permute, reshape, matmul) and
 * matrix_power (repeated squaring with matmul; inv first for negative powers). */
#include <string.h>
#include "core/error.h"
#include "memory/buffer.h"
#include "ops/into.h"
#include "ops/linalg_internal.h"
#include "resident/linalg.h"
#include "resident/ops.h"
#include "resident/reduce.h"

rs_status rs_compose_into(rs_array *dst, rs_array *r, rs_status st, rs_stream *stream, const char *who) {
  if (st == RS_OK && dst->ctx != r->ctx)
    st = rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: dst belongs to another context", who);
  if (st == RS_OK && (dst->ndim != r->ndim || memcmp(dst->shape, r->shape, (size_t)r->ndim * sizeof(int64_t)) != 0)) {
    char a[512], b[512];
    st = rs_fail(RS_ERR_SHAPE, "%s: dst %s, the result is %s", who, rs_ops_shape_str(a, sizeof a, dst->ndim, dst->shape),
                 rs_ops_shape_str(b, sizeof b, r->ndim, r->shape));
  }
  if (st == RS_OK) st = rs_copy_into(dst, r, stream);
  rs_array_release(r);
  return st;
}

/* The view of diagonal `offset` of a's last two axes: (..., k). */
static rs_status diag_view(rs_array **out, const rs_array *a, int64_t offset, const char *who) {
  RS_TRY(rs_array_check(a, who));
  if (a->ndim < 2) return rs_fail(RS_ERR_SHAPE, "%s: %d-dimensional array given, the last two axes must be a matrix", who, a->ndim);
  int nb = a->ndim - 2;
  int64_t m = a->shape[nb], n = a->shape[nb + 1], rs = a->strides[nb], cs = a->strides[nb + 1];
  if (offset > n || offset < -m) offset = offset > 0 ? n : -m; /* past the corner: empty */
  int64_t r0 = offset < 0 ? -offset : 0, c0 = offset > 0 ? offset : 0;
  int64_t k = m - r0 < n - c0 ? m - r0 : n - c0;
  if (k < 0) k = 0;
  int64_t shape[RS_MAX_DIMS], strides[RS_MAX_DIMS];
  memcpy(shape, a->shape, (size_t)nb * sizeof(int64_t));
  memcpy(strides, a->strides, (size_t)nb * sizeof(int64_t));
  shape[nb] = k, strides[nb] = rs + cs;
  return rs_array_new_view(out, a, nb + 1, shape, strides, k > 0 ? a->offset + r0 * rs + c0 * cs : a->offset);
}

static rs_status diagonal(rs_array **out, const rs_array *a, int64_t offset, rs_stream *stream) {
  rs_array *v = NULL;
  RS_TRY(diag_view(&v, a, offset, "diagonal"));
  rs_status st = rs_copy(out, v, stream);
  rs_array_release(v);
  return st;
}
RS_COMPOSE_PAIR(rs_diagonal, (const rs_array *a, int64_t offset, rs_stream *stream), diagonal, (a, offset, stream))

static rs_status trace(rs_array **out, const rs_array *a, int64_t offset, rs_stream *stream) {
  rs_array *v = NULL;
  RS_TRY(diag_view(&v, a, offset, "trace"));
  int ax = -1;
  rs_status st = rs_sum(out, v, 1, &ax, 0, stream);
  rs_array_release(v);
  return st;
}
RS_COMPOSE_PAIR(rs_trace, (const rs_array *a, int64_t offset, rs_stream *stream), trace, (a, offset, stream))

static rs_status outer(rs_array **out, const rs_array *x1, const rs_array *x2, rs_stream *stream) {
  RS_TRY(rs_array_check(x1, "outer"));
  RS_TRY(rs_array_check(x2, "outer"));
  if (x1->ndim != 1 || x2->ndim != 1)
    return rs_fail(RS_ERR_SHAPE, "outer: the operands must be 1-d (%d-d and %d-d given)", x1->ndim, x2->ndim);
  rs_array *col = NULL;
  RS_TRY(rs_array_expand_dims(&col, x1, 1));
  rs_status st = rs_multiply(out, col, x2, stream);
  rs_array_release(col);
  return st;
}
RS_COMPOSE_PAIR(rs_outer, (const rs_array *x1, const rs_array *x2, rs_stream *stream), outer, (x1, x2, stream))

static rs_status vecdot(rs_array **out, const rs_array *x1, const rs_array *x2, int axis, rs_stream *stream) {
  const char *who = "vecdot";
  RS_TRY(rs_array_check(x1, who));
  RS_TRY(rs_array_check(x2, who));
  int nd = x1->ndim > x2->ndim ? x1->ndim : x2->ndim;
  if (x1->ndim < 1 || x2->ndim < 1) return rs_fail(RS_ERR_SHAPE, "%s: 0-d operand", who);
  if (axis < -nd || axis >= nd)
    return rs_fail(RS_ERR_AXIS, "%s: axis %d is out of bounds for the broadcast dimension %d", who, axis, nd);
  int ax = axis < 0 ? axis + nd : axis;
  int i1 = ax - (nd - x1->ndim), i2 = ax - (nd - x2->ndim);
  int64_t n1 = i1 >= 0 ? x1->shape[i1] : -1, n2 = i2 >= 0 ? x2->shape[i2] : -1;
  if (n1 != n2) {
    char a[512], b[512];
    return rs_fail(RS_ERR_SHAPE, "%s: axis %d of %s and %s differ", who, axis, rs_ops_shape_str(a, sizeof a, x1->ndim, x1->shape),
                   rs_ops_shape_str(b, sizeof b, x2->ndim, x2->shape));
  }
  rs_array *c = NULL, *p = NULL;
  rs_status st;
  if (x1->dtype == RS_COMPLEX64 || x1->dtype == RS_COMPLEX128) {
    st = rs_unary(&c, RS_OP_CONJ, x1, stream);
  } else {
    c = (rs_array *)(uintptr_t)x1;
    st = rs_array_retain(c);
  }
  if (st == RS_OK) st = rs_multiply(&p, c, x2, stream);
  if (st == RS_OK) st = rs_sum(out, p, 1, &ax, 0, stream);
  rs_array_release(c);
  rs_array_release(p);
  return st;
}
RS_COMPOSE_PAIR(rs_vecdot, (const rs_array *x1, const rs_array *x2, int axis, rs_stream *stream), vecdot,
                (x1, x2, axis, stream))

/* Normalize and check naxes axes of x (in range, not repeated); mark[i] = 1 for each. */
static rs_status contraction_axes(int *ax, unsigned char *mark, const rs_array *x, int naxes, const int *axes, const char *which) {
  memset(mark, 0, RS_MAX_DIMS);
  for (int i = 0; i < naxes; i++) {
    int v = axes[i];
    if (v < -x->ndim || v >= x->ndim)
      return rs_fail(RS_ERR_AXIS, "tensordot: axis %d of %s is out of bounds for %d dimensions", v, which, x->ndim);
    v = v < 0 ? v + x->ndim : v;
    if (mark[v]) return rs_fail(RS_ERR_AXIS, "tensordot: axis %d of %s is repeated", axes[i], which);
    mark[v] = 1, ax[i] = v;
  }
  return RS_OK;
}

/* x permuted to perm, made contiguous, seen as rows x cols. */
static rs_status as_matrix(rs_array **out, const rs_array *x, const int *perm, int64_t rows, int64_t cols, rs_stream *stream) {
  rs_array *p = NULL, *c = NULL;
  int64_t shape[2] = {rows, cols};
  rs_status st = rs_array_permute(&p, x, perm);
  if (st == RS_OK) st = rs_copy(&c, p, stream);
  if (st == RS_OK) st = rs_array_reshape(out, c, 2, shape);
  rs_array_release(p);
  rs_array_release(c);
  return st;
}

static rs_status tensordot(rs_array **out, const rs_array *a, const rs_array *b, int naxes, const int *axes_a,
                           const int *axes_b, rs_stream *stream) {
  RS_TRY(rs_array_check(a, "tensordot"));
  RS_TRY(rs_array_check(b, "tensordot"));
  if (naxes < 0 || naxes > a->ndim || naxes > b->ndim)
    return rs_fail(RS_ERR_AXIS, "tensordot: %d contracted axes for %d-d and %d-d operands", naxes, a->ndim, b->ndim);
  if (naxes > 0 && (!axes_a || !axes_b)) return rs_fail(RS_ERR_NULL_POINTER, "tensordot: axes is NULL");
  int ca[RS_MAX_DIMS], cb[RS_MAX_DIMS], pa[RS_MAX_DIMS], pb[RS_MAX_DIMS], rnd = 0;
  unsigned char ma[RS_MAX_DIMS], mb[RS_MAX_DIMS];
  RS_TRY(contraction_axes(ca, ma, a, naxes, axes_a, "a"));
  RS_TRY(contraction_axes(cb, mb, b, naxes, axes_b, "b"));
  int64_t K = 1, Fa = 1, Fb = 1, rshape[RS_MAX_DIMS];
  for (int i = 0; i < naxes; i++) {
    if (a->shape[ca[i]] != b->shape[cb[i]])
      return rs_fail(RS_ERR_SHAPE, "tensordot: axis %d of a (%lld) and axis %d of b (%lld) differ", axes_a[i],
                     (long long)a->shape[ca[i]], axes_b[i], (long long)b->shape[cb[i]]);
    K *= a->shape[ca[i]];
  }
  if (a->ndim + b->ndim - 2 * naxes > RS_MAX_DIMS) return rs_fail(RS_ERR_SHAPE, "tensordot: the result has too many dimensions");
  int na = 0, nbb = 0;
  for (int i = 0; i < a->ndim; i++)
    if (!ma[i]) pa[na++] = i, Fa *= a->shape[i], rshape[rnd++] = a->shape[i];
  for (int i = 0; i < naxes; i++) pa[na + i] = ca[i], pb[i] = cb[i];
  for (int i = 0; i < b->ndim; i++)
    if (!mb[i]) pb[naxes + nbb++] = i, Fb *= b->shape[i], rshape[rnd++] = b->shape[i];
  rs_array *A = NULL, *B = NULL, *C = NULL;
  rs_status st = as_matrix(&A, a, pa, Fa, K, stream);
  if (st == RS_OK) st = as_matrix(&B, b, pb, K, Fb, stream);
  if (st == RS_OK) st = rs_matmul(&C, A, B, stream);
  if (st == RS_OK) st = rs_array_reshape(out, C, rnd, rshape);
  rs_array_release(A);
  rs_array_release(B);
  rs_array_release(C);
  return st;
}
RS_COMPOSE_PAIR(rs_tensordot,
                (const rs_array *a, const rs_array *b, int naxes, const int *axes_a, const int *axes_b, rs_stream *stream),
                tensordot, (a, b, naxes, axes_a, axes_b, stream))

static rs_status matrix_power(rs_array **out, const rs_array *a, int64_t n, rs_stream *stream) {
  const char *who = "matrix_power";
  RS_TRY(rs_array_check(a, who));
  if (a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2]) {
    char sa[512];
    return rs_fail(RS_ERR_SHAPE, "%s: a %s is not square (..., n, n)", who, rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape));
  }
  rs_array *base = NULL, *acc = NULL, *t = NULL;
  rs_status st;
  if (n == 0) { /* the identity, broadcast over the batch */
    int64_t k = a->shape[a->ndim - 1];
    rs_array *eye = NULL;
    st = rs_eye(&eye, a->ctx, rs_ops_on_device(a) ? RS_MEM_DEVICE : RS_MEM_HOST, k, k, 0, a->dtype, stream);
    if (st == RS_OK) st = rs_empty_like(&acc, a, rs_ops_on_device(a) ? RS_MEM_DEVICE : RS_MEM_HOST);
    if (st == RS_OK) st = rs_copy_into(acc, eye, stream);
    rs_array_release(eye);
    if (st == RS_OK) *out = acc, acc = NULL;
    rs_array_release(acc);
    return st;
  }
  st = n < 0 ? rs_inv(&base, a, stream) : rs_copy(&base, a, stream);
  uint64_t e = n < 0 ? (uint64_t)(-(n + 1)) + 1 : (uint64_t)n;
  while (st == RS_OK) { /* acc = base^(bits of e seen so far), base squared each step */
    if (e & 1) {
      if (!acc) st = rs_array_retain(acc = base);
      else if ((st = rs_matmul(&t, acc, base, stream)) == RS_OK) rs_array_release(acc), acc = t, t = NULL;
    }
    e >>= 1;
    if (!e || st != RS_OK) break;
    if ((st = rs_matmul(&t, base, base, stream)) == RS_OK) rs_array_release(base), base = t, t = NULL;
  }
  if (st == RS_OK) *out = acc, acc = NULL;
  rs_array_release(acc);
  rs_array_release(base);
  return st;
}
RS_COMPOSE_PAIR(rs_matrix_power, (const rs_array *a, int64_t n, rs_stream *stream), matrix_power, (a, n, stream))
