/* Native SVD, the fallback where the build has no LAPACK (native_lapack.c): one-sided Jacobi (Hestenes), in double precision (complex double for
 * complex input) whatever the dtype. W = A V is orthogonalised column pair by column pair
 * with plane rotations until every pair is orthogonal to working precision; then the
 * singular values are the column norms and U the normalised columns. Jacobi is slow next
 * to LAPACK but simple and accurate to high relative precision - correct first.
 *
 * A wide matrix (m < n) is handled through its conjugate transpose. Columns of U that
 * the values leave undetermined (zero singular values, and the extra columns of the full
 * U) are an orthonormal completion: the trailing columns of the Q of a Householder QR of
 * the determined ones. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "native/native.h"
#include "native/native_blas.h"

typedef double _Complex zc;

#define MAX_SWEEPS 60

/* Scratch per matrix, complex double for every entry (one code path), M = max(m, n),
 * N = min(m, n): W (M x N, plus M: reused as the completion's work space), V (N x N),
 * U (M x M at most), the values, and index lists. */
static size_t per_matrix(const rs_svd_plan *p) {
  size_t M = (size_t)(p->m > p->n ? p->m : p->n), N = (size_t)(p->m < p->n ? p->m : p->n);
  return (M * N + M + N * N + M * M) * sizeof(zc) + N * sizeof(double) + (2 * N + M) * sizeof(int64_t);
}

size_t rs_native_svd_scratch(const rs_svd_plan *p) {
  return per_matrix(p) * (size_t)p->batch + sizeof(int32_t) * (size_t)p->batch;
}

static zc load(rs_dtype dt, const void *base, int64_t i) {
  switch (dt) {
    case RS_FLOAT32: return ((const float *)base)[i];
    case RS_FLOAT64: return ((const double *)base)[i];
    case RS_COMPLEX64: return ((const float _Complex *)base)[i];
    default: return ((const double _Complex *)base)[i];
  }
}

static void store(rs_dtype dt, void *base, int64_t i, zc v) {
  switch (dt) {
    case RS_FLOAT32: ((float *)base)[i] = (float)creal(v); break;
    case RS_FLOAT64: ((double *)base)[i] = creal(v); break;
    case RS_COMPLEX64: ((float _Complex *)base)[i] = (float _Complex)v; break;
    default: ((double _Complex *)base)[i] = v; break;
  }
}

static rs_dtype real_of(rs_dtype dt) {
  return dt == RS_COMPLEX64 ? RS_FLOAT32 : dt == RS_COMPLEX128 ? RS_FLOAT64 : dt;
}

/* Columns are stored contiguously: column j of an R-row matrix at X + j * R. */
static double col_norm2(const zc *x, int64_t r) {
  double s = 0;
  for (int64_t i = 0; i < r; i++) s += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
  return s;
}

static zc col_dot(const zc *x, const zc *y, int64_t r) { /* x^H y */
  zc s = 0;
  for (int64_t i = 0; i < r; i++) s += conj(x[i]) * y[i];
  return s;
}

/* Rotate columns (x, y) after multiplying y by phase: x' = c x - s y~, y' = s x + c y~. */
static void rotate(zc *x, zc *y, int64_t r, double c, double s, zc phase) {
  for (int64_t i = 0; i < r; i++) {
    zc a = x[i], b = phase * y[i];
    x[i] = c * a - s * b;
    y[i] = s * a + c * b;
  }
}

/* One-sided Jacobi on W (M x N, M >= N), accumulating V (N x N). 0 when converged. */
static int jacobi(zc *W, zc *V, int64_t M, int64_t N) {
  const double tol = 1e-15;
  for (int sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    int rotated = 0;
    for (int64_t p = 0; p < N - 1; p++) {
      for (int64_t q = p + 1; q < N; q++) {
        zc *wp = W + p * M, *wq = W + q * M;
        double alpha = col_norm2(wp, M), beta = col_norm2(wq, M);
        zc gamma = col_dot(wp, wq, M);
        double g = cabs(gamma);
        if (g == 0 || g <= tol * sqrt(alpha * beta)) continue;
        rotated = 1;
        zc phase = conj(gamma) / g; /* makes w_p^H (phase w_q) = |gamma|, real */
        double zeta = (beta - alpha) / (2 * g);
        double t = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1 + zeta * zeta));
        double c = 1 / sqrt(1 + t * t), s = c * t;
        rotate(wp, wq, M, c, s, phase);
        rotate(V + p * N, V + q * N, N, c, s, phase);
      }
    }
    if (!rotated) return 0;
  }
  return 1;
}

/* Fill columns `missing` of U (M rows; `have` of its columns determined and orthonormal)
 * so all `total` columns are orthonormal: Householder QR of the determined columns, and
 * the trailing columns of its Q. work: M*have + M entries. */
static void complete(zc *U, int64_t M, const int64_t *have, int64_t nhave, const int64_t *missing,
                     int64_t nmissing, zc *work) {
  if (nmissing == 0) return;
  zc *R = work, *x = work + M * nhave; /* R: the determined columns, reduced in place */
  for (int64_t j = 0; j < nhave; j++) memcpy(R + j * M, U + have[j] * M, (size_t)M * sizeof(zc));
  /* Householder vectors v_j kept in R's column j from row j: H_j = I - 2 v v^H / (v^H v) */
  for (int64_t j = 0; j < nhave; j++) {
    zc *col = R + j * M;
    double nrm = sqrt(col_norm2(col + j, M - j));
    zc a = col[j];
    zc ph = cabs(a) > 0 ? a / cabs(a) : 1;
    col[j] = a + ph * nrm; /* v = x + phase(x_j) |x| e_j: no cancellation */
    double vv = col_norm2(col + j, M - j);
    if (vv == 0) continue;
    for (int64_t k = j + 1; k < nhave; k++) { /* apply H_j to the later columns */
      zc *ck = R + k * M;
      zc d = col_dot(col + j, ck + j, M - j) * (2.0 / vv);
      for (int64_t i = j; i < M; i++) ck[i] -= d * col[i];
    }
  }
  /* Q e_t for t = nhave, nhave+1, ...: apply H_{nhave-1} ... H_0 in reverse order. */
  for (int64_t m = 0; m < nmissing; m++) {
    int64_t t = nhave + m;
    for (int64_t i = 0; i < M; i++) x[i] = i == t ? 1 : 0;
    for (int64_t j = nhave - 1; j >= 0; j--) {
      const zc *v = R + j * M;
      double vv = col_norm2(v + j, M - j);
      if (vv == 0) continue;
      zc d = col_dot(v + j, x + j, M - j) * (2.0 / vv);
      for (int64_t i = j; i < M; i++) x[i] -= d * v[i];
    }
    memcpy(U + missing[m] * M, x, (size_t)M * sizeof(zc));
  }
}

typedef struct svd_job {
  const rs_svd_plan *p;
  unsigned char *scratch;
  int32_t *flags;
} svd_job;

static void svd_one(const rs_svd_plan *p, int64_t q, unsigned char *s, int32_t *flag) {
  int64_t m = p->m, n = p->n, k = m < n ? m : n;
  int wide = m < n;
  int64_t M = wide ? n : m, N = wide ? m : n; /* the tall problem */
  zc *W = (zc *)(void *)s, *V = W + M * N + M, *U = V + N * N;
  double *sig = (double *)(void *)(U + M * M);
  int64_t *order = (int64_t *)(void *)(sig + N), *hv = order + N, *ms = hv + N;
  size_t isz = rs_dtype_size(p->dtype);
  const char *a = (const char *)p->a + (size_t)(q * m * n) * isz;
  /* W's column j: column j of A (tall) or of A^H (wide) */
  for (int64_t j = 0; j < N; j++)
    for (int64_t i = 0; i < M; i++) W[j * M + i] = wide ? conj(load(p->dtype, a, j * n + i)) : load(p->dtype, a, i * n + j);
  for (int64_t j = 0; j < N; j++)
    for (int64_t i = 0; i < N; i++) V[j * N + i] = i == j;
  *flag = jacobi(W, V, M, N);
  for (int64_t j = 0; j < N; j++) {
    sig[j] = sqrt(col_norm2(W + j * M, M));
    order[j] = j;
  }
  for (int64_t i = 1; i < N; i++) /* descending, stable */
    for (int64_t j = i; j > 0 && sig[order[j]] > sig[order[j - 1]]; j--) {
      int64_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  rs_dtype rdt = real_of(p->dtype);
  char *sout = (char *)p->s + (size_t)(q * k) * rs_dtype_size(rdt);
  for (int64_t j = 0; j < k; j++) store(rdt, sout, j, sig[order[j]]);
  if (!p->compute_uv) return;
  /* U (tall problem): normalised columns in value order; zero columns completed */
  int64_t ucols = p->full ? M : N, nhave = 0, nms = 0;
  double smax = N > 0 ? sig[order[0]] : 0;
  for (int64_t j = 0; j < N; j++) {
    double sj = sig[order[j]];
    const zc *w = W + order[j] * M;
    if (sj > 0 && sj > smax * 1e-300) {
      for (int64_t i = 0; i < M; i++) U[j * M + i] = w[i] / sj;
      hv[nhave++] = j;
    } else {
      ms[nms++] = j;
    }
  }
  for (int64_t j = N; j < ucols; j++) ms[nms++] = j;
  complete(U, M, hv, nhave, ms, nms, W); /* W is no longer needed: QR work space */
  /* outputs: tall A = U S V^H; wide A = V S U^H */
  size_t ucount = (size_t)(p->full ? m * m : m * k), vcount = (size_t)(p->full ? n * n : k * n);
  char *uo = (char *)p->u + (size_t)q * ucount * isz, *vo = (char *)p->vh + (size_t)q * vcount * isz;
  if (!wide) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < ucols; j++) store(p->dtype, uo, i * ucols + j, U[j * M + i]);
    for (int64_t r = 0; r < n; r++) /* vh row r = conj(V column order[r]) */
      for (int64_t c = 0; c < n; c++) store(p->dtype, vo, r * n + c, conj(V[order[r] * N + c]));
  } else {
    for (int64_t i = 0; i < m; i++) /* u = V (m x m) in value order */
      for (int64_t j = 0; j < m; j++) store(p->dtype, uo, i * m + j, V[order[j] * N + i]);
    for (int64_t r = 0; r < ucols; r++) /* vh = U^H: rows are conjugated U columns */
      for (int64_t c = 0; c < n; c++) store(p->dtype, vo, r * n + c, conj(U[r * M + c]));
  }
}

static void svd_body(int64_t q0, int64_t q1, void *arg) {
  const svd_job *j = arg;
  for (int64_t q = q0; q < q1; q++) svd_one(j->p, q, j->scratch + (size_t)q * per_matrix(j->p), &j->flags[q]);
}

void rs_native_svd(rs_thread_pool *pool, const rs_svd_plan *p, void *scratch) {
  if (rs_blas_svd(p, scratch)) return;
  size_t flags_at = per_matrix(p) * (size_t)p->batch;
  svd_job j = {p, scratch, (int32_t *)(void *)((unsigned char *)scratch + flags_at)};
  int64_t M = p->m > p->n ? p->m : p->n;
  rs_native_batch(pool, p->batch, p->batch * M * M * 8, svd_body, &j, j.flags, p->info);
}
