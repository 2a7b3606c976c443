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
 * reads a flag from the device (an implicit copy of 4 bytes per call, recorded). */
RS_API rs_status rs_solve(rs_array **x, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_solve_into(rs_array *x, const rs_array *a, const rs_array *b, rs_stream *stream);

/* ---- the array API's linalg extension: factorizations ----
 * Square-matrix functions (all but qr) take a (..., n, n) and refuse anything else with
 * RS_ERR_SHAPE; a matrix with n = 0, or fewer than 2 dimensions, is RS_ERR_SHAPE. bool and
 * integer input is factored in float64, float16 is RS_ERR_DTYPE. Batch axes are kept.
 * The work runs on a private column-major copy (LAPACK's layout): on the GPU cuSOLVER
 * (Xpotrf, Xgetrf, Xgeqrf + orgqr/ungqr, Xsyevd), on the host and the simulator LAPACKE;
 * a build without LAPACKE (RESIDENT_HOST_BLAS off or OpenBLAS not found) answers
 * RS_ERR_UNSUPPORTED there, naming the missing library. A failure flag is read back from
 * the device (an implicit copy of 4 bytes, recorded). Results are C-contiguous; an _into
 * destination must have exactly the result's shape and dtype and is written only on success
 * (eigenvalues, det, sign and logabsdet may be written by a call that then fails). */

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

/* What the host path's matmul, SVD and solve run on: "OpenBLAS <version and build>" or
 * "C loops" (a static string); *threads (when threads is not NULL) the threads it uses. */
RS_API const char *rs_linalg_host_library(int *threads);

#ifdef __cplusplus
}
#endif
#endif
