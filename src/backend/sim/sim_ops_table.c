/* The simulator's op table: the native loops queued on a simulator stream, device pointers
 * translated, run over the simulator's pool. A queued task owns a copy of its plan and
 * any scratch memory, allocated here - before queuing - so the work itself cannot fail. */
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_internal.h"
#include "native/native.h"
#include "backend/ops_table.h"
#include "core/error.h"
#include "backend/sim/sim_ops_index.h"

static void *tr(const void *p) { return rs_sim_translate(p); }

static rs_status no_memory(const char *what, size_t bytes) {
  return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim %s: no host memory for %zu bytes of scratch", what, bytes);
}

/* A task: the plan copy, its backend, and scratch freed with it. */
typedef struct task_head {
  rs_backend *b;
  void *scratch;
} task_head;

static void task_free(void *arg) {
  task_head *h = arg;
  free(h->scratch);
  free(h);
}

static rs_status submit(rs_backend *b, void *stream, void (*run)(void *), task_head *t, const char *what) {
  rs_status st = rs_sim_enqueue(b, stream, run, t, task_free);
  if (st != RS_OK) {
    task_free(t);
    return rs_fail_prefix(st, "sim %s: ", what);
  }
  return RS_OK;
}

/* ---- elementwise ---- */
typedef struct ew_task {
  task_head h;
  rs_ew_program p;
  rs_ew_geom g;
} ew_task;

static void ew_run(void *arg) {
  ew_task *t = arg;
  rs_native_ew(&t->h.b->pool, &t->p, &t->g);
}

static rs_status sim_ew(rs_backend *b, const rs_ew_program *p, const rs_ew_geom *g, void *stream) {
  ew_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("elementwise", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->g = *g;
  for (int a = 0; a < g->narrays; a++) t->g.ptr[a] = tr(g->ptr[a]);
  return submit(b, stream, ew_run, &t->h, "elementwise");
}

/* ---- reductions ---- */
typedef struct reduce_task {
  task_head h;
  rs_reduce_plan p;
} reduce_task;

static void reduce_run(void *arg) {
  reduce_task *t = arg;
  rs_native_reduce(&t->h.b->pool, &t->p, t->h.scratch);
}

static rs_status sim_reduce(rs_backend *b, const rs_reduce_plan *p, void *stream) {
  reduce_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("reduce", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.in = tr(p->in);
  t->p.out = tr(p->out);
  rs_status st = rs_native_scratch(&t->h.scratch, rs_native_reduce_scratch(p), "sim reduce");
  if (st != RS_OK) {
    task_free(t);
    return st;
  }
  return submit(b, stream, reduce_run, &t->h, "reduce");
}

/* ---- sort ---- */
typedef struct sort_task {
  task_head h;
  rs_sort_plan p;
} sort_task;

static void sort_run(void *arg) {
  sort_task *t = arg;
  rs_native_sort(&t->h.b->pool, &t->p, t->h.scratch);
}

static rs_status sim_sort(rs_backend *b, const rs_sort_plan *p, void *stream) {
  sort_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("sort", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.src = tr(p->src);
  t->p.dst = tr(p->dst);
  t->p.indices = tr(p->indices);
  rs_status st = rs_native_scratch(&t->h.scratch, rs_native_sort_scratch(p), "sim sort");
  if (st != RS_OK) {
    task_free(t);
    return st;
  }
  return submit(b, stream, sort_run, &t->h, "sort");
}

/* ---- random ---- */
typedef struct random_task {
  task_head h;
  rs_random_plan p;
} random_task;

static void random_run(void *arg) {
  random_task *t = arg;
  rs_native_random(&t->h.b->pool, &t->p);
}

static rs_status sim_random(rs_backend *b, const rs_random_plan *p, void *stream) {
  random_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("random", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.ptr = tr(p->ptr);
  return submit(b, stream, random_run, &t->h, "random");
}

/* ---- matmul ---- */
typedef struct matmul_task {
  task_head h;
  rs_matmul_plan p;
} matmul_task;

static void matmul_run(void *arg) {
  matmul_task *t = arg;
  rs_native_matmul(&t->h.b->pool, &t->p);
}

static rs_status sim_matmul(rs_backend *b, const rs_matmul_plan *p, void *stream) {
  matmul_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("matmul", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.a = tr(p->a);
  t->p.b = tr(p->b);
  t->p.c = tr(p->c);
  return submit(b, stream, matmul_run, &t->h, "matmul");
}

/* ---- svd ---- */
typedef struct svd_task {
  task_head h;
  rs_svd_plan p;
} svd_task;

static void svd_run(void *arg) {
  svd_task *t = arg;
  rs_native_svd(&t->h.b->pool, &t->p, t->h.scratch);
}

static rs_status sim_svd(rs_backend *b, const rs_svd_plan *p, void *stream) {
  svd_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("svd", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.a = tr(p->a);
  t->p.u = tr(p->u);
  t->p.s = tr(p->s);
  t->p.vh = tr(p->vh);
  t->p.info = tr(p->info);
  rs_status st = rs_native_scratch(&t->h.scratch, rs_native_svd_scratch(p), "sim svd");
  if (st != RS_OK) {
    task_free(t);
    return st;
  }
  return submit(b, stream, svd_run, &t->h, "svd");
}

/* ---- solve ---- */
typedef struct solve_task {
  task_head h;
  rs_solve_plan p;
} solve_task;

static void solve_run(void *arg) {
  solve_task *t = arg;
  rs_native_solve(&t->h.b->pool, &t->p, t->h.scratch);
}

static rs_status sim_solve(rs_backend *b, const rs_solve_plan *p, void *stream) {
  solve_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("solve", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.a = tr(p->a);
  t->p.b = tr(p->b);
  t->p.info = tr(p->info);
  rs_status st = rs_native_scratch(&t->h.scratch, rs_native_solve_scratch(p), "sim solve");
  if (st != RS_OK) {
    task_free(t);
    return st;
  }
  return submit(b, stream, solve_run, &t->h, "solve");
}

/* ---- scans (stats) ---- */
typedef struct scan_task {
  task_head h;
  rs_scan_plan p;
} scan_task;

static void scan_run(void *arg) {
  scan_task *t = arg;
  rs_native_scan(&t->h.b->pool, &t->p);
}

static rs_status sim_scan(rs_backend *b, const rs_scan_plan *p, void *stream) {
  scan_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("scan", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.src = tr(p->src);
  t->p.dst = tr(p->dst);
  return submit(b, stream, scan_run, &t->h, "scan");
}

typedef struct moments_task {
  task_head h;
  rs_moments_plan p;
} moments_task;

static void moments_run(void *arg) {
  moments_task *t = arg;
  rs_native_moments(&t->h.b->pool, &t->p);
}

static rs_status sim_moments(rs_backend *b, const rs_moments_plan *p, void *stream) {
  moments_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("moments", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.src = tr(p->src);
  t->p.dst = tr(p->dst);
  return submit(b, stream, moments_run, &t->h, "moments");
}

/* ---- linalg extension: factorizations ---- */
typedef struct factor_task {
  task_head h;
  rs_factor_plan p;
} factor_task;

static void factor_run(void *arg) {
  factor_task *t = arg;
  rs_native_factor(&t->p, t->h.scratch);
}

static rs_status sim_factor(rs_backend *b, const rs_factor_plan *p, void *stream) {
  RS_TRY(rs_native_factor_check(p, "sim"));
  factor_task *t = calloc(1, sizeof *t);
  if (!t) return no_memory("factor", sizeof *t);
  t->h.b = b;
  t->p = *p;
  t->p.a = tr(p->a);
  t->p.q = p->q ? tr(p->q) : NULL;
  t->p.w = p->w ? tr(p->w) : NULL;
  t->p.det = p->det ? tr(p->det) : NULL;
  t->p.sign = p->sign ? tr(p->sign) : NULL;
  t->p.logabs = p->logabs ? tr(p->logabs) : NULL;
  t->p.info = tr(p->info);
  rs_status st = rs_native_scratch(&t->h.scratch, rs_native_factor_scratch(p), "sim factor");
  if (st != RS_OK) {
    task_free(t);
    return st;
  }
  return submit(b, stream, factor_run, &t->h, "factor");
}

const rs_ops_table rs_sim_ops = {
    .name = "sim",
    .ew = sim_ew,
    .reduce = sim_reduce,
    .sort = sim_sort,
    .random = sim_random,
    .matmul = sim_matmul,
    .svd = sim_svd,
    .solve = sim_solve,
    /* indexing, searching, sets (sim_ops_index.c) */
    .index = rs_sim_ops_index,
    .select = rs_sim_ops_select,
    .unique = rs_sim_ops_unique,
    .search = rs_sim_ops_search,
    /* stats */
    .scan = sim_scan,
    .moments = sim_moments,
    .factor = sim_factor, /* linalg extension */
};
