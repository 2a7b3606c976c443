/* Internal: what array operations ask of a backend - the ops table of its descriptor
 * (src/backend/backend.h), so ops grow without touching the runtime table.
 *
 * The ops layer (src/ops) does everything that does not depend on where the data is:
 * validation, type promotion, broadcasting, result allocation, the decision where an op
 * runs, the implicit copies of mixed operands. It hands a backend a PLAN: plain structs
 * with addresses the backend can use (device pointers for the device tables, host
 * pointers for the host table), byte strides and dtypes, already checked. A backend
 * entry queues the work on `stream` and may return before it is done; it does not
 * allocate results (those are arrays of the ops layer) but may use private scratch
 * memory ordered on the stream.
 *
 * Three tables exist: the simulator's and the CUDA backend's (device work), and the host
 * table (src/backend/host_ops.c): the native loops run at once on the calling thread and
 * the host thread pool (src/native/native_pool.c), for
 * ops whose data is all on the host (its `b` and `stream` are ignored). The native loops are
 * written once (src/native/) and serve the simulator and the host path. The plans are
 * declared with them (src/native/plans.h).
 *
 * Included by C and by CUDA C++ (.cu) files.
 */
#ifndef RS_BACKEND_OPS_TABLE_H
#define RS_BACKEND_OPS_TABLE_H

#include <stdint.h>
#include "backend/backend.h"
#include "native/plans.h"
#include "native/plans_index.h" /* indexing, searching, sets */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the table --------------------------------------------------------------------- */
typedef struct rs_ops_table {
  const char *name;
  rs_status (*ew)(rs_backend *b, const rs_ew_program *p, const rs_ew_geom *g, void *stream);
  rs_status (*reduce)(rs_backend *b, const rs_reduce_plan *p, void *stream);
  rs_status (*sort)(rs_backend *b, const rs_sort_plan *p, void *stream);
  rs_status (*random)(rs_backend *b, const rs_random_plan *p, void *stream);
  rs_status (*matmul)(rs_backend *b, const rs_matmul_plan *p, void *stream);
  rs_status (*svd)(rs_backend *b, const rs_svd_plan *p, void *stream);
  rs_status (*solve)(rs_backend *b, const rs_solve_plan *p, void *stream);
  /* indexing, searching, sets (native/plans_index.h) */
  rs_status (*index)(rs_backend *b, const rs_index_plan *p, void *stream);
  rs_status (*select)(rs_backend *b, const rs_select_plan *p, void *stream);
  rs_status (*unique)(rs_backend *b, const rs_unique_plan *p, void *stream);
  rs_status (*search)(rs_backend *b, const rs_search_plan *p, void *stream);
  /* stats: cumulative sums and products; var / std over trailing axes in two passes */
  rs_status (*scan)(rs_backend *b, const rs_scan_plan *p, void *stream);
  rs_status (*moments)(rs_backend *b, const rs_moments_plan *p, void *stream);
  /* linalg extension: cholesky, LU (det/slogdet), QR, eigh */
  rs_status (*factor)(rs_backend *b, const rs_factor_plan *p, void *stream);
} rs_ops_table;

/* The host path: native loops run synchronously (the calling thread and the host pool). A device
 * backend's table is its descriptor's `ops`. */
extern const rs_ops_table rs_ops_host;

#ifdef __cplusplus
}
#endif
#endif
