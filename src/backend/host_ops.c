/* The host path's op table: the native loops (src/native) run at once, for ops whose
 * operands are all host memory, on the calling thread and the host thread pool
 * (native_pool.c; each loop splits only work big enough to gain from it, and its result
 * does not depend on the number of threads). */
#include <stdlib.h>
#include "backend/ops_table.h"
#include "core/error.h"
#include "native/native.h"
#include "native/native_index.h"

static rs_status host_ew(rs_backend *b, const rs_ew_program *p, const rs_ew_geom *g, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_ew(pool, p, g);
  return RS_OK;
}

static rs_status host_reduce(rs_backend *b, const rs_reduce_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  RS_TRY(rs_native_scratch(&scratch, rs_native_reduce_scratch(p), "host reduce"));
  rs_native_reduce(pool, p, scratch);
  free(scratch);
  return RS_OK;
}

static rs_status host_sort(rs_backend *b, const rs_sort_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  RS_TRY(rs_native_scratch(&scratch, rs_native_sort_scratch(p), "host sort"));
  rs_native_sort(pool, p, scratch);
  free(scratch);
  return RS_OK;
}

static rs_status host_random(rs_backend *b, const rs_random_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_random(pool, p);
  return RS_OK;
}

static rs_status host_matmul(rs_backend *b, const rs_matmul_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool; /* the C loops' (a BLAS uses its own threads) */
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_matmul(pool, p);
  return RS_OK;
}

static rs_status host_svd(rs_backend *b, const rs_svd_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  RS_TRY(rs_native_scratch(&scratch, rs_native_svd_scratch(p), "host svd"));
  rs_native_svd(pool, p, scratch);
  free(scratch);
  return RS_OK;
}

static rs_status host_solve(rs_backend *b, const rs_solve_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  RS_TRY(rs_native_scratch(&scratch, rs_native_solve_scratch(p), "host solve"));
  rs_native_solve(pool, p, scratch);
  free(scratch);
  return RS_OK;
}

/* indexing, searching, sets */
static rs_status host_index(rs_backend *b, const rs_index_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_index(pool, p);
  return RS_OK;
}

static rs_status host_select(rs_backend *b, const rs_select_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_native_select(p);
  return RS_OK;
}

static rs_status host_unique(rs_backend *b, const rs_unique_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_native_unique(p);
  return RS_OK;
}

static rs_status host_search(rs_backend *b, const rs_search_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_search(pool, p);
  return RS_OK;
}

/* stats */
static rs_status host_scan(rs_backend *b, const rs_scan_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_scan(pool, p);
  return RS_OK;
}

static rs_status host_moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_thread_pool *pool;
  RS_TRY(rs_native_host_pool(&pool));
  rs_native_moments(pool, p);
  return RS_OK;
}

/* linalg extension: the factorizations (LAPACKE; refused in a build without it) */
static rs_status host_factor(rs_backend *b, const rs_factor_plan *p, void *stream) {
  (void)b, (void)stream;
  RS_TRY(rs_native_factor_check(p, "host"));
  void *scratch = NULL;
  RS_TRY(rs_native_scratch(&scratch, rs_native_factor_scratch(p), "host factor"));
  rs_native_factor(p, scratch);
  free(scratch);
  return RS_OK;
}

const rs_ops_table rs_ops_host = {
    .name = "host",
    .ew = host_ew,
    .reduce = host_reduce,
    .sort = host_sort,
    .random = host_random,
    .matmul = host_matmul,
    .svd = host_svd,
    .solve = host_solve,
    /* indexing, searching, sets */
    .index = host_index,
    .select = host_select,
    .unique = host_unique,
    .search = host_search,
    /* stats */
    .scan = host_scan,
    .moments = host_moments,
    .factor = host_factor, /* linalg extension */
};
