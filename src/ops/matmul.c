/* matmul: NumPy's shapes (1-d operands, broadcast batch axes), then operands put in a
 * layout BLAS takes - every matrix with a unit stride on one axis and the batch a single
 * uniform stride (0 for a broadcast operand) - copying only the operands that are not. */
#include <string.h>
#include "core/checked.h"
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/into.h"
#include "native/native.h"
#include "native/native_blas.h"
#include "ops/ops_internal.h"
#include "resident/linalg.h"
#include "transfer/copy.h"

/* Float and complex dtypes BLAS has; bool and integers are refused (cast them). */
rs_status rs_linalg_dtype(rs_dtype *out, rs_dtype a, rs_dtype b, const char *who);
rs_status rs_linalg_dtype(rs_dtype *out, rs_dtype a, rs_dtype b, const char *who) {
  rs_dtype dt = rs_promote(a, b);
  if (dt != RS_FLOAT32 && dt != RS_FLOAT64 && dt != RS_COMPLEX64 && dt != RS_COMPLEX128)
    return rs_fail(RS_ERR_DTYPE, "%s: %s is not supported (float32, float64, complex64, complex128; cast with astype)",
                   who, rs_dtype_name(dt));
  *out = dt;
  return RS_OK;
}

/* Matrix strides (rs, cs) BLAS can use; axes of length 1 take whatever stride fits. */
static int blas_matrix(int64_t rows, int64_t cols, int64_t *rs, int64_t *cs, int64_t item) {
  if (rows == 1) *rs = *cs * cols > 0 ? *cs * cols : item * cols;
  if (cols == 1) *cs = *rs * rows > 0 ? *rs * rows : item * rows;
  if (rows == 1 && cols == 1) *rs = *cs = item;
  if (*cs == item && *rs >= cols * item) return 1;
  if (*rs == item && *cs >= rows * item) return 1;
  return 0;
}

/* One uniform batch stride for axes [0, nb) of x broadcast to batch shape B, if any. */
static int uniform_batch(const rs_array *x, const int64_t *xstrides, int nb, const int64_t *B, int64_t *bs) {
  int off = nb - (x->ndim - 2);
  int64_t stride = -1, span = 1;
  for (int k = nb - 1; k >= 0; k--) {
    if (B[k] == 1) continue;
    int kx = k - off;
    int64_t s = (kx < 0 || x->shape[kx] == 1) ? 0 : xstrides[kx];
    if (stride < 0) {
      stride = s;
    } else if (!rs_stride_follows(s, stride, span)) {
      return 0;
    }
    span *= B[k];
  }
  *bs = stride < 0 ? 0 : stride;
  return 1;
}

typedef struct mm_operand {
  rs_array *arr;  /* 2+-d view used (a reshape of the caller's 1-d vector, or a copy) */
  int64_t rows, cols;
} mm_operand;

/* Make x usable: dtype dt, BLAS matrix strides, uniform batch over B (broadcast
 * materialised only when needed). */
static rs_status prepare(mm_operand *o, const rs_array *x, rs_dtype dt, int nb, const int64_t *B, const char *who,
                         rs_stream *stream) {
  int64_t item = (int64_t)rs_dtype_size(dt), rs = x->strides[x->ndim - 2], cs = x->strides[x->ndim - 1], bs;
  o->rows = x->shape[x->ndim - 2];
  o->cols = x->shape[x->ndim - 1];
  if (x->dtype == dt && blas_matrix(o->rows, o->cols, &rs, &cs, item) && uniform_batch(x, x->strides, nb, B, &bs)) {
    o->arr = (rs_array *)(uintptr_t)x;
    return rs_array_retain(o->arr);
  }
  /* a C-contiguous copy with the whole batch shape (broadcast axes materialised) */
  int64_t shape[RS_MAX_DIMS];
  memcpy(shape, B, (size_t)nb * sizeof *shape);
  shape[nb] = o->rows;
  shape[nb + 1] = o->cols;
  RS_TRY(rs_ops_alloc(&o->arr, x->ctx, rs_ops_on_device(x), nb + 2, shape, dt, RS_ORDER_C, who));
  rs_status st = rs_copy_into(o->arr, x, stream); /* broadcasts, and casts to dt */
  if (st != RS_OK) {
    rs_array_release(o->arr);
    o->arr = NULL;
  }
  return st;
}

static int overlaps_buf(const rs_array *x, const rs_array *y) { return x->buf == y->buf; }

static rs_status matmul(rs_array **out, const rs_array *a, const rs_array *b, rs_stream *stream) {
  const char *who = "matmul";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  RS_TRY(rs_array_check(a, who));
  RS_TRY(rs_array_check(b, who));
  if (a->ctx != b->ctx) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: operands belong to different contexts", who);
  if (a->ndim == 0 || b->ndim == 0) return rs_fail(RS_ERR_SHAPE, "%s: 0-d operands are not matrices (use multiply)", who);
  rs_dtype dt = RS_FLOAT64; /* set by rs_linalg_dtype; initialised for the compiler */
  RS_TRY(rs_linalg_dtype(&dt, a->dtype, b->dtype, who));
  /* vectors become matrices: a (k) -> (1, k), b (k) -> (k, 1) */
  rs_array *av = NULL, *bv = NULL;
  rs_status st = RS_OK;
  if (a->ndim == 1) st = rs_array_expand_dims(&av, a, 0);
  else st = rs_array_retain((rs_array *)(uintptr_t)a), av = (rs_array *)(uintptr_t)a;
  if (st != RS_OK) return st;
  if (b->ndim == 1) st = rs_array_expand_dims(&bv, b, 1);
  else st = rs_array_retain((rs_array *)(uintptr_t)b), bv = (rs_array *)(uintptr_t)b;
  if (st != RS_OK) {
    rs_array_release(av);
    return st;
  }
  int64_t m = av->shape[av->ndim - 2], k = av->shape[av->ndim - 1], k2 = bv->shape[bv->ndim - 2],
          n = bv->shape[bv->ndim - 1];
  int nba = av->ndim - 2, nbb = bv->ndim - 2, nb = nba > nbb ? nba : nbb;
  int64_t B[RS_MAX_DIMS], batch = 1;
  char sa[512], sb[512];
  if (k != k2) {
    st = rs_fail(RS_ERR_SHAPE, "%s: mismatch in the core dimension: %s @ %s (size %lld is different from %lld)", who,
                 rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape), rs_ops_shape_str(sb, sizeof sb, b->ndim, b->shape),
                 (long long)k2, (long long)k);
  }
  for (int i = 0; st == RS_OK && i < nb; i++) {
    int ia = i - (nb - nba), ib = i - (nb - nbb);
    int64_t ea = ia < 0 ? 1 : av->shape[ia], eb = ib < 0 ? 1 : bv->shape[ib];
    if (ea != eb && ea != 1 && eb != 1)
      st = rs_fail(RS_ERR_BROADCAST, "%s: batch axes of %s and %s do not broadcast", who,
                   rs_ops_shape_str(sa, sizeof sa, a->ndim, a->shape), rs_ops_shape_str(sb, sizeof sb, b->ndim, b->shape));
    B[i] = ea == 1 ? eb : ea;
    batch *= B[i];
  }
  /* the result's shape, with the axes of 1-d operands dropped */
  int rnd = 0;
  int64_t rshape[RS_MAX_DIMS];
  for (int i = 0; i < nb; i++) rshape[rnd++] = B[i];
  if (a->ndim > 1) rshape[rnd++] = m;
  if (b->ndim > 1) rshape[rnd++] = n;
  rs_context *ctx = a->ctx;
  rs_ops_result r = {0};
  rs_array *c = NULL;
  mm_operand A = {0}, Bo = {0};
  if (st == RS_OK)
    st = rs_ops_result_begin(&r, out, ctx, rs_ops_on_device(a) || rs_ops_on_device(b), rnd, rshape, dt,
                             RS_ORDER_C, RS_OPS_CAST_SAME_KIND, who);
  rs_array *target = r.target;
  if (st == RS_OK) st = prepare(&A, av, dt, nb, B, who, stream);
  if (st == RS_OK) st = prepare(&Bo, bv, dt, nb, B, who, stream);
  int64_t cshape[RS_MAX_DIMS];
  memcpy(cshape, B, (size_t)nb * sizeof *cshape);
  cshape[nb] = m;
  cshape[nb + 1] = n;
  if (st == RS_OK) {
    /* c: the target seen as (B..., m, n), when its layout and memory allow */
    int64_t item = (int64_t)rs_dtype_size(dt), crs, ccs, cbs;
    rs_array *tv = NULL;
    st = rs_array_reshape(&tv, target, nb + 2, cshape);
    if (st == RS_OK) {
      crs = tv->strides[nb];
      ccs = tv->strides[nb + 1];
      if (tv->dtype == dt && blas_matrix(m, n, &crs, &ccs, item) && uniform_batch(tv, tv->strides, nb, B, &cbs) &&
          !overlaps_buf(tv, A.arr) && !overlaps_buf(tv, Bo.arr)) {
        c = tv;
        tv = NULL;
      }
      rs_array_release(tv);
    }
    rs_clear_error();
    st = RS_OK;
    if (!c) st = rs_ops_alloc(&c, ctx, rs_ops_on_device(target), nb + 2, cshape, dt, RS_ORDER_C, who);
  }
  if (st == RS_OK && batch > 0 && m > 0 && n > 0 && k == 0) {
    st = rs_zeros_into(c, stream); /* an empty inner dimension: zeros, no BLAS call */
  } else if (st == RS_OK && batch > 0 && m > 0 && n > 0) {
    rs_ops_stage s;
    const rs_array *in[2] = {A.arr, Bo.arr};
    st = rs_ops_stage_begin(&s, who, ctx, stream, 2, in, 1, &c);
    if (st == RS_OK) {
      int64_t item = (int64_t)rs_dtype_size(dt);
      rs_matmul_plan p = {dt, batch, m, n, k, NULL, 0, 0, 0, NULL, 0, 0, 0, NULL, 0, 0, 0};
      const int64_t *as = rs_ops_stage_strides(&s, 0), *bs = rs_ops_stage_strides(&s, 1), *cs = rs_ops_stage_strides(&s, 2);
      p.a = rs_ops_stage_ptr(&s, 0);
      p.b = rs_ops_stage_ptr(&s, 1);
      p.c = rs_ops_stage_ptr(&s, 2);
      int na = A.arr->ndim, nbn = Bo.arr->ndim;
      p.a_rs = as[na - 2], p.a_cs = as[na - 1];
      p.b_rs = bs[nbn - 2], p.b_cs = bs[nbn - 1];
      p.c_rs = cs[nb], p.c_cs = cs[nb + 1];
      blas_matrix(m, k, &p.a_rs, &p.a_cs, item);
      blas_matrix(k, n, &p.b_rs, &p.b_cs, item);
      blas_matrix(m, n, &p.c_rs, &p.c_cs, item);
      uniform_batch(s.la.staged[0] ? s.la.staged[0] : A.arr, as, nb, B, &p.a_bs);
      uniform_batch(s.la.staged[1] ? s.la.staged[1] : Bo.arr, bs, nb, B, &p.b_bs);
      uniform_batch(s.la.staged[2] ? s.la.staged[2] : c, cs, nb, B, &p.c_bs);
      st = s.ops->matmul(s.be, &p, s.stream);
      st = rs_ops_stage_end(&s, st);
    }
  }
  if (st == RS_OK && c && c->buf != target->buf) {
    /* the result went through a temporary: into the target's shape and dtype */
    rs_array *cv = NULL;
    st = rs_array_reshape(&cv, c, rnd, rshape);
    if (st == RS_OK) st = rs_copy_into(target, cv, stream);
    rs_array_release(cv);
  }
  rs_array_release(c);
  rs_array_release(A.arr);
  rs_array_release(Bo.arr);
  rs_array_release(av);
  rs_array_release(bv);
  return rs_ops_result_end(&r, st);
}

RS_OPS_PAIR(rs_matmul, (const rs_array *a, const rs_array *b, rs_stream *stream), matmul, (a, b, stream))

int rs_host_threads(void) { return rs_native_host_threads(); }

const char *rs_linalg_host_library(int *threads) {
  if (threads) *threads = rs_blas_threads();
  return rs_blas_name();
}
