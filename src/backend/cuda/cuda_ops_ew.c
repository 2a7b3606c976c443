/* Elementwise programs on the GPU: the kernel is found by the program's shape (ops,
 * dtypes, number of axes and arrays - not its constants) and launched with one parameter
 * block holding addresses, shape, strides and constants. */
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_ops.h"

typedef struct ew_src {
  const rs_ew_program *p;
  int ndim, narrays, idx32;
} ew_src;

static rs_status make_ew_source(char **source, void *arg) {
  const ew_src *s = arg;
  return rs_cuda_ew_source(source, s->p, s->ndim, s->narrays, s->idx32);
}

/* The program's identity as ints (constants' values left out). */
static size_t ew_key(int *k, const rs_ew_program *p, int ndim, int narrays, int idx32) {
  size_t n = 0;
  k[n++] = 0x45570001; /* "EW", version 1 */
  k[n++] = ndim, k[n++] = narrays, k[n++] = idx32;
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
  int idx32 = g->count < INT32_MAX;
  int key[16 + RS_EW_MAX_INSTR * 7 + RS_EW_MAX_ARRAYS * 3];
  size_t nkey = ew_key(key, p, g->ndim, g->narrays, idx32);
  ew_src src = {p, g->ndim, g->narrays, idx32};
  void *fn = NULL;
  RS_TRY(rs_cuda_ops_kernel(b, key, nkey * sizeof(int), "rs_ew", 0, g->cache_dir ? g->cache_dir : "", make_ew_source,
                            &src, &fn));
  uint64_t *words = malloc(8192 * sizeof *words);
  if (!words) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "elementwise: out of host memory");
  size_t nw = rs_cuda_ew_params(words, 8192, p, g);
  rs_status st = RS_OK;
  if (nw == 0) st = rs_fail(RS_ERR_INTERNAL, "elementwise: parameter block too large");
  if (st == RS_OK) st = rs_cuda_enter(b);
  if (st == RS_OK) {
    void *args[1] = {words};
    dim3 grid = {rs_cuda_ops_grid(b, g->count, 4, 32), 1, 1}, block = {RS_CUDA_OPS_BLOCK, 1, 1};
    cudaError_t err = cudaLaunchKernel((const void *)fn, grid, block, args, 0, (cudaStream_t)stream);
    if (err != cudaSuccess)
      st = rs_cuda_fail(err, "cudaLaunchKernel(elementwise, %lld elements, grid %u)", (long long)g->count, grid.x);
  }
  free(words); /* the launch copied the parameters */
  return st;
}
