/* Running a user kernel on the simulator: the launch is queued on the stream like any
 * other work; its blocks are spread over the host cores with rs_sim_parallel_for; each
 * block runs on one host thread, one fiber per GPU thread, and __syncthreads() parks a
 * fiber until every thread of the block has arrived.
 *
 * A barrier that not every thread reaches - some wait while others have finished, or
 * they wait at different __syncthreads() - would hang a GPU. Here the block stops and the
 * launch records RS_ERR_KERNEL_FAULT naming the kernel, the block and the threads.
 *
 * Kernels whose source has no __syncthreads() run their threads one after another on the
 * host thread's own stack: no fibers to set up, the common elementwise case stays cheap.
 *
 * Shared memory is thread-local storage of the kernel's object (the shim makes __shared__
 * `static thread_local`): one copy per host thread, which runs one block at a time - so
 * exactly one copy per running block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_check.h"
#include "core/error.h"

/* ---- the runtime the kernel object calls ----------------------------------------------- */

static int rs_rt_barrier(int op, int value, int site, const char *file, int line) {
  sim_host *h = sim_host_current;
  if (!h || !h->cur) return value; /* not inside a simulated block */
  sim_gthread *g = h->cur;
  if (h->direct) {
    /* A one-thread block passes its own barrier; anything else means the scan missed a
     * call (through a macro): reported after the block. */
    if (h->launch->threads > 1 && !h->stray_file) {
      h->stray_what = "__syncthreads()";
      h->stray_file = file;
      h->stray_line = line;
    }
    return op == RS_SIM_SYNC_COUNT ? (value != 0) : value;
  }
  g->status = G_WAIT;
  g->op = op;
  g->value = value;
  g->site = site;
  g->file = file;
  g->line = line;
  sim_fiber_switch(&g->fiber, &h->sched, 0);
  return g->result;
}

static void *rs_rt_dynamic_shared(void) {
  sim_host *h = sim_host_current;
  return h ? h->shared : NULL;
}

const rs_sim_runtime rs_sim_runtime_table = {RS_SIM_ABI,          sizeof(rs_sim_runtime), rs_rt_barrier,
                                             rs_rt_dynamic_shared, sim_rt_trap,            sim_rt_warp,
                                             sim_rt_access};

/* ---- one block ------------------------------------------------------------------------ */

static void rs_fiber_main(void *arg) {
  sim_gthread *g = arg;
  sim_host *h = sim_host_current;
  sim_fiber_started(&h->sched);
  h->launch->m->entry(h->launch->argv);
  g->status = G_DONE;
  sim_fiber_switch(&g->fiber, &h->sched, 1);
  abort(); /* never resumed */
}

static void rs_thread_state(const sim_launch *L, sim_gthread *g, unsigned t, const rs_sim_dim3 *block) {
  const rs_kernel_dims *d = &L->d;
  g->state.thread_idx = (rs_sim_dim3){t % d->block[0], (t / d->block[0]) % d->block[1], t / (d->block[0] * d->block[1])};
  g->state.block_idx = *block;
  g->state.block_dim = (rs_sim_dim3){d->block[0], d->block[1], d->block[2]};
  g->state.grid_dim = (rs_sim_dim3){d->grid[0], d->grid[1], d->grid[2]};
  g->state.check = L->snap ? &sim_host_current->check : NULL;
}

/* A block starts: a new barrier interval, no warp has synchronized yet. */
static void rs_block_start(sim_host *h) {
  sim_check_epoch(h);
  memset(h->wsync, 0, sizeof h->wsync);
}

/* "0-127, 200" for the threads of h with status want (or, want < 0, not G_WAIT at site). */
static void rs_ranges(const sim_host *h, unsigned n, int (*pick)(const sim_gthread *, const void *), const void *arg,
                      char *out, size_t len) {
  size_t used = 0;
  out[0] = '\0';
  for (unsigned t = 0; t < n;) {
    if (!pick(&h->g[t], arg)) {
      t++;
      continue;
    }
    unsigned e = t;
    while (e + 1 < n && pick(&h->g[e + 1], arg)) e++;
    int w = e == t ? snprintf(out + used, len - used, "%s%u", used ? ", " : "", t)
                   : snprintf(out + used, len - used, "%s%u-%u", used ? ", " : "", t, e);
    if (w < 0 || (size_t)w >= len - used) {
      if (len > 4) snprintf(out + len - 5, 5, "...");
      return;
    }
    used += (size_t)w;
    t = e + 1;
  }
}

static int rs_pick_status(const sim_gthread *g, const void *arg) { return g->status == *(const int *)arg; }
static int rs_pick_site(const sim_gthread *g, const void *arg) {
  const sim_gthread *ref = arg;
  return g->status == G_WAIT && g->line == ref->line && g->site == ref->site && (g->file == ref->file || strcmp(g->file, ref->file) == 0);
}
static int rs_pick_other_site(const sim_gthread *g, const void *arg) {
  return g->status == G_WAIT && !rs_pick_site(g, arg);
}

static int rs_fail_block(const sim_launch *L, const rs_sim_dim3 *bi, char *err, size_t len, const char *what) {
  snprintf(err, len,
           "kernel '%s' block (%u,%u,%u): %s (the simulated context is still usable; the launch's output is "
           "incomplete)",
           L->m->name, bi->x, bi->y, bi->z, what);
  return -1;
}

/* Run every thread to the next barrier in turn until all have finished. */
static int rs_block_fibers(const sim_launch *L, sim_host *h, const rs_sim_dim3 *bi, char *err, size_t len) {
  unsigned n = L->threads;
  rs_sim_thread **slot = L->m->current_slot();
  rs_block_start(h);
  for (unsigned t = 0; t < n; t++) {
    sim_gthread *g = &h->g[t];
    rs_thread_state(L, g, t, bi);
    g->status = G_RUN;
    /* Stacks lie a multiple of the page size apart, so their tops would all fall in the
     * same cache sets: start each one a different number of cache lines lower. */
    size_t color = (size_t)t * 7 * 64 % 4096;
    sim_fiber_init(&g->fiber, h->stacks[t], RS_SIM_STACK - color, rs_fiber_main, g);
  }
  char msg[600], a[160], b[160];
  for (;;) {
    unsigned waiting = 0, done = 0;
    for (unsigned t = 0; t < n; t++) {
      sim_gthread *g = &h->g[t];
      if (g->status == G_RUN) {
        *slot = &g->state;
        h->cur = g;
        sim_fiber_switch(&h->sched, &g->fiber, 0);
        h->cur = NULL;
      }
      if (g->status == G_TRAP) {
        snprintf(msg, sizeof msg, "thread (%u,%u,%u) stopped at %s (%s:%d)", g->state.thread_idx.x,
                 g->state.thread_idx.y, g->state.thread_idx.z, h->trap_what, h->trap_file, h->trap_line);
        return rs_fail_block(L, bi, err, len, msg);
      }
      waiting += g->status == G_WAIT;
      done += g->status == G_DONE;
    }
    /* Warp collectives first: a lane answered there may go on to the block's barrier. */
    int warp = sim_warp_step(h, n, msg, sizeof msg);
    if (warp < 0) return rs_fail_block(L, bi, err, len, msg);
    if (warp > 0) continue;
    /* every thread parked or done: the interval's writes are final (sim_check_ww.c) */
    if (waiting == 0 || done == 0)
      if (h->nww && sim_check_ww_flush(h, msg, sizeof msg)) return rs_fail_block(L, bi, err, len, msg);
    if (waiting == 0) return 0;
    sim_gthread *first = NULL;
    for (unsigned t = 0; t < n && !first; t++)
      if (h->g[t].status == G_WAIT) first = &h->g[t];
    if (done > 0) {
      int w = G_WAIT, d = G_DONE;
      rs_ranges(h, n, rs_pick_status, &w, a, sizeof a);
      rs_ranges(h, n, rs_pick_status, &d, b, sizeof b);
      snprintf(msg, sizeof msg,
               "threads %s wait at __syncthreads() (%s:%d) but threads %s finished without reaching it; every "
               "thread of a block must reach the same __syncthreads() - keep it out of divergent branches",
               a, first->file, first->line, b);
      return rs_fail_block(L, bi, err, len, msg);
    }
    int result = first->op == RS_SIM_SYNC_AND ? 1 : 0;
    for (unsigned t = 0; t < n; t++) {
      sim_gthread *g = &h->g[t];
      if (!rs_pick_site(g, first)) {
        rs_ranges(h, n, rs_pick_site, first, a, sizeof a);
        rs_ranges(h, n, rs_pick_other_site, first, b, sizeof b);
        snprintf(msg, sizeof msg,
                 "threads %s wait at __syncthreads() (%s:%d) while threads %s wait at another one (%s:%d); "
                 "every thread of a block must reach the same __syncthreads()",
                 a, first->file, first->line, b, g->file, g->line);
        return rs_fail_block(L, bi, err, len, msg);
      }
      if (first->op == RS_SIM_SYNC_COUNT) result += g->value != 0;
      if (first->op == RS_SIM_SYNC_AND) result &= g->value != 0;
      if (first->op == RS_SIM_SYNC_OR) result |= g->value != 0;
    }
    for (unsigned t = 0; t < n; t++) {
      h->g[t].result = result;
      h->g[t].status = G_RUN;
    }
    sim_check_epoch(h); /* past the barrier: accesses before it no longer race */
  }
}

/* Threads one after another on this stack (the source has no barrier). */
static int rs_block_direct(const sim_launch *L, sim_host *h, const rs_sim_dim3 *bi, char *err, size_t len) {
  rs_sim_thread **slot = L->m->current_slot();
  h->stray_file = NULL;
  rs_block_start(h);
  for (unsigned t = 0; t < L->threads; t++) {
    sim_gthread *g = &h->g[t];
    rs_thread_state(L, g, t, bi);
    *slot = &g->state;
    h->cur = g;
    if (setjmp(h->escape) != 0) {
      h->cur = NULL;
      char msg[600];
      snprintf(msg, sizeof msg, "thread (%u,%u,%u) stopped at %s (%s:%d)", g->state.thread_idx.x,
               g->state.thread_idx.y, g->state.thread_idx.z, h->trap_what, h->trap_file, h->trap_line);
      return rs_fail_block(L, bi, err, len, msg);
    }
    L->m->entry(L->argv);
    h->cur = NULL;
  }
  if (h->stray_file) {
    char msg[400];
    snprintf(msg, sizeof msg,
             "the kernel called %s (%s:%d) though its source does not name it (a macro?), so it ran without "
             "fibers: write the call out in the kernel's source",
             h->stray_what, h->stray_file, h->stray_line);
    return rs_fail_block(L, bi, err, len, msg);
  }
  char msg[600];
  if (h->nww && sim_check_ww_flush(h, msg, sizeof msg)) return rs_fail_block(L, bi, err, len, msg);
  return 0;
}

static void rs_blocks(int64_t begin, int64_t end, void *arg) {
  sim_launch *L = arg;
  int fibers = L->m->uses_barrier;
  sim_host *h = sim_host_get(L->threads, fibers);
  if (!h) {
    if (!atomic_exchange(&L->abort, 1))
      sim_kmodule_fault(L->m, RS_ERR_HOST_OUT_OF_MEMORY, "the simulator ran out of host memory for a block's threads");
    return;
  }
  const sim_launch *saved = h->launch;
  h->launch = L;
  h->direct = !fibers;
  if (!sim_check_begin(h, L)) h->checked = NULL;
  const rs_kernel_dims *d = &L->d;
  char err[1024];
  for (int64_t blk = begin; blk < end; blk++) {
    if (atomic_load_explicit(&L->abort, memory_order_relaxed)) break;
    uint64_t u = (uint64_t)blk;
    rs_sim_dim3 bi = {(unsigned)(u % d->grid[0]), (unsigned)((u / d->grid[0]) % d->grid[1]),
                      (unsigned)(u / ((uint64_t)d->grid[0] * d->grid[1]))};
    int rc = fibers ? rs_block_fibers(L, h, &bi, err, sizeof err) : rs_block_direct(L, h, &bi, err, sizeof err);
    if (rc != 0) {
      atomic_store(&L->abort, 1);
      sim_kmodule_fault(L->m, RS_ERR_KERNEL_FAULT, err);
      break;
    }
  }
  h->launch = saved;
  h->checked = NULL; /* L's memory may be another launch's next */
}

static void rs_run_launch(void *arg) {
  sim_launch *L = arg;
  if (L->nblocks == 1)
    rs_blocks(0, 1, L);
  else
    rs_sim_parallel_for(L->b, (int64_t)L->nblocks, rs_blocks, L);
}

static void rs_free_launch(void *arg) {
  sim_launch *L = arg;
  sim_kmodule_release(L->m);
  sim_check_snap_release(L->snap);
  free(L);
}

rs_status sim_kernel_launch(rs_backend *b, void *module, void *fn, const rs_kernel_dims *d, void **args,
                            const unsigned char *kinds, int nargs, void *stream) {
  (void)fn;
  sim_kmodule *m = module;
  if (nargs != m->nparams)
    return rs_fail(RS_ERR_LAUNCH, "sim: kernel '%s' takes %d arguments, %d given", m->name, m->nparams, nargs);
  /* The values are copied now (the caller's storage is gone when the launch runs), each
   * at a 16-byte boundary, with device pointers translated to the addresses behind them. */
  size_t values = 0;
  for (int i = 0; i < nargs; i++) values += (m->param_sizes[i] + 15) & ~(size_t)15;
  size_t head = (sizeof(sim_launch) + 15) & ~(size_t)15;
  size_t table = ((size_t)nargs * sizeof(void *) + 15) & ~(size_t)15;
  sim_launch *L = aligned_alloc(16, (head + table + values + 15) & ~(size_t)15);
  if (!L) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim: out of host memory for a launch of '%s'", m->name);
  memset(L, 0, sizeof *L);
  L->b = b;
  L->m = m;
  L->d = *d;
  L->nblocks = (uint64_t)d->grid[0] * d->grid[1] * d->grid[2];
  L->threads = d->block[0] * d->block[1] * d->block[2];
  atomic_init(&L->abort, 0);
  L->argv = (void **)((char *)L + head);
  unsigned char *v = (unsigned char *)L + head + table;
  for (int i = 0; i < nargs; i++) {
    memcpy(v, args[i], m->param_sizes[i]);
    if (kinds[i] == RS_KARG_POINTER || kinds[i] == RS_KARG_DESCRIPTOR) {
      void *p; /* a descriptor starts with its data pointer */
      memcpy(&p, v, sizeof p);
      p = rs_sim_translate(p);
      memcpy(v, &p, sizeof p);
    }
    L->argv[i] = v;
    v += (m->param_sizes[i] + 15) & ~(size_t)15;
  }
  sim_kmodule_retain(m);
  /* What is live now is what the kernel may touch (frees after this are stream-ordered). */
  L->snap = sim_check_snapshot(b);
  rs_status st = rs_sim_enqueue(b, stream, rs_run_launch, L, rs_free_launch);
  if (st != RS_OK) {
    sim_kmodule_release(m);
    sim_check_snap_release(L->snap);
    free(L);
  }
  return st;
}
