/* Internal: building elementwise programs (src/native/plans.h) with NumPy's typing - the one
 * place where plain ops and fused expressions get their types, casts and weak scalars.
 *
 * Functions returning int give a register (>= 0) or a negative rs_status with the
 * message set. */
#ifndef RS_OPS_EW_BUILD_H
#define RS_OPS_EW_BUILD_H

#include "backend/ops_table.h"

typedef struct rs_ew_builder {
  rs_ew_program prog;
  /* 0 for a strong register; 1 + rs_scalar_kind for a weak scalar constant */
  int weak[RS_EW_MAX_INSTR];
  const char *who; /* op name for messages */
  int finishing;   /* inside rs_ewb_output: may go past RS_EW_MAX_NODES */
} rs_ew_builder;

void rs_ewb_init(rs_ew_builder *b, const char *who);
rs_dtype rs_ewb_dtype(const rs_ew_builder *b, int reg);

/* Read the next input array (of dtype dt). */
int rs_ewb_load(rs_ew_builder *b, rs_dtype dt);
/* A weak (Python) scalar: its dtype is settled by the op that uses it. */
int rs_ewb_scalar(rs_ew_builder *b, rs_scalar s);
/* A constant of a fixed dtype. */
int rs_ewb_const(rs_ew_builder *b, rs_scalar s, rs_dtype dt);
/* The element's C-order index (int64). */
int rs_ewb_index(rs_ew_builder *b);
/* Convert (every cast allowed, as astype). */
int rs_ewb_cast(rs_ew_builder *b, int reg, rs_dtype dt);
int rs_ewb_unary(rs_ew_builder *b, rs_op op, int x);
int rs_ewb_binary(rs_ew_builder *b, rs_op op, int x, int y);
int rs_ewb_where(rs_ew_builder *b, int cond, int x, int y);

/* Store reg to the next output array, of dtype dt: casting under "same_kind" unless
 * unsafe is set (RS_ERR_DTYPE otherwise). */
rs_status rs_ewb_output(rs_ew_builder *b, int reg, rs_dtype dt, int unsafe);

/* Drop instructions no output needs (a weak scalar is re-emitted once its dtype is
 * known), so the program - and the kernel cache key made from it - is minimal. */
void rs_ewb_finish(rs_ew_builder *b);

#endif
