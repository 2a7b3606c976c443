/* Native reductions. Values are loaded in blocks and folded into accumulators of the
 * op's class (sums of float16/float32 in double, integers in 64 bits); float32 and
 * float64 sums of contiguous runs are pairwise (native_pairwise.c), as NumPy's. Two loop orders:
 * "inner" when the reduced axis is the one with the small stride (each output folds a
 * run of memory), "outer" when the kept axis is (a block of outputs folds one row at a
 * time, reading memory in order). A reduction of few outputs over many elements is
 * split into a FIXED number of chunks whose partial results are combined in order, so
 * the result never depends on the number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "native/native.h"
#include "core/dtype_rules.h"
#include "core/half.h"
#include "native/numpy_scalar.h"

rs_cls rs_reduce_acc_cls(rs_reduce_op op, rs_dtype in) {
  rs_cls c = rs_dtype_cls(in);
  switch (op) {
    case RS_REDUCE_SUM:
    case RS_REDUCE_PROD:
      if (c == RS_CLS_B) return RS_CLS_I;
      if (c == RS_CLS_F) return RS_CLS_D;
      if (c == RS_CLS_C) return RS_CLS_Z;
      return c;
    case RS_REDUCE_MEAN:
      return (c == RS_CLS_C || c == RS_CLS_Z) ? RS_CLS_Z : RS_CLS_D;
    case RS_REDUCE_ALL:
    case RS_REDUCE_ANY:
      return RS_CLS_B;
    default: /* min, max, argmin, argmax: exact in the value's own class */
      if (c == RS_CLS_B) return RS_CLS_I;
      if (c == RS_CLS_F) return RS_CLS_D;
      return c;
  }
}

#define SPLIT_CHUNKS 32

typedef struct racc {
  union {
    rs_vb b;
    rs_vi i;
    rs_vu u;
    rs_vd d;
    rs_vz z;
  } v;
  int64_t idx; /* argmin/argmax: position of the extreme; min/max/arg: -1 until set */
} racc;

static void acc_init(racc *a, rs_reduce_op op, rs_cls cls) {
  memset(a, 0, sizeof *a);
  a->idx = -1;
  if (op == RS_REDUCE_PROD) {
    if (cls == RS_CLS_I) a->v.i = 1;
    else if (cls == RS_CLS_U) a->v.u = 1;
    else if (cls == RS_CLS_D) a->v.d = 1;
    else a->v.z = 1;
  } else if (op == RS_REDUCE_ALL) {
    a->v.b = 1;
  }
}

/* Fold n values (acc class) at positions r0, r0+1, ... into one accumulator. */
static void fold_run(racc *a, rs_reduce_op op, rs_cls cls, const void *vals, int n, int64_t r0) {
  switch (cls) {
    case RS_CLS_B: {
      const rs_vb *v = vals;
      for (int i = 0; i < n; i++) a->v.b = op == RS_REDUCE_ALL ? (a->v.b & v[i]) : (a->v.b | v[i]);
      break;
    }
    case RS_CLS_I: {
      const rs_vi *v = vals;
      if (op == RS_REDUCE_SUM) {
        rs_vu s = 0;
        for (int i = 0; i < n; i++) s += (rs_vu)v[i];
        a->v.i = (rs_vi)((rs_vu)a->v.i + s);
      } else if (op == RS_REDUCE_PROD) {
        for (int i = 0; i < n; i++) a->v.i = (rs_vi)((rs_vu)a->v.i * (rs_vu)v[i]);
      } else {
        int mx = op == RS_REDUCE_MAX || op == RS_REDUCE_ARGMAX;
        for (int i = 0; i < n; i++)
          if (a->idx < 0 || rs_np_extreme_takes_i(a->v.i, v[i], mx)) a->v.i = v[i], a->idx = r0 + i;
      }
      break;
    }
    case RS_CLS_U: {
      const rs_vu *v = vals;
      if (op == RS_REDUCE_SUM) {
        for (int i = 0; i < n; i++) a->v.u += v[i];
      } else if (op == RS_REDUCE_PROD) {
        for (int i = 0; i < n; i++) a->v.u *= v[i];
      } else {
        int mx = op == RS_REDUCE_MAX || op == RS_REDUCE_ARGMAX;
        for (int i = 0; i < n; i++)
          if (a->idx < 0 || rs_np_extreme_takes_u(a->v.u, v[i], mx)) a->v.u = v[i], a->idx = r0 + i;
      }
      break;
    }
    case RS_CLS_D: {
      const rs_vd *v = vals;
      if (op == RS_REDUCE_SUM || op == RS_REDUCE_MEAN) {
        double s = 0; /* a block's sum first: a two-level (pairwise-like) sum */
        for (int i = 0; i < n; i++) s += v[i];
        a->v.d += s;
      } else if (op == RS_REDUCE_PROD) {
        for (int i = 0; i < n; i++) a->v.d *= v[i];
      } else {
        int mx = op == RS_REDUCE_MAX || op == RS_REDUCE_ARGMAX;
        for (int i = 0; i < n; i++) {
          if (a->idx < 0 || rs_np_extreme_takes_d(a->v.d, v[i], mx)) a->v.d = v[i], a->idx = r0 + i;
        }
      }
      break;
    }
    default: { /* Z */
      const rs_vz *v = vals;
      if (op == RS_REDUCE_PROD) {
        for (int i = 0; i < n; i++) a->v.z *= v[i];
      } else {
        rs_vz s = 0;
        for (int i = 0; i < n; i++) s += v[i];
        a->v.z += s;
      }
      break;
    }
  }
}

/* Combine b (covering later positions) into a. */
static void combine(racc *a, const racc *b, rs_reduce_op op, rs_cls cls) {
  switch (op) {
    case RS_REDUCE_SUM:
    case RS_REDUCE_MEAN:
    case RS_REDUCE_PROD:
    case RS_REDUCE_ALL:
    case RS_REDUCE_ANY:
      if (cls == RS_CLS_B) {
        fold_run(a, op, cls, &b->v.b, 1, 0);
      } else if (op == RS_REDUCE_PROD) {
        if (cls == RS_CLS_I) a->v.i = (rs_vi)((rs_vu)a->v.i * (rs_vu)b->v.i);
        else if (cls == RS_CLS_U) a->v.u *= b->v.u;
        else if (cls == RS_CLS_D) a->v.d *= b->v.d;
        else a->v.z *= b->v.z;
      } else {
        if (cls == RS_CLS_I) a->v.i = (rs_vi)((rs_vu)a->v.i + (rs_vu)b->v.i);
        else if (cls == RS_CLS_U) a->v.u += b->v.u;
        else if (cls == RS_CLS_D) a->v.d += b->v.d;
        else a->v.z += b->v.z;
      }
      break;
    default:
      if (b->idx < 0) break;
      if (a->idx < 0) {
        *a = *b;
        break;
      }
      {
        int mx = op == RS_REDUCE_MAX || op == RS_REDUCE_ARGMAX, take;
        if (cls == RS_CLS_D)
          take = rs_np_extreme_takes_d(a->v.d, b->v.d, mx);
        else if (cls == RS_CLS_U)
          take = rs_np_extreme_takes_u(a->v.u, b->v.u, mx);
        else
          take = rs_np_extreme_takes_i(a->v.i, b->v.i, mx);
        if (take) *a = *b;
      }
      break;
  }
}

typedef struct red_job {
  const rs_reduce_plan *p;
  rs_cls acc_cls;
  rs_cls in_cls;
  int pairwise;    /* a float32/float64 sum or mean: contiguous runs summed pairwise */
  racc *partials; /* split mode: [chunk][output] */
  int64_t chunk;  /* split mode: positions per chunk */
} red_job;

/* Load n input values (stride or offsets) and convert them to the accumulator class. */
static void load_acc(const red_job *j, const char *base, int64_t stride, const int64_t *offs, int n, void *vals) {
  _Alignas(16) unsigned char raw[RS_NAT_BLOCK * 16];
  rs_nat_load(j->p->in_dtype, base, stride, offs, n, raw);
  if (j->in_cls == j->acc_cls)
    memcpy(vals, raw, (size_t)n * rs_cls_size(j->acc_cls));
  else
    rs_nat_convert(j->in_cls, raw, j->acc_cls, vals, n);
}

/* Fold positions [r0, r1) of the reduced axes starting at `base` into a. */
static void fold_range(const red_job *j, const char *base, int64_t r0, int64_t r1, racc *a) {
  const rs_reduce_plan *p = j->p;
  int nd = p->nred;
  if (nd == 0 || r0 >= r1) {
    if (nd == 0 && r0 < r1) {
      _Alignas(16) unsigned char vals[16];
      load_acc(j, base, 0, NULL, 1, vals);
      fold_run(a, p->op, j->acc_cls, vals, 1, 0);
    }
    return;
  }
  int64_t idx[RS_MAX_DIMS], rem = r0;
  for (int k = nd - 1; k >= 0; k--) {
    idx[k] = rem % p->red_shape[k];
    rem /= p->red_shape[k];
  }
  int64_t inner = p->red_shape[nd - 1], stride = p->red_strides[nd - 1];
  _Alignas(16) unsigned char vals[RS_NAT_BLOCK * 16];
  int64_t r = r0;
  while (r < r1) {
    const char *row = base;
    for (int k = 0; k < nd; k++) row += idx[k] * p->red_strides[k];
    int64_t run = inner - idx[nd - 1];
    if (run > r1 - r) run = r1 - r;
    int64_t off = 0;
    if (j->pairwise && stride == (int64_t)rs_dtype_size(p->in_dtype)) {
      a->v.d += p->in_dtype == RS_FLOAT32 ? rs_nat_pairwise_f((const float *)(const void *)row, run)
                                          : rs_nat_pairwise_d((const double *)(const void *)row, run);
      off = run;
    }
    for (; off < run; off += RS_NAT_BLOCK) {
      int n = (int)(run - off < RS_NAT_BLOCK ? run - off : RS_NAT_BLOCK);
      load_acc(j, row + off * stride, stride, NULL, n, vals);
      fold_run(a, p->op, j->acc_cls, vals, n, r + off);
    }
    r += run;
    idx[nd - 1] += run;
    for (int k = nd - 1; k > 0 && idx[k] == p->red_shape[k]; k--) {
      idx[k] = 0;
      idx[k - 1]++;
    }
  }
}

/* Byte offsets of output o in the input and the output. */
static void out_offsets(const rs_reduce_plan *p, int64_t o, int64_t *in_off, int64_t *out_off) {
  *in_off = 0;
  *out_off = 0;
  for (int k = p->nkeep - 1; k >= 0; k--) {
    int64_t i = o % p->keep_shape[k];
    o /= p->keep_shape[k];
    *in_off += i * p->keep_in_strides[k];
    *out_off += i * p->keep_out_strides[k];
  }
}

/* Write n accumulators to their outputs (offsets from p->out). */
static void store_block(const red_job *j, const racc *accs, const int64_t *out_offs, int n) {
  const rs_reduce_plan *p = j->p;
  rs_cls cls = j->acc_cls;
  _Alignas(16) unsigned char vals[RS_NAT_BLOCK * 16], conv[RS_NAT_BLOCK * 16];
  rs_cls vcls = cls;
  for (int i = 0; i < n; i++) {
    const racc *a = &accs[i];
    if (p->op == RS_REDUCE_ARGMIN || p->op == RS_REDUCE_ARGMAX) {
      vcls = RS_CLS_I;
      ((rs_vi *)(void *)vals)[i] = a->idx < 0 ? 0 : a->idx;
    } else if (p->op == RS_REDUCE_MEAN) {
      double cnt = (double)p->n_red;
      if (cls == RS_CLS_Z) ((rs_vz *)(void *)vals)[i] = a->v.z / cnt;
      else ((rs_vd *)(void *)vals)[i] = a->v.d / cnt;
    } else {
      memcpy(vals + (size_t)i * rs_cls_size(cls), &a->v, rs_cls_size(cls));
    }
  }
  rs_cls ocls = rs_dtype_cls(p->out_dtype);
  if (p->out_dtype == RS_FLOAT16 && vcls == RS_CLS_D) {
    float *f = (float *)(void *)conv;
    for (int i = 0; i < n; i++) f[i] = rs_half_to_float(rs_double_to_half(((rs_vd *)(void *)vals)[i]));
  } else {
    rs_nat_convert(vcls, vals, ocls, conv, n);
    rs_nat_normalize(p->out_dtype, conv, n);
  }
  rs_nat_store(p->out_dtype, conv, p->out, 0, out_offs, n);
}

/* Outputs [o0, o1): each folds all its positions. */
static void inner_body(int64_t o0, int64_t o1, void *arg) {
  const red_job *j = arg;
  const rs_reduce_plan *p = j->p;
  racc accs[RS_NAT_BLOCK];
  int64_t outs[RS_NAT_BLOCK];
  for (int64_t o = o0; o < o1; o += RS_NAT_BLOCK) {
    int n = (int)(o1 - o < RS_NAT_BLOCK ? o1 - o : RS_NAT_BLOCK);
    for (int i = 0; i < n; i++) {
      int64_t in_off;
      out_offsets(p, o + i, &in_off, &outs[i]);
      acc_init(&accs[i], p->op, j->acc_cls);
      /* an empty input may have no memory at all (in == NULL): nothing to fold */
      if (p->n_red > 0) fold_range(j, p->in + in_off, 0, p->n_red, &accs[i]);
    }
    store_block(j, accs, outs, n);
  }
}

/* Outputs [o0, o1) in blocks along the innermost kept axis: for each position of the
 * reduced axes, a block of outputs reads a run of memory. */
static void outer_body(int64_t o0, int64_t o1, void *arg) {
  const red_job *j = arg;
  const rs_reduce_plan *p = j->p;
  int kd = p->nkeep - 1, nd = p->nred;
  int64_t klen = p->keep_shape[kd], kstride = p->keep_in_strides[kd];
  racc accs[RS_NAT_BLOCK];
  int64_t outs[RS_NAT_BLOCK];
  _Alignas(16) unsigned char vals[RS_NAT_BLOCK * 16];
  size_t vsz = rs_cls_size(j->acc_cls);
  int64_t o = o0;
  while (o < o1) {
    int64_t left = klen - o % klen; /* outputs left in this run of the kept axis */
    int n = (int)(left < o1 - o ? left : o1 - o);
    if (n > RS_NAT_BLOCK) n = RS_NAT_BLOCK;
    int64_t in_off, dummy;
    out_offsets(p, o, &in_off, &dummy);
    for (int i = 0; i < n; i++) {
      out_offsets(p, o + i, &dummy, &outs[i]);
      acc_init(&accs[i], p->op, j->acc_cls);
    }
    int64_t idx[RS_MAX_DIMS] = {0}, roff = 0;
    for (int64_t r = 0; r < p->n_red; r++) {
      load_acc(j, p->in + in_off + roff, kstride, NULL, n, vals);
      for (int i = 0; i < n; i++) fold_run(&accs[i], p->op, j->acc_cls, vals + (size_t)i * vsz, 1, r);
      for (int k = nd - 1; k >= 0; k--) { /* odometer over the reduced axes */
        roff += p->red_strides[k];
        if (++idx[k] < p->red_shape[k]) break;
        roff -= idx[k] * p->red_strides[k];
        idx[k] = 0;
      }
    }
    store_block(j, accs, outs, n);
    o += n;
  }
}

/* Chunks of the reduced positions, every output each; partials kept per chunk. */
static void split_body(int64_t c0, int64_t c1, void *arg) {
  const red_job *j = arg;
  const rs_reduce_plan *p = j->p;
  for (int64_t c = c0; c < c1; c++) {
    int64_t r0 = c * j->chunk, r1 = r0 + j->chunk < p->n_red ? r0 + j->chunk : p->n_red;
    for (int64_t o = 0; o < p->n_out; o++) {
      int64_t in_off, out_off;
      out_offsets(p, o, &in_off, &out_off);
      racc *a = &j->partials[c * p->n_out + o];
      acc_init(a, p->op, j->acc_cls);
      fold_range(j, p->in + in_off, r0, r1, a);
    }
  }
}

static int split_mode(const rs_reduce_plan *p) { return p->n_out <= 8 && p->n_red >= 65536; }

size_t rs_native_reduce_scratch(const rs_reduce_plan *p) {
  return split_mode(p) ? (size_t)SPLIT_CHUNKS * (size_t)p->n_out * sizeof(racc) : 0;
}

void rs_native_reduce(rs_thread_pool *pool, const rs_reduce_plan *p, void *scratch) {
  red_job j = {p, rs_reduce_acc_cls(p->op, p->in_dtype), rs_dtype_cls(p->in_dtype), 0, NULL, 0};
  j.pairwise = (p->op == RS_REDUCE_SUM || p->op == RS_REDUCE_MEAN) &&
               (p->in_dtype == RS_FLOAT32 || p->in_dtype == RS_FLOAT64);
  if (p->n_out <= 0) return;
  if (split_mode(p)) {
    j.partials = scratch;
    j.chunk = (p->n_red + SPLIT_CHUNKS - 1) / SPLIT_CHUNKS;
    if (rs_native_parallel(pool, p->n_red))
      rs_native_for(pool, SPLIT_CHUNKS, split_body, &j);
    else
      split_body(0, SPLIT_CHUNKS, &j);
    for (int64_t o = 0; o < p->n_out; o++) {
      racc total;
      acc_init(&total, p->op, j.acc_cls);
      for (int c = 0; c < SPLIT_CHUNKS; c++) combine(&total, &j.partials[c * p->n_out + o], p->op, j.acc_cls);
      int64_t in_off, out_off;
      out_offsets(p, o, &in_off, &out_off);
      store_block(&j, &total, &out_off, 1);
    }
    return;
  }
  int outer = p->nkeep > 0 && p->nred > 0 && p->keep_shape[p->nkeep - 1] > 1 &&
              llabs(p->keep_in_strides[p->nkeep - 1]) < llabs(p->red_strides[p->nred - 1]);
  void (*body)(int64_t, int64_t, void *) = outer ? outer_body : inner_body;
  if (rs_native_parallel(pool, p->n_out * (p->n_red > 0 ? p->n_red : 1)))
    rs_native_for(pool, p->n_out, body, &j);
  else
    body(0, p->n_out, &j);
}
