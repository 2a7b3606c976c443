/* The native evaluator of elementwise programs: blocks of up to RS_NAT_BLOCK elements
 * flow through the program's instructions as typed arrays ("registers"), NumPy's
 * buffered-iteration idea. Long inner rows are walked with strides; short ones (a
 * (10M, 5) array, a broadcast column) are gathered through per-element offsets so a
 * block still holds many elements. Work is split over the thread pool by element
 * ranges; every element's result depends only on its own inputs, so the split never
 * changes a result. */
#include <string.h>
#include "native/native.h"
#include "core/dtype_rules.h"
#include "core/half.h"
#include "native/native_ew_fast.h"
#include "native/numpy_scalar.h"

typedef struct ew_job {
  const rs_ew_program *p;
  const rs_ew_geom *g;
  int gather; /* short inner rows: walk element by element */
  rs_ew_fast fast; /* one float op: contiguous rows run as one loop (native_ew_fast.c) */
} ew_job;

/* One register: a block of values of any class (16 bytes the widest, complex128). */
typedef struct ew_reg {
  _Alignas(16) unsigned char bytes[RS_NAT_BLOCK * 16];
} ew_reg;

/* Where the arrays of one block are: a base address each and either one stride (a run
 * along the innermost axis) or per-element offsets from the base. */
typedef struct ew_block {
  int n;
  char *base[RS_EW_MAX_ARRAYS];
  int64_t stride[RS_EW_MAX_ARRAYS];
  const int64_t *offs[RS_EW_MAX_ARRAYS]; /* NULL in run mode */
  int64_t index0, index_step;            /* INDEX in run mode */
  const int64_t *index_offs;             /* INDEX in gather mode */
} ew_block;

static void cast_values(const rs_ew_instr *in, const void *src, void *dst, int n) {
  rs_cls from = rs_dtype_cls(in->arg_dtype), to = rs_dtype_cls(in->dtype);
  if (in->dtype == RS_FLOAT16 && (from == RS_CLS_D || from == RS_CLS_Z)) {
    /* double to half in one rounding, as NumPy casts */
    double tmp[RS_NAT_BLOCK];
    rs_nat_convert(from, src, RS_CLS_D, tmp, n);
    float *d = dst;
    for (int i = 0; i < n; i++) d[i] = rs_half_to_float(rs_double_to_half(tmp[i]));
    return;
  }
  int narrow = in->dtype == RS_INT8 || in->dtype == RS_INT16 || in->dtype == RS_INT32 || in->dtype == RS_UINT8 ||
               in->dtype == RS_UINT16;
  if (narrow && from >= RS_CLS_F) {
    /* float to a narrow integer goes through a 32-bit conversion, as NumPy's C casts do
     * on x86: NaN and out-of-range values give INT32_MIN's low bits (int32: INT32_MIN) */
    double tmp[RS_NAT_BLOCK];
    rs_nat_convert(from, src, RS_CLS_D, tmp, n);
    rs_vi *d = dst;
    for (int i = 0; i < n; i++) d[i] = rs_np_f2i32(tmp[i]);
  } else {
    rs_nat_convert(from, src, to, dst, n);
  }
  rs_nat_normalize(in->dtype, dst, n);
}

static void select_values(const rs_vb *cond, const void *a, const void *b, void *r, size_t sz, int n) {
  const unsigned char *pa = a, *pb = b;
  unsigned char *pr = r;
  for (int i = 0; i < n; i++) memcpy(pr + i * sz, cond[i] ? pa + i * sz : pb + i * sz, sz);
}

static void eval_block(const rs_ew_program *p, const ew_block *blk, ew_reg *regs) {
  int n = blk->n;
  for (int k = 0; k < p->ninstr; k++) {
    const rs_ew_instr *in = &p->instr[k];
    switch (in->code) {
      case RS_EW_LOAD:
        rs_nat_load(in->dtype, blk->base[in->a], blk->stride[in->a], blk->offs[in->a], n, regs[k].bytes);
        break;
      case RS_EW_CONST: /* filled once per chunk */
        break;
      case RS_EW_INDEX: {
        rs_vi *d = (rs_vi *)(void *)regs[k].bytes;
        if (blk->index_offs)
          for (int i = 0; i < n; i++) d[i] = blk->index0 + blk->index_offs[i];
        else
          for (int i = 0; i < n; i++) d[i] = blk->index0 + (int64_t)i * blk->index_step;
        break;
      }
      case RS_EW_CAST:
        cast_values(in, regs[in->a].bytes, regs[k].bytes, n);
        break;
      case RS_EW_UNARY:
        rs_nat_unary(in->op, in->arg_dtype, in->dtype, regs[in->a].bytes, regs[k].bytes, n);
        rs_nat_normalize(in->dtype, regs[k].bytes, n);
        break;
      case RS_EW_BINARY:
        rs_nat_binary(in->op, in->arg_dtype, in->dtype, regs[in->a].bytes, regs[in->b].bytes, regs[k].bytes, n);
        rs_nat_normalize(in->dtype, regs[k].bytes, n);
        break;
      case RS_EW_WHERE:
        select_values((const rs_vb *)(const void *)regs[in->a].bytes, regs[in->b].bytes, regs[in->c].bytes, regs[k].bytes,
                      rs_cls_size(rs_dtype_cls(in->dtype)), n);
        break;
      default:
        break;
    }
  }
  for (int j = 0; j < p->noutputs; j++) {
    int a = p->ninputs + j;
    rs_nat_store(p->out_dtype[j], regs[p->out_reg[j]].bytes, blk->base[a], blk->stride[a], blk->offs[a], n);
  }
}

static void fill_consts(const rs_ew_program *p, ew_reg *regs) {
  for (int k = 0; k < p->ninstr; k++)
    if (p->instr[k].code == RS_EW_CONST) rs_nat_const(p->instr[k].value, p->instr[k].dtype, regs[k].bytes, RS_NAT_BLOCK);
}

/* The multi-index of flat position pos (C order over the iteration shape). */
static void unravel(const rs_ew_geom *g, int64_t pos, int64_t *idx) {
  for (int k = g->ndim - 1; k >= 0; k--) {
    idx[k] = pos % g->shape[k];
    pos /= g->shape[k];
  }
}

static void run_mode(const ew_job *j, int64_t begin, int64_t end, ew_reg *regs) {
  const rs_ew_program *p = j->p;
  const rs_ew_geom *g = j->g;
  int nd = g->ndim, na = g->narrays;
  int64_t idx[RS_MAX_DIMS];
  unravel(g, begin, idx);
  ew_block blk;
  memset(&blk, 0, sizeof blk);
  for (int a = 0; a < na; a++) blk.stride[a] = g->strides[a][nd - 1];
  blk.index_step = g->index_strides[nd - 1];
  /* the fast path's constant operands: their registers, filled by fill_consts */
  const void *consts[2] = {regs[j->fast.reg[0]].bytes, regs[j->fast.reg[1]].bytes};
  int64_t pos = begin;
  while (pos < end) {
    char *row[RS_EW_MAX_ARRAYS];
    int64_t irow = 0;
    for (int k = 0; k < nd; k++) irow += idx[k] * g->index_strides[k];
    for (int a = 0; a < na; a++) {
      char *ptr = g->ptr[a];
      for (int k = 0; k < nd; k++) ptr += idx[k] * g->strides[a][k];
      row[a] = ptr;
    }
    int64_t left = g->shape[nd - 1] - idx[nd - 1];
    int64_t run = left < end - pos ? left : end - pos;
    int done = j->fast.ok && rs_ew_fast_row(&j->fast, consts, row, blk.stride, run);
    for (int64_t off = 0; !done && off < run; off += RS_NAT_BLOCK) {
      blk.n = (int)(run - off < RS_NAT_BLOCK ? run - off : RS_NAT_BLOCK);
      for (int a = 0; a < na; a++) blk.base[a] = row[a] + off * blk.stride[a];
      blk.index0 = irow + off * blk.index_step;
      eval_block(p, &blk, regs);
    }
    pos += run;
    idx[nd - 1] += run;
    for (int k = nd - 1; k > 0 && idx[k] == g->shape[k]; k--) {
      idx[k] = 0;
      idx[k - 1]++;
    }
  }
}

static void gather_mode(const ew_job *j, int64_t begin, int64_t end, ew_reg *regs) {
  const rs_ew_program *p = j->p;
  const rs_ew_geom *g = j->g;
  int nd = g->ndim, na = g->narrays;
  int64_t idx[RS_MAX_DIMS], cur[RS_EW_MAX_ARRAYS], icur = 0;
  int64_t offs[RS_EW_MAX_ARRAYS][RS_NAT_BLOCK], ioffs[RS_NAT_BLOCK];
  unravel(g, begin, idx);
  for (int a = 0; a < na; a++) {
    cur[a] = 0;
    for (int k = 0; k < nd; k++) cur[a] += idx[k] * g->strides[a][k];
  }
  for (int k = 0; k < nd; k++) icur += idx[k] * g->index_strides[k];
  ew_block blk;
  memset(&blk, 0, sizeof blk);
  for (int a = 0; a < na; a++) {
    blk.base[a] = g->ptr[a];
    blk.offs[a] = offs[a];
  }
  blk.index_offs = ioffs;
  int64_t pos = begin;
  while (pos < end) {
    int n = (int)(end - pos < RS_NAT_BLOCK ? end - pos : RS_NAT_BLOCK);
    for (int i = 0; i < n; i++) {
      for (int a = 0; a < na; a++) offs[a][i] = cur[a];
      ioffs[i] = icur;
      /* odometer step */
      int k = nd - 1;
      idx[k]++;
      for (int a = 0; a < na; a++) cur[a] += g->strides[a][k];
      icur += g->index_strides[k];
      while (k > 0 && idx[k] == g->shape[k]) {
        for (int a = 0; a < na; a++) cur[a] -= g->shape[k] * g->strides[a][k];
        icur -= g->shape[k] * g->index_strides[k];
        idx[k] = 0;
        k--;
        idx[k]++;
        for (int a = 0; a < na; a++) cur[a] += g->strides[a][k];
        icur += g->index_strides[k];
      }
    }
    blk.n = n;
    blk.index0 = 0;
    eval_block(p, &blk, regs);
    pos += n;
  }
}

static void ew_body(int64_t begin, int64_t end, void *arg) {
  const ew_job *j = arg;
  ew_reg regs[RS_EW_MAX_INSTR];
  fill_consts(j->p, regs);
  if (j->gather)
    gather_mode(j, begin, end, regs);
  else
    run_mode(j, begin, end, regs);
}

void rs_native_ew(rs_thread_pool *pool, const rs_ew_program *p, const rs_ew_geom *g) {
  if (g->count <= 0) return;
  ew_job j = {p, g, g->ndim > 1 && g->shape[g->ndim - 1] < RS_NAT_BLOCK / 2, {0}};
  rs_ew_fast_plan(p, &j.fast);
  if (rs_native_parallel(pool, g->count))
    rs_native_for(pool, g->count, ew_body, &j);
  else
    ew_body(0, g->count, &j);
}
