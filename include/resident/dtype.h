/* resident/dtype.h - element types. */
#ifndef RESIDENT_DTYPE_H
#define RESIDENT_DTYPE_H

#include "resident/export.h"

#include <stddef.h>
#include "resident/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(enum, name, size in bytes). float16 is storage only: it can be allocated, copied and
 * viewed, and arithmetic on it widens to float32. The order is append-only. */
#define RS_DTYPE_LIST(X)           \
  X(RS_BOOL, "bool", 1)            \
  X(RS_INT8, "int8", 1)            \
  X(RS_INT16, "int16", 2)          \
  X(RS_INT32, "int32", 4)          \
  X(RS_INT64, "int64", 8)          \
  X(RS_UINT8, "uint8", 1)          \
  X(RS_UINT16, "uint16", 2)        \
  X(RS_UINT32, "uint32", 4)        \
  X(RS_UINT64, "uint64", 8)        \
  X(RS_FLOAT16, "float16", 2)      \
  X(RS_FLOAT32, "float32", 4)      \
  X(RS_FLOAT64, "float64", 8)      \
  X(RS_COMPLEX64, "complex64", 8)  \
  X(RS_COMPLEX128, "complex128", 16)

typedef enum rs_dtype {
#define RS_DTYPE_ENUM_(e, name, size) e,
  RS_DTYPE_LIST(RS_DTYPE_ENUM_)
#undef RS_DTYPE_ENUM_
  RS_DTYPE_COUNT
} rs_dtype;

/* Size of one element in bytes; 0 for a value that is not a dtype. Thread-safe. */
RS_API size_t rs_dtype_size(rs_dtype dtype);

/* NumPy's name ("float32"); "invalid" for a value that is not a dtype. Thread-safe. */
RS_API const char *rs_dtype_name(rs_dtype dtype);

/* Parse NumPy's name (also "f4", "f8", "i4", "i8", "double", and "float" / "int" with
 * NumPy's meaning: float64 / int64).
 * RS_ERR_DTYPE with a message for an unknown word. Thread-safe. */
RS_API rs_status rs_dtype_from_name(const char *name, rs_dtype *out);

/* 1 if dtype is a valid value. */
RS_API int rs_dtype_valid(rs_dtype dtype);

#ifdef __cplusplus
}
#endif
#endif
