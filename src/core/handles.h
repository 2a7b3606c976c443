/* Internal: type-stable storage for public handles (arrays, streams, events).
 *
 * A handle's memory is never returned to the system before its context dies: a freed
 * slot is marked dead and kept on a free list. So a second release or a use after
 * destroy reads a dead magic and gets a clean status instead of a use-after-free, also
 * under the sanitizers. Objects must start with rs_handle_header. Thread-safe.
 */
#ifndef RS_CORE_HANDLES_H
#define RS_CORE_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "resident/status.h"

#define RS_MAGIC_DEAD 0xDEADDEADu
#define RS_MAGIC_ARRAY 0x41525259u  /* "ARRY" */
#define RS_MAGIC_STREAM 0x5354524Du /* "STRM" */
#define RS_MAGIC_EVENT 0x45564E54u  /* "EVNT" */
#define RS_MAGIC_KERNEL 0x4B524E4Cu /* "KRNL" */

typedef struct rs_handle_header {
  _Atomic uint32_t magic;
  void *next_free;
} rs_handle_header;

typedef struct rs_slab {
  pthread_mutex_t lock;
  size_t object_size;
  void *free_list;
  void **chunks;
  size_t nchunks, chunk_capacity;
  size_t objects_per_chunk;
  int64_t live;
} rs_slab;

void rs_slab_init(rs_slab *slab, size_t object_size);
/* A zeroed object with its magic set, or NULL when the host is out of memory. */
void *rs_slab_alloc(rs_slab *slab, uint32_t magic);
/* Mark dead and recycle. The caller has checked the magic. */
void rs_slab_free(rs_slab *slab, void *object);
int64_t rs_slab_live(rs_slab *slab);
/* Call fn on every live object (under no lock: only for context teardown). */
void rs_slab_each_live(rs_slab *slab, void (*fn)(void *object, void *arg), void *arg);
void rs_slab_destroy(rs_slab *slab);

static inline uint32_t rs_handle_magic(const void *object) {
  return atomic_load(&((rs_handle_header *)(uintptr_t)object)->magic);
}

/* THE handle check of every public call: a handle argument that should be of the kind
 * `magic` (RS_MAGIC_*) is RS_ERR_NULL_POINTER when NULL, RS_ERR_RELEASED (arrays) or
 * RS_ERR_DESTROYED (streams, events, kernels) when its slot is dead, and
 * RS_ERR_INVALID_ARGUMENT when it is another kind of handle; the message names `who`. */
rs_status rs_handle_check(const void *object, uint32_t magic, const char *who);

/* The check of a destroy: checks the handle and marks it dead in one atomic step, so of
 * two threads destroying one handle exactly one goes on (the other gets the dead
 * status). If the destroy then fails, rs_handle_unclaim makes the handle live again. */
rs_status rs_handle_claim(void *object, uint32_t magic, const char *who);
void rs_handle_unclaim(void *object, uint32_t magic);

#endif
