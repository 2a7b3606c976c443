/* resident/status.h - status codes and the thread-local error message.
 *
 * Every fallible call returns rs_status: RS_OK (0) on success, a negative code on
 * failure. On failure rs_last_error() holds a message saying what exactly went wrong
 * ("reshape (3,4)->(5,2): 12 elements cannot become 10"). A failed call changes
 * nothing, consumes nothing and leaks nothing. The library never aborts and never
 * prints unless asked to.
 *
 * The list is append-only: codes are grouped by tens and a code's value never changes.
 */
#ifndef RESIDENT_STATUS_H
#define RESIDENT_STATUS_H

#include "resident/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description) */
#define RS_STATUS_LIST(X)                                                              \
  X(RS_OK, 0, "success")                                                               \
  /* arguments */                                                                      \
  X(RS_ERR_INVALID_ARGUMENT, -1, "invalid argument")                                   \
  X(RS_ERR_NULL_POINTER, -2, "NULL handle or pointer")                                 \
  X(RS_ERR_PARSE, -3, "value does not parse")                                          \
  /* shapes and dtypes */                                                              \
  X(RS_ERR_SHAPE, -10, "invalid or mismatched shape")                                  \
  X(RS_ERR_DTYPE, -11, "invalid or mismatched dtype")                                  \
  X(RS_ERR_OVERFLOW, -12, "element or byte count overflows")                           \
  X(RS_ERR_TOO_MANY_DIMS, -13, "more dimensions than RS_MAX_DIMS")                     \
  X(RS_ERR_NOT_CONTIGUOUS, -14, "operation needs contiguous memory")                   \
  X(RS_ERR_INDEX, -15, "index or slice out of range")                                  \
  X(RS_ERR_AXIS, -16, "axis out of range")                                             \
  X(RS_ERR_BROADCAST, -17, "shapes do not broadcast")                                  \
  /* memory */                                                                         \
  X(RS_ERR_OUT_OF_MEMORY, -20, "device out of memory")                                 \
  X(RS_ERR_HOST_OUT_OF_MEMORY, -21, "host out of memory")                              \
  X(RS_ERR_MEMORY_KIND, -22, "wrong memory kind for this operation")                   \
  X(RS_ERR_DOUBLE_FREE, -23, "memory freed twice")                                     \
  X(RS_ERR_FOREIGN_MEMORY, -24, "memory belongs to another context or allocator")      \
  X(RS_ERR_LIMIT, -25, "memory limit invalid or exceeded")                             \
  /* devices and backends */                                                           \
  X(RS_ERR_NO_DEVICE, -30, "no device answers on this backend")                        \
  X(RS_ERR_DEVICE, -31, "device or driver error")                                      \
  X(RS_ERR_UNSUPPORTED, -32, "not supported by this backend or device")                \
  X(RS_ERR_KERNEL_FAULT, -33, "kernel faulted; the context may be unusable")           \
  X(RS_ERR_CONTEXT_LOST, -34, "context is no longer usable")                           \
  /* compilation and launch */                                                         \
  X(RS_ERR_COMPILE, -40, "compilation failed")                                         \
  X(RS_ERR_NOT_FOUND, -41, "name not found")                                           \
  X(RS_ERR_LAUNCH, -42, "invalid launch configuration or arguments")                   \
  /* transfer guard */                                                                 \
  X(RS_ERR_TRANSFER_REFUSED, -50, "transfer refused by the transfer guard")            \
  /* object state */                                                                   \
  X(RS_ERR_DESTROYED, -60, "handle was destroyed")                                     \
  X(RS_ERR_RELEASED, -61, "array was already released")                                \
  X(RS_ERR_STATE, -62, "call not valid in the current state")                          \
  X(RS_ERR_NOT_READY, -63, "result not ready")                                         \
  /* checks */                                                                         \
  X(RS_ERR_NOT_CLOSE, -70, "arrays differ beyond the tolerance")                       \
  /* files */                                                                          \
  X(RS_ERR_IO, -80, "a file could not be opened or written")                           \
  X(RS_ERR_INTERNAL, -99, "internal error")

typedef enum rs_status {
#define RS_STATUS_ENUM_(name, value, text) name = value,
  RS_STATUS_LIST(RS_STATUS_ENUM_)
#undef RS_STATUS_ENUM_
} rs_status;

/* The code's own name ("RS_ERR_SHAPE"), or "RS_UNKNOWN_STATUS". Thread-safe, static. */
RS_API const char *rs_status_name(rs_status status);

/* A short English description of the code. Thread-safe, static storage. */
RS_API const char *rs_status_str(rs_status status);

/* The message of the last failed call made by this thread ("" if none yet). The
 * storage is thread-local and stays valid until this thread's next failing call.
 * Thread-safe. */
RS_API const char *rs_last_error(void);

/* Forget this thread's last message. Thread-safe. */
RS_API void rs_clear_error(void);

#ifdef __cplusplus
}
#endif
#endif
