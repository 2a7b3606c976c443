/* Open addressing with linear probing and backward-shift deletion: no tombstones, so
 * lookups stay short however many allocations come and go. */
#include <stdlib.h>
#include "memory/addrmap.h"

/* Allocations are at least 256-byte aligned: drop the always-zero bits, then mix. */
static size_t slot_of(uintptr_t key, size_t capacity) {
  uint64_t x = (uint64_t)key >> 8;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (size_t)x & (capacity - 1);
}

void rs_addrmap_init(rs_addrmap *m) {
  m->slots = NULL;
  m->capacity = 0;
  m->count = 0;
}

void rs_addrmap_release(rs_addrmap *m) {
  free(m->slots);
  rs_addrmap_init(m);
}

static void place(rs_addrmap_entry *slots, size_t capacity, const rs_addrmap_entry *e) {
  size_t i = slot_of(e->key, capacity);
  while (slots[i].key != 0) i = (i + 1) & (capacity - 1);
  slots[i] = *e;
}

static int grow_to(rs_addrmap *m, size_t capacity) {
  rs_addrmap_entry *slots = calloc(capacity, sizeof *slots);
  if (!slots) return -1;
  for (size_t i = 0; i < m->capacity; i++)
    if (m->slots[i].key != 0) place(slots, capacity, &m->slots[i]);
  free(m->slots);
  m->slots = slots;
  m->capacity = capacity;
  return 0;
}

int rs_addrmap_reserve(rs_addrmap *m, size_t n) {
  /* Load factor at most 1/2 keeps probe sequences short. */
  size_t need = (m->count + n) * 2;
  if (need <= m->capacity) return 0;
  size_t capacity = m->capacity ? m->capacity : 64;
  while (capacity < need) capacity *= 2;
  return grow_to(m, capacity);
}

int rs_addrmap_put(rs_addrmap *m, uintptr_t key, void *value, size_t size) {
  rs_addrmap_entry *e = rs_addrmap_get(m, key);
  if (e) {
    e->value = value;
    e->size = size;
    return 0;
  }
  if (rs_addrmap_reserve(m, 1) != 0) return -1;
  rs_addrmap_entry ne = {key, value, size};
  place(m->slots, m->capacity, &ne);
  m->count++;
  return 0;
}

rs_addrmap_entry *rs_addrmap_get(const rs_addrmap *m, uintptr_t key) {
  if (m->capacity == 0) return NULL;
  size_t i = slot_of(key, m->capacity);
  while (m->slots[i].key != 0) {
    if (m->slots[i].key == key) return &m->slots[i];
    i = (i + 1) & (m->capacity - 1);
  }
  return NULL;
}

int rs_addrmap_remove(rs_addrmap *m, uintptr_t key, rs_addrmap_entry *out) {
  rs_addrmap_entry *e = rs_addrmap_get(m, key);
  if (!e) return 0;
  if (out) *out = *e;
  size_t mask = m->capacity - 1;
  size_t hole = (size_t)(e - m->slots);
  /* Shift later members of the probe run back over the hole so none becomes unreachable. */
  size_t j = hole;
  for (;;) {
    j = (j + 1) & mask;
    if (m->slots[j].key == 0) break;
    size_t home = slot_of(m->slots[j].key, m->capacity);
    /* Move j into the hole unless its home lies cyclically in (hole, j]. */
    int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
    if (stays) continue;
    m->slots[hole] = m->slots[j];
    hole = j;
  }
  m->slots[hole].key = 0;
  m->slots[hole].value = NULL;
  m->slots[hole].size = 0;
  m->count--;
  return 1;
}
