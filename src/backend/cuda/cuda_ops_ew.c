/* Elementwise programs on the GPU: the kernel is found by the program's shape (ops,
 * dtypes, number of axes and arrays, variant - not its constants) and launched with one
 * parameter block holding addresses, shape, strides and constants. */
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_ops.h"

typedef struct ew_src {
  const rs_ew_program *p;
  rs_cuda_ew_shape shape;
} ew_src;

static rs_status make_ew_source(char **source, void *arg) {
  const ew_src *s = arg;
  return rs_cuda_ew_source(source, s->p, &s->shape);
}

static size_t array_size(const rs_ew_program *p, int a) {
  return rs_dtype_size(a < p->ninputs ? p->in_dtype[a] : p->out_dtype[a - p->ninputs]);
}

/* The contiguous variant when g allows it: one axis, indices within 32 bits, every
 * output flat, every input flat or a single broadcast element, and each flat array
 * aligned to its vector (lanes x itemsize; lanes so the widest dtype moves 16 bytes,
 * or 8 lanes for 1- and 2-byte dtypes). */
static rs_cuda_ew_shape pick_shape(const rs_ew_program *p, const rs_ew_geom *g) {
  rs_cuda_ew_shape s = {g->ndim, g->narrays, g->count < INT32_MAX, 0, 0};
  if (g->ndim != 1 || !s.idx32) return s;
  size_t widest = 1;
  unsigned broadcast = 0;
  for (int a = 0; a < g->narrays; a++) {
    size_t isz = array_size(p, a);
    if (g->strides[a][0] == 0 && a < p->ninputs) {
      broadcast |= 1u << a;
      continue;
    }
    if (g->strides[a][0] != (int64_t)isz) return s;
    if (isz > widest) widest = isz;
  }
  /* at most 8 lanes: 1- and 2-byte dtypes would otherwise take 16 elements a thread,
   * doubling the generated code (and NVRTC's time) for no measured gain */
  int lanes = widest >= 16 ? 1 : widest <= 2 ? 8 : (int)(16 / widest);
  for (int a = 0; a < g->narrays; a++)
    if (!(broadcast >> a & 1u) && (uintptr_t)g->ptr[a] % (array_size(p, a) * (size_t)lanes) != 0) return s;
  s.lanes = lanes;
  s.broadcast = broadcast;
  return s;
}

/* The program's identity as ints (constants' values left out). */
static size_t ew_key(int *k, const rs_ew_program *p, const rs_cuda_ew_shape *s) {
  size_t n = 0;
  k[n++] = 0x45570002; /* "EW", version 2 */
  k[n++] = s->ndim, k[n++] = s->narrays, k[n++] = s->idx32, k[n++] = s->lanes, k[n++] = (int)s->broadcast;
  k[n++] = p->ninstr, k[n++] = p->ninputs, k[n++] = p->noutputs;
  for (int i = 0; i < p->ninstr; i++) {
    const rs_ew_instr *in = &p->instr[i];
    k[n++] = in->code, k[n++] = in->op, k[n++] = (int)in->dtype, k[n++] = (int)in->arg_dtype;
    k[n++] = in->a, k[n++] = in->b, k[n++] = in->c;
  }
  for (int i = 0; i < p->ninputs; i++) k[n++] = (int)p->in_dtype[i];
  for (int j = 0; j < p->noutputs; j++) k[n++] = p->out_reg[j], k[n++] = (int)p->out_dtype[j];
  return n;
}

rs_status rs_cuda_ops_ew(rs_backend *b, const rs_ew_program *p, const rs_ew_geom *g, void *stream) {
  if (g->count <= 0) return RS_OK;
  ew_src src = {p, pick_shape(p, g)};
  int key[16 + RS_EW_MAX_INSTR * 7 + RS_EW_MAX_ARRAYS * 3];
  size_t nkey = ew_key(key, p, &src.shape);
  void *fn = NULL;
  RS_TRY(rs_cuda_ops_kernel(b, key, nkey * sizeof(int), "rs_ew", 0, g->jit, g->cache_dir ? g->cache_dir : "",
                            g->cache_max, make_ew_source, &src, &fn));
  uint64_t *words = malloc(8192 * sizeof *words);
  if (!words) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "elementwise: out of host memory");
  size_t nw = rs_cuda_ew_params(words, 8192, p, g);
  rs_status st = RS_OK;
  if (nw == 0) st = rs_fail(RS_ERR_INTERNAL, "elementwise: parameter block too large");
  if (st == RS_OK) st = rs_cuda_enter(b);
  if (st == RS_OK) {
    void *args[1] = {words};
    /* the contiguous variant is one pass (a thread per vector); the general one loops */
    unsigned blocks = src.shape.lanes > 0 ? (unsigned)((g->count + (int64_t)src.shape.lanes * RS_CUDA_OPS_BLOCK - 1) /
                                                       ((int64_t)src.shape.lanes * RS_CUDA_OPS_BLOCK))
                                          : rs_cuda_ops_grid(b, g->count, 4, 32);
    dim3 grid = {blocks, 1, 1}, block = {RS_CUDA_OPS_BLOCK, 1, 1};
    cudaError_t err = cudaLaunchKernel((const void *)fn, grid, block, args, 0, (cudaStream_t)stream);
    if (err != cudaSuccess)
      st = rs_cuda_fail(err, "cudaLaunchKernel(elementwise, %lld elements, grid %u)", (long long)g->count, grid.x);
  }
  free(words); /* the launch copied the parameters */
  return st;
}
