/* Fused expressions: the public builder over an elementwise program. Nodes are the
 * program's registers; the first failure sticks (status and message) so a chain of node
 * calls needs one check. Evaluation runs the program once over the arrays the chosen
 * root depends on - one pass, one kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "ops/into.h"
#include "ops/ops_internal.h"

struct rs_expr {
  rs_context *ctx;
  rs_ew_builder b;
  int narrays;
  rs_array *arrays[RS_EW_MAX_ARRAYS]; /* one reference each */
  int load_of[RS_EW_MAX_INSTR];       /* node -> its array (LOAD nodes), else -1 */
  int ndim[RS_EW_MAX_INSTR];          /* node shapes, for broadcast errors when building */
  int64_t shape[RS_EW_MAX_INSTR][RS_MAX_DIMS];
  rs_status status;
  char message[512];
};

rs_status rs_expr_create(rs_expr **out, rs_context *ctx) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_expr_create: out is NULL");
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_expr_create: context is NULL");
  rs_expr *e = calloc(1, sizeof *e);
  if (!e) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_expr_create: out of host memory");
  e->ctx = ctx;
  rs_ewb_init(&e->b, "expression");
  for (int i = 0; i < RS_EW_MAX_INSTR; i++) e->load_of[i] = -1;
  *out = e;
  return RS_OK;
}

rs_status rs_expr_destroy(rs_expr *e) {
  if (!e) return RS_OK;
  for (int i = 0; i < e->narrays; i++) rs_array_release(e->arrays[i]);
  free(e);
  return RS_OK;
}

rs_status rs_expr_status(const rs_expr *e) {
  if (!e) return rs_fail(RS_ERR_NULL_POINTER, "rs_expr_status: expression is NULL");
  if (e->status != RS_OK) return rs_fail(e->status, "%s", e->message);
  return RS_OK;
}

/* Record a failure (the first one sticks) and return -1. */
static int fail(rs_expr *e, int status) {
  if (e->status == RS_OK) {
    e->status = (rs_status)status;
    snprintf(e->message, sizeof e->message, "%s", rs_last_error());
  }
  return -1;
}

/* 0 if e can take a new node; else -1 with the message saying why (a NULL expression,
 * or the failure an earlier node left, which sticks). */
static int usable(const rs_expr *e, const char *who) {
  if (!e) {
    rs_fail(RS_ERR_NULL_POINTER, "%s: expression is NULL", who);
    return -1;
  }
  if (e->status != RS_OK) {
    rs_fail(e->status, "%s: the expression failed earlier: %s", who, e->message);
    return -1;
  }
  return 0;
}

static int node_ok(rs_expr *e, int x) {
  if (x < 0 || x >= e->b.prog.ninstr)
    return fail(e, rs_fail(RS_ERR_INVALID_ARGUMENT, "expression: %d is not a node of this expression", x));
  return 0;
}

/* Give a new node its shape: the broadcast of its operands'. */
static int shaped(rs_expr *e, int r, int n, const int *operands) {
  if (r < 0) return fail(e, r);
  int nd = 0;
  int64_t sh[RS_MAX_DIMS];
  for (int i = 0; i < n; i++)
    if (e->ndim[operands[i]] > nd) nd = e->ndim[operands[i]];
  for (int k = 0; k < nd; k++) sh[k] = 1;
  for (int i = 0; i < n; i++) {
    int o = operands[i], on = e->ndim[o];
    for (int k = 0; k < on; k++) {
      int64_t v = e->shape[o][k], *s = &sh[nd - on + k];
      if (v == *s || v == 1) continue;
      if (*s != 1) {
        char a[256], b[256];
        rs_ops_shape_str(a, sizeof a, e->ndim[operands[0]], e->shape[operands[0]]);
        rs_ops_shape_str(b, sizeof b, on, e->shape[o]);
        return fail(e, rs_fail(RS_ERR_BROADCAST, "expression: operands could not be broadcast together with shapes %s %s", a, b));
      }
      *s = v;
    }
  }
  e->ndim[r] = nd;
  memcpy(e->shape[r], sh, (size_t)nd * sizeof(int64_t));
  return r;
}

int rs_expr_array(rs_expr *e, const rs_array *a) {
  if (usable(e, "rs_expr_array")) return -1;
  rs_status st = rs_array_check(a, "rs_expr_array");
  if (st != RS_OK) return fail(e, st);
  if (a->ctx != e->ctx) return fail(e, rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_expr_array: the array belongs to another context"));
  int r = rs_ewb_load(&e->b, a->dtype);
  if (r < 0) return fail(e, r);
  rs_array_retain((rs_array *)(uintptr_t)a);
  e->arrays[e->narrays] = (rs_array *)(uintptr_t)a;
  e->load_of[r] = e->narrays++;
  e->ndim[r] = a->ndim;
  memcpy(e->shape[r], a->shape, (size_t)a->ndim * sizeof(int64_t));
  return r;
}

int rs_expr_scalar(rs_expr *e, rs_scalar s) {
  if (usable(e, "rs_expr_scalar")) return -1;
  return shaped(e, rs_ewb_scalar(&e->b, s), 0, NULL);
}

int rs_expr_unary(rs_expr *e, rs_op op, int x) {
  if (usable(e, "rs_expr_unary") || node_ok(e, x)) return -1;
  int ops[1] = {x};
  return shaped(e, rs_ewb_unary(&e->b, op, x), 1, ops);
}

int rs_expr_binary(rs_expr *e, rs_op op, int x, int y) {
  if (usable(e, "rs_expr_binary") || node_ok(e, x) || node_ok(e, y)) return -1;
  int ops[2] = {x, y};
  int r = shaped(e, rs_ewb_binary(&e->b, op, x, y), 2, ops);
  return r;
}

int rs_expr_where(rs_expr *e, int cond, int x, int y) {
  if (usable(e, "rs_expr_where") || node_ok(e, cond) || node_ok(e, x) || node_ok(e, y)) return -1;
  int ops[3] = {cond, x, y};
  return shaped(e, rs_ewb_where(&e->b, cond, x, y), 3, ops);
}

int rs_expr_astype(rs_expr *e, int x, rs_dtype dtype) {
  if (usable(e, "rs_expr_astype") || node_ok(e, x)) return -1;
  int ops[1] = {x};
  return shaped(e, rs_ewb_cast(&e->b, x, dtype), 1, ops);
}

rs_status rs_expr_rebind(rs_expr *e, int node, const rs_array *a) {
  if (!e) return rs_fail(RS_ERR_NULL_POINTER, "rs_expr_rebind: expression is NULL");
  RS_TRY(rs_array_check(a, "rs_expr_rebind"));
  if (node < 0 || node >= e->b.prog.ninstr || e->load_of[node] < 0)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_expr_rebind: node %d is not an array of this expression", node);
  rs_array *old = e->arrays[e->load_of[node]];
  if (a->ctx != e->ctx || a->dtype != old->dtype || a->ndim != old->ndim ||
      memcmp(a->shape, old->shape, (size_t)a->ndim * sizeof(int64_t)) != 0) {
    char x[600], y[600];
    return rs_fail(RS_ERR_SHAPE, "rs_expr_rebind: %s cannot replace %s (same context, dtype and shape needed)",
                   rs_array_describe(a, x, sizeof x), rs_array_describe(old, y, sizeof y));
  }
  rs_array_retain((rs_array *)(uintptr_t)a);
  e->arrays[e->load_of[node]] = (rs_array *)(uintptr_t)a;
  rs_array_release(old);
  return RS_OK;
}

static rs_status eval(rs_array **out, rs_expr *e, int root, rs_stream *stream) {
  if (!e) return rs_fail(RS_ERR_NULL_POINTER, "rs_expr_eval: expression is NULL");
  RS_TRY(rs_expr_status(e));
  if (root < 0 || root >= e->b.prog.ninstr)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_expr_eval: %d is not a node of this expression", root);
  /* Only the arrays the root depends on take part (they set the shape). */
  rs_ew_builder *b = malloc(sizeof *b);
  if (!b) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_expr_eval: out of host memory");
  *b = e->b;
  b->who = "expression";
  int live[RS_EW_MAX_INSTR] = {0}, remap[RS_EW_MAX_ARRAYS];
  live[root] = 1;
  for (int k = root; k >= 0; k--) {
    if (!live[k]) continue;
    const rs_ew_instr *in = &b->prog.instr[k];
    if (in->code == RS_EW_CAST || in->code == RS_EW_UNARY || in->code == RS_EW_BINARY || in->code == RS_EW_WHERE)
      live[in->a] = 1;
    if (in->code == RS_EW_BINARY || in->code == RS_EW_WHERE) live[in->b] = 1;
    if (in->code == RS_EW_WHERE) live[in->c] = 1;
  }
  rs_ew_spec spec = {.name = "expression", .ctx = e->ctx, .stream = stream};
  for (int i = 0; i < RS_EW_MAX_ARRAYS; i++) remap[i] = -1;
  for (int k = 0; k <= root; k++) {
    rs_ew_instr *in = &b->prog.instr[k];
    if (in->code != RS_EW_LOAD) continue;
    if (!live[k]) {
      in->code = RS_EW_INDEX; /* dead: finish drops it */
      continue;
    }
    if (remap[in->a] < 0) {
      remap[in->a] = spec.nin;
      b->prog.in_dtype[spec.nin] = in->dtype;
      spec.in[spec.nin++] = e->arrays[in->a];
    }
    in->a = remap[in->a];
  }
  b->prog.ninstr = root + 1;
  b->prog.ninputs = spec.nin;
  rs_status st;
  if (spec.nin == 0 && !(out && *out)) {
    /* constants only: a 0-d result where the context's data lives by default (device) */
    rs_ops_result r;
    st = rs_ops_result_begin(&r, out, e->ctx, 1, 0, NULL, rs_ewb_dtype(b, root), RS_ORDER_C, RS_OPS_CAST_CALLER,
                             "expression");
    if (st == RS_OK) st = rs_ops_result_end(&r, rs_ops_elementwise(&r.target, b, root, &spec));
  } else {
    st = rs_ops_elementwise(out, b, root, &spec);
  }
  free(b);
  return st;
}

RS_OPS_PAIR(rs_expr_eval, (rs_expr *e, int root, rs_stream *stream), eval, (e, root, stream))
