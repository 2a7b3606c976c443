/* Building elementwise programs: NumPy typing turned into explicit casts, so evaluators
 * (native loops, generated CUDA C) never decide a type themselves. */
#include <string.h>
#include "core/error.h"
#include "core/dtype_rules.h"
#include "ops/ew_build.h"

void rs_ewb_init(rs_ew_builder *b, const char *who) {
  memset(b, 0, sizeof *b);
  b->who = who;
}

rs_dtype rs_ewb_dtype(const rs_ew_builder *b, int reg) { return b->prog.instr[reg].dtype; }

static int emit(rs_ew_builder *b, rs_ew_instr in, int weak) {
  rs_ew_program *p = &b->prog;
  if (p->ninstr >= (b->finishing ? RS_EW_MAX_INSTR : RS_EW_MAX_NODES))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: more than %d operations (nodes) in one expression", b->who,
                   RS_EW_MAX_NODES);
  p->instr[p->ninstr] = in;
  b->weak[p->ninstr] = weak;
  return p->ninstr++;
}

/* A negative register is the status of a failed earlier step: passed on unchanged, so
 * a chain of calls reports its first failure. */
static int check_reg(const rs_ew_builder *b, int reg) {
  if (reg < 0) return reg;
  if (reg >= b->prog.ninstr)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: operand %d is not a node of this expression", b->who, reg);
  return RS_OK;
}

int rs_ewb_load(rs_ew_builder *b, rs_dtype dt) {
  rs_ew_program *p = &b->prog;
  if (p->ninputs >= RS_EW_MAX_INPUTS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: more than %d arrays in one expression", b->who,
                   RS_EW_MAX_INPUTS);
  rs_ew_instr in = {.code = RS_EW_LOAD, .dtype = dt, .arg_dtype = dt, .a = p->ninputs};
  int r = emit(b, in, 0);
  if (r >= 0) p->in_dtype[p->ninputs++] = dt;
  return r;
}

int rs_ewb_scalar(rs_ew_builder *b, rs_scalar s) {
  if ((int)s.kind < RS_SCALAR_BOOL || s.kind > RS_SCALAR_COMPLEX)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: scalar kind %d is not an rs_scalar_kind", b->who, (int)s.kind);
  rs_dtype dt = rs_scalar_default_dtype(s.kind);
  rs_ew_instr in = {.code = RS_EW_CONST, .dtype = dt, .arg_dtype = dt, .value = s};
  return emit(b, in, 1 + (int)s.kind);
}

int rs_ewb_const(rs_ew_builder *b, rs_scalar s, rs_dtype dt) {
  rs_ew_instr in = {.code = RS_EW_CONST, .dtype = dt, .arg_dtype = dt, .value = s};
  return emit(b, in, 0);
}

int rs_ewb_index(rs_ew_builder *b) {
  rs_ew_instr in = {.code = RS_EW_INDEX, .dtype = RS_INT64, .arg_dtype = RS_INT64};
  return emit(b, in, 0);
}

int rs_ewb_cast(rs_ew_builder *b, int reg, rs_dtype dt) {
  RS_TRY(check_reg(b, reg));
  if (!rs_dtype_valid(dt)) return rs_fail(RS_ERR_DTYPE, "%s: dtype value %d is not a dtype", b->who, (int)dt);
  const rs_ew_instr *src = &b->prog.instr[reg];
  if (src->dtype == dt) return reg;
  if (b->weak[reg]) {
    /* a scalar cast is a constant of that dtype: no per-element work */
    rs_ew_instr in = {.code = RS_EW_CONST, .dtype = dt, .arg_dtype = dt, .value = src->value};
    return emit(b, in, 0);
  }
  rs_ew_instr in = {.code = RS_EW_CAST, .dtype = dt, .arg_dtype = src->dtype, .a = reg};
  return emit(b, in, 0);
}

/* Give a weak scalar its dtype next to a strong one (NEP 50), checking it fits. */
static int settle_weak(rs_ew_builder *b, int reg, rs_dtype strong) {
  const rs_ew_instr *src = &b->prog.instr[reg];
  rs_dtype dt = rs_weak_dtype(strong, src->value.kind);
  RS_TRY(rs_scalar_fits(src->value, dt, b->who));
  if (dt == src->dtype) {
    rs_ew_instr in = *src;
    return emit(b, in, 0);
  }
  rs_ew_instr in = {.code = RS_EW_CONST, .dtype = dt, .arg_dtype = dt, .value = src->value};
  return emit(b, in, 0);
}

static int kind_of_dtype(rs_dtype dt) {
  if (dt == RS_BOOL) return 1 + RS_SCALAR_BOOL;
  if (rs_dtype_is_integer(dt)) return 1 + RS_SCALAR_INT;
  if (rs_dtype_is_float(dt)) return 1 + RS_SCALAR_FLOAT;
  return 1 + RS_SCALAR_COMPLEX;
}

/* Settle the weak ones of a pair of operands. */
static rs_status settle_pair(rs_ew_builder *b, int *x, int *y) {
  int wx = b->weak[*x], wy = b->weak[*y];
  if (wx && !wy) {
    int r = settle_weak(b, *x, rs_ewb_dtype(b, *y));
    if (r < 0) return (rs_status)r;
    *x = r;
  } else if (wy && !wx) {
    int r = settle_weak(b, *y, rs_ewb_dtype(b, *x));
    if (r < 0) return (rs_status)r;
    *y = r;
  }
  return RS_OK;
}

int rs_ewb_binary(rs_ew_builder *b, rs_op op, int x, int y) {
  RS_TRY(check_reg(b, x));
  RS_TRY(check_reg(b, y));
  if (rs_op_arity(op) != 2)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: op %d (%s) is not a binary op", b->who, (int)op, rs_op_name(op));
  int both_weak = b->weak[x] && b->weak[y];
  RS_TRY(settle_pair(b, &x, &y));
  rs_dtype loop, result;
  RS_TRY(rs_binary_types(op, rs_ewb_dtype(b, x), rs_ewb_dtype(b, y), &loop, &result));
  x = rs_ewb_cast(b, x, loop);
  if (x < 0) return x;
  y = rs_ewb_cast(b, y, loop);
  if (y < 0) return y;
  rs_ew_instr in = {.code = RS_EW_BINARY, .op = op, .dtype = result, .arg_dtype = loop, .a = x, .b = y};
  /* scalar op scalar stays a Python scalar of its result's kind */
  return emit(b, in, both_weak ? kind_of_dtype(result) : 0);
}

int rs_ewb_unary(rs_ew_builder *b, rs_op op, int x) {
  RS_TRY(check_reg(b, x));
  rs_dtype loop, result;
  RS_TRY(rs_unary_types(op, rs_ewb_dtype(b, x), &loop, &result));
  int weak = b->weak[x] ? kind_of_dtype(result) : 0;
  x = rs_ewb_cast(b, x, loop);
  if (x < 0) return x;
  rs_ew_instr in = {.code = RS_EW_UNARY, .op = op, .dtype = result, .arg_dtype = loop, .a = x};
  return emit(b, in, weak);
}

int rs_ewb_where(rs_ew_builder *b, int cond, int x, int y) {
  RS_TRY(check_reg(b, cond));
  RS_TRY(check_reg(b, x));
  RS_TRY(check_reg(b, y));
  RS_TRY(settle_pair(b, &x, &y));
  rs_dtype dt = rs_promote(rs_ewb_dtype(b, x), rs_ewb_dtype(b, y));
  if (b->weak[cond]) {
    cond = rs_ewb_const(b, b->prog.instr[cond].value, rs_ewb_dtype(b, cond));
    if (cond < 0) return cond;
  }
  cond = rs_ewb_cast(b, cond, RS_BOOL);
  if (cond < 0) return cond;
  x = rs_ewb_cast(b, x, dt);
  if (x < 0) return x;
  y = rs_ewb_cast(b, y, dt);
  if (y < 0) return y;
  rs_ew_instr in = {.code = RS_EW_WHERE, .dtype = dt, .arg_dtype = dt, .a = cond, .b = x, .c = y};
  return emit(b, in, 0);
}

rs_status rs_ewb_output(rs_ew_builder *b, int reg, rs_dtype dt, int unsafe) {
  RS_TRY(check_reg(b, reg));
  rs_ew_program *p = &b->prog;
  if (p->ninputs + p->noutputs >= RS_EW_MAX_ARRAYS)
    return rs_fail(RS_ERR_INTERNAL, "%s: more than %d outputs", b->who,
                   RS_EW_MAX_ARRAYS - RS_EW_MAX_INPUTS);
  rs_dtype have = rs_ewb_dtype(b, reg);
  if (have != dt && !unsafe && !rs_can_cast_same_kind(have, dt))
    return rs_fail(RS_ERR_DTYPE, "%s: cannot write a %s result into a %s array (casting \"same_kind\")",
                   b->who, rs_dtype_name(have), rs_dtype_name(dt));
  b->finishing = 1;
  if (b->weak[reg]) reg = rs_ewb_const(b, b->prog.instr[reg].value, have);
  int r = reg < 0 ? reg : rs_ewb_cast(b, reg, dt);
  b->finishing = 0;
  if (r < 0) return (rs_status)r;
  p->out_reg[p->noutputs] = r;
  p->out_dtype[p->noutputs] = dt;
  p->noutputs++;
  return RS_OK;
}

void rs_ewb_finish(rs_ew_builder *b) {
  rs_ew_program *p = &b->prog;
  int live[RS_EW_MAX_INSTR] = {0}, map[RS_EW_MAX_INSTR];
  for (int j = 0; j < p->noutputs; j++) live[p->out_reg[j]] = 1;
  for (int k = p->ninstr - 1; k >= 0; k--) {
    if (!live[k]) continue;
    const rs_ew_instr *in = &p->instr[k];
    switch (in->code) {
      case RS_EW_WHERE:
        live[in->c] = 1;
        /* fall through */
      case RS_EW_BINARY:
        live[in->b] = 1;
        /* fall through */
      case RS_EW_UNARY:
      case RS_EW_CAST:
        live[in->a] = 1;
        break;
      default:
        break;
    }
  }
  int n = 0;
  for (int k = 0; k < p->ninstr; k++) {
    if (!live[k]) continue;
    rs_ew_instr in = p->instr[k];
    if (in.code == RS_EW_CAST || in.code == RS_EW_UNARY || in.code == RS_EW_BINARY || in.code == RS_EW_WHERE)
      in.a = map[in.a];
    if (in.code == RS_EW_BINARY || in.code == RS_EW_WHERE) in.b = map[in.b];
    if (in.code == RS_EW_WHERE) in.c = map[in.c];
    map[k] = n;
    b->weak[n] = b->weak[k];
    p->instr[n++] = in;
  }
  p->ninstr = n;
  for (int j = 0; j < p->noutputs; j++) p->out_reg[j] = map[p->out_reg[j]];
}
