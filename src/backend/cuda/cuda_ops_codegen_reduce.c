/* CUDA C for reductions (struct R of reduce_params in cuda_ops_reduce.c): the accumulator,
 * identity, combination and final store of each op as the native loops have them, and the
 * kernels of the reduction schemes - a thread per output, a block per (output, chunk), a
 * thread per (output, chunk) along columns, and the final merge of partials. */
#include "backend/cuda/cuda_codegen.h"
#include "backend/cuda/cuda_ops.h"

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
  const char *at = rs_cuda_cg_cls_type(acc), *al = rs_cuda_cg_cls_letter(acc);
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
           rs_cuda_cg_cls_letter(in), al, rs_dtype_name(p->in_dtype));
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
  if (rs_dtype_cls(cast.arg_dtype) == rs_dtype_cls(p->out_dtype) && !rs_cuda_cg_narrow(p->out_dtype))
    rs_textbuf_addf(b, "x");
  else
    rs_cuda_cg_cast_expr(b, &cast, "x");
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
  return rs_cuda_cg_finish(&b, out);
}
