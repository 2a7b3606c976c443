/* Write-write races in shared memory (see sim_check.h), reported the way racecheck does:
 * only when the two writes store different values - every thread writing the same flag is
 * a common, benign idiom.
 *
 * The callbacks see addresses, not values, but the simulated threads run one after
 * another: when thread B's write of bytes thread A wrote in this barrier interval is
 * checked, A's value is in memory (the callback comes before the store). That value is
 * noted, once per address and size in the interval; at the next barrier (or the block's
 * end) the bytes in memory are compared with it. A later conflicting write of the same
 * bytes compares too (memory then holds the previous writer's value), so every writer's
 * value meets the first one's and values that differ and come back (1, 2, 1) are caught.
 * Not caught: a value a thread overwrites itself, with the first one's, before another
 * thread writes there (a thread's own writes are not conflicting), and a difference past
 * the first 16 bytes of a wider write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_check.h"

#define SIM_WW_BYTES 16u

typedef struct sim_ww {
  uintptr_t addr;
  size_t index, off;
  unsigned size, compared; /* the access's size; the bytes of it compared */
  int dynamic, differ;
  unsigned a, b; /* the earlier write's thread, and the later one's */
  const void *apc, *bpc;
  unsigned char value[SIM_WW_BYTES]; /* the earlier write's value */
} sim_ww;

static sim_ww *slot(sim_host *h) {
  if (h->nww == h->ww_cap) {
    unsigned cap = h->ww_cap ? h->ww_cap * 2 : 64;
    sim_ww *w = realloc(h->ww, cap * sizeof *w);
    if (!w) return NULL; /* out of host memory: this write goes unchecked */
    h->ww = w;
    h->ww_cap = cap;
  }
  return &h->ww[h->nww];
}

void sim_check_ww_note(sim_host *h, size_t index, uintptr_t a, unsigned size, int dynamic, size_t off, unsigned other,
                       const void *other_pc, unsigned t, const void *pc) {
  sim_shadow *s = &h->shadow[index];
  unsigned n = size < SIM_WW_BYTES ? size : SIM_WW_BYTES;
  if (s->wwepoch == h->epoch && s->wwslot < h->nww) {
    sim_ww *w = &h->ww[s->wwslot];
    if (w->addr == a && w->compared == n) {
      /* memory holds the value of `other`, the last writer: does it agree? */
      if (!w->differ && memcmp((const void *)a, w->value, n) != 0) {
        w->differ = 1;
        w->b = other;
        w->bpc = other_pc;
      }
      return;
    }
  }
  sim_ww *w = slot(h);
  if (!w) return;
  *w = (sim_ww){.addr = a, .index = index, .off = off, .size = size, .compared = n, .dynamic = dynamic,
                .a = other, .b = t, .apc = other_pc, .bpc = pc};
  memcpy(w->value, (const void *)a, n);
  s->wwepoch = h->epoch;
  s->wwslot = h->nww++;
}

int sim_check_ww_flush(sim_host *h, char *msg, size_t len) {
  unsigned n = h->nww;
  h->nww = 0;
  for (unsigned i = 0; i < n; i++) {
    sim_ww *w = &h->ww[i];
    if (!w->differ) {
      if (memcmp((const void *)w->addr, w->value, w->compared) == 0) continue; /* benign: one value */
      /* the last write changed the value: name it (its shadow still says whose it was) */
      const sim_shadow *s = &h->shadow[w->index];
      if (s->writer != w->a) {
        w->b = s->writer;
        w->bpc = s->wpc;
      }
    }
    char who[48], other[48], file[256], afile[256];
    int line = 0, aline = 0;
    sim_check_thread_name(h, w->b, who, sizeof who);
    sim_check_thread_name(h, w->a, other, sizeof other);
    sim_check_where(h->launch->m, (void *)w->bpc, file, sizeof file, &line);
    sim_check_where(h->launch->m, (void *)w->apc, afile, sizeof afile, &aline);
    snprintf(msg, len,
             "thread %s stopped at a shared-memory race: this write of %u bytes at offset %zu of the block's %s "
             "shared memory and a write of a different value by thread %s at %s:%d, with no barrier between them "
             "(racecheck: write-after-write hazard) (%s:%d)",
             who, w->size, w->off, w->dynamic ? "dynamic" : "static", other, afile, aline, file, line);
    return 1;
  }
  return 0;
}
