/* Internal: type-stable storage for public handles (arrays, streams, events, kernels).
 *
 * THE DESIGN (issue 11): a handle is the address of its object, and every public call
 * checks it before reading anything else through it. Three things make that check sound:
 *
 *  - Memory that is never given back. A freed slot is marked dead and kept on its slab's
 *    free list; when a context is destroyed its slabs mark every slot "gone" (its context
 *    was destroyed) and hand their chunks to a process-wide spare list, from which later
 *    slabs of the same object size take them. So a handle used after its release, or
 *    after its context was destroyed, reads a dead or gone magic - never freed memory -
 *    and gets RS_ERR_RELEASED / RS_ERR_DESTROYED, also under the sanitizers.
 *  - Generations. A reused slot must not let a stale handle reach the new object. Each
 *    chunk is mapped RS_HANDLE_VIEWS times (the same pages at several addresses, Linux
 *    memfd); each time a slot is handed out it is handed out at the next view's address,
 *    and the header records that address (self). A handle is current when self equals
 *    it: one compare, beside the magic's. A stale handle (an older generation's address)
 *    reads the same memory, sees another self and is refused - until the slot has been
 *    reused RS_HANDLE_VIEWS times, when its address comes round again. Where memfd is
 *    not available a chunk has one view and only the dead magic protects.
 *  - Atomic ends. Destroys claim the handle with a compare-and-swap on self
 *    (rs_handle_claim) and array releases step the reference count with one tagged by
 *    the handle's generation (rs_handle_tag), so of two threads ending one handle
 *    exactly one goes on, and a stale handle never changes the slot's new occupant.
 *
 * Objects must start with rs_handle_header. Thread-safe.
 */
#ifndef RS_CORE_HANDLES_H
#define RS_CORE_HANDLES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "resident/status.h"

#define RS_MAGIC_DEAD 0xDEADDEADu
#define RS_MAGIC_GONE 0x474F4E45u   /* "GONE": its context was destroyed */
#define RS_MAGIC_ARRAY 0x41525259u  /* "ARRY" */
#define RS_MAGIC_STREAM 0x5354524Du /* "STRM" */
#define RS_MAGIC_EVENT 0x45564E54u  /* "EVNT" */
#define RS_MAGIC_KERNEL 0x4B524E4Cu /* "KRNL" */
#define RS_MAGIC_GRAPH 0x47524150u  /* "GRAP" */
#define RS_MAGIC_COMM 0x434F4D4Du   /* "COMM": collectives (src/ops/collective.c) */

#define RS_HANDLE_VIEWS 16u

typedef struct rs_handle_header {
  _Atomic uint32_t magic;
  uint16_t gen;         /* times the slot was handed out (modulo 2^16) */
  uint16_t views;       /* addresses its chunk is mapped at */
  void *_Atomic self;   /* the address of the current generation (NULL while claimed) */
  char *base;           /* the first view of its chunk (NULL: not in a slab) */
  void *next_free;
} rs_handle_header;

typedef struct rs_slab {
  pthread_mutex_t lock;
  size_t object_size, chunk_bytes, objects_per_chunk;
  void *free_list;
  char **chunks; /* first views */
  size_t nchunks, chunk_capacity;
  int64_t live;
} rs_slab;

void rs_slab_init(rs_slab *slab, size_t object_size);
/* A zeroed object with its magic set, or NULL when the host is out of memory. */
void *rs_slab_alloc(rs_slab *slab, uint32_t magic);
/* Mark dead and recycle. The caller has checked (or claimed) the handle. */
void rs_slab_free(rs_slab *slab, void *object);
int64_t rs_slab_live(rs_slab *slab);
/* Call fn on every live object (under no lock: only for context teardown). */
void rs_slab_each_live(rs_slab *slab, void (*fn)(void *object, void *arg), void *arg);
/* Mark every slot gone and give the memory to the spare list (never to the system). */
void rs_slab_destroy(rs_slab *slab);

/* A handle that lives outside a slab (a context's built-in streams). */
void rs_handle_init_static(rs_handle_header *h, uint32_t magic);

/* The magic of a current handle; RS_MAGIC_DEAD for a stale one. */
static inline uint32_t rs_handle_magic(const void *object) {
  rs_handle_header *h = (rs_handle_header *)(uintptr_t)object;
  if (atomic_load(&h->self) != object) return RS_MAGIC_DEAD;
  return atomic_load(&h->magic);
}

/* Bits of a handle's address that tell its slot's generations apart (views are whole
 * pages apart): arrays tag their reference count with them, so a count step made
 * through a stale handle fails its compare-and-swap. */
static inline uint64_t rs_handle_tag(const void *object) {
  return ((uintptr_t)object >> 12) & 0xFFFFu;
}

/* THE handle check of every public call: a handle argument that should be of the kind
 * `magic` (RS_MAGIC_*) is RS_ERR_NULL_POINTER when NULL, RS_ERR_RELEASED (arrays) or
 * RS_ERR_DESTROYED (streams, events, kernels) when it is dead, stale or its context was
 * destroyed, and RS_ERR_INVALID_ARGUMENT when it is another kind of handle; the message
 * names `who`. */
rs_status rs_handle_check(const void *object, uint32_t magic, const char *who);

/* The check of a destroy: checks the handle and claims it in one atomic step, so of two
 * threads destroying one handle exactly one goes on (the other gets the dead status).
 * If the destroy then fails, rs_handle_unclaim makes the handle current again. */
rs_status rs_handle_claim(void *object, uint32_t magic, const char *who);
void rs_handle_unclaim(void *object);

#endif
