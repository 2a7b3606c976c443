/* The state of a host thread that runs simulated blocks (sim_kernel_block.h): one GPU
 * thread record and fiber stack per thread of the largest block it ran, and the block's
 * dynamic shared memory, kept for the thread's life and freed when it ends. And the trap
 * that stops a GPU thread, which the block runner and the warp collectives share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_kernel_block.h"

_Thread_local sim_host *sim_host_current;
static pthread_key_t rs_host_key;
static pthread_once_t rs_host_once = PTHREAD_ONCE_INIT;

static void rs_host_free(void *p) {
  sim_host *h = p;
  for (unsigned i = 0; i < h->cap; i++) {
    sim_fiber_destroy(&h->g[i].fiber);
    if (h->stacks[i]) sim_stack_free(h->stacks[i], RS_SIM_STACK);
  }
  free(h->stacks);
  free(h->g);
  free(h->shared);
  free(h->shadow); /* the race checks' shadow (sim_check_race.c) */
  free(h->ww);     /* and their notes of conflicting writes (sim_check_ww.c) */
  free(h);
}

static void rs_host_key_init(void) { (void)pthread_key_create(&rs_host_key, rs_host_free); }

sim_host *sim_host_get(unsigned n, int fibers) {
  sim_host *h = sim_host_current;
  if (!h) {
    pthread_once(&rs_host_once, rs_host_key_init);
    h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->shared = aligned_alloc(256, RS_SIM_SHARED_BYTES);
    if (!h->shared || pthread_setspecific(rs_host_key, h) != 0) {
      free(h->shared);
      free(h);
      return NULL;
    }
    sim_host_current = h;
  }
  if (n > h->cap) {
    sim_gthread *g = realloc(h->g, n * sizeof *g);
    if (!g) return NULL;
    h->g = g;
    memset(g + h->cap, 0, (n - h->cap) * sizeof *g);
    void **stacks = realloc(h->stacks, n * sizeof *stacks);
    if (!stacks) return NULL; /* h->g has grown; cap stays: its new entries are unused */
    h->stacks = stacks;
    for (unsigned i = h->cap; i < n; i++) stacks[i] = NULL;
    h->cap = n;
  }
  for (unsigned i = 0; fibers && i < n; i++) {
    if (h->stacks[i]) continue;
    h->stacks[i] = sim_stack_alloc(RS_SIM_STACK);
    if (!h->stacks[i]) return NULL;
  }
  return h;
}

void sim_rt_trap(const char *what, const char *file, int line) {
  sim_host *h = sim_host_current;
  if (!h || !h->cur) abort(); /* a kernel function called outside a launch */
  /* Kept here: a composed message may live on the stack a direct-mode trap unwinds. */
  if (what != h->trap_text) snprintf(h->trap_text, sizeof h->trap_text, "%s", what);
  h->trap_what = h->trap_text;
  h->trap_file = file;
  h->trap_line = line;
  if (h->direct) longjmp(h->escape, 1);
  h->cur->status = G_TRAP;
  sim_fiber_switch(&h->cur->fiber, &h->sched, 1);
  abort(); /* never resumed */
}

