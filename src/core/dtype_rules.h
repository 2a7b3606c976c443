/* Internal: NumPy 2's typing rules - promotion, the loop and result dtypes of each op,
 * weak (Python) scalars, and "same_kind" casting. Pure functions of dtypes; shared by
 * every backend. */
#ifndef RS_CORE_DTYPE_RULES_H
#define RS_CORE_DTYPE_RULES_H

#include "resident/ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- value classes: how a dtype's values are held while computing ------------------- */
/* B bool (uint8 0/1), I int64 (every signed integer and uint8..uint32), U uint64,
 * F float (float16, float32), D double, C float complex, Z double complex. A value of a
 * narrower dtype held in its class is always exactly representable in that dtype (int8
 * values stay in -128..127 after every op: results are wrapped/rounded to the dtype). */
typedef enum rs_cls {
  RS_CLS_B = 0,
  RS_CLS_I,
  RS_CLS_U,
  RS_CLS_F,
  RS_CLS_D,
  RS_CLS_C,
  RS_CLS_Z,
  RS_CLS_COUNT
} rs_cls;

rs_cls rs_dtype_cls(rs_dtype dt);
int rs_dtype_is_bool(rs_dtype dt);
int rs_dtype_is_signed(rs_dtype dt);   /* int8 .. int64 */
int rs_dtype_is_unsigned(rs_dtype dt); /* uint8 .. uint64 */
int rs_dtype_is_integer(rs_dtype dt);  /* signed or unsigned */
int rs_dtype_is_float(rs_dtype dt);    /* float16, float32, float64 */
int rs_dtype_is_complex(rs_dtype dt);

/* numpy.promote_types. */
rs_dtype rs_promote(rs_dtype a, rs_dtype b);
/* The float a math function of dt computes in: bool and integers -> the smallest float
 * holding them (int8 -> float16, int16 -> float32, int32 -> float64); floats and
 * complex unchanged. */
rs_dtype rs_float_for(rs_dtype dt);
/* complex64 -> float32, complex128 -> float64; others unchanged. */
rs_dtype rs_real_of(rs_dtype dt);
/* float32 -> complex64, float64 -> complex128, float16 -> complex64. */
rs_dtype rs_complex_of(rs_dtype dt);

/* numpy.can_cast(from, to, "same_kind"). */
int rs_can_cast_same_kind(rs_dtype from, rs_dtype to);

/* The loop dtype (operands are converted to it) and the result dtype of an op. Errors
 * (RS_ERR_DTYPE, with a message naming the op and dtypes) for combinations NumPy - or
 * this library, for ordering complex numbers - refuses. */
rs_status rs_binary_types(rs_op op, rs_dtype a, rs_dtype b, rs_dtype *loop, rs_dtype *result);
rs_status rs_unary_types(rs_op op, rs_dtype a, rs_dtype *loop, rs_dtype *result);

/* The dtype a weak scalar of `kind` takes next to a strong dtype (NEP 50): int next to
 * any non-bool dtype takes it, next to bool int64; float next to bool or integers
 * float64, next to floats and complex their dtype; complex likewise with complex dtypes. */
rs_dtype rs_weak_dtype(rs_dtype strong, rs_scalar_kind kind);
/* The dtype of a scalar on its own (bool, int64, float64, complex128). */
rs_dtype rs_scalar_default_dtype(rs_scalar_kind kind);
/* RS_ERR_OVERFLOW if an integer scalar does not fit an integer dtype. */
rs_status rs_scalar_fits(rs_scalar s, rs_dtype dt, const char *who);

#ifdef __cplusplus
}
#endif
#endif
