/* The simulator's indexing, searching and sets: the native loops (native_index.c) queued
 * on a simulator stream with device pointers translated. One task type carries any of the
 * four plans; nothing in them can fail once queued. */
#include <stdlib.h>
#include "backend/sim/sim_internal.h"
#include "backend/sim/sim_ops_index.h"
#include "core/error.h"
#include "native/native_index.h"

typedef enum { T_INDEX, T_SELECT, T_UNIQUE, T_SEARCH } task_kind;

typedef struct index_task {
  rs_backend *b;
  task_kind kind;
  union {
    rs_index_plan index;
    rs_select_plan select;
    rs_unique_plan unique;
    rs_search_plan search;
  } p;
} index_task;

static void *tr(const void *p) { return rs_sim_translate(p); }

static void run(void *arg) {
  index_task *t = arg;
  switch (t->kind) {
    case T_INDEX: rs_native_index(&t->b->pool, &t->p.index); break;
    case T_SELECT: rs_native_select(&t->p.select); break;
    case T_UNIQUE: rs_native_unique(&t->p.unique); break;
    case T_SEARCH: rs_native_search(&t->b->pool, &t->p.search); break;
  }
}

static rs_status submit(rs_backend *b, void *stream, index_task *t, const char *what) {
  t->b = b;
  rs_status st = rs_sim_enqueue(b, stream, run, t, free);
  if (st != RS_OK) {
    free(t);
    return rs_fail_prefix(st, "sim %s: ", what);
  }
  return RS_OK;
}

static rs_status new_task(index_task **out, task_kind kind, const char *what) {
  *out = calloc(1, sizeof **out);
  if (!*out) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim %s: no host memory for a task", what);
  (*out)->kind = kind;
  return RS_OK;
}

rs_status rs_sim_ops_index(rs_backend *b, const rs_index_plan *p, void *stream) {
  index_task *t;
  RS_TRY(new_task(&t, T_INDEX, "index"));
  t->p.index = *p;
  t->p.index.data = tr(p->data);
  t->p.index.idx = tr(p->idx);
  t->p.index.vals = tr(p->vals);
  return submit(b, stream, t, "index");
}

rs_status rs_sim_ops_select(rs_backend *b, const rs_select_plan *p, void *stream) {
  index_task *t;
  RS_TRY(new_task(&t, T_SELECT, "select"));
  t->p.select = *p;
  t->p.select.flags = tr(p->flags);
  t->p.select.positions = tr(p->positions);
  t->p.select.count = tr(p->count);
  t->p.select.values = tr(p->values);
  t->p.select.out = tr(p->out);
  return submit(b, stream, t, "select");
}

rs_status rs_sim_ops_unique(rs_backend *b, const rs_unique_plan *p, void *stream) {
  index_task *t;
  RS_TRY(new_task(&t, T_UNIQUE, "unique"));
  t->p.unique = *p;
  rs_unique_plan *q = &t->p.unique;
  q->sorted = tr(p->sorted);
  q->perm = tr(p->perm);
  q->values = tr(p->values);
  q->counts = tr(p->counts);
  q->first = tr(p->first);
  q->inverse = tr(p->inverse);
  q->nruns = tr(p->nruns);
  return submit(b, stream, t, "unique");
}

rs_status rs_sim_ops_search(rs_backend *b, const rs_search_plan *p, void *stream) {
  index_task *t;
  RS_TRY(new_task(&t, T_SEARCH, "search"));
  t->p.search = *p;
  t->p.search.sorted = tr(p->sorted);
  t->p.search.v = tr(p->v);
  t->p.search.out = tr(p->out);
  return submit(b, stream, t, "search");
}
