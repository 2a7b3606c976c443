/* Internal: the two public forms of every op that writes an array.
 *
 * An op is implemented once, as `impl(rs_array **io, ...)`: *io == NULL asks for a new
 * result, which *io receives on success; any other *io is the destination, checked
 * (shape, dtype, context) and written, and left as it is. The public API never shows
 * that double meaning: it gets two one-line forms of impl,
 *   name(rs_array **out, ...)      *out is write-only: it receives a NEW array;
 *   name_into(rs_array *dst, ...)  the result is written into dst.
 */
#ifndef RS_OPS_INTO_H
#define RS_OPS_INTO_H

#include "core/error.h"
#include "resident/array.h"

#define RS_OPS_UNPAREN_(...) __VA_ARGS__

/* Define name(rs_array **out, params) and name##_into(rs_array *dst, params) over
 * impl(rs_array **io, args). params and args are parenthesised lists. */
#define RS_OPS_PAIR(name, params, impl, args)                                       \
  rs_status name(rs_array **out, RS_OPS_UNPAREN_ params) {                         \
    rs_array *io_ = NULL; /* *out is never read */                                \
    if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", #name);       \
    rs_status st_ = impl(&io_, RS_OPS_UNPAREN_ args);                               \
    if (st_ == RS_OK) *out = io_;                                                   \
    return st_;                                                                     \
  }                                                                                 \
  rs_status name##_into(rs_array *dst, RS_OPS_UNPAREN_ params) {                   \
    if (!dst) return rs_fail(RS_ERR_NULL_POINTER, "%s_into: dst is NULL", #name);  \
    return impl(&dst, RS_OPS_UNPAREN_ args);                                        \
  }

#endif
