/* Internal: setting the thread-local message. */
#ifndef RS_CORE_ERROR_H
#define RS_CORE_ERROR_H

#include "resident/status.h"

#if defined(__GNUC__)
#define RS_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define RS_PRINTF(a, b)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Set this thread's message and return status, so failures read
 * `return rs_fail(RS_ERR_SHAPE, "reshape %s: ...", ...);` */
rs_status rs_fail(rs_status status, const char *fmt, ...) RS_PRINTF(2, 3);

/* Prefix the current message with more context ("to_device: " + old message) and
 * return status unchanged. */
rs_status rs_fail_prefix(rs_status status, const char *fmt, ...) RS_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

/* Propagate a failure: RS_TRY(expr); returns its status from the enclosing function. */
#define RS_TRY(expr)                      \
  do {                                    \
    rs_status rs_try_status_ = (expr);    \
    if (rs_try_status_ != RS_OK) return rs_try_status_; \
  } while (0)

#endif
