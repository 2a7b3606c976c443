/* Keeping the disk cache of compiled kernels under its size limit (RESIDENT_CACHE_MAX).
 *
 * A file's modification time is its last use: a write and a disk hit set it. When
 * a write takes the directory past the limit, the least recently used entries go until
 * it is at three quarters of the limit, so the next writes do not each trigger a scan.
 * The entry just written always stays. Temporaries that crashed writers left behind
 * (older than an hour) go too. Several processes may share the directory: a file another
 * process deletes is a cache miss for the next reader, never a wrong kernel.
 *
 * The directory may be one the user keeps other files in (RESIDENT_CACHE_DIR=$HOME): only
 * files the cache wrote are counted or deleted - named as its entries and temporaries are,
 * regular, this user's, and starting with an entry's magic (kernel_cache_disk.c). */
#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "kernel/kernel_internal.h"

static _Atomic int64_t rs_stat_evictions;

typedef struct cached_file {
  char name[256];
  off_t size;
  struct timespec used;
} cached_file;

static int older_first(const void *a, const void *b) {
  const cached_file *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

void rs_kcache_evict(int dfd, const char *keep, size_t max_bytes) {
  if (dfd < 0 || max_bytes == 0) return;
  int scan_fd = dup(dfd); /* closedir closes it; the caller's descriptor stays open */
  DIR *d = scan_fd >= 0 ? fdopendir(scan_fd) : NULL;
  if (!d) {
    if (scan_fd >= 0) close(scan_fd);
    return;
  }
  rewinddir(d);
  size_t n = 0, cap = 0;
  cached_file *files = NULL;
  uint64_t total = 0;
  time_t now = time(NULL);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int tmp = 0;
    if (!rs_kdisk_entry_name(e->d_name, &tmp) || strlen(e->d_name) >= sizeof files->name) continue;
    struct stat st;
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
      continue;
    if (tmp) {
      if (now - st.st_mtim.tv_sec > 3600 && rs_kdisk_written_here(dfd, e->d_name, 1))
        (void)unlinkat(dfd, e->d_name, 0);
      continue;
    }
    total += (uint64_t)st.st_size;
    if (strcmp(e->d_name, keep) == 0) continue; /* counted, never deleted */
    if (n == cap) {
      size_t c = cap ? 2 * cap : 256;
      cached_file *more = realloc(files, c * sizeof *more);
      if (!more) break; /* evict among those listed so far */
      files = more;
      cap = c;
    }
    snprintf(files[n].name, sizeof files[n].name, "%s", e->d_name);
    files[n].size = st.st_size;
    files[n].used = st.st_mtim;
    n++;
  }
  if (total > max_bytes) {
    uint64_t goal = max_bytes / 4 * 3;
    qsort(files, n, sizeof *files, older_first);
    for (size_t i = 0; i < n && total > goal; i++) {
      if (!rs_kdisk_written_here(dfd, files[i].name, 0) || unlinkat(dfd, files[i].name, 0) != 0) continue;
      total -= (uint64_t)files[i].size;
      atomic_fetch_add(&rs_stat_evictions, 1);
    }
  }
  free(files);
  closedir(d);
}

int64_t rs_kcache_evictions(void) { return atomic_load(&rs_stat_evictions); }
