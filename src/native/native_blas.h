/* Internal: the host linear algebra through an optimized BLAS/LAPACK (CBLAS and LAPACKE,
 * OpenBLAS where the build found it: RS_HOST_BLAS). Each call returns 1 when it did the
 * work, 0 when the plan is one it leaves to the plain C loops (no BLAS in this build, a
 * layout or a size BLAS cannot take). Same plans, same outputs and info flags as the
 * loops. */
#ifndef RS_NATIVE_BLAS_H
#define RS_NATIVE_BLAS_H

#include "native/plans.h"

int rs_blas_matmul(const rs_matmul_plan *p);
/* scratch: at least rs_native_solve_scratch / rs_native_svd_scratch bytes */
int rs_blas_solve(const rs_solve_plan *p, void *scratch);
int rs_blas_svd(const rs_svd_plan *p, void *scratch);

/* The library doing the work ("OpenBLAS 0.3.21 ..." or "C loops") and its thread count. */
const char *rs_blas_name(void);
int rs_blas_threads(void);
/* Run the BLAS on n threads (RESIDENT_HOST_THREADS when set; otherwise the BLAS keeps
 * its own default, OPENBLAS_NUM_THREADS or one per CPU). */
void rs_blas_set_threads(int n);

#endif
