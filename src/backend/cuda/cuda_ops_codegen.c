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
#include "backend/cuda/cuda_codegen.h"
#include "backend/cuda/cuda_ops.h"
#include "core/textbuf.h"
#include "native/native.h"
#include "core/dtype_rules.h"

#define UNROLL 4

/* The generators append without checking each piece: the buffer's failure is sticky and
 * rs_cuda_cg_finish() reports it once. */
rs_status rs_cuda_cg_finish(rs_textbuf *b, char **out) {
  rs_status st = rs_textbuf_take(b, out);
  return st == RS_OK ? RS_OK : rs_fail_prefix(st, "array operations: generating a kernel: ");
}

const char *rs_cuda_cg_cls_type(rs_cls c) {
  static const char *t[RS_CLS_COUNT] = {"rs_b", "rs_i", "rs_u", "rs_f", "rs_d", "rs_c", "rs_z"};
  return t[c];
}

const char *rs_cuda_cg_cls_letter(rs_cls c) {
  static const char *t[RS_CLS_COUNT] = {"b", "i", "u", "f", "d", "c", "z"};
  return t[c];
}

/* dtypes narrower than their class: values are wrapped / rounded after each step */
int rs_cuda_cg_narrow(rs_dtype d) {
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

void rs_cuda_cg_cast_expr(rs_textbuf *b, const rs_ew_instr *in, const char *x) {
  rs_cls from = rs_dtype_cls(in->arg_dtype), to = rs_dtype_cls(in->dtype);
  char d[160];
  as_double(d, sizeof d, from, x);
  int float_src = from >= RS_CLS_F;
  if (float_src && rs_cuda_cg_narrow(in->dtype) && in->dtype != RS_FLOAT16 && in->dtype != RS_UINT32) {
    rs_textbuf_addf(b, "nz_%s(cv32(%s))", rs_dtype_name(in->dtype), d); /* x86 32-bit conversion, as NumPy */
  } else if (in->dtype == RS_FLOAT16 && (from == RS_CLS_D || from == RS_CLS_Z)) {
    rs_textbuf_addf(b, "h2f(d2h(%s))", d); /* one rounding from double */
  } else {
    char conv[200];
    if (from == to) snprintf(conv, sizeof conv, "%s", x);
    else snprintf(conv, sizeof conv, "cv_%s_%s(%s)", rs_cuda_cg_cls_letter(from), rs_cuda_cg_cls_letter(to), x);
    if (rs_cuda_cg_narrow(in->dtype)) rs_textbuf_addf(b, "nz_%s(%s)", rs_dtype_name(in->dtype), conv);
    else rs_textbuf_addf(b, "%s", conv);
  }
}

static void const_decl(rs_textbuf *b, int reg, rs_dtype dt, int j) {
  rs_cls c = rs_dtype_cls(dt);
  rs_textbuf_addf(b, "  const %s r%d = ", rs_cuda_cg_cls_type(c), reg);
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
    const char *t = rs_cuda_cg_cls_type(rs_dtype_cls(in->dtype));
    for (int u = 0; u < lanes; u++) {
      char a[32], bb[32], c[32];
      rs_textbuf_addf(b, "    const %s r%d_%d = ", t, k, u);
      switch (in->code) {
        case RS_EW_INDEX:
          rs_textbuf_addf(b, "(rs_i)x_%d", u);
          break;
        case RS_EW_CAST:
          ref(a, sizeof a, p, in->a, u);
          rs_cuda_cg_cast_expr(b, in, a);
          break;
        case RS_EW_UNARY:
        case RS_EW_BINARY:
          ref(a, sizeof a, p, in->a, u);
          if (rs_cuda_cg_narrow(in->dtype)) rs_textbuf_addf(b, "nz_%s(", rs_dtype_name(in->dtype));
          /* float16 is held as float, but its nextafter steps in float16 (prelude's _h) */
          rs_textbuf_addf(b, "%s_%s(%s", rs_op_name((rs_op)in->op),
                          in->op == RS_OP_NEXTAFTER && in->arg_dtype == RS_FLOAT16
                              ? "h"
                              : rs_cuda_cg_cls_letter(rs_dtype_cls(in->arg_dtype)),
                          a);
          if (in->code == RS_EW_BINARY) {
            ref(bb, sizeof bb, p, in->b, u);
            rs_textbuf_addf(b, ", %s", bb);
          }
          rs_textbuf_addf(b, rs_cuda_cg_narrow(in->dtype) ? "))" : ")");
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
    const char *t = rs_cuda_cg_cls_type(rs_dtype_cls(in->dtype));
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
    const char *t = rs_cuda_cg_cls_type(rs_dtype_cls(in->dtype)), *dn = rs_dtype_name(in->dtype);
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
  return rs_cuda_cg_finish(&b, out);
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
