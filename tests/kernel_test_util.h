/* Helpers shared by the user-kernel tests (test_kernel_*.c). */
#ifndef RS_KERNEL_TEST_UTIL_H
#define RS_KERNEL_TEST_UTIL_H

#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "resident.h"
#include "resident/kernel.h"

/* The absolute path of a file of the source tree ("examples/kernel_reduce.cu"), found from
 * this header's own path: the tests run from the build tree. */
static inline void kt_source_path(char *out, size_t len, const char *relative) {
  const char *self = __FILE__; /* .../tests/kernel_test_util.h */
  const char *cut = strstr(self, "tests/kernel_test_util.h");
  int root = cut ? (int)(cut - self) : 0;
  snprintf(out, len, "%.*s%s", root, self, relative);
}

/* Create a kernel or fail the test. */
#define KT_CREATE(k, ctx, src, name)                      \
  do {                                                    \
    CHECK_OK(rs_kernel_create(&(k), (ctx), (src), (name), NULL)); \
  } while (0)

/* Wrap n elements of host memory as a 1-D array (released by the caller). */
static inline rs_array *kt_wrap(rs_context *ctx, void *data, int64_t n, rs_dtype dt) {
  rs_array *a = NULL;
  return rs_host_array_wrap(&a, ctx, data, 1, &n, dt, NULL) == RS_OK ? a : NULL;
}

/* Create kernel `name` from src, launch it once with grid x block threads (1-D) and wait;
 * host arrays among args come back filled. The launch's status; its message is kept in
 * msg (when not NULL) before the kernel is destroyed. */
static inline rs_status kt_run(rs_context *ctx, const char *src, const char *name, unsigned grid, unsigned block,
                               int nargs, const rs_arg *args, char *msg, size_t len) {
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, ctx, src, name, NULL);
  if (st == RS_OK) {
    rs_launch_config cfg = {.grid = {grid}, .block = {block}};
    st = rs_kernel_launch(k, &cfg, nargs, args);
    if (st == RS_OK) st = rs_kernel_synchronize(k, NULL);
  }
  if (msg) snprintf(msg, len, "%s", st == RS_OK ? "" : rs_last_error());
  rs_kernel_destroy(k);
  return st;
}

#endif
