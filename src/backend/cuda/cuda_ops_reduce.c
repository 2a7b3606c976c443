/* Reductions on the GPU. A whole contiguous array of float32/64 or int32/64 summed,
 * averaged or searched for its min/max goes through CUB's DeviceReduce (the fastest there
 * is); everything else - axes, other dtypes and ops, views - through generated kernels.
 * Where the reduced elements of one output lie in a contiguous run of a warp's width or
 * more (row reductions): one thread per output when there are many outputs (or few
 * elements each), else blocks of threads per output. Otherwise - the reduced axes strided
 * or short, a kept axis innermost (sum over axis 0, or over (0, 2) of a 3-d array) - a
 * thread per (output, chunk) with consecutive threads on consecutive outputs, so a warp
 * reads consecutive memory (the column scheme of var/std). Long reductions are split into
 * a fixed number of chunks whose partial results are combined in order (so results do not
 * depend on timing). Float sums and means along a middle axis, the kept axes innermost
 * and contiguous (sum over axis 0 of a matrix), take a kernel of their own
 * (cuda_ops_col_sum.cu). */
#include <string.h>
#include "backend/cuda/cuda_ops.h"
#include "core/dtype_rules.h"

enum { MODE_THREAD = 0, MODE_PARTIAL = 1, MODE_BLOCK = 2, MODE_FINAL = 3, MODE_COLS = 4 };

typedef struct red_src {
  const rs_reduce_plan *p;
  int mode;
} red_src;

static rs_status make_source(char **source, void *arg) {
  const red_src *s = arg;
  return rs_cuda_reduce_source(source, s->p, s->mode);
}

static rs_status reduce_kernel(rs_backend *b, const rs_reduce_plan *p, int mode, void **fn) {
  int key[8] = {0x52450002, mode, (int)p->op, (int)p->in_dtype, (int)p->out_dtype, p->nkeep, p->nred, 0};
  red_src s = {p, mode};
  return rs_cuda_ops_kernel(b, key, sizeof key, mode == MODE_FINAL ? "rs_reduce_final" : "rs_reduce", 1,
                            p->jit, p->cache_dir ? p->cache_dir : "", p->cache_max, make_source, &s, fn);
}

/* The parameter block of the generated kernels (8-byte words, struct R). */
static size_t reduce_params(uint64_t *w, const rs_reduce_plan *p, void *part, int64_t chunk, int64_t splits) {
  size_t i = 0;
  int nk = p->nkeep > 0 ? p->nkeep : 1, nr = p->nred > 0 ? p->nred : 1;
  w[i++] = (uint64_t)(uintptr_t)p->in;
  w[i++] = (uint64_t)(uintptr_t)p->out;
  w[i++] = (uint64_t)(uintptr_t)part;
  w[i++] = (uint64_t)p->n_out, w[i++] = (uint64_t)p->n_red, w[i++] = (uint64_t)chunk, w[i++] = (uint64_t)splits;
  for (int k = 0; k < nk; k++) w[i++] = k < p->nkeep ? (uint64_t)p->keep_shape[k] : 1;
  for (int k = 0; k < nk; k++) w[i++] = k < p->nkeep ? (uint64_t)p->keep_in_strides[k] : 0;
  for (int k = 0; k < nk; k++) w[i++] = k < p->nkeep ? (uint64_t)p->keep_out_strides[k] : 0;
  for (int k = 0; k < nr; k++) w[i++] = k < p->nred ? (uint64_t)p->red_shape[k] : 1;
  for (int k = 0; k < nr; k++) w[i++] = k < p->nred ? (uint64_t)p->red_strides[k] : 0;
  return i;
}

static rs_status launch(void *fn, unsigned grid, uint64_t *words, void *stream, const char *what) {
  void *args[1] = {words};
  dim3 g = {grid, 1, 1}, blk = {RS_CUDA_OPS_BLOCK, 1, 1};
  RS_CUDA_CALL(cudaLaunchKernel((const void *)fn, g, blk, args, 0, (cudaStream_t)stream), "cudaLaunchKernel(%s, grid %u)",
               what, grid);
  return RS_OK;
}

/* Bytes of one partial result (struct A of the generated code). */
static size_t partial_bytes(const rs_reduce_plan *p) {
  return rs_reduce_acc_cls(p->op, p->in_dtype) == RS_CLS_Z ? 24 : 16;
}

static int cub_eligible(const rs_reduce_plan *p) {
  int fl = p->in_dtype == RS_FLOAT32 || p->in_dtype == RS_FLOAT64;
  /* (a mean of integers accumulates in double, as the native loops do: not through CUB) */
  int op_ok = p->op == RS_REDUCE_SUM || (p->op == RS_REDUCE_MEAN && fl) || p->op == RS_REDUCE_MIN || p->op == RS_REDUCE_MAX;
  int dt_ok = fl || p->in_dtype == RS_INT32 || p->in_dtype == RS_INT64;
  int contiguous = p->nred == 1 && p->red_strides[0] == (int64_t)rs_dtype_size(p->in_dtype);
  return op_ok && dt_ok && contiguous && p->n_out == 1 && p->n_red > 0;
}

static rs_status reduce_cub(rs_backend *b, const rs_reduce_plan *p, void *stream) {
  void *acc = NULL;
  RS_TRY(rs_cuda_ops_scratch(b, 16, stream, &acc));
  rs_status st = rs_cuda_cub_reduce(b, (int)p->op, p->in_dtype, p->in, p->n_red, acc, stream);
  if (st == RS_OK) st = rs_cuda_cub_finish(b, (int)p->op, p->in_dtype, acc, p->out, p->out_dtype, p->n_red, stream);
  rs_cuda_ops_scratch_free(acc, stream);
  return st;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* The column scheme pays off when an output's reduced elements are not a contiguous run of
 * a warp's width (the reduced axis of smallest stride is strided or shorter than 32) and
 * consecutive outputs lie close (the innermost kept axis's stride at most 256 bytes: a
 * warp's 32 outputs within 8 KiB, each thread's own runs in the lines its neighbours
 * read). */
static int cols_fit(const rs_reduce_plan *p) {
  if (p->nkeep < 1 || p->nred < 1) return 0;
  int inner = 0;
  for (int k = 1; k < p->nred; k++)
    if (abs64(p->red_strides[k]) < abs64(p->red_strides[inner])) inner = k;
  int run = p->red_strides[inner] == (int64_t)rs_dtype_size(p->in_dtype) && p->red_shape[inner] >= 32;
  return !run && abs64(p->keep_in_strides[p->nkeep - 1]) <= 256;
}

/* The column scheme's plan q: enough threads for the device (about 200000: on the H200,
 * 3 x 2^16 reached 91% of the copy bandwidth for a sum over (0, 2) of 1000 x 10000 x 10
 * float32 and 87% over axis 0 of 10000^2; 2^18 80% and 76%, 2^16 75% and 63%), chunks of whole
 * runs along the last reduced axis when they are short, at least 32 elements each.
 * Reduced axes lying inside the innermost kept one (sum over (0, 2) of a 3-d array: the
 * last axis) become extra outputs of the column pass - each a column of its own, so a
 * warp reads consecutive elements - and the final pass merges them with the chunks
 * (at most 64 such elements per output; not for argmin / argmax, whose index is over
 * all reduced axes). The final pass merges an output's inner x splits partials in one
 * thread, so they are kept to 256. 0 when too few threads would run (few outputs of long
 * reductions: the block scheme spreads those better). */
typedef struct cols_plan {
  rs_reduce_plan q;
  int64_t inner, splits, chunk;
} cols_plan;

static int cols_make(cols_plan *c, const rs_reduce_plan *p) {
  rs_reduce_plan *q = &c->q;
  *q = *p;
  int64_t inner = 1, ks = abs64(p->keep_in_strides[p->nkeep - 1]);
  int k = p->nred;
  if (p->op != RS_REDUCE_ARGMIN && p->op != RS_REDUCE_ARGMAX)
    while (k > 1 && abs64(p->red_strides[k - 1]) < ks && inner * p->red_shape[k - 1] <= 64) inner *= p->red_shape[--k];
  for (int j = k; j < p->nred; j++) {
    q->keep_shape[q->nkeep] = p->red_shape[j];
    q->keep_in_strides[q->nkeep] = p->red_strides[j];
    q->keep_out_strides[q->nkeep++] = 0; /* partials only */
  }
  q->nred = k;
  q->n_out = p->n_out * inner;
  q->n_red = p->n_red / inner;
  const int64_t want = 3 << 16, last = q->red_shape[q->nred - 1], most = (q->n_red + 31) / 32;
  int64_t splits = (want + q->n_out - 1) / q->n_out;
  if (splits > 256 / inner) splits = 256 / inner;
  if (splits > most) splits = most;
  if (splits < 1) splits = 1;
  int64_t chunk = (q->n_red + splits - 1) / splits;
  if (last < chunk) chunk = (chunk + last - 1) / last * last; /* (fewer splits, never more) */
  c->splits = (q->n_red + chunk - 1) / chunk;
  c->chunk = chunk;
  c->inner = inner;
  return q->n_out * c->splits >= 32768 || splits == most;
}

static rs_status reduce_cols(rs_backend *b, const rs_reduce_plan *p, const cols_plan *c, void *stream) {
  void *fn = NULL, *fin = NULL, *part = NULL;
  uint64_t words[8 + 5 * RS_MAX_DIMS], fwords[8 + 5 * RS_MAX_DIMS];
  RS_TRY(reduce_kernel(b, &c->q, MODE_COLS, &fn));
  if (c->splits * c->inner > 1) { /* partials (q.n_out x splits), merged per output in order */
    RS_TRY(reduce_kernel(b, p, MODE_FINAL, &fin));
    RS_TRY(rs_cuda_ops_scratch(b, (size_t)(c->q.n_out * c->splits) * partial_bytes(p), stream, &part));
  }
  reduce_params(words, &c->q, part, c->chunk, c->splits);
  reduce_params(fwords, p, part, c->chunk, c->splits * c->inner);
  rs_status st = launch(fn, rs_cuda_ops_grid(b, c->q.n_out * c->splits, 1, 32), words, stream, "reduce (columns)");
  if (st == RS_OK && fin) st = launch(fin, rs_cuda_ops_grid(b, p->n_out, 1, 32), fwords, stream, "reduce (final)");
  if (part) rs_cuda_ops_scratch_free(part, stream);
  return st;
}

rs_status rs_cuda_ops_reduce(rs_backend *b, const rs_reduce_plan *p, void *stream) {
  if (p->n_out <= 0) return RS_OK;
  if (cub_eligible(p)) return reduce_cub(b, p, stream);
  if (rs_cuda_col_sum_fits(p)) return rs_cuda_col_sum(b, p, stream);
  RS_TRY(rs_cuda_enter(b));
  cols_plan cp;
  if (p->n_red > 0 && cols_fit(p) && cols_make(&cp, p)) return reduce_cols(b, p, &cp, stream);
  uint64_t words[8 + 5 * RS_MAX_DIMS];
  int64_t sms = b->multiprocessors > 0 ? b->multiprocessors : 1;
  void *fn = NULL;
  if (p->n_out >= 2 * sms * RS_CUDA_OPS_BLOCK || p->n_red <= 64) {
    /* plenty of outputs (or tiny reductions): one thread each */
    RS_TRY(reduce_kernel(b, p, MODE_THREAD, &fn));
    reduce_params(words, p, NULL, 0, 1);
    return launch(fn, rs_cuda_ops_grid(b, p->n_out, 1, 32), words, stream, "reduce");
  }
  /* few outputs: a block per (output, chunk), enough blocks to fill the device */
  int64_t want = (4 * sms + p->n_out - 1) / p->n_out;
  int64_t most = (p->n_red + 4 * RS_CUDA_OPS_BLOCK - 1) / (4 * RS_CUDA_OPS_BLOCK); /* >= 4 elements a thread */
  int64_t splits = want < most ? want : most;
  if (splits < 1) splits = 1;
  if (splits > 65536) splits = 65536;
  int64_t chunk = (p->n_red + splits - 1) / splits;
  if (p->n_out * splits > INT32_MAX) return rs_fail(RS_ERR_UNSUPPORTED, "reduce: %lld outputs are too many", (long long)p->n_out);
  if (splits == 1) {
    RS_TRY(reduce_kernel(b, p, MODE_BLOCK, &fn));
    reduce_params(words, p, NULL, chunk, 1);
    return launch(fn, (unsigned)p->n_out, words, stream, "reduce");
  }
  void *fin = NULL, *part = NULL;
  RS_TRY(reduce_kernel(b, p, MODE_PARTIAL, &fn));
  RS_TRY(reduce_kernel(b, p, MODE_FINAL, &fin));
  RS_TRY(rs_cuda_ops_scratch(b, (size_t)(p->n_out * splits) * partial_bytes(p), stream, &part));
  reduce_params(words, p, part, chunk, splits);
  rs_status st = launch(fn, (unsigned)(p->n_out * splits), words, stream, "reduce (partials)");
  if (st == RS_OK) st = launch(fin, rs_cuda_ops_grid(b, p->n_out, 1, 32), words, stream, "reduce (final)");
  rs_cuda_ops_scratch_free(part, stream);
  return st;
}
