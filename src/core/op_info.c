/* The names and arities of the elementwise ops (public: rs_op_name, rs_op_arity). They
 * live in core, not with the ops, because the typing rules (dtype_rules.c) and the
 * backends' code generators read them too, and those sit below the ops layer. */
#include "resident/ops.h"

static const struct {
  const char *name;
  int arity;
} rs_op_table[] = {
#define RS_OP_ROW_(e, name, arity) {name, arity},
    RS_OP_LIST(RS_OP_ROW_)
#undef RS_OP_ROW_
};

const char *rs_op_name(rs_op op) { return (unsigned)op < RS_OP_COUNT ? rs_op_table[op].name : "invalid"; }
int rs_op_arity(rs_op op) { return (unsigned)op < RS_OP_COUNT ? rs_op_table[op].arity : 0; }
