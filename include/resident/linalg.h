/* resident/linalg.h - matrix product, singular value decomposition, linear solve.
 *
 * The rules of resident/ops.h hold (where ops run; a new array, or the _into form's dst). Dtypes: float32, float64,
 * complex64, complex128 (operands promote; other dtypes are RS_ERR_DTYPE - cast first).
 * On the GPU: cuBLAS and cuSOLVER, loaded when first used (a machine without them gets
 * RS_ERR_UNSUPPORTED from these calls and nothing else changes). On the host and the
 * simulator: OpenBLAS (CBLAS gemm, LAPACKE getrf/getrs and gesdd) where the library was
 * built with it (RESIDENT_HOST_BLAS, found at build time; its threads as OpenBLAS sets
 * them, OPENBLAS_NUM_THREADS), else plain C (blocked loops, one-sided Jacobi SVD, LU
 * with partial pivoting).
 *
 * Thread safety: as every op.
 */
#ifndef RESIDENT_LINALG_H
#define RESIDENT_LINALG_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* NumPy's matmul: (..., m, k) @ (..., k, n) -> (..., m, n), batch axes broadcast; a 1-d
 * operand is a vector (its axis is dropped from the result). Inner dimensions that
 * differ are RS_ERR_SHAPE; 0-d operands are RS_ERR_SHAPE. */
RS_API rs_status rs_matmul(rs_array **out, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_matmul_into(rs_array *dst, const rs_array *a, const rs_array *b, rs_stream *stream);

/* a (..., m, n) = u * diag(s) * vh, singular values descending and >= 0.
 * full_matrices: u (..., m, m), vh (..., n, n); else u (..., m, k), vh (..., k, n) with
 * k = min(m, n). s (..., k) has the real dtype of a. u and vh may be NULL (values only);
 * rs_svd_into writes into existing u, s and vh of exactly those shapes and dtypes.
 * bool and integer input is decomposed in float64, float16 is RS_ERR_DTYPE. An empty
 * matrix (m or n = 0) or fewer than 2 dimensions is RS_ERR_SHAPE. When the iteration
 * does not converge (NaN or infinity in the input) the call fails with
 * RS_ERR_INVALID_ARGUMENT ("SVD did not converge"), as NumPy raises; finding that out
 * reads a flag from the device (an implicit copy of 4 bytes, recorded). On the GPU a
 * fast method (gesvdaStridedBatched, real dtypes; a full U completed by a Householder
 * QR) is tried first and its result checked - reconstruction ||A - U S V^T|| / ||A|| and
 * orthogonality of U and V, each below 1e-12 (float32: 1e-4) - and when the check fails
 * (ill-conditioned input), and for complex dtypes, the QR-iteration SVD (gesvd) does it.
 * The check's few scalars are read inside the library, not through the ledger. */
RS_API rs_status rs_svd(rs_array **u, rs_array **s, rs_array **vh, const rs_array *a,
                 int full_matrices, rs_stream *stream);
RS_API rs_status rs_svd_into(rs_array *u, rs_array *s, rs_array *vh, const rs_array *a,
                      int full_matrices, rs_stream *stream);

/* x with a @ x = b: a (..., n, n), b (..., n) or (..., n, k) (batch axes broadcast).
 * A singular matrix is RS_ERR_INVALID_ARGUMENT ("singular matrix"); finding that out
 * reads a flag from the device (an implicit copy of 4 bytes per call, recorded). On the
 * GPU cuSOLVER's Xgetrf + Xgetrs per matrix, or for a batch of 2 or more matrices of
 * n <= 32 one cuBLAS getrfBatched + getrsBatched call for the whole batch. */
RS_API rs_status rs_solve(rs_array **x, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_solve_into(rs_array *x, const rs_array *a, const rs_array *b, rs_stream *stream);

/* ---- the array API's linalg extension: factorizations ----
 * Square-matrix functions (all but qr) take a (..., n, n) and refuse anything else with
 * RS_ERR_SHAPE, as are fewer than 2 dimensions. Empty matrices give NumPy's answers (empty
 * factors, det 1, slogdet (1, 0), the complete QR's Q of an m x 0 matrix the identity). bool and
 * integer input is factored in float64, float16 is RS_ERR_DTYPE. Batch axes are kept.
 * The work runs on a private column-major copy (LAPACK's layout): on the GPU cuSOLVER
 * (Xpotrf, Xgetrf, Xgeqrf + orgqr/ungqr, Xsyevd; a batch of matrices of n <= 32 in one
 * batched call: syevjBatched for eigh, potrfBatched for cholesky, cuBLAS getrfBatched
 * for det and slogdet - and getrsBatched after it for inv, as solve), on the host and the
 * simulator LAPACKE;
 * a build without LAPACKE (RESIDENT_HOST_BLAS off or OpenBLAS not found) answers
 * RS_ERR_UNSUPPORTED there, naming the missing library. A failure flag is read back from
 * the device (an implicit copy of 4 bytes, recorded). A new matrix result - cholesky's
 * factor, eigh's eigenvectors, qr's q, and r when it has all of a's rows - is the array the
 * solver wrote, handed over without a copy: column-major per matrix (strides (...,
 * itemsize, rows * itemsize); F order for one matrix), except the Cholesky factor of a real
 * matrix, which comes out in C order (real symmetric input and det's input are factored
 * as a^T, the same problem, without a transposing copy); the others are C-contiguous. An _into
 * destination (any layout) must have exactly the result's shape and dtype and is written
 * only on success (eigenvalues, det, sign and logabsdet may be written by a call that then
 * fails). */

/* The Cholesky factor of Hermitian positive-definite matrices: L (lower, a = L L^H) from
 * a's lower triangle, or with upper != 0 U (a = U^H U) from the upper. A matrix that is
 * not positive definite is RS_ERR_INVALID_ARGUMENT ("matrix is not positive definite"). */
RS_API rs_status rs_cholesky(rs_array **out, const rs_array *a, int upper, rs_stream *stream);
RS_API rs_status rs_cholesky_into(rs_array *dst, const rs_array *a, int upper, rs_stream *stream);

/* a (..., m, n) = q r, q with orthonormal columns, r upper triangular (LAPACK's signs, as
 * NumPy). complete = 0 ("reduced"): q (..., m, k), r (..., k, n), k = min(m, n);
 * complete != 0: q (..., m, m), r (..., m, n). q may be NULL (r only). */
RS_API rs_status rs_qr(rs_array **q, rs_array **r, const rs_array *a, int complete, rs_stream *stream);
RS_API rs_status rs_qr_into(rs_array *q, rs_array *r, const rs_array *a, int complete, rs_stream *stream);

/* Eigenvalues w (..., n) (the real dtype, ascending) and eigenvectors v (..., n, n) (the
 * columns; a v = v diag(w)) of Hermitian matrices, read from the lower triangle as NumPy
 * does. Non-convergence is RS_ERR_INVALID_ARGUMENT. eigvalsh: the values only. */
RS_API rs_status rs_eigh(rs_array **w, rs_array **v, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_eigh_into(rs_array *w, rs_array *v, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_eigvalsh(rs_array **w, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_eigvalsh_into(rs_array *w, const rs_array *a, rs_stream *stream);

/* Determinants (..., ) through an LU factorization with partial pivoting; a singular
 * matrix has det 0 (not an error). slogdet: sign (the dtype; +-1, a unit complex number,
 * or 0 for a singular matrix) and logabsdet (the real dtype; -inf when singular), with
 * det = sign * exp(logabsdet) and no overflow. */
RS_API rs_status rs_det(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_det_into(rs_array *dst, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_slogdet(rs_array **sign, rs_array **logabsdet, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_slogdet_into(rs_array *sign, rs_array *logabsdet, const rs_array *a, rs_stream *stream);

/* The inverse of square matrices (..., n, n): rs_solve against the identity. A singular
 * matrix is RS_ERR_INVALID_ARGUMENT ("inv: singular matrix"), nothing written. */
RS_API rs_status rs_inv(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_inv_into(rs_array *dst, const rs_array *a, rs_stream *stream);

/* ---- the linalg extension: operations composed from the ones above and from ops.h /
 * reduce.h (no kernels of their own; each runs as the ops it is made of, on their side).
 * Each has an _into form writing into dst (same context, exactly the result's shape; the
 * result is computed first, then copied in). */

/* The diagonal `offset` (0 main, > 0 above, < 0 below) of the last two axes: (..., k),
 * a copy. trace: its sum (reduce.h's sum dtypes: integers as int64). */
RS_API rs_status rs_diagonal(rs_array **out, const rs_array *a, int64_t offset, rs_stream *stream);
RS_API rs_status rs_diagonal_into(rs_array *dst, const rs_array *a, int64_t offset, rs_stream *stream);
RS_API rs_status rs_trace(rs_array **out, const rs_array *a, int64_t offset, rs_stream *stream);
RS_API rs_status rs_trace_into(rs_array *dst, const rs_array *a, int64_t offset, rs_stream *stream);

/* outer: x1 (m) and x2 (n), both 1-d, give (m, n) = x1[i] * x2[j]. vecdot: sum of
 * conj(x1) * x2 along `axis` of the broadcast shape (negative counts from the end, -1 the
 * standard's default); the operands must have the same length there (RS_ERR_SHAPE). */
RS_API rs_status rs_outer(rs_array **out, const rs_array *x1, const rs_array *x2, rs_stream *stream);
RS_API rs_status rs_outer_into(rs_array *dst, const rs_array *x1, const rs_array *x2, rs_stream *stream);
RS_API rs_status rs_vecdot(rs_array **out, const rs_array *x1, const rs_array *x2, int axis, rs_stream *stream);
RS_API rs_status rs_vecdot_into(rs_array *dst, const rs_array *x1, const rs_array *x2, int axis, rs_stream *stream);

/* Contract axes_a[i] of a with axes_b[i] of b (naxes pairs, same lengths; repeated or out
 * of range axes are RS_ERR_AXIS); the result has a's free axes then b's. The array API's
 * integer form `axes = N` is axes_a = the last N of a, axes_b = the first N of b. Runs as
 * a matmul of two contiguous copies: float and complex dtypes (as rs_matmul). */
RS_API rs_status rs_tensordot(rs_array **out, const rs_array *a, const rs_array *b, int naxes, const int *axes_a,
                              const int *axes_b, rs_stream *stream);
RS_API rs_status rs_tensordot_into(rs_array *dst, const rs_array *a, const rs_array *b, int naxes, const int *axes_a,
                                   const int *axes_b, rs_stream *stream);

/* a (..., n, n) to the power n by repeated squaring (matmul: float and complex dtypes for
 * n > 1); n = 0 the identity in a's dtype, n < 0 the power of rs_inv(a) (a singular
 * matrix is RS_ERR_INVALID_ARGUMENT). */
RS_API rs_status rs_matrix_power(rs_array **out, const rs_array *a, int64_t n, rs_stream *stream);
RS_API rs_status rs_matrix_power_into(rs_array *dst, const rs_array *a, int64_t n, rs_stream *stream);

/* The vector norm over naxes axes (axes NULL: all of them), keepdims as reduce.h: ord
 * INFINITY max |x|, -INFINITY min |x|, 0 the count of nonzeros, 1 sum |x|, 2 the Euclidean
 * norm, any other p (sum |x|^p)^(1/p); NaN is RS_ERR_INVALID_ARGUMENT. The result has the
 * real float dtype of x (integers and bool as float64). */
RS_API rs_status rs_vector_norm(rs_array **out, const rs_array *x, int naxes, const int *axes, int keepdims, double ord,
                                rs_stream *stream);
RS_API rs_status rs_vector_norm_into(rs_array *dst, const rs_array *x, int naxes, const int *axes, int keepdims,
                                     double ord, rs_stream *stream);

/* Matrix norms over the last two axes (keepdims: they stay as (..., 1, 1)). */
typedef enum rs_matrix_norm_ord {
  RS_NORM_FRO = 0, /* Frobenius */
  RS_NORM_NUC,     /* nuclear: the sum of the singular values */
  RS_NORM_1,       /* max over columns of sum |x| */
  RS_NORM_NEG1,    /* min over columns of sum |x| */
  RS_NORM_2,       /* the largest singular value */
  RS_NORM_NEG2,    /* the smallest singular value */
  RS_NORM_INF,     /* max over rows of sum |x| */
  RS_NORM_NEG_INF  /* min over rows of sum |x| */
} rs_matrix_norm_ord;
RS_API rs_status rs_matrix_norm(rs_array **out, const rs_array *x, rs_matrix_norm_ord ord, int keepdims, rs_stream *stream);
RS_API rs_status rs_matrix_norm_into(rs_array *dst, const rs_array *x, rs_matrix_norm_ord ord, int keepdims,
                                     rs_stream *stream);

/* The singular values (..., k), descending (rs_svd without vectors). */
RS_API rs_status rs_svdvals(rs_array **out, const rs_array *x, rs_stream *stream);
RS_API rs_status rs_svdvals_into(rs_array *dst, const rs_array *x, rs_stream *stream);

/* The number of singular values above rtol * the largest (int64, (...)); rtol < 0: the
 * standard's default max(m, n) * eps of the real dtype. NaN rtol is RS_ERR_INVALID_ARGUMENT. */
RS_API rs_status rs_matrix_rank(rs_array **out, const rs_array *x, double rtol, rs_stream *stream);
RS_API rs_status rs_matrix_rank_into(rs_array *dst, const rs_array *x, double rtol, rs_stream *stream);

/* The Moore-Penrose pseudo-inverse (..., n, m) from the economy SVD, singular values at
 * or below rtol * the largest treated as zero (rtol < 0: max(m, n) * eps). */
RS_API rs_status rs_pinv(rs_array **out, const rs_array *x, double rtol, rs_stream *stream);
RS_API rs_status rs_pinv_into(rs_array *dst, const rs_array *x, double rtol, rs_stream *stream);

/* NumPy's lstsq: a (m, n), b (m,) or (m, k). x minimizes ||b - a x||, the minimum-norm
 * solution when a is rank-deficient (x = V S^+ U^H b from the SVD, values at or below
 * rcond * the largest dropped; rcond < 0: max(m, n) * eps - NumPy's default). The SVD,
 * not QR, because NumPy's rank and singular values are part of the answer and the SVD
 * alone gives all of them, rank-deficient input included. Optional outputs (NULL: not
 * wanted): residuals (k,) (or (1,) for a 1-d b) the squared residual norms when rank = n
 * < m, else empty (0,) - finding that out reads the rank from the device (an implicit
 * copy of 8 bytes); rank (int64, 0-d); s (min(m, n)) the singular values. Not batched,
 * as NumPy's. */
RS_API rs_status rs_lstsq(rs_array **x, rs_array **residuals, rs_array **rank, rs_array **s, const rs_array *a,
                          const rs_array *b, double rcond, rs_stream *stream);

/* What the host path's matmul, SVD and solve run on: "OpenBLAS <version and build>" or
 * "C loops" (a static string); *threads (when threads is not NULL) the threads it uses. */
RS_API const char *rs_linalg_host_library(int *threads);

#ifdef __cplusplus
}
#endif
#endif
