/* Internal: the plans an array operation hands to whatever runs it - plain structs with
 * addresses the runner can use, byte strides and dtypes, already checked by the ops layer
 * (src/ops). The native loops (src/native) run them on the host; the backends' op tables
 * (src/backend/ops_table.h) queue them on a device. Included by C and CUDA C++ files.
 */
#ifndef RS_NATIVE_PLANS_H
#define RS_NATIVE_PLANS_H

#include <stddef.h>
#include <stdint.h>
#include "core/dtype_rules.h"
#include "resident/ops.h"
#include "resident/reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rs_jit_service;

/* ---- elementwise programs ---------------------------------------------------------- */
/* A straight-line program over registers, one register per instruction (SSA): the
 * result of instruction k is register k. Plain ops are programs of a few instructions;
 * a fused expression is one program. Evaluated per element. */

/* What a program may read and build is what an expression may hold (resident/ops.h);
 * the outputs come on top of that (an op writes at most 2 arrays), and so do the
 * constant and the cast each output may add, so a full expression still evaluates. */
#define RS_EW_MAX_INPUTS RS_EXPR_MAX_ARRAYS
#define RS_EW_MAX_ARRAYS (RS_EW_MAX_INPUTS + 2) /* inputs + outputs */
#define RS_EW_MAX_NODES RS_EXPR_MAX_NODES
#define RS_EW_MAX_INSTR (RS_EW_MAX_NODES + 4)

typedef enum rs_ew_code {
  RS_EW_LOAD = 0, /* array `a` (an input) at this element, in its own dtype */
  RS_EW_CONST,    /* `value` converted to `dtype` */
  RS_EW_INDEX,    /* the element's index in C order over the iteration shape (int64) */
  RS_EW_CAST,     /* register `a` converted to `dtype` */
  RS_EW_UNARY,    /* op(a) computed in `arg_dtype`'s class, result in `dtype` */
  RS_EW_BINARY,   /* op(a, b), operands both of `arg_dtype` */
  RS_EW_WHERE     /* a (bool) ? b : c, b and c of `dtype` */
} rs_ew_code;

typedef struct rs_ew_instr {
  int code;           /* rs_ew_code */
  int op;             /* rs_op for UNARY and BINARY */
  rs_dtype dtype;     /* dtype of the result */
  rs_dtype arg_dtype; /* UNARY / BINARY: dtype of the operands */
  int a, b, c;        /* operand registers; LOAD: the input array's index */
  rs_scalar value;    /* CONST */
} rs_ew_instr;

typedef struct rs_ew_program {
  int ninstr;
  rs_ew_instr instr[RS_EW_MAX_INSTR];
  int ninputs;                          /* arrays 0 .. ninputs-1 are read */
  rs_dtype in_dtype[RS_EW_MAX_ARRAYS];
  int noutputs;                         /* arrays ninputs .. ninputs+noutputs-1 are written */
  int out_reg[RS_EW_MAX_ARRAYS];        /* register stored to output j (its dtype = out_dtype) */
  rs_dtype out_dtype[RS_EW_MAX_ARRAYS];
} rs_ew_program;

/* Where the program runs: an iteration space of `shape` (dims outermost first, already
 * collapsed and ordered for memory access) and, per array, the address of the first
 * element and byte strides (0 along broadcast axes). index_strides gives each element's
 * logical C-order index: sum idx[k] * index_strides[k]. count > 0. */
typedef struct rs_ew_geom {
  int ndim; /* >= 1 */
  int64_t shape[RS_MAX_DIMS];
  int64_t count;
  int narrays; /* ninputs + noutputs */
  char *ptr[RS_EW_MAX_ARRAYS];
  int64_t strides[RS_EW_MAX_ARRAYS][RS_MAX_DIMS];
  int64_t index_strides[RS_MAX_DIMS];
  /* for backends that generate code for the plan (the native loops ignore these): the
   * compile service (src/backend/jit.h) and its disk cache */
  const struct rs_jit_service *jit;
  const char *cache_dir; /* where generated kernels are cached on disk ("" = memory only) */
  size_t cache_max;      /* the disk cache's limit (0 = none) */
} rs_ew_geom;

/* ---- reductions -------------------------------------------------------------------- */
/* Output element o is the reduction over the "reduced" dims at the position given by the
 * "kept" dims. Kept dims: input and output byte strides; reduced dims: input strides, in
 * the input's logical (C) order so that the running index r over them is the
 * argmin/argmax answer. nkeep or nred may be 0 (n_out or n_red then 1 ... n_red 0 means
 * an empty reduction: the op's identity). */
typedef struct rs_reduce_plan {
  rs_reduce_op op;
  rs_dtype in_dtype;
  rs_dtype out_dtype;
  const char *in;
  char *out;
  int nkeep;
  int64_t keep_shape[RS_MAX_DIMS];
  int64_t keep_in_strides[RS_MAX_DIMS];
  int64_t keep_out_strides[RS_MAX_DIMS];
  int nred;
  int64_t red_shape[RS_MAX_DIMS];
  int64_t red_strides[RS_MAX_DIMS];
  int64_t n_out, n_red;
  const struct rs_jit_service *jit; /* as in rs_ew_geom */
  const char *cache_dir;
  size_t cache_max;
} rs_reduce_plan;

/* The class a reduction accumulates in (sum of float32 in double, ...); defined with the
 * native reductions (native_reduce.c), used by every backend that generates them. */
rs_cls rs_reduce_acc_cls(rs_reduce_op op, rs_dtype in_dtype);

/* ---- sort -------------------------------------------------------------------------- */
/* rows x n elements, C-contiguous. sort: dst (may equal src) gets the sorted rows.
 * argsort: indices (int64, rows x n) gets each row's stable order; dst is NULL. */
typedef struct rs_sort_plan {
  rs_dtype dtype;
  int argsort;
  int64_t rows, n;
  const void *src;
  void *dst;
  int64_t *indices;
} rs_sort_plan;

/* ---- random ------------------------------------------------------------------------ */
typedef enum rs_random_kind { RS_RANDOM_UNIFORM = 0, RS_RANDOM_NORMAL, RS_RANDOM_INTEGERS } rs_random_kind;

/* Element i (C order over shape) takes Philox4x32-10 block (offset + i) under key seed. */
typedef struct rs_random_plan {
  rs_random_kind kind;
  rs_dtype dtype;
  uint64_t seed, offset;
  double a, b;    /* uniform [a, b); normal mean a, standard deviation b */
  int64_t lo, hi; /* integers [lo, hi) */
  char *ptr;      /* element 0 */
  int ndim;
  int64_t shape[RS_MAX_DIMS];
  int64_t strides[RS_MAX_DIMS];
  int64_t count; /* > 0 */
} rs_random_plan;

/* ---- linear algebra ---------------------------------------------------------------- */
/* C[q] = A[q] @ B[q] for q < batch; A m x k, B k x n, C m x n, all byte strides. For the
 * device tables every matrix has a unit (itemsize) stride on one of its two axes and the
 * other at least the matrix's extent along the first (a BLAS layout), and C does not
 * overlap A or B. */
typedef struct rs_matmul_plan {
  rs_dtype dtype; /* float32, float64, complex64, complex128 */
  int64_t batch, m, n, k;
  const char *a;
  int64_t a_bs, a_rs, a_cs;
  const char *b;
  int64_t b_bs, b_rs, b_cs;
  char *c;
  int64_t c_bs, c_rs, c_cs;
} rs_matmul_plan;

/* batch matrices m x n (C-contiguous, m, n >= 1), k = min(m, n). Outputs C-contiguous:
 * u batch x m x (full ? m : k), s batch x k (real dtype), vh batch x (full ? n : k) x n.
 * u and vh are NULL when !compute_uv. *info (device int32) becomes 0, or a positive value
 * if some matrix did not converge. `a` is not modified. */
typedef struct rs_svd_plan {
  rs_dtype dtype;
  int64_t batch, m, n;
  int full, compute_uv;
  const void *a;
  void *u, *s, *vh;
  int32_t *info;
} rs_svd_plan;

/* Solve a[q] x = b[q] for q < batch, in place: a batch x n x n, each matrix row-major
 * (C); b batch x n x k, each matrix COLUMN-major (LAPACK's layout, so one right-hand
 * side is contiguous), overwritten with x. Both are private copies the backend may
 * overwrite. n, k >= 1. *info (device int32) becomes 0, or 1 when some a[q] is
 * singular. */
typedef struct rs_solve_plan {
  rs_dtype dtype;
  int64_t batch, n, k;
  void *a;
  void *b;
  int32_t *info;
} rs_solve_plan;

/* ---- scans (stats) ------------------------------------------------------------------ */
/* Inclusive scans along the middle axis of a C-contiguous outer x n x inner block:
 * dst[o, i, j] is the sum (or product) of src[o, 0..i, j], in order. inner == 1 is a batch
 * of contiguous rows; inner > 1 an axis that is not the last, scanned where it lies
 * (no transpose). src and dst have one dtype, the accumulator's: int64, uint64
 * (wrapping), float32, float64, complex64 or complex128. dst may equal src. outer, n,
 * inner >= 1. */
typedef enum rs_scan_op { RS_SCAN_SUM = 0, RS_SCAN_PROD } rs_scan_op;

typedef struct rs_scan_plan {
  rs_scan_op op;
  rs_dtype dtype;
  int64_t outer, n, inner;
  const void *src;
  void *dst;
} rs_scan_plan;

/* Centered second moments (stats: var / std over a block of consecutive axes of a
 * contiguous input): an outer x n x inner C-contiguous block of dtype float32 or float64
 * reduced along n: dst[o * inner + j] (out_dtype float32 or float64) = sum over i of
 * (x[o, i, j] - mean_oj)^2 / (n - correction), its square root when take_sqrt, accumulated
 * in double (native: two passes; CUDA: one pass of Welford states merged with Chan's
 * formula). outer, n, inner >= 1;
 * n - correction > 0. */
typedef struct rs_moments_plan {
  rs_dtype dtype, out_dtype;
  int64_t outer, n, inner;
  double correction;
  int take_sqrt;
  const void *src;
  void *dst;
} rs_moments_plan;
/* ---- linalg extension: factorizations (cholesky, LU for det/slogdet, QR, eigh) ---- */
typedef enum rs_factor_kind { RS_FACTOR_CHOLESKY, RS_FACTOR_LU, RS_FACTOR_QR, RS_FACTOR_EIGH } rs_factor_kind;

/* One LAPACK factorization of `batch` matrices, each COLUMN-major m x n (leading
 * dimension m, LAPACK's layout) in `a`, a private copy the backend overwrites. m, n >= 1.
 *   CHOLESKY (m = n): a = L L^H from the lower triangle (option 1: a = U^H U from the
 *     upper); a becomes the factor with the other triangle zeroed. *info = 1 when some
 *     matrix is not positive definite.
 *   LU (m = n): partial-pivoting LU, then per matrix (each output that is not NULL)
 *     det (dtype), sign (dtype: det / |det|, 0 for a singular matrix) and logabs (the
 *     real dtype: log |det|, -inf when singular). *info stays 0 (det of a singular matrix is 0).
 *   QR: a becomes R (strictly lower part zeroed); q (m x qcols column-major per matrix,
 *     qcols = m when option is 1 (complete), else min(m, n)) gets Q. With q_in_a (set
 *     only when qcols = n, so a and q have one shape) the two trade places: Q is made in
 *     a itself (no copy of the m x k reflectors) and R, the top k rows, goes to q.
 *   EIGH (m = n): w (batch x n, the real dtype) the eigenvalues ascending of the
 *     Hermitian matrix in a's lower triangle (upper = 1: its upper triangle); option 1: a
 *     becomes the eigenvectors (columns). *info = 1 when some matrix did not converge. */
typedef struct rs_factor_plan {
  rs_factor_kind kind;
  rs_dtype dtype;
  int64_t batch, m, n;
  int option, upper;
  int q_in_a; /* QR: Q in a, R in q (above) */
  void *a, *q, *w, *det, *sign, *logabs;
  int32_t *info;
} rs_factor_plan;

#ifdef __cplusplus
}
#endif
#endif
