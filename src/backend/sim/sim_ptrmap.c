/* Sorted arrays of address ranges. Sorted rather than hashed because copies and
 * host_device_pointer look up interior pointers (a view's element 0 is rarely the start
 * of its allocation); inserts are rare next to lookups, so the memmove is cheap. */
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_internal.h"

/* Index of the first item with addr >= key. */
static size_t lower_bound(const sim_ptrmap *m, uintptr_t key) {
  size_t lo = 0, hi = m->count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->items[mid].addr < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int sim_ptrmap_insert(sim_ptrmap *m, uintptr_t addr, size_t size, unsigned flags) {
  if (m->count == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    sim_range *items = realloc(m->items, cap * sizeof *items);
    if (!items) return -1;
    m->items = items;
    m->cap = cap;
  }
  size_t i = lower_bound(m, addr);
  memmove(m->items + i + 1, m->items + i, (m->count - i) * sizeof *m->items);
  m->items[i] = (sim_range){addr, size, flags, 0, 0};
  m->count++;
  return 0;
}

int sim_ptrmap_remove(sim_ptrmap *m, uintptr_t addr, sim_range *out) {
  size_t i = lower_bound(m, addr);
  if (i == m->count || m->items[i].addr != addr) return 0;
  if (out) *out = m->items[i];
  memmove(m->items + i, m->items + i + 1, (m->count - i - 1) * sizeof *m->items);
  m->count--;
  return 1;
}

const sim_range *sim_ptrmap_containing(const sim_ptrmap *m, uintptr_t addr) {
  size_t i = lower_bound(m, addr);
  if (i < m->count && m->items[i].addr == addr) return &m->items[i];
  if (i == 0) return NULL;
  const sim_range *r = &m->items[i - 1];
  return addr - r->addr < r->size ? r : NULL;
}

int sim_ptrmap_overlaps(const sim_ptrmap *m, uintptr_t addr, size_t size) {
  size_t i = lower_bound(m, addr);
  if (i < m->count && (m->items[i].addr == addr || m->items[i].addr - addr < size)) return 1;
  if (i > 0) {
    const sim_range *r = &m->items[i - 1];
    if (addr - r->addr < r->size) return 1;
  }
  return 0;
}

void sim_ptrmap_release(sim_ptrmap *m) {
  free(m->items);
  m->items = NULL;
  m->count = m->cap = 0;
}
