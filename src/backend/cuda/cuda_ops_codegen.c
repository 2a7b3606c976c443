/* CUDA C for elementwise programs (plain ops and fused expressions alike), in two
 * variants. The general one takes any strides: one thread takes 4 elements a block-width
 * apart and issues all their loads before any arithmetic, so each thread has 4
 * independent memory requests in flight. The contiguous one (every array flat and
 * aligned, the common case) moves 16-byte vectors with 32-bit indices in one pass: on the
 * H200 that design is the fastest of those bench/ew_raw measures, ahead of the general
 * one by about 5%. Constants are kernel parameters, not literals, so `x * 5` and `x * 6`
 * share one compiled kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_ops.h"
#include "core/textbuf.h"
#include "native/native.h"
#include "core/dtype_rules.h"

#define UNROLL 4

/* The generators append without checking each piece: the buffer's failure is sticky and
 * finish() reports it once. */
static rs_status finish(rs_textbuf *b, char **out) {
  rs_status st = rs_textbuf_take(b, out);
  return st == RS_OK ? RS_OK : rs_fail_prefix(st, "array operations: generating a kernel: ");
}

static const char *cls_type(rs_cls c) {
  static const char *t[RS_CLS_COUNT] = {"rs_b", "rs_i", "rs_u", "rs_f", "rs_d", "rs_c", "rs_z"};
  return t[c];
}

static const char *cls_letter(rs_cls c) {
  static const char *t[RS_CLS_COUNT] = {"b", "i", "u", "f", "d", "c", "z"};
  return t[c];
}

/* dtypes narrower than their class: values are wrapped / rounded after each step */
static int narrow(rs_dtype d) {
  return d == RS_INT8 || d == RS_INT16 || d == RS_INT32 || d == RS_UINT8 || d == RS_UINT16 || d == RS_UINT32 ||
         d == RS_FLOAT16;
}

/* Operand reference: constants are per-kernel values, the rest per element (suffix u). */
static void ref(char *buf, size_t len, const rs_ew_program *p, int reg, int u) {
  if (p->instr[reg].code == RS_EW_CONST)
    snprintf(buf, len, "r%d", reg);
  else
    snprintf(buf, len, "r%d_%d", reg, u);
}

/* x (of class `from`) as double, for the casts that go through double */
static void as_double(char *buf, size_t len, rs_cls from, const char *x) {
  if (from == RS_CLS_D) snprintf(buf, len, "%s", x);
  else if (from == RS_CLS_C || from == RS_CLS_Z) snprintf(buf, len, "(double)%s.re", x);
  else snprintf(buf, len, "(double)%s", x);
}

static void cast_expr(rs_textbuf *b, const rs_ew_instr *in, const char *x) {
  rs_cls from = rs_dtype_cls(in->arg_dtype), to = rs_dtype_cls(in->dtype);
  char d[160];
  as_double(d, sizeof d, from, x);
  int float_src = from >= RS_CLS_F;
  if (float_src && narrow(in->dtype) && in->dtype != RS_FLOAT16 && in->dtype != RS_UINT32) {
    rs_textbuf_addf(b, "nz_%s(cv32(%s))", rs_dtype_name(in->dtype), d); /* x86 32-bit conversion, as NumPy */
  } else if (in->dtype == RS_FLOAT16 && (from == RS_CLS_D || from == RS_CLS_Z)) {
    rs_textbuf_addf(b, "h2f(d2h(%s))", d); /* one rounding from double */
  } else {
    char conv[200];
    if (from == to) snprintf(conv, sizeof conv, "%s", x);
    else snprintf(conv, sizeof conv, "cv_%s_%s(%s)", cls_letter(from), cls_letter(to), x);
    if (narrow(in->dtype)) rs_textbuf_addf(b, "nz_%s(%s)", rs_dtype_name(in->dtype), conv);
    else rs_textbuf_addf(b, "%s", conv);
  }
}

static void const_decl(rs_textbuf *b, int reg, rs_dtype dt, int j) {
  rs_cls c = rs_dtype_cls(dt);
  rs_textbuf_addf(b, "  const %s r%d = ", cls_type(c), reg);
  switch (c) {
    case RS_CLS_B: rs_textbuf_addf(b, "(rs_b)(p.c[%d].i != 0);\n", j); break;
    case RS_CLS_I: rs_textbuf_addf(b, "(rs_i)p.c[%d].i;\n", j); break;
    case RS_CLS_U: rs_textbuf_addf(b, "(rs_u)p.c[%d].i;\n", j); break;
    case RS_CLS_F: rs_textbuf_addf(b, "(rs_f)p.c[%d].re;\n", j); break;
    case RS_CLS_D: rs_textbuf_addf(b, "p.c[%d].re;\n", j); break;
    case RS_CLS_C: rs_textbuf_addf(b, "mkc((float)p.c[%d].re, (float)p.c[%d].im);\n", j, j); break;
    default: rs_textbuf_addf(b, "mkz(p.c[%d].re, p.c[%d].im);\n", j, j); break;
  }
}

static int count_consts(const rs_ew_program *p) {
  int n = 0;
  for (int k = 0; k < p->ninstr; k++) n += p->instr[k].code == RS_EW_CONST;
  return n;
}

static int uses_index(const rs_ew_program *p) {
  for (int k = 0; k < p->ninstr; k++)
    if (p->instr[k].code == RS_EW_INDEX) return 1;
  return 0;
}

/* The arithmetic of every element (u = 0 .. lanes-1), loads already in registers. */
static void emit_arith(rs_textbuf *b, const rs_ew_program *p, int lanes) {
  for (int k = 0; k < p->ninstr; k++) {
    const rs_ew_instr *in = &p->instr[k];
    if (in->code == RS_EW_LOAD || in->code == RS_EW_CONST) continue;
    const char *t = cls_type(rs_dtype_cls(in->dtype));
    for (int u = 0; u < lanes; u++) {
      char a[32], bb[32], c[32];
      rs_textbuf_addf(b, "    const %s r%d_%d = ", t, k, u);
      switch (in->code) {
        case RS_EW_INDEX:
          rs_textbuf_addf(b, "(rs_i)x_%d", u);
          break;
        case RS_EW_CAST:
          ref(a, sizeof a, p, in->a, u);
          cast_expr(b, in, a);
          break;
        case RS_EW_UNARY:
        case RS_EW_BINARY:
          ref(a, sizeof a, p, in->a, u);
          if (narrow(in->dtype)) rs_textbuf_addf(b, "nz_%s(", rs_dtype_name(in->dtype));
          /* float16 is held as float, but its nextafter steps in float16 (prelude's _h) */
          rs_textbuf_addf(b, "%s_%s(%s", rs_op_name((rs_op)in->op),
                          in->op == RS_OP_NEXTAFTER && in->arg_dtype == RS_FLOAT16
                              ? "h"
                              : cls_letter(rs_dtype_cls(in->arg_dtype)),
                          a);
          if (in->code == RS_EW_BINARY) {
            ref(bb, sizeof bb, p, in->b, u);
            rs_textbuf_addf(b, ", %s", bb);
          }
          rs_textbuf_addf(b, narrow(in->dtype) ? "))" : ")");
          break;
        case RS_EW_WHERE:
          ref(a, sizeof a, p, in->a, u);
          ref(bb, sizeof bb, p, in->b, u);
          ref(c, sizeof c, p, in->c, u);
          rs_textbuf_addf(b, "(%s ? %s : %s)", a, bb, c);
          break;
        default:
          break;
      }
      rs_textbuf_addf(b, ";\n");
    }
  }
}

static void emit_head(rs_textbuf *b, const rs_ew_program *p, int ndim, int narrays) {
  int nc = count_consts(p);
  rs_textbuf_addf(b, "%s\n", rs_cuda_ops_prelude);
  rs_textbuf_addf(b,
         "struct P {\n  char *ptr[%d];\n  long long n;\n  long long shape[%d];\n  long long st[%d][%d];\n"
         "  long long ist[%d];\n  rs_cv c[%d];\n};\n",
         narrays, ndim, narrays, ndim, ndim, nc > 0 ? nc : 1);
  rs_textbuf_addf(b, "extern \"C\" __global__ void __launch_bounds__(%d) rs_ew(const P p) {\n", RS_CUDA_OPS_BLOCK);
  for (int k = 0, j = 0; k < p->ninstr; k++)
    if (p->instr[k].code == RS_EW_CONST) const_decl(b, k, p->instr[k].dtype, j++);
}

static rs_dtype array_dtype(const rs_ew_program *p, int a) {
  return a < p->ninputs ? p->in_dtype[a] : p->out_dtype[a - p->ninputs];
}

/* Any strides and shape: UNROLL elements a block-width apart per thread, grid-stride. */
static void emit_general(rs_textbuf *b, const rs_ew_program *p, const rs_cuda_ew_shape *s) {
  int ndim = s->ndim, narrays = s->narrays, index = uses_index(p);
  const char *it = s->idx32 ? "unsigned" : "unsigned long long";
  rs_textbuf_addf(b, "  const long long step = (long long)gridDim.x * blockDim.x * %d;\n", UNROLL);
  rs_textbuf_addf(b, "  for (long long base = (long long)blockIdx.x * blockDim.x * %d + threadIdx.x; base < p.n; base += step) {\n",
         UNROLL);
  /* element positions and byte offsets */
  for (int u = 0; u < UNROLL; u++) {
    rs_textbuf_addf(b, "    const long long i_%d = base + %d * (long long)blockDim.x;\n    const bool k_%d = i_%d < p.n;\n", u, u, u, u);
    if (ndim == 1) {
      for (int a = 0; a < narrays; a++) rs_textbuf_addf(b, "    const long long o_%d_%d = i_%d * p.st[%d][0];\n", u, a, u, a);
      if (index) rs_textbuf_addf(b, "    const long long x_%d = i_%d * p.ist[0];\n", u, u);
    } else {
      for (int a = 0; a < narrays; a++) rs_textbuf_addf(b, "    long long o_%d_%d = 0;\n", u, a);
      if (index) rs_textbuf_addf(b, "    long long x_%d = 0;\n", u);
      rs_textbuf_addf(b, "    {\n      %s r = (%s)i_%d;\n", it, it, u);
      for (int k = ndim - 1; k >= 1; k--) {
        rs_textbuf_addf(b, "      { const %s q = r / (%s)p.shape[%d]; const long long c = (long long)(r - q * (%s)p.shape[%d]); r = q;\n",
               it, it, k, it, k);
        for (int a = 0; a < narrays; a++) rs_textbuf_addf(b, "        o_%d_%d += c * p.st[%d][%d];\n", u, a, a, k);
        if (index) rs_textbuf_addf(b, "        x_%d += c * p.ist[%d];\n", u, k);
        rs_textbuf_addf(b, "      }\n");
      }
      for (int a = 0; a < narrays; a++) rs_textbuf_addf(b, "      o_%d_%d += (long long)r * p.st[%d][0];\n", u, a, a);
      if (index) rs_textbuf_addf(b, "      x_%d += (long long)r * p.ist[0];\n", u);
      rs_textbuf_addf(b, "    }\n");
    }
  }
  /* every load of every element first */
  for (int k = 0; k < p->ninstr; k++) {
    const rs_ew_instr *in = &p->instr[k];
    if (in->code != RS_EW_LOAD) continue;
    const char *t = cls_type(rs_dtype_cls(in->dtype));
    for (int u = 0; u < UNROLL; u++)
      rs_textbuf_addf(b, "    const %s r%d_%d = k_%d ? ld_%s(p.ptr[%d] + o_%d_%d) : %s();\n", t, k, u, u, rs_dtype_name(in->dtype),
             in->a, u, in->a, t);
  }
  emit_arith(b, p, UNROLL);
  for (int j = 0; j < p->noutputs; j++) {
    int a = p->ninputs + j;
    for (int u = 0; u < UNROLL; u++) {
      char r[32];
      ref(r, sizeof r, p, p->out_reg[j], u);
      rs_textbuf_addf(b, "    if (k_%d) st_%s(p.ptr[%d] + o_%d_%d, %s);\n", u, rs_dtype_name(p->out_dtype[j]), a, u, a, r);
    }
  }
  rs_textbuf_addf(b, "  }\n");
}

/* The unsigned type of a vector of `bytes` (1, 2, 4, 8 or 16) bytes. */
static const char *vector_type(size_t bytes) {
  switch (bytes) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned";
    case 8: return "uint2";
    default: return "uint4";
  }
}

/* One flat contiguous range, every address aligned: one pass, a thread per `lanes`
 * consecutive elements moved as one vector per array (16 bytes for the widest dtype), so
 * the kernel issues the fewest memory instructions a copy would; broadcast inputs are
 * one element read by every thread. The one thread at a ragged end moves its elements
 * one by one. Every index into the vector's bytes is a constant, so it lives in registers. */
static void emit_contiguous(rs_textbuf *b, const rs_ew_program *p, const rs_cuda_ew_shape *s) {
  int lanes = s->lanes;
  rs_textbuf_addf(b, "  const unsigned long long i0 = (unsigned long long)(blockIdx.x * blockDim.x + threadIdx.x) * %d;\n", lanes);
  rs_textbuf_addf(b, "  if (i0 >= (unsigned long long)p.n) return;\n");
  rs_textbuf_addf(b, "  const bool whole = i0 + %d <= (unsigned long long)p.n;\n", lanes);
  rs_textbuf_addf(b, "  const int have = whole ? %d : (int)((unsigned long long)p.n - i0);\n  (void)have;\n", lanes);
  if (uses_index(p))
    for (int u = 0; u < lanes; u++) rs_textbuf_addf(b, "  const long long x_%d = (long long)(i0 + %d) * p.ist[0];\n", u, u);
  for (int a = 0; a < s->narrays; a++) {
    if (s->broadcast >> a & 1u) continue;
    size_t isz = rs_dtype_size(array_dtype(p, a)), bytes = isz * (size_t)lanes;
    rs_textbuf_addf(b, "  union { %s v; char c[%zu]; } w%d;\n", vector_type(bytes), bytes, a);
    if (a >= p->ninputs) continue;
    rs_textbuf_addf(b, "  if (whole) w%d.v = *(const %s *)(p.ptr[%d] + i0 * %zu);\n  else {\n    w%d.v = {};\n", a,
           vector_type(bytes), a, isz, a);
    for (int u = 0; u < lanes; u++)
      rs_textbuf_addf(b, "    if (%d < have) *(%s *)(w%d.c + %zu) = *(const %s *)(p.ptr[%d] + (i0 + %d) * %zu);\n", u,
             vector_type(isz), a, (size_t)u * isz, vector_type(isz), a, u, isz);
    rs_textbuf_addf(b, "  }\n");
  }
  for (int k = 0; k < p->ninstr; k++) {
    const rs_ew_instr *in = &p->instr[k];
    if (in->code != RS_EW_LOAD) continue;
    const char *t = cls_type(rs_dtype_cls(in->dtype)), *dn = rs_dtype_name(in->dtype);
    size_t isz = rs_dtype_size(in->dtype);
    for (int u = 0; u < lanes; u++) {
      if (s->broadcast >> in->a & 1u) rs_textbuf_addf(b, "  const %s r%d_%d = ld_%s(p.ptr[%d]);\n", t, k, u, dn, in->a);
      else rs_textbuf_addf(b, "  const %s r%d_%d = ld_%s(w%d.c + %zu);\n", t, k, u, dn, in->a, (size_t)u * isz);
    }
  }
  emit_arith(b, p, lanes);
  for (int j = 0; j < p->noutputs; j++) {
    int a = p->ninputs + j;
    size_t isz = rs_dtype_size(p->out_dtype[j]), bytes = isz * (size_t)lanes;
    for (int u = 0; u < lanes; u++) {
      char r[32];
      ref(r, sizeof r, p, p->out_reg[j], u);
      rs_textbuf_addf(b, "  st_%s(w%d.c + %zu, %s);\n", rs_dtype_name(p->out_dtype[j]), a, (size_t)u * isz, r);
    }
    rs_textbuf_addf(b, "  if (whole) *(%s *)(p.ptr[%d] + i0 * %zu) = w%d.v;\n  else {\n", vector_type(bytes), a, isz, a);
    for (int u = 0; u < lanes; u++)
      rs_textbuf_addf(b, "    if (%d < have) *(%s *)(p.ptr[%d] + (i0 + %d) * %zu) = *(const %s *)(w%d.c + %zu);\n", u,
             vector_type(isz), a, u, isz, vector_type(isz), a, (size_t)u * isz);
    rs_textbuf_addf(b, "  }\n");
  }
}

rs_status rs_cuda_ew_source(char **out, const rs_ew_program *p, const rs_cuda_ew_shape *s) {
  rs_textbuf b = {0};
  emit_head(&b, p, s->ndim, s->narrays);
  if (s->lanes > 0) emit_contiguous(&b, p, s);
  else emit_general(&b, p, s);
  rs_textbuf_addf(&b, "}\n");
  return finish(&b, out);
}

size_t rs_cuda_ew_params(uint64_t *w, size_t max_words, const rs_ew_program *p, const rs_ew_geom *g) {
  int na = g->narrays, nd = g->ndim, nc = count_consts(p);
  size_t need = (size_t)na + 1 + (size_t)nd + (size_t)na * (size_t)nd + (size_t)nd + 3 * (size_t)(nc > 0 ? nc : 1);
  if (need > max_words) return 0;
  size_t i = 0;
  for (int a = 0; a < na; a++) w[i++] = (uint64_t)(uintptr_t)g->ptr[a];
  w[i++] = (uint64_t)g->count;
  for (int k = 0; k < nd; k++) w[i++] = (uint64_t)g->shape[k];
  for (int a = 0; a < na; a++)
    for (int k = 0; k < nd; k++) w[i++] = (uint64_t)g->strides[a][k];
  for (int k = 0; k < nd; k++) w[i++] = (uint64_t)g->index_strides[k];
  if (nc == 0) {
    w[i++] = 0, w[i++] = 0, w[i++] = 0;
  }
  for (int k = 0; k < p->ninstr; k++) {
    const rs_ew_instr *in = &p->instr[k];
    if (in->code != RS_EW_CONST) continue;
    /* the constant as its dtype holds it (wrapped, rounded), by the native conversion */
    _Alignas(16) unsigned char v[16];
    rs_nat_const(in->value, in->dtype, v, 1);
    int64_t iv = 0;
    double re = 0, im = 0;
    switch (rs_dtype_cls(in->dtype)) {
      case RS_CLS_B: iv = v[0]; break;
      case RS_CLS_I:
      case RS_CLS_U: memcpy(&iv, v, 8); break;
      case RS_CLS_F: {
        float f;
        memcpy(&f, v, 4);
        re = f;
        break;
      }
      case RS_CLS_D: memcpy(&re, v, 8); break;
      case RS_CLS_C: {
        float f[2];
        memcpy(f, v, 8);
        re = f[0], im = f[1];
        break;
      }
      default: memcpy(&re, v, 8), memcpy(&im, v + 8, 8); break;
    }
    w[i++] = (uint64_t)iv;
    memcpy(&w[i++], &re, 8);
    memcpy(&w[i++], &im, 8);
  }
  return i;
}

/* ---- reductions ---------------------------------------------------------------------- */

/* The dtype whose class is c (for conversions out of an accumulator). */
static rs_dtype class_dtype(rs_cls c) {
  static const rs_dtype d[RS_CLS_COUNT] = {RS_BOOL, RS_INT64, RS_UINT64, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
  return d[c];
}

/* The accumulator type, identity, combination and final store, mirroring
 * src/native/native_reduce.c: min/max as rs_np_extreme_takes_* (NaN wins, the first
 * NaN for arg; the first of equal extremes wins), sums of floats in double, integers wrap. */
static void reduce_helpers(rs_textbuf *b, const rs_reduce_plan *p) {
  rs_cls acc = rs_reduce_acc_cls(p->op, p->in_dtype), in = rs_dtype_cls(p->in_dtype);
  const char *at = cls_type(acc), *al = cls_letter(acc);
  int extreme = p->op == RS_REDUCE_MIN || p->op == RS_REDUCE_MAX || p->op == RS_REDUCE_ARGMIN || p->op == RS_REDUCE_ARGMAX;
  int smaller = p->op == RS_REDUCE_MIN || p->op == RS_REDUCE_ARGMIN;
  rs_textbuf_addf(b, "struct A { %s v; long long i; };\n", at);
  rs_textbuf_addf(b, "RS_D A rid() { A a; a.v = %s(); a.i = %s; ", at, extreme ? "-1" : "0");
  if (p->op == RS_REDUCE_PROD) rs_textbuf_addf(b, acc == RS_CLS_Z ? "a.v = mkz(1, 0); " : "a.v = 1; ");
  if (p->op == RS_REDUCE_ALL) rs_textbuf_addf(b, "a.v = 1; ");
  rs_textbuf_addf(b, "return a; }\n");
  rs_textbuf_addf(b, "RS_D A rcomb(A a, A b) {\n");
  switch (p->op) {
    case RS_REDUCE_SUM:
    case RS_REDUCE_MEAN: rs_textbuf_addf(b, "  a.v = add_%s(a.v, b.v); return a;\n", al); break;
    case RS_REDUCE_PROD: rs_textbuf_addf(b, "  a.v = multiply_%s(a.v, b.v); return a;\n", al); break;
    case RS_REDUCE_ALL: rs_textbuf_addf(b, "  a.v = a.v & b.v; return a;\n"); break;
    case RS_REDUCE_ANY: rs_textbuf_addf(b, "  a.v = a.v | b.v; return a;\n"); break;
    default:
      /* a and b in either order (a tree of partials): the earlier one is "current" */
      rs_textbuf_addf(b,
             "  if (b.i < 0) return a;\n  if (a.i < 0) return b;\n"
             "  const A e = a.i <= b.i ? a : b, l = a.i <= b.i ? b : a;\n"
             "  return rs_np_extreme_takes_%s(e.v, l.v, %d) ? l : e;\n",
             al, !smaller);
      break;
  }
  rs_textbuf_addf(b, "}\n");
  if (in == acc)
    rs_textbuf_addf(b, "RS_D A rval(const char *q, long long r) { A a; a.v = ld_%s(q); a.i = r; return a; }\n",
           rs_dtype_name(p->in_dtype));
  else
    rs_textbuf_addf(b, "RS_D A rval(const char *q, long long r) { A a; a.v = cv_%s_%s(ld_%s(q)); a.i = r; return a; }\n",
           cls_letter(in), al, rs_dtype_name(p->in_dtype));
  /* the final value, as the output's dtype holds it */
  rs_ew_instr cast = {.code = RS_EW_CAST, .dtype = p->out_dtype};
  rs_textbuf_addf(b, "RS_D void rstore(char *q, A a, long long count) {\n");
  if (p->op == RS_REDUCE_ARGMIN || p->op == RS_REDUCE_ARGMAX) {
    rs_textbuf_addf(b, "  const rs_i x = a.i < 0 ? 0 : a.i;\n");
    cast.arg_dtype = RS_INT64;
  } else if (p->op == RS_REDUCE_MEAN) {
    if (acc == RS_CLS_Z) rs_textbuf_addf(b, "  const rs_z x = mkz(a.v.re / (double)count, a.v.im / (double)count);\n");
    else rs_textbuf_addf(b, "  const rs_d x = a.v / (double)count;\n");
    cast.arg_dtype = class_dtype(acc);
  } else {
    rs_textbuf_addf(b, "  const %s x = a.v;\n", at);
    cast.arg_dtype = class_dtype(acc);
  }
  if (p->op != RS_REDUCE_MEAN) rs_textbuf_addf(b, "  (void)count;\n");
  rs_textbuf_addf(b, "  st_%s(q, ", rs_dtype_name(p->out_dtype));
  if (rs_dtype_cls(cast.arg_dtype) == rs_dtype_cls(p->out_dtype) && !narrow(p->out_dtype))
    rs_textbuf_addf(b, "x");
  else
    cast_expr(b, &cast, "x");
  rs_textbuf_addf(b, ");\n}\n");
}

static void reduce_struct(rs_textbuf *b, const rs_reduce_plan *p) {
  int nk = p->nkeep > 0 ? p->nkeep : 1, nr = p->nred > 0 ? p->nred : 1;
  rs_textbuf_addf(b,
         "struct R {\n  const char *in;\n  char *out;\n  char *part;\n  long long n_out, n_red, chunk, splits;\n"
         "  long long ks[%d], kin[%d], kout[%d];\n  long long rs[%d], rst[%d];\n};\n",
         nk, nk, nk, nr, nr);
  rs_textbuf_addf(b, "RS_D void outoff(const R &p, long long o, long long *io, long long *oo) {\n  *io = 0; *oo = 0;\n");
  for (int k = p->nkeep - 1; k >= 0; k--)
    rs_textbuf_addf(b, "  { const long long q = o / p.ks[%d], c = o - q * p.ks[%d]; o = q; *io += c * p.kin[%d]; *oo += c * p.kout[%d]; }\n",
           k, k, k, k);
  rs_textbuf_addf(b, "  (void)o;\n}\n");
  rs_textbuf_addf(b, "RS_D long long redoff(const R &p, long long r) {\n  long long off = 0;\n");
  for (int k = p->nred - 1; k >= 1; k--)
    rs_textbuf_addf(b, "  { const long long q = r / p.rs[%d], c = r - q * p.rs[%d]; r = q; off += c * p.rst[%d]; }\n", k, k, k);
  if (p->nred >= 1) rs_textbuf_addf(b, "  off += r * p.rst[0];\n");
  else rs_textbuf_addf(b, "  (void)r; (void)p;\n");
  rs_textbuf_addf(b, "  return off;\n}\n");
}

rs_status rs_cuda_reduce_source(char **out, const rs_reduce_plan *p, int mode) {
  rs_textbuf b = {0};
  rs_textbuf_addf(&b, "%s\n", rs_cuda_ops_prelude);
  reduce_helpers(&b, p);
  reduce_struct(&b, p);
  if (mode == 0) { /* one thread per output */
    rs_textbuf_addf(&b,
           "extern \"C\" __global__ void __launch_bounds__(%d) rs_reduce(const R p) {\n"
           "  for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < p.n_out;\n"
           "       o += (long long)gridDim.x * blockDim.x) {\n"
           "    long long io, oo;\n    outoff(p, o, &io, &oo);\n    A a = rid();\n",
           RS_CUDA_OPS_BLOCK);
    if (p->nred <= 1)
      rs_textbuf_addf(&b, "    for (long long r = 0; r < p.n_red; r++) a = rcomb(a, rval(p.in + io + r * p.rst[0], r));\n");
    else
      rs_textbuf_addf(&b, "    for (long long r = 0; r < p.n_red; r++) a = rcomb(a, rval(p.in + io + redoff(p, r), r));\n");
    rs_textbuf_addf(&b, "    rstore(p.out + oo, a, p.n_red);\n  }\n}\n");
  } else if (mode == 1 || mode == 2) { /* a block per (output, chunk), partials or final */
    rs_textbuf_addf(&b,
           "extern \"C\" __global__ void __launch_bounds__(%d) rs_reduce(const R p) {\n"
           "  __shared__ A sh[%d];\n"
           "  const long long bid = blockIdx.x, o = bid / p.splits, s = bid - o * p.splits;\n"
           "  const long long r0 = s * p.chunk, r1 = r0 + p.chunk < p.n_red ? r0 + p.chunk : p.n_red;\n"
           "  long long io, oo;\n  outoff(p, o, &io, &oo);\n  A a = rid();\n"
           "  for (long long r = r0 + threadIdx.x; r < r1; r += blockDim.x) a = rcomb(a, rval(p.in + io + %s, r));\n"
           "  sh[threadIdx.x] = a;\n  __syncthreads();\n"
           "  for (int w = blockDim.x / 2; w > 0; w >>= 1) {\n"
           "    if (threadIdx.x < w) sh[threadIdx.x] = rcomb(sh[threadIdx.x], sh[threadIdx.x + w]);\n"
           "    __syncthreads();\n  }\n",
           RS_CUDA_OPS_BLOCK, RS_CUDA_OPS_BLOCK, p->nred <= 1 ? "r * p.rst[0]" : "redoff(p, r)");
    if (mode == 1)
      rs_textbuf_addf(&b, "  if (threadIdx.x == 0) ((A *)p.part)[bid] = sh[0];\n}\n");
    else
      rs_textbuf_addf(&b, "  if (threadIdx.x == 0) rstore(p.out + oo, sh[0], p.n_red);\n}\n");
  } else if (mode == 4) { /* a thread per (output, chunk), consecutive threads on consecutive outputs */
    /* the chunk's elements in C order: runs along the last reduced axis (a plain loop), an
     * odometer over the other reduced axes between runs (no division per element) */
    int nr = p->nred > 0 ? p->nred : 1;
    /* loads in flight a thread, all issued before their combinations (the H200: 6 with
     * about 200000 threads; 4 loaded one at a time after the previous combination) */
    rs_textbuf_addf(&b, "#define RS_COLS_U 6\n");
    rs_textbuf_addf(&b,
           "extern \"C\" __global__ void __launch_bounds__(%d) rs_reduce(const R p) {\n"
           "  const long long total = p.n_out * p.splits;\n"
           "  for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < total;\n"
           "       t += (long long)gridDim.x * blockDim.x) {\n"
           "    const long long s = t / p.n_out, o = t - s * p.n_out;\n"
           "    const long long r0 = s * p.chunk, r1 = r0 + p.chunk < p.n_red ? r0 + p.chunk : p.n_red;\n"
           "    long long io, oo;\n    outoff(p, o, &io, &oo);\n    A a = rid();\n"
           "    if (r0 < r1) {\n"
           "      long long c[%d], off = 0, q = r0;\n"
           "#pragma unroll\n"
           "      for (int k = %d; k >= 0; k--) {\n"
           "        const long long d = q / p.rs[k];\n        c[k] = q - d * p.rs[k];\n        q = d;\n"
           "        off += c[k] * p.rst[k];\n      }\n"
           "      const long long len = p.rs[%d], st = p.rst[%d];\n"
           "      for (long long r = r0; r < r1;) {\n"
           "        const long long m = len - c[%d] < r1 - r ? len - c[%d] : r1 - r;\n"
           "        const char *b = p.in + io + off;\n"
           "        long long j = 0;\n"
           "        for (; j + RS_COLS_U <= m; j += RS_COLS_U) {\n"
           "          A v[RS_COLS_U];\n"
           "#pragma unroll\n"
           "          for (int u = 0; u < RS_COLS_U; u++) v[u] = rval(b + (j + u) * st, r + j + u);\n"
           "#pragma unroll\n"
           "          for (int u = 0; u < RS_COLS_U; u++) a = rcomb(a, v[u]);\n"
           "        }\n"
           "        for (; j < m; j++) a = rcomb(a, rval(b + j * st, r + j));\n"
           "        r += m;\n"
           "        off -= c[%d] * st;\n        c[%d] = 0;\n"
           "#pragma unroll\n"
           "        for (int k = %d; k >= 0; k--) {\n"
           "          c[k]++;\n          off += p.rst[k];\n          if (c[k] < p.rs[k]) break;\n"
           "          off -= p.rs[k] * p.rst[k];\n          c[k] = 0;\n        }\n"
           "      }\n    }\n"
           "    if (!p.part) rstore(p.out + oo, a, p.n_red);\n"
           "    else ((A *)p.part)[o * p.splits + s] = a;\n  }\n}\n",
           RS_CUDA_OPS_BLOCK, nr, nr - 1, nr - 1, nr - 1, nr - 1, nr - 1, nr - 1, nr - 1, nr - 2);
  } else { /* the partials of mode 1 or 4, in chunk order, to the outputs */
    rs_textbuf_addf(&b,
           "extern \"C\" __global__ void __launch_bounds__(%d) rs_reduce_final(const R p) {\n"
           "  for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < p.n_out;\n"
           "       o += (long long)gridDim.x * blockDim.x) {\n"
           "    A a = rid();\n"
           "    for (long long s = 0; s < p.splits; s++) a = rcomb(a, ((const A *)p.part)[o * p.splits + s]);\n"
           "    long long io, oo;\n    outoff(p, o, &io, &oo);\n    rstore(p.out + oo, a, p.n_red);\n  }\n}\n",
           RS_CUDA_OPS_BLOCK);
  }
  return finish(&b, out);
}
