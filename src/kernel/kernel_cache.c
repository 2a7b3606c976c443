/* The compiled-kernel cache: in memory for the process, on disk across processes.
 *
 * An entry is keyed by the whole key text (library version, backend, target, name,
 * options, source, user headers). The hash only names the file and picks the memory
 * bucket; the stored key is compared in full, so a collision is a miss, never wrong code.
 * Disk files are written to a temporary name and renamed, so a reader never sees half a
 * file, and a cache that cannot be used is silently skipped. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"

#define RS_KCACHE_MAGIC "RSKC0001"

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

/* A 64-bit hash of bytes: 8-byte words through a multiply-xorshift mix. Not
 * cryptographic; it only spreads names (the full key is always compared). */
static uint64_t rs_mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return x;
}

static uint64_t rs_hash(const void *data, size_t len, uint64_t seed) {
  const unsigned char *p = data;
  uint64_t h = rs_mix(seed ^ (uint64_t)len);
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = rs_mix(h ^ w) + 0x9e3779b97f4a7c15ull;
  }
  uint64_t tail = 0;
  for (size_t j = 0; i + j < len; j++) tail |= (uint64_t)p[i + j] << (8 * j);
  return rs_mix(h ^ tail ^ 0xa0761d6478bd642full);
}

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

static void rs_cache_path(char *out, size_t len, const char *dir, const char *backend, const char *key,
                          size_t key_len) {
  snprintf(out, len, "%s/%s-%016llx%016llx.rsk", dir, backend,
           (unsigned long long)rs_hash(key, key_len, 1), (unsigned long long)rs_hash(key, key_len, 2));
}

static int rs_read_u64(FILE *f, uint64_t *v) { return fread(v, sizeof *v, 1, f) == 1; }

/* The image stored at path for exactly this key, or 0. */
static int rs_disk_read(const char *path, const char *key, size_t key_len, void **image, size_t *bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  int ok = 0;
  char magic[8];
  uint64_t klen = 0, ilen = 0;
  char *stored = NULL;
  void *img = NULL;
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, RS_KCACHE_MAGIC, 8) != 0) goto done;
  if (!rs_read_u64(f, &klen) || klen != key_len) goto done;
  stored = malloc(key_len ? key_len : 1);
  if (!stored || fread(stored, 1, key_len, f) != key_len || memcmp(stored, key, key_len) != 0) goto done;
  if (!rs_read_u64(f, &ilen) || ilen == 0 || ilen > ((uint64_t)1 << 31)) goto done;
  img = malloc((size_t)ilen);
  if (!img || fread(img, 1, (size_t)ilen, f) != ilen) goto done;
  *image = img;
  *bytes = (size_t)ilen;
  img = NULL;
  ok = 1;
done:
  free(img);
  free(stored);
  fclose(f);
  return ok;
}

/* mkdir -p with private permissions: compiled code of a user is the user's. */
static int rs_make_dirs(const char *dir) {
  char path[1200];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return 0;
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) return 0;
    *p = '/';
  }
  return mkdir(path, 0700) == 0 || errno == EEXIST;
}

/* 1 when the file is in place. */
static int rs_disk_write(const char *dir, const char *path, const char *key, size_t key_len,
                         const void *image, size_t bytes) {
  if (!rs_make_dirs(dir)) return 0;
  static _Atomic unsigned counter;
  char tmp[1400];
  snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", path, (long)getpid(), atomic_fetch_add(&counter, 1));
  /* Private like the directory; O_EXCL so two writers never share a temporary. */
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
  if (!f) {
    if (fd >= 0) {
      close(fd);
      unlink(tmp);
    }
    return 0;
  }
  uint64_t klen = key_len, ilen = bytes;
  int ok = fwrite(RS_KCACHE_MAGIC, 1, 8, f) == 8 && fwrite(&klen, sizeof klen, 1, f) == 1 &&
           fwrite(key, 1, key_len, f) == key_len && fwrite(&ilen, sizeof ilen, 1, f) == 1 &&
           fwrite(image, 1, bytes, f) == bytes;
  ok = fclose(f) == 0 && ok;
  if (ok && rename(tmp, path) == 0) {
    atomic_fetch_add(&rs_stat_disk_writes, 1);
    return 1;
  }
  unlink(tmp);
  return 0;
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
      atomic_fetch_add(&rs_stat_memory_hits, 1);
    }
    pthread_mutex_unlock(&rs_kcache_lock);
    free(full);
    return copy ? RS_OK : rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel cache: out of host memory");
  }
  pthread_mutex_unlock(&rs_kcache_lock);
  if (dir && dir[0]) {
    char path[1300];
    rs_cache_path(path, sizeof path, dir, backend, full, key_len);
    if (rs_disk_read(path, full, key_len, image, bytes)) {
      atomic_fetch_add(&rs_stat_disk_hits, 1);
      rs_kcache_touch(path); /* used now: the last to go when the directory is trimmed */
      *origin = RS_KERNEL_DISK_CACHE;
      pthread_mutex_lock(&rs_kcache_lock);
      rs_memory_insert_locked(full, key_len, *image, *bytes);
      pthread_mutex_unlock(&rs_kcache_lock);
      return RS_OK;
    }
  }
  free(full);
  return RS_ERR_NOT_FOUND; /* a miss is not an error: no message */
}

void rs_kcache_put(const char *backend, const rs_textbuf *key, const char *dir, size_t max_bytes, const void *image,
                   size_t bytes) {
  size_t key_len = 0;
  char *full = rs_full_key(backend, key, &key_len);
  if (!full) return;
  if (dir && dir[0]) {
    char path[1300];
    rs_cache_path(path, sizeof path, dir, backend, full, key_len);
    if (rs_disk_write(dir, path, full, key_len, image, bytes)) {
      rs_kcache_touch(path);
      /* a scan reads the whole directory: do it on this process's first write and then
       * after each sixteenth of the limit written, not on every kernel */
      static _Atomic uint64_t written_since_scan = UINT64_MAX / 2;
      uint64_t w = atomic_fetch_add(&written_since_scan, bytes) + bytes;
      if (max_bytes > 0 && w >= max_bytes / 16) {
        atomic_store(&written_since_scan, 0);
        rs_kcache_evict(dir, path, max_bytes);
      }
    }
  }
  pthread_mutex_lock(&rs_kcache_lock);
  rs_memory_insert_locked(full, key_len, image, bytes);
  pthread_mutex_unlock(&rs_kcache_lock);
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
