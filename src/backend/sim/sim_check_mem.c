/* The debugger's device-memory check (see sim_check.h): snapshots of what is live, the
 * runtime's access callback and the memcheck-style report. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "backend/sim/sim_check.h"

/* ---- snapshots ----------------------------------------------------------------------- */

void sim_check_snap_release(sim_check_snap *s) {
  if (!s || atomic_fetch_sub(&s->refs, 1) != 1) return;
  free(s->live);
  free(s->own);
  free(s);
}

static int by_addr(const void *a, const void *b) {
  uintptr_t x = ((const sim_range *)a)->addr, y = ((const sim_range *)b)->addr;
  return x < y ? -1 : x > y;
}

/* Built with mem_lock held. Addresses untagged: the kernel sees host addresses. */
static sim_check_snap *build(rs_backend *b) {
  sim_check_snap *s = calloc(1, sizeof *s);
  size_t n = b->device.count;
  if (!s) return NULL;
  s->live = malloc((n + b->blocks.count + 1) * sizeof *s->live);
  s->own = malloc((n + 1) * sizeof *s->own);
  if (!s->live || !s->own) {
    free(s->live);
    free(s->own);
    free(s);
    return NULL;
  }
  for (size_t i = 0; i < n; i++) {
    const sim_range *r = &b->device.items[i];
    uintptr_t a = (uintptr_t)rs_sim_translate((void *)r->addr);
    /* the backing: red zones around heap storage, the whole pages of a mapping */
    size_t len = (r->shm ? sim_shm_len(r->size) : r->size) + 2 * r->pad;
    s->own[s->nown++] = (sim_range){a - r->pad, len, r->flags, 0, 0};
    if (!(r->flags & SIM_RANGE_POOL)) s->live[s->nlive++] = (sim_range){a, r->size, 0, 0, 0};
  }
  for (size_t i = 0; i < b->blocks.count; i++)
    s->live[s->nlive++] = (sim_range){b->blocks.items[i].addr, b->blocks.items[i].size, 0, 0, 0};
  qsort(s->own, s->nown, sizeof *s->own, by_addr);
  qsort(s->live, s->nlive, sizeof *s->live, by_addr);
  s->gen = b->map_gen;
  atomic_init(&s->refs, 1);
  return s;
}

sim_check_snap *sim_check_snapshot(rs_backend *b) {
  if (!b->checks) return NULL;
  pthread_mutex_lock(&b->mem_lock);
  if (!b->snap || b->snap->gen != b->map_gen) {
    sim_check_snap *s = build(b);
    if (s) {
      sim_check_snap_release(b->snap);
      b->snap = s;
    }
  }
  sim_check_snap *s = b->snap;
  if (s) atomic_fetch_add(&s->refs, 1);
  pthread_mutex_unlock(&b->mem_lock);
  return s;
}

void sim_device_note(rs_backend *b, void *ptr, size_t bytes, int what) {
  if (!b->checks || !rs_sim_is_device_ptr(ptr)) return;
  uintptr_t host = (uintptr_t)rs_sim_translate(ptr);
  pthread_mutex_lock(&b->mem_lock);
  if (what == RS_BE_NOTE_SEGMENT) {
    sim_range *r = (sim_range *)sim_ptrmap_containing(&b->device, (uintptr_t)ptr);
    if (r) r->flags |= SIM_RANGE_POOL;
  } else if (what == RS_BE_NOTE_LIVE) {
    (void)sim_ptrmap_insert(&b->blocks, host, bytes, 0); /* out of memory: that block goes unchecked */
  } else {
    (void)sim_ptrmap_remove(&b->blocks, host, NULL);
  }
  b->map_gen++;
  pthread_mutex_unlock(&b->mem_lock);
}

/* ---- the thread's state -------------------------------------------------------------- */

rs_sim_check *sim_check_begin(sim_host *h, const sim_launch *L) {
  if (!L->snap) return NULL;
  if (h->checked != L) {
    memset(&h->check, 0, sizeof h->check);
    void *tls = NULL;
    (void)L->m->current_slot(); /* the object's TLS block exists from here on */
    if (dlinfo(L->m->dl, RTLD_DI_TLS_DATA, &tls) == 0 && tls) {
      h->check.shared_lo = (uintptr_t)tls;
      h->check.shared_len = L->m->tls_size;
    }
    h->check.dyn_lo = (uintptr_t)h->shared;
    h->check.dyn_len = RS_SIM_SHARED_BYTES;
    h->checked = L;
  }
  return &h->check;
}

/* ---- the access ------------------------------------------------------------------------- */

/* The index of the last range starting at or below a, or -1. */
static ptrdiff_t floor_index(const sim_range *v, size_t n, uintptr_t a) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid].addr <= a) lo = mid + 1;
    else hi = mid;
  }
  return (ptrdiff_t)lo - 1;
}

static void remember(rs_sim_check *c, uintptr_t lo, uintptr_t hi) {
  unsigned i = c->next++ & 3u;
  c->ok_lo[i] = lo;
  c->ok_len[i] = hi - lo;
}

/* "4 bytes after the end of a 4096-byte allocation at 0x..." for the live range nearest
 * to [a, a + size) inside the backing o. */
static void relative(const sim_check_snap *s, const sim_range *o, uintptr_t a, unsigned size, char *out, size_t len) {
  ptrdiff_t i = floor_index(s->live, s->nlive, a);
  const sim_range *before = i >= 0 ? &s->live[i] : NULL;
  const sim_range *after = (size_t)(i + 1) < s->nlive ? &s->live[i + 1] : NULL;
  if (before && before->addr + before->size <= o->addr) before = NULL; /* another backing's */
  if (after && after->addr >= o->addr + o->size) after = NULL;
  uintptr_t db = before ? a - (before->addr + before->size) : UINTPTR_MAX;
  uintptr_t da = after ? after->addr - (a + size) : UINTPTR_MAX;
  if (before && a < before->addr + before->size) {
    snprintf(out, len, "it runs %" PRIuPTR " bytes past the end of a %zu-byte allocation at %p",
             a + size - (before->addr + before->size), before->size, sim_device_tag((void *)before->addr));
  } else if (before && db <= da) {
    snprintf(out, len, "%" PRIuPTR " bytes after the end of a %zu-byte allocation at %p", db, before->size,
             sim_device_tag((void *)before->addr));
  } else if (after) {
    snprintf(out, len, "%" PRIuPTR " bytes before the start of a %zu-byte allocation at %p", after->addr - a,
             after->size, sim_device_tag((void *)after->addr));
  } else {
    snprintf(out, len, "in device memory of no live allocation (freed memory of the pool, %zu bytes at %p)",
             o->size, sim_device_tag((void *)o->addr));
  }
}

static const char *access_name(unsigned flags) {
  if (flags & SIM_A_ATOMIC) return "atomic";
  return flags & SIM_A_WRITE ? "write" : "read";
}

void sim_rt_access(uintptr_t a, unsigned size, unsigned flags, void *pc) {
  sim_host *h = sim_host_current;
  if (!h || !h->cur || !h->launch) return;
  rs_sim_check *c = &h->check;
  char what[480], rel[240];
  if ((flags & SIM_A_ALIGNED) && size > 1 && (a & (size - 1))) {
    snprintf(what, sizeof what,
             "a misaligned %s of %u bytes at address %p, which needs %u-byte alignment (a GPU faults: misaligned "
             "address)",
             access_name(flags), size, (void *)a, size);
    sim_check_fault(h, what, pc);
  }
  if (a - c->shared_lo < c->shared_len || a - c->dyn_lo < c->dyn_len) {
    sim_check_shared(h, a, size, flags, pc);
    return;
  }
  const sim_check_snap *s = h->launch->snap;
  if (!s) return;
  ptrdiff_t i = floor_index(s->live, s->nlive, a);
  if (i >= 0 && a - s->live[i].addr < s->live[i].size && s->live[i].size - (a - s->live[i].addr) >= size) {
    remember(c, s->live[i].addr, s->live[i].addr + s->live[i].size);
    return;
  }
  ptrdiff_t o = floor_index(s->own, s->nown, a + size - 1);
  const sim_range *own = o >= 0 && a + size - 1 - s->own[o].addr < s->own[o].size ? &s->own[o] : NULL;
  if (!own) {
    /* not the simulator's device memory at all: fine up to the next backing */
    uintptr_t lo = o >= 0 ? s->own[o].addr + s->own[o].size : 0;
    uintptr_t hi = (size_t)(o + 1) < s->nown ? s->own[o + 1].addr : UINTPTR_MAX;
    if (lo <= a && a + size <= hi) remember(c, lo, hi);
    return;
  }
  relative(s, own, a, size, rel, sizeof rel);
  snprintf(what, sizeof what, "an out-of-bounds %s of %u bytes at device address %p: %s (memcheck: invalid global %s)",
           access_name(flags), size, sim_device_tag((void *)a), rel, flags & SIM_A_WRITE ? "write" : "read");
  sim_check_fault(h, what, pc);
}
