/* dtype sizes, names and parsing. */
#include <string.h>
#include "core/error.h"
#include "resident/dtype.h"

static const struct {
  const char *name;
  size_t size;
} rs_dtype_table[RS_DTYPE_COUNT] = {
#define RS_DTYPE_ROW_(e, name, size) {name, size},
    RS_DTYPE_LIST(RS_DTYPE_ROW_)
#undef RS_DTYPE_ROW_
};

int rs_dtype_valid(rs_dtype dtype) { return (int)dtype >= 0 && dtype < RS_DTYPE_COUNT; }

size_t rs_dtype_size(rs_dtype dtype) { return rs_dtype_valid(dtype) ? rs_dtype_table[dtype].size : 0; }

const char *rs_dtype_name(rs_dtype dtype) {
  return rs_dtype_valid(dtype) ? rs_dtype_table[dtype].name : "invalid";
}

static const struct {
  const char *alias;
  rs_dtype dtype;
} rs_dtype_aliases[] = {
    {"?", RS_BOOL},       {"b1", RS_BOOL},      {"i1", RS_INT8},       {"i2", RS_INT16},
    {"i4", RS_INT32},     {"i8", RS_INT64},     {"u1", RS_UINT8},      {"u2", RS_UINT16},
    {"u4", RS_UINT32},    {"u8", RS_UINT64},    {"f2", RS_FLOAT16},    {"half", RS_FLOAT16},
    {"f4", RS_FLOAT32},   {"float", RS_FLOAT64}, {"f8", RS_FLOAT64},   {"double", RS_FLOAT64},
    {"c8", RS_COMPLEX64}, {"c16", RS_COMPLEX128}, {"int", RS_INT64},
};

rs_status rs_dtype_from_name(const char *name, rs_dtype *out) {
  if (!out || !name) return rs_fail(RS_ERR_NULL_POINTER, "rs_dtype_from_name: NULL argument");
  for (int i = 0; i < RS_DTYPE_COUNT; i++) {
    if (strcmp(name, rs_dtype_table[i].name) == 0) {
      *out = (rs_dtype)i;
      return RS_OK;
    }
  }
  for (size_t i = 0; i < sizeof rs_dtype_aliases / sizeof rs_dtype_aliases[0]; i++) {
    if (strcmp(name, rs_dtype_aliases[i].alias) == 0) {
      *out = rs_dtype_aliases[i].dtype;
      return RS_OK;
    }
  }
  return rs_fail(RS_ERR_DTYPE,
                 "unknown dtype '%s' (expected bool, int8..int64, uint8..uint64, float16, "
                 "float32, float64, complex64, complex128)",
                 name);
}
