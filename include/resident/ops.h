/* resident/ops.h - NumPy-like operations on arrays: creation, elementwise math with
 * broadcasting and type promotion, casts, fused expressions, single elements to the host,
 * and checks. Reductions, sorting, random numbers and linear algebra have their own
 * headers (reduce.h, sort.h, random.h, linalg.h); they follow the same rules.
 *
 * WHERE AN OP RUNS - where its data is.
 *   - Every array operand on the host (pageable, pinned or mapped memory): the op runs
 *     at once, synchronously, with the same C loops the simulator uses and no copy at all
 *     (NumPy's role): on the calling thread, and for large arrays also on the host thread
 *     pool (rs_host_threads; the result is the same bits whatever the number of
 *     threads). Matmul, SVD and solve run on an optimized BLAS where the build has one
 *     (rs_linalg_host_library). New results are pageable host arrays.
 *   - Any operand on the device (device or managed memory): the op runs on the device,
 *     ordered on `stream` (NULL = the context's default stream), and returns without
 *     waiting. New results are device arrays. Host operands of such an op are copied in
 *     (and a host destination back) IMPLICITLY, as a kernel launch does: the ledger records
 *     those copies as implicit and the transfer guard may refuse them
 *     (RS_ERR_TRANSFER_REFUSED, nothing computed); such a call returns after the copy back.
 *     A host `out` is only written, so it is copied back, not in (unless it is an operand
 *     too); a host array read twice is copied in once.
 *   So one program runs CPU-only or on the GPU by choosing where its data is created
 *   (the `where` argument of the creation functions) - NumPy's `xp = np` / `xp = cp`.
 *
 * RESULTS: every op that produces an array comes in two forms (resident.h, CONVENTIONS):
 *   - rs_X(rs_array **out, ...): a NEW array (C order, or F order when every full-shape
 *     input is F-contiguous); *out receives it (one reference, release it). *out is
 *     write-only: its previous value is never read, so `rs_array *y;` is fine - and a
 *     second call with the same &y makes a second array (release the first).
 *   - rs_X_into(rs_array *dst, ...): the result is written into dst, an existing array
 *     that may be one of the inputs (in place) and may be any view. Its shape must be the
 *     result's shape, or one the inputs broadcast to (RS_ERR_SHAPE); its dtype one the
 *     result casts to under NumPy's "same_kind" rule (RS_ERR_DTYPE); and it must belong
 *     to the same context (RS_ERR_INVALID_ARGUMENT). A dst overlapping an input other
 *     than exactly (same view) is computed through a temporary, so the result is as if
 *     the inputs were read first. A loop that must not allocate uses the _into form.
 *   On failure nothing is written (dst) and no array is returned (out).
 *
 * TYPES follow NumPy 2: binary ops promote their operands (int8 + uint8 -> int16,
 * int64 + float32 -> float64), true division and math functions of integers give floats
 * (int16 -> float32, int32 -> float64), comparisons give bool. Scalars are "weak"
 * (NEP 50): int8 array + rs_scalar_int(1) stays int8, int8 array + rs_scalar_float(1)
 * becomes float64, float32 array + rs_scalar_float(1) stays float32; an integer scalar
 * that does not fit the array's integer dtype is RS_ERR_OVERFLOW. float16 is stored as
 * half and computed in float32. Integer arithmetic wraps; integer division or remainder
 * by zero gives 0; floats follow IEEE (NaN and infinity as NumPy gives them).
 * Differences from NumPy: complex numbers are not ordered (ordering comparisons,
 * maximum/minimum, min/max/argmin/argmax and sort of complex are RS_ERR_DTYPE); integer
 * power with a negative exponent gives 0 (1 and -1 excepted) instead of an error; float
 * to integer casts of NaN or out-of-range values give the integer's lowest value
 * (NumPy's x86 result, also on the GPU).
 *
 * ON THE GPU, elementwise ops, fused expressions and axis reductions are CUDA C
 * generated for the op's dtypes and layout, compiled once through the user-kernel layer
 * (NVRTC) and cached in memory and on disk (RESIDENT_CACHE_DIR): the first call of a new
 * combination pays the compile (tens of milliseconds), later ones only the launch.
 * Constants are kernel arguments, so `x * 5` and `x * 6` share a kernel. Sort, whole-array
 * sums/min/max and random numbers are compiled CUB / cuRAND code; matmul, SVD and solve
 * are cuBLAS / cuSOLVER (resident/linalg.h).
 *
 * Thread safety: ops are thread-safe; ops writing the same memory from several threads
 * at once race as kernels would.
 */
#ifndef RESIDENT_OPS_H
#define RESIDENT_OPS_H

#include "resident/export.h"

#include <stdint.h>
#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scalars ----------------------------------------------------------------------- */

/* A Python-like scalar: its kind, not its value, decides promotion (NEP 50). */
typedef enum rs_scalar_kind {
  RS_SCALAR_BOOL = 0,
  RS_SCALAR_INT = 1,
  RS_SCALAR_FLOAT = 2,
  RS_SCALAR_COMPLEX = 3
} rs_scalar_kind;

typedef struct rs_scalar {
  rs_scalar_kind kind;
  int64_t i;     /* bool and int */
  double re, im; /* float (re) and complex */
} rs_scalar;

static inline rs_scalar rs_scalar_bool(int v) {
  rs_scalar s = {RS_SCALAR_BOOL, (int64_t)(v != 0), (double)(v != 0), 0.0};
  return s;
}
static inline rs_scalar rs_scalar_int(int64_t v) {
  rs_scalar s = {RS_SCALAR_INT, v, (double)v, 0.0};
  return s;
}
static inline rs_scalar rs_scalar_float(double v) {
  rs_scalar s = {RS_SCALAR_FLOAT, 0, v, 0.0};
  return s;
}
static inline rs_scalar rs_scalar_complex(double re, double im) {
  rs_scalar s = {RS_SCALAR_COMPLEX, 0, re, im};
  return s;
}

/* ---- creation ---------------------------------------------------------------------- */
/* These make a new array (the `_into` forms below fill an existing one). `where` is RS_MEM_DEVICE, RS_MEM_HOST, RS_MEM_PINNED, RS_MEM_MAPPED or
 * RS_MEM_MANAGED; device and managed arrays are filled on `stream`, host ones at once. */

RS_API rs_status rs_empty(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim,
                   const int64_t *shape, rs_dtype dtype);
RS_API rs_status rs_zeros(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim,
                   const int64_t *shape, rs_dtype dtype, rs_stream *stream);
RS_API rs_status rs_ones(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim,
                  const int64_t *shape, rs_dtype dtype, rs_stream *stream);
RS_API rs_status rs_full(rs_array **out, rs_context *ctx, rs_mem_kind where, int ndim,
                  const int64_t *shape, rs_dtype dtype, rs_scalar value, rs_stream *stream);

/* The same, shaped like an existing array: like's shape and dtype, and its order when
 * like is contiguous (else C), in memory of kind `where` (any of the five kinds, whatever
 * like's own kind is); like's values are not read and nothing is copied. full_like
 * refuses a value that does not fit like's dtype, as rs_full does. */
RS_API rs_status rs_empty_like(rs_array **out, const rs_array *like, rs_mem_kind where);
RS_API rs_status rs_zeros_like(rs_array **out, const rs_array *like, rs_mem_kind where,
                               rs_stream *stream);
RS_API rs_status rs_ones_like(rs_array **out, const rs_array *like, rs_mem_kind where,
                              rs_stream *stream);
RS_API rs_status rs_full_like(rs_array **out, const rs_array *like, rs_mem_kind where,
                              rs_scalar value, rs_stream *stream);

/* [start, stop) by step: ceil((stop - start) / step) elements (0 if negative); step 0 is
 * RS_ERR_INVALID_ARGUMENT. Element i is start + i * step, computed in integers for
 * integer dtypes when start and step are integral, else in float64 and then cast. */
RS_API rs_status rs_arange(rs_array **out, rs_context *ctx, rs_mem_kind where, double start,
                    double stop, double step, rs_dtype dtype, rs_stream *stream);

/* num evenly spaced values from start to stop (stop included when endpoint is 1), as
 * NumPy computes them (in float64, then cast; integers round towards minus infinity).
 * num < 0 is RS_ERR_INVALID_ARGUMENT. */
RS_API rs_status rs_linspace(rs_array **out, rs_context *ctx, rs_mem_kind where, double start,
                      double stop, int64_t num, int endpoint, rs_dtype dtype, rs_stream *stream);

/* n x m with ones on diagonal k (0 main, > 0 above, < 0 below). m < 0 means m = n. */
RS_API rs_status rs_eye(rs_array **out, rs_context *ctx, rs_mem_kind where, int64_t n, int64_t m,
                 int64_t k, rs_dtype dtype, rs_stream *stream);

/* The same, into an existing array dst (any view, any dtype). arange_into writes
 * start + i * step at the i-th element in C order; linspace_into needs a 1-d array;
 * eye_into a 2-d one. */
RS_API rs_status rs_zeros_into(rs_array *dst, rs_stream *stream);
RS_API rs_status rs_ones_into(rs_array *dst, rs_stream *stream);
RS_API rs_status rs_full_into(rs_array *dst, rs_scalar value, rs_stream *stream);
RS_API rs_status rs_arange_into(rs_array *dst, double start, double step, rs_stream *stream);
RS_API rs_status rs_linspace_into(rs_array *dst, double start, double stop, int endpoint,
                           rs_stream *stream);
RS_API rs_status rs_eye_into(rs_array *dst, int64_t k, rs_stream *stream);

/* ---- elementwise ------------------------------------------------------------------- */

/* X(enum, NumPy's name, operands) */
#define RS_OP_LIST(X)                       \
  X(RS_OP_ADD, "add", 2)                    \
  X(RS_OP_SUBTRACT, "subtract", 2)          \
  X(RS_OP_MULTIPLY, "multiply", 2)          \
  X(RS_OP_DIVIDE, "divide", 2)              \
  X(RS_OP_FLOOR_DIVIDE, "floor_divide", 2)  \
  X(RS_OP_REMAINDER, "remainder", 2)        \
  X(RS_OP_POWER, "power", 2)                \
  X(RS_OP_MAXIMUM, "maximum", 2)            \
  X(RS_OP_MINIMUM, "minimum", 2)            \
  X(RS_OP_FMAX, "fmax", 2)                  \
  X(RS_OP_FMIN, "fmin", 2)                  \
  X(RS_OP_EQUAL, "equal", 2)                \
  X(RS_OP_NOT_EQUAL, "not_equal", 2)        \
  X(RS_OP_LESS, "less", 2)                  \
  X(RS_OP_LESS_EQUAL, "less_equal", 2)      \
  X(RS_OP_GREATER, "greater", 2)            \
  X(RS_OP_GREATER_EQUAL, "greater_equal", 2) \
  X(RS_OP_LOGICAL_AND, "logical_and", 2)    \
  X(RS_OP_LOGICAL_OR, "logical_or", 2)      \
  X(RS_OP_LOGICAL_XOR, "logical_xor", 2)    \
  X(RS_OP_BITWISE_AND, "bitwise_and", 2)    \
  X(RS_OP_BITWISE_OR, "bitwise_or", 2)      \
  X(RS_OP_BITWISE_XOR, "bitwise_xor", 2)    \
  X(RS_OP_ARCTAN2, "arctan2", 2)            \
  X(RS_OP_HYPOT, "hypot", 2)                \
  X(RS_OP_COPYSIGN, "copysign", 2)          \
  X(RS_OP_NEGATIVE, "negative", 1)          \
  X(RS_OP_POSITIVE, "positive", 1)          \
  X(RS_OP_ABS, "absolute", 1)               \
  X(RS_OP_SIGN, "sign", 1)                  \
  X(RS_OP_SQUARE, "square", 1)              \
  X(RS_OP_RECIPROCAL, "reciprocal", 1)      \
  X(RS_OP_SQRT, "sqrt", 1)                  \
  X(RS_OP_CBRT, "cbrt", 1)                  \
  X(RS_OP_EXP, "exp", 1)                    \
  X(RS_OP_EXP2, "exp2", 1)                  \
  X(RS_OP_EXPM1, "expm1", 1)                \
  X(RS_OP_LOG, "log", 1)                    \
  X(RS_OP_LOG2, "log2", 1)                  \
  X(RS_OP_LOG10, "log10", 1)                \
  X(RS_OP_LOG1P, "log1p", 1)                \
  X(RS_OP_SIN, "sin", 1)                    \
  X(RS_OP_COS, "cos", 1)                    \
  X(RS_OP_TAN, "tan", 1)                    \
  X(RS_OP_ARCSIN, "arcsin", 1)              \
  X(RS_OP_ARCCOS, "arccos", 1)              \
  X(RS_OP_ARCTAN, "arctan", 1)              \
  X(RS_OP_SINH, "sinh", 1)                  \
  X(RS_OP_COSH, "cosh", 1)                  \
  X(RS_OP_TANH, "tanh", 1)                  \
  X(RS_OP_ARCSINH, "arcsinh", 1)            \
  X(RS_OP_ARCCOSH, "arccosh", 1)            \
  X(RS_OP_ARCTANH, "arctanh", 1)            \
  X(RS_OP_FLOOR, "floor", 1)                \
  X(RS_OP_CEIL, "ceil", 1)                  \
  X(RS_OP_TRUNC, "trunc", 1)                \
  X(RS_OP_RINT, "rint", 1)                  \
  X(RS_OP_LOGICAL_NOT, "logical_not", 1)    \
  X(RS_OP_INVERT, "invert", 1)              \
  X(RS_OP_ISNAN, "isnan", 1)                \
  X(RS_OP_ISINF, "isinf", 1)                \
  X(RS_OP_ISFINITE, "isfinite", 1)          \
  X(RS_OP_CONJ, "conjugate", 1)             \
  X(RS_OP_REAL, "real", 1)                  \
  X(RS_OP_IMAG, "imag", 1)                  \
  X(RS_OP_DEG2RAD, "deg2rad", 1)            \
  X(RS_OP_RAD2DEG, "rad2deg", 1)            \
  /* manip (issue 18): the array API standard's functions resident lacked */ \
  X(RS_OP_BITWISE_LEFT_SHIFT, "bitwise_left_shift", 2)   \
  X(RS_OP_BITWISE_RIGHT_SHIFT, "bitwise_right_shift", 2) \
  X(RS_OP_LOGADDEXP, "logaddexp", 2)                     \
  X(RS_OP_NEXTAFTER, "nextafter", 2)                     \
  X(RS_OP_SIGNBIT, "signbit", 1)                         \
  X(RS_OP_ROUND, "round", 1)

typedef enum rs_op {
#define RS_OP_ENUM_(e, name, arity) e,
  RS_OP_LIST(RS_OP_ENUM_)
#undef RS_OP_ENUM_
  RS_OP_COUNT
} rs_op;

/* NumPy's name of an op ("add"); "invalid" for a value that is not one. */
RS_API const char *rs_op_name(rs_op op);
/* 1 or 2; 0 for a value that is not an op. */
RS_API int rs_op_arity(rs_op op);

/* Binary op with NumPy broadcasting: a op b. Shapes that do not broadcast are
 * RS_ERR_BROADCAST; an op the dtypes do not support (bitwise on floats, boolean subtract)
 * is RS_ERR_DTYPE. */
RS_API rs_status rs_binary(rs_array **out, rs_op op, const rs_array *a, const rs_array *b,
                    rs_stream *stream);
RS_API rs_status rs_binary_into(rs_array *dst, rs_op op, const rs_array *a, const rs_array *b,
                         rs_stream *stream);
/* a op s, and s op a. */
RS_API rs_status rs_binary_scalar(rs_array **out, rs_op op, const rs_array *a, rs_scalar s,
                           rs_stream *stream);
RS_API rs_status rs_binary_scalar_into(rs_array *dst, rs_op op, const rs_array *a, rs_scalar s,
                                rs_stream *stream);
RS_API rs_status rs_scalar_binary(rs_array **out, rs_op op, rs_scalar s, const rs_array *a,
                           rs_stream *stream);
RS_API rs_status rs_scalar_binary_into(rs_array *dst, rs_op op, rs_scalar s, const rs_array *a,
                                rs_stream *stream);
/* Unary op. */
RS_API rs_status rs_unary(rs_array **out, rs_op op, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_unary_into(rs_array *dst, rs_op op, const rs_array *a, rs_stream *stream);

/* The common ones by name (the rest through rs_binary / rs_unary). */
RS_API rs_status rs_add(rs_array **out, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_add_into(rs_array *dst, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_subtract(rs_array **out, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_subtract_into(rs_array *dst, const rs_array *a, const rs_array *b,
                           rs_stream *stream);
RS_API rs_status rs_multiply(rs_array **out, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_multiply_into(rs_array *dst, const rs_array *a, const rs_array *b,
                           rs_stream *stream);
RS_API rs_status rs_divide(rs_array **out, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_divide_into(rs_array *dst, const rs_array *a, const rs_array *b, rs_stream *stream);
RS_API rs_status rs_add_scalar(rs_array **out, const rs_array *a, rs_scalar s, rs_stream *stream);
RS_API rs_status rs_add_scalar_into(rs_array *dst, const rs_array *a, rs_scalar s, rs_stream *stream);
RS_API rs_status rs_multiply_scalar(rs_array **out, const rs_array *a, rs_scalar s, rs_stream *stream);
RS_API rs_status rs_multiply_scalar_into(rs_array *dst, const rs_array *a, rs_scalar s,
                                  rs_stream *stream);
RS_API rs_status rs_sqrt(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_sqrt_into(rs_array *dst, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_exp(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_exp_into(rs_array *dst, const rs_array *a, rs_stream *stream);
/* natural logarithm */
RS_API rs_status rs_log(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_log_into(rs_array *dst, const rs_array *a, rs_stream *stream);

/* cond ? a : b elementwise, the three broadcast together; cond of any dtype (nonzero is
 * true); a and b promote. */
RS_API rs_status rs_where(rs_array **out, const rs_array *cond, const rs_array *a, const rs_array *b,
                   rs_stream *stream);
RS_API rs_status rs_where_into(rs_array *dst, const rs_array *cond, const rs_array *a,
                        const rs_array *b, rs_stream *stream);

/* Convert to dtype (every cast allowed, as NumPy's astype: complex to real keeps the real
 * part, floats to integers truncate). The _into form's dst must have dtype `dtype`. */
RS_API rs_status rs_astype(rs_array **out, const rs_array *a, rs_dtype dtype, rs_stream *stream);
RS_API rs_status rs_astype_into(rs_array *dst, const rs_array *a, rs_dtype dtype, rs_stream *stream);

/* A copy (same dtype). A new array is in C order, or in F order when a is F-contiguous (as
 * every elementwise result: NumPy's order "K" for those two layouts). Unlike
 * rs_array_copy, rs_copy_into broadcasts a into dst (np.copyto) and casts under
 * "same_kind". */
RS_API rs_status rs_copy(rs_array **out, const rs_array *a, rs_stream *stream);
RS_API rs_status rs_copy_into(rs_array *dst, const rs_array *a, rs_stream *stream);

/* ---- fused expressions ------------------------------------------------------------- */
/* An expression is built from arrays, scalars and elementwise ops and evaluated as ONE
 * pass over the data: one kernel on the device (generated CUDA C, compiled once and
 * cached by the expression's structure, so building the same expression again later
 * compiles nothing), one loop on the host and the simulator. Intermediate values never
 * go to memory. `x*5; x*x; x+x` becomes:
 *
 *   rs_expr *e = NULL;
 *   CHECK(rs_expr_create(&e, ctx));
 *   int x = rs_expr_array(e, xarr);
 *   int t = rs_expr_binary(e, RS_OP_MULTIPLY, x, rs_expr_scalar(e, rs_scalar_float(5)));
 *   t = rs_expr_binary(e, RS_OP_MULTIPLY, t, t);
 *   t = rs_expr_binary(e, RS_OP_ADD, t, t);
 *   CHECK(rs_expr_eval(&y, e, t, NULL));        // or rs_expr_eval_into(y, e, t, NULL)
 *   CHECK(rs_expr_destroy(e));
 *
 * The node functions return a node id (>= 0). They are a builder: a failure (a bad id,
 * a dtype an op does not take, shapes that do not broadcast, too many nodes) returns -1,
 * and the expression keeps the FIRST error, which rs_expr_status and rs_expr_eval return
 * with its message; so a chain needs one check, at the end. Types and broadcasting are
 * those of the unfused ops, and results equal them (within float rounding: no
 * intermediate is rounded to memory precision except where NumPy would round - integer
 * wrap and float16 are kept exact). At most RS_EXPR_MAX_ARRAYS (16) arrays and
 * RS_EXPR_MAX_NODES (64) nodes per expression: one more is refused when it is added.
 * An expression holds a reference to each array until rs_expr_destroy. Not thread-safe
 * (one expression, one thread); evaluating is thread-safe as other ops. */
typedef struct rs_expr rs_expr;
#define RS_EXPR_MAX_ARRAYS 16
#define RS_EXPR_MAX_NODES 64

RS_API rs_status rs_expr_create(rs_expr **out, rs_context *ctx);
/* NULL is RS_OK. */
RS_API rs_status rs_expr_destroy(rs_expr *e);
RS_API int rs_expr_array(rs_expr *e, const rs_array *a);
RS_API int rs_expr_scalar(rs_expr *e, rs_scalar s);
RS_API int rs_expr_unary(rs_expr *e, rs_op op, int x);
RS_API int rs_expr_binary(rs_expr *e, rs_op op, int x, int y);
RS_API int rs_expr_where(rs_expr *e, int cond, int x, int y);
RS_API int rs_expr_astype(rs_expr *e, int x, rs_dtype dtype);
/* Replace the array of node `node` (made by rs_expr_array) with another of the same
 * dtype and shape, so one expression runs over new data without being rebuilt. */
RS_API rs_status rs_expr_rebind(rs_expr *e, int node, const rs_array *a);
RS_API rs_status rs_expr_status(const rs_expr *e);
/* Evaluate node `root` as a new array, or into dst (RESULTS above). */
RS_API rs_status rs_expr_eval(rs_array **out, rs_expr *e, int root, rs_stream *stream);
RS_API rs_status rs_expr_eval_into(rs_array *dst, rs_expr *e, int root, rs_stream *stream);

/* How many threads the host path's elementwise ops, reductions, sorts and random numbers
 * use: RESIDENT_HOST_THREADS as the process's first context read it (resident.h,
 * ENVIRONMENT), else one per online CPU (at least 1). One pool of threads serves the whole
 * process, started at the first host op worth splitting; an op splits its work only
 * where the array is large enough to gain from it. Thread-safe; nothing can fail. */
RS_API int rs_host_threads(void);

/* ---- single elements to the host --------------------------------------------------- */
/* The one way a value computed on the device reaches the host: an explicit copy of one
 * element, recorded by the ledger (cause "rs_array_item_to_host") and subject to the
 * guard. index has ndim entries (negative ones count from the end) or is NULL for an
 * array of one element (a 0-d result of a full reduction). The call returns when the
 * value is there (it waits for the work on `stream` that produces it). */
RS_API rs_status rs_array_item_to_host(const rs_array *a, const int64_t *index, void *dst,
                                rs_stream *stream);
/* The element converted to double (complex: the real part) or int64 (floats truncate). */
RS_API rs_status rs_array_item_double(const rs_array *a, const int64_t *index, double *out,
                               rs_stream *stream);
RS_API rs_status rs_array_item_int64(const rs_array *a, const int64_t *index, int64_t *out,
                              rs_stream *stream);

/* ---- checks ------------------------------------------------------------------------ */

/* What a comparison of two arrays found. Indices are those of the broadcast shape. */
typedef struct rs_close_report {
  int close;                      /* 1 if every element is within tolerance */
  int64_t mismatched, total;      /* elements out of tolerance, elements compared */
  int64_t worst_index[RS_MAX_DIMS]; /* the element furthest out of tolerance (or the
                                       closest to it when all are within) */
  int ndim;
  double worst_actual, worst_desired; /* its values (complex: the real parts) */
  double max_abs_diff, max_rel_diff;  /* over all elements (NaN pairs excluded) */
  char message[512];              /* "Not equal to tolerance rtol=1e-07, atol=0 ..." */
} rs_close_report;

/* |actual - desired| <= atol + rtol * |desired| everywhere (NumPy's isclose; NaN equals
 * NaN only with equal_nan; infinities must match exactly). actual and desired broadcast.
 * Computed where the data is; only the verdict and the worst element come to the host,
 * through the ledger. */
RS_API rs_status rs_allclose(const rs_array *actual, const rs_array *desired, double rtol,
                      double atol, int equal_nan, int *result, rs_stream *stream);
RS_API rs_status rs_allclose_report(const rs_array *actual, const rs_array *desired,
                             double rtol, double atol, int equal_nan,
                             rs_close_report *report, rs_stream *stream);
/* RS_OK when close (NaN == NaN here, as numpy.testing), else RS_ERR_NOT_CLOSE with the
 * report's message as rs_last_error(): mismatched count, max differences, and the worst
 * element with its index. Shapes must be equal (RS_ERR_SHAPE). */
RS_API rs_status rs_assert_allclose(const rs_array *actual, const rs_array *desired, double rtol,
                             double atol, rs_stream *stream);
/* Same shape and every element equal (NaN is not equal to NaN). Different shapes give 0,
 * not an error. */
RS_API rs_status rs_array_equal(const rs_array *a, const rs_array *b, int *result, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
