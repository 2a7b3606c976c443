/* Internal to src/memory: a hash map from an address to a pointer and a size. The
 * allocators look every free up here, which is how a pointer freed twice, or one they
 * never handed out, is told apart from a live one. Not thread-safe: the owner locks. */
#ifndef RS_MEMORY_ADDRMAP_H
#define RS_MEMORY_ADDRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct rs_addrmap_entry {
  uintptr_t key; /* 0 = empty slot (0 is never an address handed out) */
  void *value;
  size_t size;
} rs_addrmap_entry;

typedef struct rs_addrmap {
  rs_addrmap_entry *slots;
  size_t capacity; /* a power of two, or 0 */
  size_t count;
} rs_addrmap;

void rs_addrmap_init(rs_addrmap *m);
void rs_addrmap_release(rs_addrmap *m);
/* Insert or overwrite. -1 when the host is out of memory (the map is unchanged). */
int rs_addrmap_put(rs_addrmap *m, uintptr_t key, void *value, size_t size);
/* The entry for key, or NULL. Valid until the next put or remove. */
rs_addrmap_entry *rs_addrmap_get(const rs_addrmap *m, uintptr_t key);
/* Remove key; 1 if it was there (its entry copied to *out when out is not NULL). */
int rs_addrmap_remove(rs_addrmap *m, uintptr_t key, rs_addrmap_entry *out);
/* Make room for n more entries up front, so that puts that must not fail cannot. */
int rs_addrmap_reserve(rs_addrmap *m, size_t n);

#endif
