/* The host path's op table: the native loops (src/native) run at once on the calling
 * thread, for ops whose operands are all host memory. */
#include <stdlib.h>
#include "backend/ops_table.h"
#include "core/error.h"
#include "native/native.h"

static rs_status host_ew(rs_backend *b, const rs_ew_program *p, const rs_ew_geom *g, void *stream) {
  (void)b, (void)stream;
  rs_native_ew(NULL, p, g);
  return RS_OK;
}

static rs_status host_reduce(rs_backend *b, const rs_reduce_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  RS_TRY(rs_native_scratch(&scratch, rs_native_reduce_scratch(p), "host reduce"));
  rs_native_reduce(NULL, p, scratch);
  free(scratch);
  return RS_OK;
}

static rs_status host_sort(rs_backend *b, const rs_sort_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  RS_TRY(rs_native_scratch(&scratch, rs_native_sort_scratch(p), "host sort"));
  rs_native_sort(NULL, p, scratch);
  free(scratch);
  return RS_OK;
}

static rs_status host_random(rs_backend *b, const rs_random_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_native_random(NULL, p);
  return RS_OK;
}

static rs_status host_matmul(rs_backend *b, const rs_matmul_plan *p, void *stream) {
  (void)b, (void)stream;
  rs_native_matmul(NULL, p);
  return RS_OK;
}

static rs_status host_svd(rs_backend *b, const rs_svd_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  RS_TRY(rs_native_scratch(&scratch, rs_native_svd_scratch(p), "host svd"));
  rs_native_svd(NULL, p, scratch);
  free(scratch);
  return RS_OK;
}

static rs_status host_solve(rs_backend *b, const rs_solve_plan *p, void *stream) {
  (void)b, (void)stream;
  void *scratch = NULL;
  RS_TRY(rs_native_scratch(&scratch, rs_native_solve_scratch(p), "host solve"));
  rs_native_solve(NULL, p, scratch);
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
};
