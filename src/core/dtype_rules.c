/* NumPy 2's typing rules, written as the rules (not as a table) so each can be read and
 * checked; tests/test_ops_types.c compares them with numpy itself. */
#include "core/dtype_rules.h"
#include "core/error.h"

rs_cls rs_dtype_cls(rs_dtype dt) {
  switch (dt) {
    case RS_BOOL:
      return RS_CLS_B;
    case RS_UINT64:
      return RS_CLS_U;
    case RS_FLOAT16:
    case RS_FLOAT32:
      return RS_CLS_F;
    case RS_FLOAT64:
      return RS_CLS_D;
    case RS_COMPLEX64:
      return RS_CLS_C;
    case RS_COMPLEX128:
      return RS_CLS_Z;
    default:
      return RS_CLS_I;
  }
}

int rs_dtype_is_bool(rs_dtype dt) { return dt == RS_BOOL; }
int rs_dtype_is_signed(rs_dtype dt) { return dt >= RS_INT8 && dt <= RS_INT64; }
int rs_dtype_is_unsigned(rs_dtype dt) { return dt >= RS_UINT8 && dt <= RS_UINT64; }
int rs_dtype_is_integer(rs_dtype dt) { return rs_dtype_is_signed(dt) || rs_dtype_is_unsigned(dt); }
int rs_dtype_is_float(rs_dtype dt) { return dt == RS_FLOAT16 || dt == RS_FLOAT32 || dt == RS_FLOAT64; }
int rs_dtype_is_complex(rs_dtype dt) { return dt == RS_COMPLEX64 || dt == RS_COMPLEX128; }

/* Bits of an integer dtype. */
static int int_bits(rs_dtype dt) { return (int)rs_dtype_size(dt) * 8; }

static rs_dtype signed_of_bits(int bits) {
  return bits <= 8 ? RS_INT8 : bits <= 16 ? RS_INT16 : bits <= 32 ? RS_INT32 : RS_INT64;
}

/* The smallest float exactly holding every value of an integer of `bits` (with sign
 * room for signed ones as NumPy counts it): 8 -> float16, 16 -> float32, else float64. */
static rs_dtype float_for_int(rs_dtype dt) {
  int bits = int_bits(dt);
  return bits <= 8 ? RS_FLOAT16 : bits <= 16 ? RS_FLOAT32 : RS_FLOAT64;
}

static int float_rank(rs_dtype dt) { return dt == RS_FLOAT16 ? 0 : dt == RS_FLOAT32 ? 1 : 2; }

rs_dtype rs_promote(rs_dtype a, rs_dtype b) {
  if (a == b) return a;
  if (a == RS_BOOL) return b;
  if (b == RS_BOOL) return a;
  if (rs_dtype_is_complex(a) || rs_dtype_is_complex(b)) {
    /* complex64 holds what float32 holds; anything needing float64 makes complex128 */
    rs_dtype ra = rs_dtype_is_complex(a) ? rs_real_of(a) : a;
    rs_dtype rb = rs_dtype_is_complex(b) ? rs_real_of(b) : b;
    return rs_promote(ra, rb) == RS_FLOAT64 ? RS_COMPLEX128 : RS_COMPLEX64;
  }
  if (rs_dtype_is_float(a) || rs_dtype_is_float(b)) {
    rs_dtype fa = rs_dtype_is_float(a) ? a : float_for_int(a);
    rs_dtype fb = rs_dtype_is_float(b) ? b : float_for_int(b);
    return float_rank(fa) >= float_rank(fb) ? fa : fb;
  }
  int sa = rs_dtype_is_signed(a), sb = rs_dtype_is_signed(b);
  if (sa == sb) return int_bits(a) >= int_bits(b) ? a : b;
  rs_dtype s = sa ? a : b, u = sa ? b : a;
  if (int_bits(s) > int_bits(u)) return s;
  if (u == RS_UINT64) return RS_FLOAT64; /* no signed integer holds both */
  return signed_of_bits(int_bits(u) * 2);
}

rs_dtype rs_float_for(rs_dtype dt) {
  if (rs_dtype_is_float(dt) || rs_dtype_is_complex(dt)) return dt;
  if (dt == RS_BOOL) return RS_FLOAT16;
  return float_for_int(dt);
}

rs_dtype rs_real_of(rs_dtype dt) {
  return dt == RS_COMPLEX64 ? RS_FLOAT32 : dt == RS_COMPLEX128 ? RS_FLOAT64 : dt;
}

rs_dtype rs_complex_of(rs_dtype dt) { return dt == RS_FLOAT64 ? RS_COMPLEX128 : RS_COMPLEX64; }

/* Kind order of same_kind casting: b < u < i < f < c, except that signed never goes to
 * unsigned. */
static int kind_rank(rs_dtype dt) {
  if (dt == RS_BOOL) return 0;
  if (rs_dtype_is_unsigned(dt)) return 1;
  if (rs_dtype_is_signed(dt)) return 2;
  if (rs_dtype_is_float(dt)) return 3;
  return 4;
}

int rs_can_cast_same_kind(rs_dtype from, rs_dtype to) {
  if (rs_dtype_is_signed(from) && rs_dtype_is_unsigned(to)) return 0;
  return kind_rank(from) <= kind_rank(to);
}

static rs_status refuse2(rs_op op, rs_dtype a, rs_dtype b, const char *why) {
  return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s and %s%s%s", rs_op_name(op), rs_dtype_name(a),
                 rs_dtype_name(b), why ? ": " : "", why ? why : "");
}

static rs_status refuse1(rs_op op, rs_dtype a, const char *why) {
  return rs_fail(RS_ERR_DTYPE, "%s: not supported for %s%s%s", rs_op_name(op), rs_dtype_name(a),
                 why ? ": " : "", why ? why : "");
}

rs_status rs_binary_types(rs_op op, rs_dtype a, rs_dtype b, rs_dtype *loop, rs_dtype *result) {
  if (!rs_dtype_valid(a) || !rs_dtype_valid(b))
    return rs_fail(RS_ERR_DTYPE, "%s: invalid dtype value", rs_op_name(op));
  rs_dtype p = rs_promote(a, b);
  int cplx = rs_dtype_is_complex(p);
  *loop = p;
  switch (op) {
    case RS_OP_ADD:
    case RS_OP_MULTIPLY:
      break;
    case RS_OP_SUBTRACT:
      if (p == RS_BOOL)
        return refuse2(op, a, b, "boolean subtract is not supported, use logical_xor");
      break;
    case RS_OP_DIVIDE:
      if (p == RS_BOOL || rs_dtype_is_integer(p)) *loop = RS_FLOAT64;
      break;
    case RS_OP_FLOOR_DIVIDE:
    case RS_OP_REMAINDER:
      if (cplx) return refuse2(op, a, b, NULL);
      if (p == RS_BOOL) *loop = RS_INT8;
      break;
    case RS_OP_POWER:
      if (p == RS_BOOL) *loop = RS_INT8;
      break;
    case RS_OP_MAXIMUM:
    case RS_OP_MINIMUM:
    case RS_OP_FMAX:
    case RS_OP_FMIN:
      if (cplx) return refuse2(op, a, b, "complex numbers are not ordered");
      break;
    case RS_OP_EQUAL:
    case RS_OP_NOT_EQUAL:
      *result = RS_BOOL;
      return RS_OK;
    case RS_OP_LESS:
    case RS_OP_LESS_EQUAL:
    case RS_OP_GREATER:
    case RS_OP_GREATER_EQUAL:
      if (cplx) return refuse2(op, a, b, "complex numbers are not ordered");
      *result = RS_BOOL;
      return RS_OK;
    case RS_OP_LOGICAL_AND:
    case RS_OP_LOGICAL_OR:
    case RS_OP_LOGICAL_XOR:
      *loop = RS_BOOL;
      *result = RS_BOOL;
      return RS_OK;
    case RS_OP_BITWISE_AND:
    case RS_OP_BITWISE_OR:
    case RS_OP_BITWISE_XOR:
      if (p != RS_BOOL && !rs_dtype_is_integer(p))
        return refuse2(op, a, b, "bitwise operations need integer or bool operands");
      break;
    case RS_OP_ARCTAN2:
    case RS_OP_HYPOT:
    case RS_OP_COPYSIGN:
      if (cplx) return refuse2(op, a, b, NULL);
      /* NumPy picks the first float loop each operand casts to safely: int8 with uint8
       * computes in float16, not in float_for(int16) */
      *loop = rs_promote(rs_float_for(a), rs_float_for(b));
      break;
    /* manip (issue 18) */
    case RS_OP_BITWISE_LEFT_SHIFT:
    case RS_OP_BITWISE_RIGHT_SHIFT:
      if (p == RS_BOOL) *loop = RS_INT8; /* NumPy has no boolean shift: bools shift as int8 */
      else if (!rs_dtype_is_integer(p)) return refuse2(op, a, b, "shifts need integer operands");
      break;
    case RS_OP_LOGADDEXP:
    case RS_OP_NEXTAFTER:
      if (cplx) return refuse2(op, a, b, NULL);
      *loop = rs_promote(rs_float_for(a), rs_float_for(b)); /* as arctan2 */
      break;
    default:
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "op %d (%s) is not a binary op", (int)op, rs_op_name(op));
  }
  *result = *loop;
  return RS_OK;
}

/* Unary ops with complex loops (the rest refuse complex). */
static int complex_ok(rs_op op) {
  switch (op) {
    case RS_OP_NEGATIVE: case RS_OP_POSITIVE: case RS_OP_ABS: case RS_OP_SIGN:
    case RS_OP_SQUARE: case RS_OP_RECIPROCAL: case RS_OP_SQRT: case RS_OP_EXP:
    case RS_OP_LOG: case RS_OP_SIN: case RS_OP_COS: case RS_OP_TAN: case RS_OP_SINH:
    case RS_OP_COSH: case RS_OP_TANH: case RS_OP_LOGICAL_NOT: case RS_OP_ISNAN:
    case RS_OP_ISINF: case RS_OP_ISFINITE: case RS_OP_CONJ: case RS_OP_REAL: case RS_OP_IMAG:
    case RS_OP_ROUND:
      return 1;
    default:
      return 0;
  }
}

rs_status rs_unary_types(rs_op op, rs_dtype a, rs_dtype *loop, rs_dtype *result) {
  if (!rs_dtype_valid(a)) return rs_fail(RS_ERR_DTYPE, "%s: invalid dtype value", rs_op_name(op));
  if (rs_op_arity(op) != 1)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "op %d (%s) is not a unary op", (int)op, rs_op_name(op));
  if (rs_dtype_is_complex(a) && !complex_ok(op)) return refuse1(op, a, NULL);
  *loop = a;
  switch (op) {
    case RS_OP_NEGATIVE:
    case RS_OP_SIGN:
      if (a == RS_BOOL) return refuse1(op, a, "use logical_not for booleans");
      break;
    case RS_OP_POSITIVE:
    case RS_OP_FLOOR:
    case RS_OP_CEIL:
    case RS_OP_TRUNC:
      break;
    case RS_OP_ABS:
    case RS_OP_REAL:
    case RS_OP_IMAG:
      *result = rs_real_of(a);
      return RS_OK;
    case RS_OP_SQUARE:
    case RS_OP_RECIPROCAL:
    case RS_OP_CONJ:
      if (a == RS_BOOL) *loop = RS_INT8;
      break;
    case RS_OP_LOGICAL_NOT:
      *loop = RS_BOOL;
      *result = RS_BOOL;
      return RS_OK;
    case RS_OP_INVERT:
      if (a != RS_BOOL && !rs_dtype_is_integer(a))
        return refuse1(op, a, "bitwise operations need integer or bool operands");
      break;
    case RS_OP_ISNAN:
    case RS_OP_ISINF:
    case RS_OP_ISFINITE:
      *result = RS_BOOL;
      return RS_OK;
    /* manip (issue 18) */
    case RS_OP_SIGNBIT:
      *loop = rs_float_for(a); /* NumPy has float loops only: integers are cast first */
      *result = RS_BOOL;
      return RS_OK;
    case RS_OP_ROUND:
      if (a == RS_BOOL) *loop = RS_FLOAT16; /* integers keep their dtype, bool rounds as float16 */
      break;
    default: /* the math functions */
      *loop = rs_float_for(a);
      break;
  }
  *result = *loop;
  return RS_OK;
}

rs_dtype rs_scalar_default_dtype(rs_scalar_kind kind) {
  switch (kind) {
    case RS_SCALAR_BOOL:
      return RS_BOOL;
    case RS_SCALAR_INT:
      return RS_INT64;
    case RS_SCALAR_FLOAT:
      return RS_FLOAT64;
    default:
      return RS_COMPLEX128;
  }
}

rs_dtype rs_weak_dtype(rs_dtype strong, rs_scalar_kind kind) {
  switch (kind) {
    case RS_SCALAR_BOOL:
      return RS_BOOL;
    case RS_SCALAR_INT:
      return strong == RS_BOOL ? RS_INT64 : strong;
    case RS_SCALAR_FLOAT:
      return (rs_dtype_is_float(strong) || rs_dtype_is_complex(strong)) ? strong : RS_FLOAT64;
    default:
      if (rs_dtype_is_complex(strong)) return strong;
      if (rs_dtype_is_float(strong)) return rs_complex_of(strong);
      return RS_COMPLEX128;
  }
}

rs_status rs_scalar_fits(rs_scalar s, rs_dtype dt, const char *who) {
  if (s.kind != RS_SCALAR_INT || !rs_dtype_is_integer(dt)) return RS_OK;
  int64_t v = s.i;
  int ok;
  switch (dt) {
    case RS_INT8: ok = v >= INT8_MIN && v <= INT8_MAX; break;
    case RS_INT16: ok = v >= INT16_MIN && v <= INT16_MAX; break;
    case RS_INT32: ok = v >= INT32_MIN && v <= INT32_MAX; break;
    case RS_UINT8: ok = v >= 0 && v <= UINT8_MAX; break;
    case RS_UINT16: ok = v >= 0 && v <= UINT16_MAX; break;
    case RS_UINT32: ok = v >= 0 && v <= (int64_t)UINT32_MAX; break;
    case RS_UINT64: ok = v >= 0; break;
    default: ok = 1; break;
  }
  if (!ok)
    return rs_fail(RS_ERR_OVERFLOW, "%s: the integer %lld is out of bounds for %s", who, (long long)v,
                   rs_dtype_name(dt));
  return RS_OK;
}
