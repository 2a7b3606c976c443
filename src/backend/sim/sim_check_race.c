/* The debugger's shared-memory checks (see sim_check.h): bounds of the dynamic shared
 * memory, and races between two barriers the way racecheck reports them.
 *
 * A shadow entry per shared byte remembers its last write and the reads since, each with
 * the barrier interval (epoch) it happened in and its warp's count of resolved warp
 * collectives. Two accesses of one byte by different threads in the same interval, at
 * one a write and the other a read, race - unless both threads are of one warp that has synchronized
 * (__syncwarp, a shuffle, ...) in between. Two writes race when their values differ
 * (sim_check_ww.c). Atomics never race. */
#include <stdio.h>
#include <stdlib.h>
#include "backend/sim/sim_check.h"

#define SIM_NONE 0xffffu

/* Does a warp collective order an access by thread `other` (when its warp had resolved
 * `sync` collectives) before one by thread t now? */
static int ordered(const sim_host *h, unsigned other, uint32_t sync, unsigned t) {
  return other / 32 == t / 32 && h->wsync[t / 32] > sync;
}

static void race(sim_host *h, unsigned size, unsigned flags, const char *space, size_t off, const char *earlier,
                 unsigned other, const void *other_pc) {
  char who[48], file[256], what[480];
  int line = 0;
  sim_check_thread_name(h, other, who, sizeof who);
  sim_check_where(h->launch->m, (void *)other_pc, file, sizeof file, &line);
  const char *hazard = flags & SIM_A_WRITE ? "write-after-read" : "read-after-write";
  snprintf(what, sizeof what,
           "a shared-memory race: this %s of %u bytes at offset %zu of the block's %s shared memory and a %s by "
           "thread %s at %s:%d, with no barrier between them (racecheck: %s hazard)",
           flags & SIM_A_WRITE ? "write" : "read", size, off, space, earlier, who, file, line, hazard);
  sim_check_fault(h, what, h->race_pc);
}

/* Room for the shadow of the dynamic buffer and the object's TLS block; 0 if none. */
static int shadow_ready(sim_host *h, size_t tls) {
  size_t need = RS_SIM_SHARED_BYTES + tls;
  if (need <= h->shadow_cap) return 1;
  sim_shadow *s = calloc(need, sizeof *s);
  if (!s) return 0; /* out of host memory: no race check for this block */
  free(h->shadow);
  h->shadow = s;
  h->shadow_cap = need;
  return 1;
}

static int tls_skipped(const sim_kmodule *m, size_t off) {
  for (int i = 0; i < m->ntls_skip; i++)
    if (off - m->tls_skip[i].off < m->tls_skip[i].len) return 1;
  return 0;
}

void sim_check_shared(sim_host *h, uintptr_t a, unsigned size, unsigned flags, void *pc) {
  const rs_sim_check *c = &h->check;
  const sim_launch *L = h->launch;
  char what[480];
  size_t index, off;
  const char *space;
  if (a - c->dyn_lo < c->dyn_len) {
    off = a - c->dyn_lo;
    size_t dyn = L->d.shared_bytes;
    if (off + size > dyn) {
      char rel[160];
      if (off >= dyn)
        snprintf(rel, sizeof rel, "%zu bytes after the end of the block's %zu-byte dynamic shared memory", off - dyn,
                 dyn);
      else
        snprintf(rel, sizeof rel, "it runs %zu bytes past the end of the block's %zu-byte dynamic shared memory",
                 off + size - dyn, dyn);
      snprintf(what, sizeof what,
               "an out-of-bounds %s of %u bytes in shared memory at offset %zu: %s (cfg.shared_bytes; memcheck: "
               "invalid shared %s)",
               flags & SIM_A_ATOMIC ? "atomic" : flags & SIM_A_WRITE ? "write" : "read", size, off, rel,
               flags & SIM_A_WRITE ? "write" : "read");
      sim_check_fault(h, what, pc);
    }
    index = off;
    space = "dynamic";
  } else {
    off = a - c->shared_lo;
    if (off + size > c->shared_len || tls_skipped(L->m, off)) return;
    /* the reference of an extern __shared__ declaration, set once per host thread */
    if (size == sizeof(void *) && !(flags & SIM_A_WRITE) && *(void *const *)a == (void *)h->shared) return;
    index = RS_SIM_SHARED_BYTES + off;
    space = "static";
  }
  if ((flags & SIM_A_ATOMIC) || !shadow_ready(h, c->shared_len)) return;
  unsigned t = (unsigned)(h->cur - h->g), warp = t / 32;
  uint32_t e = h->epoch, sync = h->wsync[warp];
  h->race_pc = pc;
  unsigned ww = SIM_NONE; /* another thread's unordered write of these bytes in the interval */
  const void *ww_pc = NULL;
  for (unsigned k = 0; k < size; k++) {
    sim_shadow *s = &h->shadow[index + k];
    int unordered = s->wepoch == e && s->writer != t && !ordered(h, s->writer, s->wsync, t);
    if (!(flags & SIM_A_WRITE) && unordered) race(h, size, flags, space, off, "write", s->writer, s->wpc);
    if ((flags & SIM_A_WRITE) && unordered && ww == SIM_NONE) {
      ww = s->writer;
      ww_pc = s->wpc;
    }
    if (flags & SIM_A_WRITE) {
      if (s->repoch == e && (s->reader != t || s->reader2 != SIM_NONE)) {
        int many = s->reader2 != SIM_NONE;
        int ok = many ? s->rwarp == (int)warp && sync > s->rsync : ordered(h, s->reader, s->rsync, t);
        int first = s->reader != t;
        if (!ok) race(h, size, flags, space, off, "read", first ? s->reader : s->reader2, first ? s->rpc : s->rpc2);
      }
      s->wepoch = e;
      s->writer = (uint16_t)t;
      s->wsync = sync;
      s->wpc = pc;
    } else if (s->repoch != e) {
      s->repoch = e;
      s->reader = (uint16_t)t;
      s->reader2 = SIM_NONE;
      s->rsync = sync;
      s->rwarp = (int16_t)warp;
      s->rpc = pc;
    } else if (s->reader != t) {
      if (s->rwarp != (int)warp) s->rwarp = -1;
      if (sync > s->rsync) s->rsync = sync;
      s->reader2 = (uint16_t)t;
      s->rpc2 = pc;
    }
  }
  /* Two writes race only if their values differ (racecheck's benign case: `flag = 1` from
   * every thread), which is known once the interval ends (sim_check_ww.c). */
  if (ww != SIM_NONE) sim_check_ww_note(h, index, a, size, space[0] == 'd', off, ww, ww_pc, t, pc);
}
