/* Helpers shared by the user-kernel tests (test_kernel_*.c). */
#ifndef RS_KERNEL_TEST_UTIL_H
#define RS_KERNEL_TEST_UTIL_H

#include <stdio.h>
#include <string.h>
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

#endif
