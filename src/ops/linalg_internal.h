/* Internal to the linear algebra ops (decomp.c, linalg_*.c): the dtype rule of the
 * decompositions, private copies in the layouts the backends take, results written
 * through a C-contiguous work array, and the flag a backend leaves on the device. */
#ifndef RS_OPS_LINALG_INTERNAL_H
#define RS_OPS_LINALG_INTERNAL_H

#include "ops/ops_internal.h"

/* float32/64, complex64/128 from the promotion of a and b (matmul.c). */
rs_status rs_linalg_dtype(rs_dtype *out, rs_dtype a, rs_dtype b, const char *who);
/* The same, bool and integers decomposed in float64 as NumPy does; float16 refused. */
rs_status rs_decomp_dtype(rs_dtype *out, rs_dtype a, rs_dtype b, const char *who);

/* A private copy of x as dtype dt with the given shape (broadcasting x), on x's side,
 * with the given byte strides (NULL: C-contiguous). */
rs_status rs_decomp_private_copy(rs_array **out, const rs_array *x, rs_dtype dt, int ndim, const int64_t *shape,
                                 const int64_t *strides, rs_stream *stream, const char *who);

/* The flag a backend left in `info` (an int32 array of one element), read through the
 * copy path (an implicit copy of 4 bytes, recorded). */
rs_status rs_decomp_read_flag(int32_t *flag, rs_array *info, rs_stream *stream, const char *who);

/* An output: the op's result (rs_ops_result); `work` is where the backend writes - the
 * result itself when C-contiguous, else a temporary copied over by finish. */
typedef struct rs_decomp_out {
  rs_ops_result r;
  rs_array *work;
} rs_decomp_out;

rs_status rs_decomp_out_prepare(rs_decomp_out *o, rs_array **user, rs_context *ctx, int on_device, int ndim,
                                const int64_t *shape, rs_dtype dt, const char *who);
/* After the work with status st: copy a temporary into the result; returns the status. */
rs_status rs_decomp_out_finish(rs_decomp_out *o, rs_status st, rs_stream *stream, const char *who);

/* rs_solve with `who` naming the calling op in messages (inv solves against I). */
rs_status rs_decomp_solve(rs_array **x, const rs_array *a, const rs_array *b, rs_stream *stream, const char *who);

/* The two forms of a composed op (linalg_compose.c, linalg_norms.c): impl(&r, args...)
 * makes a new array r from existing ops; the new-array form hands it over, the _into
 * form copies it into dst (same context, exactly r's shape) and releases it. */
rs_status rs_compose_into(rs_array *dst, rs_array *r, rs_status st, rs_stream *stream, const char *who);

#define RS_COMPOSE_PAIR(name, params, impl, args)                                   \
  rs_status name(rs_array **out, RS_OPS_UNPAREN_ params) {                         \
    if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", #name);       \
    rs_array *r_ = NULL; /* *out is never read */                                  \
    rs_status st_ = impl(&r_, RS_OPS_UNPAREN_ args);                                \
    if (st_ == RS_OK) *out = r_;                                                    \
    return st_;                                                                     \
  }                                                                                 \
  rs_status name##_into(rs_array *dst, RS_OPS_UNPAREN_ params) {                   \
    if (!dst) return rs_fail(RS_ERR_NULL_POINTER, "%s_into: dst is NULL", #name);  \
    rs_status st_ = rs_array_check(dst, #name "_into");                             \
    rs_array *r_ = NULL;                                                            \
    if (st_ == RS_OK) st_ = impl(&r_, RS_OPS_UNPAREN_ args);                        \
    return rs_compose_into(dst, r_, st_, stream, #name "_into");                    \
  }

#endif
