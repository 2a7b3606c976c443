/* The public elementwise ops: each builds a small program and runs it where its data is. */
#include "core/error.h"
#include "ops/into.h"
#include "ops/ops_internal.h"
#include "resident/ops.h"

static rs_status check_op(rs_op op, int arity) {
  if (rs_op_arity(op) != arity)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "op %d (%s) is not a %s op", (int)op, rs_op_name(op),
                   arity == 1 ? "unary" : "binary");
  return RS_OK;
}

/* Load an array operand, after checking it (so a NULL gets a clear message). */
static int load(rs_ew_builder *b, rs_ew_spec *spec, const rs_array *a) {
  RS_TRY(rs_array_check(a, spec->name));
  spec->in[spec->nin++] = a;
  return rs_ewb_load(b, a->dtype);
}

/* An operand of a binary op: an array, or a scalar. */
typedef struct operand {
  int is_array;
  const rs_array *a;
  rs_scalar s;
} operand;

static int operand_reg(rs_ew_builder *b, rs_ew_spec *spec, operand o) {
  return o.is_array ? load(b, spec, o.a) : rs_ewb_scalar(b, o.s);
}

static rs_status binary(rs_array **io, rs_op op, operand x, operand y, rs_stream *stream) {
  RS_TRY(check_op(op, 2));
  rs_ew_spec spec = {.name = rs_op_name(op), .stream = stream};
  rs_ew_builder bld;
  rs_ewb_init(&bld, spec.name);
  int rx = operand_reg(&bld, &spec, x);
  if (rx < 0) return (rs_status)rx;
  int ry = operand_reg(&bld, &spec, y);
  if (ry < 0) return (rs_status)ry;
  return rs_ops_elementwise(io, &bld, rs_ewb_binary(&bld, op, rx, ry), &spec);
}

static rs_status arrays(rs_array **io, rs_op op, const rs_array *a, const rs_array *b, rs_stream *stream) {
  return binary(io, op, (operand){1, a, {0}}, (operand){1, b, {0}}, stream);
}

static rs_status array_scalar(rs_array **io, rs_op op, const rs_array *a, rs_scalar s, rs_stream *stream) {
  return binary(io, op, (operand){1, a, {0}}, (operand){0, NULL, s}, stream);
}

static rs_status scalar_array(rs_array **io, rs_op op, rs_scalar s, const rs_array *a, rs_stream *stream) {
  return binary(io, op, (operand){0, NULL, s}, (operand){1, a, {0}}, stream);
}

static rs_status unary(rs_array **io, rs_op op, const rs_array *a, rs_stream *stream) {
  RS_TRY(check_op(op, 1));
  rs_ew_spec spec = {.name = rs_op_name(op), .stream = stream};
  rs_ew_builder bld;
  rs_ewb_init(&bld, spec.name);
  int x = load(&bld, &spec, a);
  if (x < 0) return (rs_status)x;
  return rs_ops_elementwise(io, &bld, rs_ewb_unary(&bld, op, x), &spec);
}

static rs_status where(rs_array **io, const rs_array *cond, const rs_array *a, const rs_array *b, rs_stream *stream) {
  rs_ew_spec spec = {.name = "where", .stream = stream};
  rs_ew_builder bld;
  rs_ewb_init(&bld, spec.name);
  int c = load(&bld, &spec, cond);
  if (c < 0) return (rs_status)c;
  int x = load(&bld, &spec, a);
  if (x < 0) return (rs_status)x;
  int y = load(&bld, &spec, b);
  if (y < 0) return (rs_status)y;
  return rs_ops_elementwise(io, &bld, rs_ewb_where(&bld, c, x, y), &spec);
}

static rs_status astype(rs_array **io, const rs_array *a, rs_dtype dtype, rs_stream *stream) {
  rs_ew_spec spec = {.name = "astype", .stream = stream, .unsafe = 1};
  if (!rs_dtype_valid(dtype)) return rs_fail(RS_ERR_DTYPE, "astype: dtype value %d is not a dtype", (int)dtype);
  if (*io) {
    RS_TRY(rs_array_check(*io, spec.name));
    if ((*io)->dtype != dtype)
      return rs_fail(RS_ERR_DTYPE, "astype: out is %s, not %s", rs_dtype_name((*io)->dtype), rs_dtype_name(dtype));
  }
  rs_ew_builder bld;
  rs_ewb_init(&bld, spec.name);
  int x = load(&bld, &spec, a);
  if (x < 0) return (rs_status)x;
  return rs_ops_elementwise(io, &bld, rs_ewb_cast(&bld, x, dtype), &spec);
}

static rs_status copy(rs_array **io, const rs_array *a, rs_stream *stream) {
  rs_ew_spec spec = {.name = "copy", .stream = stream};
  rs_ew_builder bld;
  rs_ewb_init(&bld, spec.name);
  int x = load(&bld, &spec, a);
  if (x < 0) return (rs_status)x;
  return rs_ops_elementwise(io, &bld, x, &spec);
}

#define AB_ (const rs_array *a, const rs_array *b, rs_stream *stream)
#define AS_ (const rs_array *a, rs_scalar s, rs_stream *stream)
#define A_ (const rs_array *a, rs_stream *stream)
RS_OPS_PAIR(rs_binary, (rs_op op, const rs_array *a, const rs_array *b, rs_stream *stream), arrays, (op, a, b, stream))
RS_OPS_PAIR(rs_binary_scalar, (rs_op op, const rs_array *a, rs_scalar s, rs_stream *stream), array_scalar,
            (op, a, s, stream))
RS_OPS_PAIR(rs_scalar_binary, (rs_op op, rs_scalar s, const rs_array *a, rs_stream *stream), scalar_array,
            (op, s, a, stream))
RS_OPS_PAIR(rs_unary, (rs_op op, const rs_array *a, rs_stream *stream), unary, (op, a, stream))
RS_OPS_PAIR(rs_add, AB_, arrays, (RS_OP_ADD, a, b, stream))
RS_OPS_PAIR(rs_subtract, AB_, arrays, (RS_OP_SUBTRACT, a, b, stream))
RS_OPS_PAIR(rs_multiply, AB_, arrays, (RS_OP_MULTIPLY, a, b, stream))
RS_OPS_PAIR(rs_divide, AB_, arrays, (RS_OP_DIVIDE, a, b, stream))
RS_OPS_PAIR(rs_add_scalar, AS_, array_scalar, (RS_OP_ADD, a, s, stream))
RS_OPS_PAIR(rs_multiply_scalar, AS_, array_scalar, (RS_OP_MULTIPLY, a, s, stream))
RS_OPS_PAIR(rs_sqrt, A_, unary, (RS_OP_SQRT, a, stream))
RS_OPS_PAIR(rs_exp, A_, unary, (RS_OP_EXP, a, stream))
RS_OPS_PAIR(rs_log, A_, unary, (RS_OP_LOG, a, stream))
RS_OPS_PAIR(rs_where, (const rs_array *cond, const rs_array *a, const rs_array *b, rs_stream *stream), where,
            (cond, a, b, stream))
RS_OPS_PAIR(rs_astype, (const rs_array *a, rs_dtype dtype, rs_stream *stream), astype, (a, dtype, stream))
RS_OPS_PAIR(rs_copy, A_, copy, (a, stream))
