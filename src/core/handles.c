#include <stdlib.h>
#include <string.h>
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
};

rs_status rs_handle_check(const void *object, uint32_t magic, const char *who) {
  size_t k = 0;
  while (k + 1 < sizeof rs_handle_kinds / sizeof rs_handle_kinds[0] && rs_handle_kinds[k].magic != magic) k++;
  const char *noun = rs_handle_kinds[k].noun;
  if (!object) return rs_fail(RS_ERR_NULL_POINTER, "%s: %s is NULL", who, noun);
  uint32_t found = rs_handle_magic(object);
  if (found == magic) return RS_OK;
  if (found == RS_MAGIC_DEAD)
    return rs_fail(rs_handle_kinds[k].dead, "%s: %s %s", who, noun, rs_handle_kinds[k].gone);
  return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: not %s %s handle", who,
                 noun[0] == 'a' || noun[0] == 'e' ? "an" : "a", noun);
}

rs_status rs_handle_claim(void *object, uint32_t magic, const char *who) {
  RS_TRY(rs_handle_check(object, magic, who));
  uint32_t expected = magic;
  if (atomic_compare_exchange_strong(&((rs_handle_header *)object)->magic, &expected, RS_MAGIC_DEAD))
    return RS_OK;
  return rs_handle_check(object, magic, who); /* another thread got there first */
}

void rs_handle_unclaim(void *object, uint32_t magic) {
  atomic_store(&((rs_handle_header *)object)->magic, magic);
}

void rs_slab_init(rs_slab *slab, size_t object_size) {
  memset(slab, 0, sizeof *slab);
  pthread_mutex_init(&slab->lock, NULL);
  slab->object_size = (object_size + 15) & ~(size_t)15;
  slab->objects_per_chunk = 64;
}

static int rs_slab_grow(rs_slab *slab) {
  if (slab->nchunks == slab->chunk_capacity) {
    size_t cap = slab->chunk_capacity ? slab->chunk_capacity * 2 : 8;
    void **chunks = realloc(slab->chunks, cap * sizeof *chunks);
    if (!chunks) return 0;
    slab->chunks = chunks;
    slab->chunk_capacity = cap;
  }
  char *chunk = calloc(slab->objects_per_chunk, slab->object_size);
  if (!chunk) return 0;
  slab->chunks[slab->nchunks++] = chunk;
  for (size_t i = slab->objects_per_chunk; i-- > 0;) {
    rs_handle_header *h = (rs_handle_header *)(chunk + i * slab->object_size);
    atomic_store(&h->magic, RS_MAGIC_DEAD);
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
  pthread_mutex_unlock(&slab->lock);
  memset((char *)h + sizeof *h, 0, slab->object_size - sizeof *h);
  h->next_free = NULL;
  atomic_store(&h->magic, magic);
  return h;
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
      void *object = chunk + i * slab->object_size;
      if (rs_handle_magic(object) != RS_MAGIC_DEAD) fn(object, arg);
    }
  }
}

void rs_slab_destroy(rs_slab *slab) {
  for (size_t c = 0; c < slab->nchunks; c++) free(slab->chunks[c]);
  free(slab->chunks);
  pthread_mutex_destroy(&slab->lock);
  memset(slab, 0, sizeof *slab);
}
