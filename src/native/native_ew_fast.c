/* The elementwise fast path: a program that is one arithmetic op (+ - * /) on float32 or
 * float64 operands of its own dtype - two arrays, or an array and a constant - runs as
 * one straight loop over each contiguous row, which the compiler vectorizes, instead of
 * going through the block evaluator's registers. Each element is the same single IEEE
 * operation on the same two values as in the evaluator (no contraction: ISO C mode), so
 * the results are bit for bit the evaluator's. */
#include <string.h>
#include "native/native_ew_fast.h"

/* An operand register: a LOAD of an input of the program's dtype (its array) or a
 * CONST (-1). 0 when it is something else. */
static int operand(const rs_ew_program *p, int reg, rs_dtype dt, int *array) {
  if (reg < 0 || reg >= p->ninstr) return 0;
  const rs_ew_instr *in = &p->instr[reg];
  if (in->dtype != dt) return 0;
  if (in->code == RS_EW_CONST) {
    *array = -1;
    return 1;
  }
  if (in->code != RS_EW_LOAD || p->in_dtype[in->a] != dt) return 0;
  *array = in->a;
  return 1;
}

int rs_ew_fast_plan(const rs_ew_program *p, rs_ew_fast *f) {
  memset(f, 0, sizeof *f);
  if (p->noutputs != 1 || p->ninstr != 3 || p->out_reg[0] != 2) return 0;
  const rs_ew_instr *op = &p->instr[2];
  rs_dtype dt = op->dtype;
  if (op->code != RS_EW_BINARY || (dt != RS_FLOAT32 && dt != RS_FLOAT64)) return 0;
  if (op->arg_dtype != dt || p->out_dtype[0] != dt) return 0;
  if (op->op != RS_OP_ADD && op->op != RS_OP_SUBTRACT && op->op != RS_OP_MULTIPLY && op->op != RS_OP_DIVIDE)
    return 0;
  if (!operand(p, op->a, dt, &f->src[0]) || !operand(p, op->b, dt, &f->src[1])) return 0;
  if (f->src[0] < 0 && f->src[1] < 0) return 0;
  f->reg[0] = op->a, f->reg[1] = op->b;
  f->op = op->op;
  f->dtype = dt;
  f->out = p->ninputs;
  f->ok = 1;
  return 1;
}

/* r[i] = x[i] OP y[i]; a scalar side is a one-value array with step 0. No restrict: r may
 * be x or y (an op into one of its inputs); the compiler checks for overlap at run time
 * and vectorizes when there is none or it is exact. */
#define RS_FAST_LOOP(T, OPR)                                                              \
  do {                                                                                    \
    T *r = (T *)(void *)out;                                                     \
    const T *x = (const T *)(const void *)a;                                     \
    const T *y = (const T *)(const void *)b;                                     \
    if (sa && sb)                                                                         \
      for (int64_t i = 0; i < n; i++) r[i] = x[i] OPR y[i];                               \
    else if (sa) {                                                                        \
      const T c = y[0];                                                                   \
      for (int64_t i = 0; i < n; i++) r[i] = x[i] OPR c;                                  \
    } else {                                                                              \
      const T c = x[0];                                                                   \
      for (int64_t i = 0; i < n; i++) r[i] = c OPR y[i];                                  \
    }                                                                                     \
  } while (0)

#define RS_FAST_OPS(T)                                          \
  switch (op) {                                                 \
    case RS_OP_ADD: RS_FAST_LOOP(T, +); break;                  \
    case RS_OP_SUBTRACT: RS_FAST_LOOP(T, -); break;             \
    case RS_OP_MULTIPLY: RS_FAST_LOOP(T, *); break;             \
    default: RS_FAST_LOOP(T, /); break;                         \
  }

static void run_f(int op, const char *a, int sa, const char *b, int sb, char *out, int64_t n) { RS_FAST_OPS(float) }
static void run_d(int op, const char *a, int sa, const char *b, int sb, char *out, int64_t n) { RS_FAST_OPS(double) }

int rs_ew_fast_row(const rs_ew_fast *f, const void *const consts[2], char *const *row, const int64_t *stride,
                   int64_t n) {
  int64_t item = (int64_t)rs_dtype_size(f->dtype);
  const char *src[2];
  int step[2];
  for (int s = 0; s < 2; s++) {
    if (f->src[s] < 0) {
      src[s] = consts[s], step[s] = 0;
    } else {
      int64_t st = stride[f->src[s]];
      if (st != item && st != 0) return 0;
      src[s] = row[f->src[s]], step[s] = st != 0;
    }
  }
  if (stride[f->out] != item) return 0;
  if (!step[0] && !step[1]) return 0;
  if (f->dtype == RS_FLOAT32)
    run_f(f->op, src[0], step[0], src[1], step[1], row[f->out], n);
  else
    run_d(f->op, src[0], step[0], src[1], step[1], row[f->out], n);
  return 1;
}
