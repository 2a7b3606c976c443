/* Warp collectives on the simulator: __shfl*_sync, __ballot_sync and the votes,
 * __match_*_sync, __reduce_*_sync, __syncwarp and __activemask, with CUDA's semantics
 * among the 32 fibers of a simulated warp (lanes are the block's linear thread index
 * modulo 32, as on the GPU).
 *
 * A lane that calls one parks its fiber (status G_WARP) with its operand. Once every
 * thread of the block is parked, sim_warp_step answers each collective whose named lanes
 * have all arrived at the same kind of call with the same mask, and the lanes go on. What
 * a GPU leaves undefined or hangs on is a fault naming the thread and the line: a lane in
 * the mask that exited or waits elsewhere, a mask without the calling lane, a width that
 * is not a power of two up to 32, a shuffle that reads a lane outside the mask. Lanes past
 * the end of a block whose size is not a multiple of 32 do not exist; a mask may name them
 * (0xffffffff in a block of 16 threads), and a shuffle from one returns the caller's own
 * value.
 *
 * __activemask() has no such mask: its lanes are the ones that reach the same call
 * together - the threads of a warp that took the same branch - answered when nothing
 * else can go on. */
#include <stdio.h>
#include <string.h>
#include "backend/sim/sim_kernel_block.h"

static const char *rs_warp_name(int op, int arg) {
  static const char *const names[RS_SIM_WARP_OPS] = {
      "__syncwarp",        "__shfl_sync",       "__shfl_up_sync",    "__shfl_down_sync",
      "__shfl_xor_sync",   "__ballot_sync",     "__match_any_sync",  "__match_all_sync",
      "__activemask",      "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
      "__reduce_and_sync", "__reduce_or_sync",  "__reduce_xor_sync"};
  if (op == RS_SIM_WARP_BALLOT && arg == 1) return "__any_sync";
  if (op == RS_SIM_WARP_BALLOT && arg == 2) return "__all_sync";
  return op >= 0 && op < RS_SIM_WARP_OPS ? names[op] : "a warp collective";
}

static int rs_is_shuffle(int op) { return op >= RS_SIM_WARP_SHFL && op <= RS_SIM_WARP_XOR; }

/* The lane a shuffle of `lane` reads (PTX's shfl.sync rule for a segment of `width`), or
 * `lane` itself when the source falls outside its segment. */
static unsigned rs_shuffle_source(int op, unsigned lane, unsigned b, int width) {
  unsigned seg = 32u - (unsigned)width; /* the bits of the lane that pick its segment */
  long lo = (long)(lane & seg), hi = (long)((lane & seg) | (31u & ~seg)), j = (long)lane;
  switch (op) {
    case RS_SIM_WARP_SHFL: j = lo | (long)(b & 31u & ~seg); break;
    case RS_SIM_WARP_UP: j = (long)lane - (long)b; return j >= lo ? (unsigned)j : lane;
    case RS_SIM_WARP_DOWN: j = (long)lane + (long)b; break;
    case RS_SIM_WARP_XOR: j = (long)(lane ^ b); break;
    default: break;
  }
  return j <= hi ? (unsigned)j : lane;
}

/* Lanes at the same collective: same call kind and mask (a shuffle's source lane and
 * width are each lane's own). */
static int rs_same_call(const sim_gthread *a, const sim_gthread *b) {
  return a->status == G_WARP && b->status == G_WARP && a->op == b->op && a->wmask == b->wmask &&
         (rs_is_shuffle(a->op) || a->warg == b->warg);
}

static int rs_fail_lane(const sim_gthread *g, unsigned lane, char *msg, size_t len, const char *why) {
  snprintf(msg, len, "thread (%u,%u,%u) (lane %u) at %s (%s:%d) with mask 0x%08x: %s", g->state.thread_idx.x,
           g->state.thread_idx.y, g->state.thread_idx.z, lane, rs_warp_name(g->op, g->warg), g->file, g->line,
           g->wmask, why);
  return -1;
}

/* Answer the collective of the lanes `m` of the warp starting at `base` (all at it). */
static int rs_resolve(sim_host *h, unsigned base, unsigned m, unsigned exist, char *msg, size_t len) {
  sim_gthread *w = &h->g[base];
  const sim_gthread *g0 = &w[__builtin_ctz(m)];
  int op = g0->op;
  unsigned long long acc = 0;
  unsigned bits = 0;
  int all_equal = 1;
  for (unsigned l = 0; l < 32; l++) {
    if (!(m >> l & 1u)) continue;
    unsigned long long v = w[l].wvalue;
    bits |= (unsigned)(v != 0) << l;
    all_equal &= v == g0->wvalue;
    unsigned x = (unsigned)v, a = (unsigned)acc;
    int first = l == (unsigned)__builtin_ctz(m);
    if (op == RS_SIM_WARP_ADD) acc = a + x;
    if (op == RS_SIM_WARP_MIN) acc = first || (g0->warg ? (int)x < (int)a : x < a) ? x : a;
    if (op == RS_SIM_WARP_MAX) acc = first || (g0->warg ? (int)x > (int)a : x > a) ? x : a;
    if (op == RS_SIM_WARP_AND) acc = first ? x : (a & x);
    if (op == RS_SIM_WARP_OR) acc = a | x;
    if (op == RS_SIM_WARP_XOR_ALL) acc = a ^ x;
  }
  if (rs_is_shuffle(op)) /* every source first: a bad one leaves the warp untouched */
    for (unsigned l = 0; l < 32; l++) {
      unsigned j = rs_shuffle_source(op, l, (unsigned)w[l].warg, w[l].wwidth);
      if ((m >> l & 1u) && (exist >> j & 1u) && !(m >> j & 1u)) {
        char why[160];
        snprintf(why, sizeof why,
                 "it reads lane %u, which the mask does not name (the GPU leaves the value undefined; name "
                 "every lane read in the mask)",
                 j);
        return rs_fail_lane(&w[l], l, msg, len, why);
      }
    }
  for (unsigned l = 0; l < 32; l++) {
    if (!(m >> l & 1u)) continue;
    sim_gthread *g = &w[l];
    unsigned long long r = 0;
    if (rs_is_shuffle(op)) {
      unsigned j = rs_shuffle_source(op, l, (unsigned)g->warg, g->wwidth);
      r = (exist >> j & 1u) ? w[j].wvalue : g->wvalue;
    } else if (op == RS_SIM_WARP_BALLOT) {
      r = g->warg == 1 ? bits != 0 : g->warg == 2 ? bits == m : bits;
    } else if (op == RS_SIM_WARP_MATCH_ANY) {
      for (unsigned k = 0; k < 32; k++)
        if ((m >> k & 1u) && w[k].wvalue == g->wvalue) r |= 1ull << k;
    } else if (op == RS_SIM_WARP_MATCH_ALL) {
      r = all_equal ? m : 0;
    } else if (op >= RS_SIM_WARP_ADD) {
      r = acc;
    }
    g->wresult = r;
    g->status = G_RUN;
  }
  return 1;
}

/* Why the collective of lane l (at base) cannot be answered: a lane of its mask that will
 * not come. */
static int rs_explain(const sim_host *h, unsigned base, unsigned l, unsigned exist, char *msg, size_t len) {
  const sim_gthread *g = &h->g[base + l];
  unsigned m = g->wmask & exist;
  char why[240];
  for (unsigned k = 0; k < 32; k++) {
    if (!(m >> k & 1u)) continue;
    const sim_gthread *o = &h->g[base + k];
    if (o->status == G_DONE) {
      snprintf(why, sizeof why,
               "lane %u of the mask has exited without reaching it (every lane named in the mask must reach the "
               "same call)",
               k);
      return rs_fail_lane(g, l, msg, len, why);
    }
    if (o->status == G_WAIT) {
      snprintf(why, sizeof why, "lane %u of the mask waits at __syncthreads() (%s:%d) instead", k, o->file,
               o->line);
      return rs_fail_lane(g, l, msg, len, why);
    }
    if (!rs_same_call(o, g)) {
      snprintf(why, sizeof why, "lane %u of the mask is at %s (%s:%d) with mask 0x%08x instead", k,
               rs_warp_name(o->op, o->warg), o->file, o->line, o->wmask);
      return rs_fail_lane(g, l, msg, len, why);
    }
  }
  return rs_fail_lane(g, l, msg, len, "its lanes never met");
}

int sim_warp_step(sim_host *h, unsigned n, char *msg, size_t len) {
  int progress = 0, parked = 0;
  for (unsigned base = 0; base < n; base += 32) {
    unsigned lanes = n - base < 32 ? n - base : 32;
    unsigned exist = lanes == 32 ? ~0u : (1u << lanes) - 1u;
    for (unsigned l = 0; l < lanes; l++) {
      const sim_gthread *g = &h->g[base + l];
      if (g->status != G_WARP || g->op == RS_SIM_WARP_ACTIVE) continue;
      parked = 1;
      unsigned m = g->wmask & exist, k = 0;
      for (; k < lanes; k++) {
        const sim_gthread *o = &h->g[base + k];
        if ((m >> k & 1u) && !rs_same_call(o, g)) break;
      }
      if (k < lanes) continue;
      int r = rs_resolve(h, base, m, exist, msg, len);
      if (r < 0) return r;
      h->wsync[base / 32]++; /* the race check: the warp's accesses before are ordered */
      progress = 1;
    }
  }
  if (progress) return 1;
  /* __activemask(): the lanes of a warp parked at the same call */
  for (unsigned base = 0; base < n; base += 32) {
    unsigned lanes = n - base < 32 ? n - base : 32;
    for (unsigned l = 0; l < lanes; l++) {
      const sim_gthread *g = &h->g[base + l];
      if (g->status != G_WARP || g->op != RS_SIM_WARP_ACTIVE) continue;
      unsigned m = 0;
      for (unsigned k = l; k < lanes; k++) {
        const sim_gthread *o = &h->g[base + k];
        if (o->status == G_WARP && o->op == RS_SIM_WARP_ACTIVE && o->site == g->site && o->line == g->line &&
            (o->file == g->file || strcmp(o->file, g->file) == 0))
          m |= 1u << k;
      }
      for (unsigned k = l; k < lanes; k++)
        if (m >> k & 1u) {
          h->g[base + k].wresult = m;
          h->g[base + k].status = G_RUN;
        }
      progress = 1;
    }
  }
  if (progress) return 1;
  if (!parked) return 0;
  for (unsigned base = 0; base < n; base += 32) {
    unsigned lanes = n - base < 32 ? n - base : 32;
    unsigned exist = lanes == 32 ? ~0u : (1u << lanes) - 1u;
    for (unsigned l = 0; l < lanes; l++)
      if (h->g[base + l].status == G_WARP) return rs_explain(h, base, l, exist, msg, len);
  }
  return 0;
}

/* ---- the call, on the lane's fiber ------------------------------------------------------- */

unsigned long long sim_rt_warp(int op, unsigned mask, unsigned long long value, int arg, int width, int site,
                               const char *file, int line) {
  sim_host *h = sim_host_current;
  if (!h || !h->cur) return value; /* not inside a simulated block */
  sim_gthread *g = h->cur;
  unsigned lane = (unsigned)(g - h->g) % 32u;
  const char *name = rs_warp_name(op, arg);
  if (rs_is_shuffle(op) && (width < 1 || width > 32 || (width & (width - 1)) != 0)) {
    snprintf(h->trap_text, sizeof h->trap_text,
             "%s with width %d: the width must be a power of two from 1 to 32 (lane %u)", name, width, lane);
    sim_rt_trap(h->trap_text, file, line);
  }
  if (op != RS_SIM_WARP_ACTIVE && !(mask >> lane & 1u)) {
    snprintf(h->trap_text, sizeof h->trap_text, "%s with mask 0x%08x, which does not name the calling lane %u",
             name, mask, lane);
    sim_rt_trap(h->trap_text, file, line);
  }
  if (h->direct) {
    /* Runs only when the source scan missed the call (a macro): a one-thread block answers
     * alone; anything else is reported after the block. */
    if (h->launch->threads > 1 && !h->stray_file) {
      h->stray_what = name;
      h->stray_file = file;
      h->stray_line = line;
    }
  } else {
    g->status = G_WARP;
    g->op = op;
    g->wmask = op == RS_SIM_WARP_ACTIVE ? 0 : mask;
    g->wvalue = value;
    g->warg = arg;
    g->wwidth = width;
    g->site = site;
    g->file = file;
    g->line = line;
    sim_fiber_switch(&g->fiber, &h->sched, 0);
    return g->wresult;
  }
  /* a lane alone */
  switch (op) {
    case RS_SIM_WARP_BALLOT: return arg == 0 ? (unsigned long long)(value != 0) << lane : value != 0;
    case RS_SIM_WARP_MATCH_ANY:
    case RS_SIM_WARP_MATCH_ALL:
    case RS_SIM_WARP_ACTIVE: return 1ull << lane;
    case RS_SIM_WARP_SYNC: return 0;
    default: return rs_is_shuffle(op) ? value : (unsigned)value;
  }
}
