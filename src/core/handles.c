/* Handles: slabs whose memory is never given back, mapped at several addresses so each
 * reuse of a slot is a new handle (core/handles.h says why). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/error.h"
#include "core/handles.h"

/* What a message calls each kind of handle and how its end reads. */
static const struct {
  uint32_t magic;
  const char *noun;
  rs_status dead;
  const char *gone;
} rs_handle_kinds[] = {
    {RS_MAGIC_ARRAY, "array", RS_ERR_RELEASED, "was already released"},
    {RS_MAGIC_STREAM, "stream", RS_ERR_DESTROYED, "was destroyed"},
    {RS_MAGIC_EVENT, "event", RS_ERR_DESTROYED, "was destroyed"},
    {RS_MAGIC_KERNEL, "kernel", RS_ERR_DESTROYED, "was destroyed"},
    {RS_MAGIC_GRAPH, "graph", RS_ERR_DESTROYED, "was destroyed"},
    {RS_MAGIC_COMM, "communicator", RS_ERR_DESTROYED, "was destroyed"},
};

rs_status rs_handle_check(const void *object, uint32_t magic, const char *who) {
  size_t k = 0;
  while (k + 1 < sizeof rs_handle_kinds / sizeof rs_handle_kinds[0] && rs_handle_kinds[k].magic != magic) k++;
  const char *noun = rs_handle_kinds[k].noun;
  if (!object) return rs_fail(RS_ERR_NULL_POINTER, "%s: %s is NULL", who, noun);
  rs_handle_header *h = (rs_handle_header *)(uintptr_t)object;
  uint32_t found = atomic_load(&h->magic);
  void *self = atomic_load(&h->self);
  if (found == magic && self == object) return RS_OK;
  if (found == RS_MAGIC_GONE)
    return rs_fail(rs_handle_kinds[k].dead, "%s: %s belongs to a context that was destroyed", who, noun);
  if (found == RS_MAGIC_DEAD || self != object) /* stale: its slot was reused since */
    return rs_fail(rs_handle_kinds[k].dead, "%s: %s %s", who, noun, rs_handle_kinds[k].gone);
  return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: not %s %s handle", who,
                 noun[0] == 'a' || noun[0] == 'e' ? "an" : "a", noun);
}

rs_status rs_handle_claim(void *object, uint32_t magic, const char *who) {
  RS_TRY(rs_handle_check(object, magic, who));
  void *expected = object;
  if (atomic_compare_exchange_strong(&((rs_handle_header *)object)->self, &expected, NULL))
    return RS_OK;
  /* Another thread claimed it between the check and here. */
  rs_status st = rs_handle_check(object, magic, who);
  return st != RS_OK ? st : rs_fail(RS_ERR_DESTROYED, "%s: destroyed by another thread", who);
}

void rs_handle_unclaim(void *object) {
  atomic_store(&((rs_handle_header *)object)->self, object);
}

void rs_handle_init_static(rs_handle_header *h, uint32_t magic) {
  h->base = NULL;
  atomic_store(&h->self, (void *)h);
  atomic_store(&h->magic, magic);
}

/* ---- chunks: mapped RS_HANDLE_VIEWS times, kept for the process's life ------------- */

typedef struct rs_spare_chunk {
  char *base;
  size_t object_size, chunk_bytes;
  struct rs_spare_chunk *next;
} rs_spare_chunk;

static pthread_mutex_t rs_spare_lock = PTHREAD_MUTEX_INITIALIZER;
static rs_spare_chunk *rs_spares; /* chunks of destroyed slabs */

#ifdef __linux__
/* Every multi-view chunk, for the fork handler below. */
typedef struct rs_mapped_chunk {
  char *base;
  size_t bytes;
  struct rs_mapped_chunk *next;
} rs_mapped_chunk;
static rs_mapped_chunk *rs_mapped_chunks; /* under rs_spare_lock */

/* Map a memfd of `bytes` at each view of base (MAP_FIXED over what is there). */
static int rs_chunk_views(char *base, size_t bytes) {
  int fd = memfd_create("resident-handles", MFD_CLOEXEC);
  if (fd < 0) return 0;
  int ok = ftruncate(fd, (off_t)bytes) == 0;
  for (unsigned v = 0; ok && v < RS_HANDLE_VIEWS; v++)
    ok = mmap(base + v * bytes, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
  close(fd); /* the mappings keep the memory */
  return ok;
}

/* A forked child would share its handles' memory with the parent (the views are shared
 * mappings): give it its own copy, as fork does for ordinary memory. */
static void rs_chunks_after_fork(void) {
  for (rs_mapped_chunk *c = rs_mapped_chunks; c; c = c->next) {
    char *copy = malloc(c->bytes);
    if (!copy) abort(); /* the child cannot run with the parent's handles */
    memcpy(copy, c->base, c->bytes);
    if (!rs_chunk_views(c->base, c->bytes)) abort();
    memcpy(c->base, copy, c->bytes);
    free(copy);
  }
}

static void rs_chunks_fork_lock(void) { pthread_mutex_lock(&rs_spare_lock); }
static void rs_chunks_fork_unlock(void) { pthread_mutex_unlock(&rs_spare_lock); }
static void rs_chunks_fork_child(void) {
  rs_chunks_after_fork();
  pthread_mutex_unlock(&rs_spare_lock);
}
static void rs_chunks_atfork(void) {
  pthread_atfork(rs_chunks_fork_lock, rs_chunks_fork_unlock, rs_chunks_fork_child);
}
#endif

/* A new chunk of bytes (zeroed), at `*views` addresses chunk_bytes apart. */
static char *rs_chunk_map(size_t bytes, unsigned *views) {
#ifdef __linux__
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, rs_chunks_atfork);
  rs_mapped_chunk *rec = malloc(sizeof *rec);
  char *base = rec ? mmap(NULL, bytes * RS_HANDLE_VIEWS, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                   : MAP_FAILED;
  if (base != MAP_FAILED && rs_chunk_views(base, bytes)) {
    *rec = (rs_mapped_chunk){base, bytes, NULL};
    pthread_mutex_lock(&rs_spare_lock);
    rec->next = rs_mapped_chunks;
    rs_mapped_chunks = rec;
    pthread_mutex_unlock(&rs_spare_lock);
    *views = RS_HANDLE_VIEWS;
    return base;
  }
  if (base != MAP_FAILED) munmap(base, bytes * RS_HANDLE_VIEWS);
  free(rec);
#endif
  *views = 1;
  return calloc(1, bytes);
}

/* A chunk for this slab: a spare one of the same geometry, else a new one. */
static char *rs_chunk_get(rs_slab *slab, int *fresh, unsigned *views) {
  pthread_mutex_lock(&rs_spare_lock);
  for (rs_spare_chunk **p = &rs_spares; *p; p = &(*p)->next) {
    rs_spare_chunk *c = *p;
    if (c->object_size != slab->object_size || c->chunk_bytes != slab->chunk_bytes) continue;
    *p = c->next;
    pthread_mutex_unlock(&rs_spare_lock);
    char *base = c->base;
    free(c);
    *fresh = 0;
    return base;
  }
  pthread_mutex_unlock(&rs_spare_lock);
  *fresh = 1;
  return rs_chunk_map(slab->chunk_bytes, views);
}

void rs_slab_init(rs_slab *slab, size_t object_size) {
  memset(slab, 0, sizeof *slab);
  pthread_mutex_init(&slab->lock, NULL);
  slab->object_size = (object_size + 15) & ~(size_t)15;
  slab->objects_per_chunk = 64;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  if (page == 0 || page > 65536) page = 4096;
  slab->chunk_bytes = (slab->objects_per_chunk * slab->object_size + page - 1) / page * page;
}

static int rs_slab_grow(rs_slab *slab) {
  if (slab->nchunks == slab->chunk_capacity) {
    size_t cap = slab->chunk_capacity ? slab->chunk_capacity * 2 : 8;
    char **chunks = realloc(slab->chunks, cap * sizeof *chunks);
    if (!chunks) return 0;
    slab->chunks = chunks;
    slab->chunk_capacity = cap;
  }
  int fresh = 1;
  unsigned views = 1;
  char *chunk = rs_chunk_get(slab, &fresh, &views);
  if (!chunk) return 0;
  slab->chunks[slab->nchunks++] = chunk;
  for (size_t i = slab->objects_per_chunk; i-- > 0;) {
    rs_handle_header *h = (rs_handle_header *)(chunk + i * slab->object_size);
    if (fresh) {
      h->base = chunk;
      h->views = (uint16_t)views;
      atomic_store(&h->self, (void *)h);
      atomic_store(&h->magic, RS_MAGIC_DEAD);
    }
    h->next_free = slab->free_list;
    slab->free_list = h;
  }
  return 1;
}

void *rs_slab_alloc(rs_slab *slab, uint32_t magic) {
  pthread_mutex_lock(&slab->lock);
  if (!slab->free_list && !rs_slab_grow(slab)) {
    pthread_mutex_unlock(&slab->lock);
    return NULL;
  }
  rs_handle_header *h = slab->free_list;
  slab->free_list = h->next_free;
  slab->live++;
  /* The next generation: the same slot at the next view's address. */
  size_t offset = (size_t)((char *)h - h->base) % slab->chunk_bytes;
  uint16_t gen = (uint16_t)(h->gen + 1);
  rs_handle_header *n = (rs_handle_header *)(h->base + (size_t)(gen % h->views) * slab->chunk_bytes + offset);
  pthread_mutex_unlock(&slab->lock);
  memset((char *)n + sizeof *n, 0, slab->object_size - sizeof *n);
  n->gen = gen;
  n->next_free = NULL;
  atomic_store(&n->self, (void *)n); /* before the magic: a checker that sees the magic sees this */
  atomic_store(&n->magic, magic);
  return n;
}

void rs_slab_free(rs_slab *slab, void *object) {
  rs_handle_header *h = object;
  atomic_store(&h->magic, RS_MAGIC_DEAD);
  pthread_mutex_lock(&slab->lock);
  h->next_free = slab->free_list;
  slab->free_list = h;
  slab->live--;
  pthread_mutex_unlock(&slab->lock);
}

int64_t rs_slab_live(rs_slab *slab) {
  pthread_mutex_lock(&slab->lock);
  int64_t live = slab->live;
  pthread_mutex_unlock(&slab->lock);
  return live;
}

void rs_slab_each_live(rs_slab *slab, void (*fn)(void *object, void *arg), void *arg) {
  for (size_t c = 0; c < slab->nchunks; c++) {
    char *chunk = slab->chunks[c];
    for (size_t i = 0; i < slab->objects_per_chunk; i++) {
      rs_handle_header *h = (rs_handle_header *)(chunk + i * slab->object_size);
      uint32_t m = atomic_load(&h->magic);
      void *self = atomic_load(&h->self);
      if (m != RS_MAGIC_DEAD && m != RS_MAGIC_GONE && self) fn(self, arg);
    }
  }
}

void rs_slab_destroy(rs_slab *slab) {
  for (size_t c = 0; c < slab->nchunks; c++) {
    char *chunk = slab->chunks[c];
    for (size_t i = 0; i < slab->objects_per_chunk; i++)
      atomic_store(&((rs_handle_header *)(chunk + i * slab->object_size))->magic, RS_MAGIC_GONE);
    rs_spare_chunk *spare = malloc(sizeof *spare);
    if (!spare) continue; /* kept mapped, only not reused: handles into it stay safe */
    *spare = (rs_spare_chunk){chunk, slab->object_size, slab->chunk_bytes, NULL};
    pthread_mutex_lock(&rs_spare_lock);
    spare->next = rs_spares;
    rs_spares = spare;
    pthread_mutex_unlock(&rs_spare_lock);
  }
  free(slab->chunks);
  pthread_mutex_destroy(&slab->lock);
  memset(slab, 0, sizeof *slab);
}
