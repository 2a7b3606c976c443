/* The compiled-kernel cache: in memory for the process, on disk across processes
 * (kernel_cache_disk.c says what the disk side trusts).
 *
 * An entry is keyed by the whole key text (library version, backend, target, name,
 * options, source, user headers). The hash only names the file; the stored key is
 * compared in full, so a collision is a miss, never wrong code. Disk files are written
 * to a temporary name and renamed, so a reader never sees half a file, and a cache that
 * cannot be used is skipped. The memory cache holds only images that have loaded: what
 * comes from the disk goes in once its load succeeded (rs_kcache_keep), and only then is
 * it counted as a hit. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"

typedef struct rs_kcache_entry {
  struct rs_kcache_entry *next;
  char *key; /* backend + '\n' + key text */
  size_t key_len;
  void *image;
  size_t bytes;
} rs_kcache_entry;

static pthread_mutex_t rs_kcache_lock = PTHREAD_MUTEX_INITIALIZER;
static rs_kcache_entry *rs_kcache_head;
static _Atomic int64_t rs_stat_compiles, rs_stat_memory_hits, rs_stat_disk_hits, rs_stat_disk_writes;

/* backend + '\n' + key: one string, so entries of two backends never meet. */
static char *rs_full_key(const char *backend, const rs_textbuf *key, size_t *len) {
  size_t b = strlen(backend);
  char *k = malloc(b + 1 + key->len + 1);
  if (!k) return NULL;
  memcpy(k, backend, b);
  k[b] = '\n';
  memcpy(k + b + 1, key->data, key->len);
  k[b + 1 + key->len] = '\0';
  *len = b + 1 + key->len;
  return k;
}

/* Insert into memory (lock held by the caller); takes the key and a copy of the image. */
static void rs_memory_insert_locked(char *key, size_t key_len, const void *image, size_t bytes) {
  for (rs_kcache_entry *e = rs_kcache_head; e; e = e->next) {
    if (e->key_len == key_len && memcmp(e->key, key, key_len) == 0) {
      free(key);
      return;
    }
  }
  rs_kcache_entry *e = malloc(sizeof *e);
  void *copy = malloc(bytes);
  if (!e || !copy) {
    free(e);
    free(copy);
    free(key);
    return;
  }
  memcpy(copy, image, bytes);
  *e = (rs_kcache_entry){rs_kcache_head, key, key_len, copy, bytes};
  rs_kcache_head = e;
}

rs_status rs_kcache_get(const char *backend, const rs_textbuf *key, const char *dir, void **image,
                        size_t *bytes, rs_kernel_origin *origin) {
  size_t key_len = 0;
  char *full = rs_full_key(backend, key, &key_len);
  if (!full) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel cache: out of host memory");
  pthread_mutex_lock(&rs_kcache_lock);
  for (rs_kcache_entry *e = rs_kcache_head; e; e = e->next) {
    if (e->key_len != key_len || memcmp(e->key, full, key_len) != 0) continue;
    void *copy = malloc(e->bytes);
    if (copy) {
      memcpy(copy, e->image, e->bytes);
      *image = copy;
      *bytes = e->bytes;
      *origin = RS_KERNEL_MEMORY_CACHE;
    }
    pthread_mutex_unlock(&rs_kcache_lock);
    free(full);
    return copy ? RS_OK : rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel cache: out of host memory");
  }
  pthread_mutex_unlock(&rs_kcache_lock);
  int dfd = rs_kdisk_open_dir(dir, 0);
  int hit = 0;
  if (dfd >= 0) {
    char name[300];
    rs_kdisk_name(name, sizeof name, backend, full, key_len);
    hit = rs_kdisk_read(dfd, dir, name, full, key_len, image, bytes);
    close(dfd);
  }
  free(full);
  if (!hit) return RS_ERR_NOT_FOUND; /* a miss is not an error: no message */
  *origin = RS_KERNEL_DISK_CACHE;
  return RS_OK;
}

void rs_kcache_keep(const char *backend, const rs_textbuf *key, const void *image, size_t bytes,
                    rs_kernel_origin origin) {
  if (origin == RS_KERNEL_MEMORY_CACHE) {
    atomic_fetch_add(&rs_stat_memory_hits, 1);
    return;
  }
  if (origin == RS_KERNEL_DISK_CACHE) atomic_fetch_add(&rs_stat_disk_hits, 1);
  size_t key_len = 0;
  char *full = rs_full_key(backend, key, &key_len);
  if (!full) return;
  pthread_mutex_lock(&rs_kcache_lock);
  rs_memory_insert_locked(full, key_len, image, bytes);
  pthread_mutex_unlock(&rs_kcache_lock);
}

void rs_kcache_forget(const char *backend, const rs_textbuf *key, const char *dir) {
  size_t key_len = 0;
  char *full = rs_full_key(backend, key, &key_len);
  if (!full) return;
  rs_kcache_entry *gone = NULL;
  pthread_mutex_lock(&rs_kcache_lock);
  for (rs_kcache_entry **p = &rs_kcache_head; *p; p = &(*p)->next) {
    if ((*p)->key_len != key_len || memcmp((*p)->key, full, key_len) != 0) continue;
    gone = *p;
    *p = gone->next;
    break;
  }
  pthread_mutex_unlock(&rs_kcache_lock);
  if (gone) {
    free(gone->key);
    free(gone->image);
    free(gone);
  }
  int dfd = rs_kdisk_open_dir(dir, 0);
  if (dfd >= 0) {
    char name[300];
    rs_kdisk_name(name, sizeof name, backend, full, key_len);
    rs_kdisk_remove(dfd, name);
    close(dfd);
  }
  free(full);
}

void rs_kcache_put(const char *backend, const rs_textbuf *key, const char *dir, size_t max_bytes, const void *image,
                   size_t bytes) {
  int dfd = rs_kdisk_open_dir(dir, 1);
  if (dfd < 0) return;
  size_t key_len = 0;
  char *full = rs_full_key(backend, key, &key_len);
  char name[300];
  if (full) rs_kdisk_name(name, sizeof name, backend, full, key_len);
  if (full && rs_kdisk_write(dfd, name, full, key_len, image, bytes)) {
    atomic_fetch_add(&rs_stat_disk_writes, 1);
    /* a scan reads the whole directory: do it on this process's first write and then
     * after each sixteenth of the limit written, not on every kernel */
    static _Atomic uint64_t written_since_scan = UINT64_MAX / 2;
    /* the file's size, as the limit counts it: its key (which holds the source and the
     * device header) can be many times the image, which for PTX is often the smaller */
    uint64_t entry = rs_kdisk_entry_bytes(key_len, bytes);
    uint64_t w = atomic_fetch_add(&written_since_scan, entry) + entry;
    if (max_bytes > 0 && w >= max_bytes / 16) {
      atomic_store(&written_since_scan, 0);
      rs_kcache_evict(dfd, name, max_bytes);
    }
  }
  free(full);
  close(dfd);
}

void rs_kcache_count_compile(void) { atomic_fetch_add(&rs_stat_compiles, 1); }

rs_status rs_kernel_cache_get_stats(rs_kernel_cache_stats *out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_kernel_cache_get_stats: out is NULL");
  out->compiles = atomic_load(&rs_stat_compiles);
  out->memory_hits = atomic_load(&rs_stat_memory_hits);
  out->disk_hits = atomic_load(&rs_stat_disk_hits);
  out->disk_writes = atomic_load(&rs_stat_disk_writes);
  out->disk_evictions = rs_kcache_evictions();
  return RS_OK;
}

void rs_kernel_cache_clear(void) {
  pthread_mutex_lock(&rs_kcache_lock);
  rs_kcache_entry *e = rs_kcache_head;
  rs_kcache_head = NULL;
  pthread_mutex_unlock(&rs_kcache_lock);
  while (e) {
    rs_kcache_entry *next = e->next;
    free(e->key);
    free(e->image);
    free(e);
    e = next;
  }
}
