/* Internal: the elementwise fast path (native_ew_fast.c) - one float op run as a plain
 * loop over contiguous rows, bit for bit what the block evaluator (native_ew.c) gives. */
#ifndef RS_NATIVE_EW_FAST_H
#define RS_NATIVE_EW_FAST_H

#include "native/native.h"

typedef struct rs_ew_fast {
  int ok;
  int op;         /* RS_OP_ADD, SUBTRACT, MULTIPLY or DIVIDE */
  rs_dtype dtype; /* float32 or float64: operands and result */
  int src[2];     /* each operand's input array, or -1 for a constant */
  int reg[2];     /* each operand's register (a constant's value is there) */
  int out;        /* the output's array index */
} rs_ew_fast;

/* 1 (and f filled) when program p fits the fast path, else 0. */
int rs_ew_fast_plan(const rs_ew_program *p, rs_ew_fast *f);

/* One row of n elements: row[a] the address of array a's first element, stride[a] its
 * byte stride; consts[s] the value of constant operand s. 0 (nothing done) when the
 * strides are not contiguous (an operand may also be broadcast, stride 0). Output must
 * not partially overlap an input (the ops layer's rule for every elementwise op). */
int rs_ew_fast_row(const rs_ew_fast *f, const void *const consts[2], char *const *row, const int64_t *stride,
                   int64_t n);

#endif
