/* The disk half of the kernel cache, a trust boundary: what is read from it is code this
 * process runs, so nothing in it is believed that another user could have put there.
 *
 * - The directory is used only when it is owned by this user and writable by nobody else
 *   (checked with fstat on the opened directory, whose descriptor every later access goes
 *   through, so a renamed or swapped path changes nothing). A refused directory is named
 *   once per process through the log, and the cache is then memory only.
 * - An entry is opened with O_NOFOLLOW and O_NONBLOCK (a FIFO cannot block) and used only
 *   when it is a regular file owned by this user and writable by nobody else.
 * - An entry carries a digest of its header, key and image, checked before anything of it
 *   is used; its sizes must add up to the file's size, so no header can make the reader
 *   allocate more than the file holds. The digest catches damage and misplaced entries,
 *   not a forger: that the directory is this user's alone is what keeps others out.
 * - A damaged entry is removed (it would be a miss forever); files the cache did not
 *   write are never removed.
 *
 * Entry layout (native byte order: a cache is per machine):
 *   "RSKC0002" | u64 key bytes | u64 image bytes | 16-byte digest | key | image
 * The digest is two 64-bit hashes of the whole entry with the digest field zeroed. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "kernel/kernel_internal.h"
#include "ledger/ledger_hooks.h"

#define RS_KDISK_MAGIC "RSKC0002"
#define RS_KDISK_DIGEST_AT 24
#define RS_KDISK_HEADER 40
/* One kernel's image: far above any real one, and a bound before a file is read whole. */
#define RS_KDISK_MAX_ENTRY ((uint64_t)1 << 31)

/* A 64-bit hash of bytes: 8-byte words through a multiply-xorshift mix. Not
 * cryptographic: it names files and detects damage. */
static uint64_t rs_mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return x;
}

uint64_t rs_kcache_hash(const void *data, size_t len, uint64_t seed) {
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

/* ---- the directory ---------------------------------------------------------------------- */

/* mkdir -p with private permissions: compiled code of a user is the user's. */
static void rs_make_dirs(const char *dir) {
  char path[1200];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return;
  for (char *p = path + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    (void)mkdir(path, 0700);
    *p = '/';
  }
  (void)mkdir(path, 0700);
}

/* Say once per process and directory why it is not used: the same refusal on every kernel
 * would bury the rest of the log. */
static void rs_refuse_dir_once(const char *dir, const char *why) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static uint64_t said[64];
  static int nsaid;
  uint64_t h = rs_kcache_hash(dir, strlen(dir), 7);
  int fresh = 1;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nsaid && fresh; i++) fresh = said[i] != h;
  if (fresh && nsaid < 64) said[nsaid++] = h;
  pthread_mutex_unlock(&lock);
  if (fresh)
    rs_log_line("kernel cache: not using the directory '%s': %s; kernels are cached in memory only", dir, why);
}

/* Why a file or directory that this user did not make private cannot be trusted, or NULL. */
static const char *rs_untrusted(const struct stat *st, char *why, size_t len) {
  if (st->st_uid != geteuid()) {
    snprintf(why, len, "it belongs to uid %u, not to this user (uid %u)", (unsigned)st->st_uid,
             (unsigned)geteuid());
    return why;
  }
  if (st->st_mode & (S_IWGRP | S_IWOTH)) {
    snprintf(why, len, "it is writable by %s (mode %04o)", st->st_mode & S_IWOTH ? "others" : "its group",
             (unsigned)(st->st_mode & 07777));
    return why;
  }
  return NULL;
}

int rs_kdisk_open_dir(const char *dir, int create) {
  if (!dir || !dir[0]) return -1;
  if (create) rs_make_dirs(dir);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOTDIR) rs_refuse_dir_once(dir, "it is not a directory");
    return -1; /* missing (nothing cached yet) or unreadable: memory only, silently */
  }
  struct stat st;
  char why[160];
  const char *bad = fstat(fd, &st) != 0 ? "it cannot be examined" : rs_untrusted(&st, why, sizeof why);
  if (bad) {
    rs_refuse_dir_once(dir, bad);
    close(fd);
    return -1;
  }
  return fd;
}

/* ---- names -------------------------------------------------------------------------------- */

void rs_kdisk_name(char *out, size_t len, const char *backend, const char *key, size_t key_len) {
  snprintf(out, len, "%s-%016llx%016llx.rsk", backend, (unsigned long long)rs_kcache_hash(key, key_len, 1),
           (unsigned long long)rs_kcache_hash(key, key_len, 2));
}

static size_t rs_span(const char *s, const char *set) { return strspn(s, set); }

int rs_kdisk_entry_name(const char *name, int *is_tmp) {
  /* <backend>-<32 hex>.rsk, or that followed by .<pid>.<n>.tmp (a writer's temporary) */
  size_t b = rs_span(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
  if (b == 0 || name[b] != '-') return 0;
  const char *p = name + b + 1;
  if (rs_span(p, "0123456789abcdef") != 32 || strncmp(p + 32, ".rsk", 4) != 0) return 0;
  p += 36;
  *is_tmp = *p != '\0';
  if (!*is_tmp) return 1;
  for (int part = 0; part < 2; part++) {
    size_t d = *p == '.' ? rs_span(p + 1, "0123456789") : 0;
    if (d == 0) return 0;
    p += 1 + d;
  }
  return strcmp(p, ".tmp") == 0;
}

/* ---- entries ------------------------------------------------------------------------------ */

static void rs_digest(unsigned char *entry, size_t len, unsigned char out[16]) {
  unsigned char saved[16];
  memcpy(saved, entry + RS_KDISK_DIGEST_AT, 16);
  memset(entry + RS_KDISK_DIGEST_AT, 0, 16);
  uint64_t h[2] = {rs_kcache_hash(entry, len, 3), rs_kcache_hash(entry, len, 4)};
  memcpy(entry + RS_KDISK_DIGEST_AT, saved, 16);
  memcpy(out, h, 16);
}

void *rs_kdisk_encode(const char *key, size_t key_len, const void *image, size_t bytes, size_t *len) {
  size_t n = RS_KDISK_HEADER + key_len + bytes;
  unsigned char *e = n >= key_len + bytes ? calloc(1, n) : NULL;
  if (!e) return NULL;
  uint64_t klen = key_len, ilen = bytes;
  memcpy(e, RS_KDISK_MAGIC, 8);
  memcpy(e + 8, &klen, 8);
  memcpy(e + 16, &ilen, 8);
  memcpy(e + RS_KDISK_HEADER, key, key_len);
  memcpy(e + RS_KDISK_HEADER + key_len, image, bytes);
  unsigned char d[16];
  rs_digest(e, n, d);
  memcpy(e + RS_KDISK_DIGEST_AT, d, 16);
  *len = n;
  return e;
}

/* Why the bytes of a file are not the entry of this key, or NULL. */
static const char *rs_check_entry(unsigned char *e, size_t n, const char *key, size_t key_len) {
  if (n < RS_KDISK_HEADER || memcmp(e, RS_KDISK_MAGIC, 8) != 0) return "not an entry of this library's version";
  uint64_t klen, ilen;
  memcpy(&klen, e + 8, 8);
  memcpy(&ilen, e + 16, 8);
  /* each size against what the file holds, before any sum that could wrap */
  if (klen > n - RS_KDISK_HEADER || ilen != n - RS_KDISK_HEADER - klen || ilen == 0)
    return "its sizes do not match the file's";
  unsigned char d[16];
  rs_digest(e, n, d);
  if (memcmp(d, e + RS_KDISK_DIGEST_AT, 16) != 0) return "its digest does not match its contents";
  if (klen != key_len || memcmp(e + RS_KDISK_HEADER, key, key_len) != 0) return "it holds another kernel";
  return NULL;
}

/* Stamp a file used now. The kernel's own stamps come from a coarse clock (a few
 * milliseconds): a write and a use that close together would tie, so the fine one. */
static void rs_stamp(int fd) {
  struct timespec now[2];
  if (clock_gettime(CLOCK_REALTIME, &now[0]) != 0) return;
  now[1] = now[0];
  (void)futimens(fd, now);
}

static int rs_read_all(int fd, void *buf, size_t len) {
  char *p = buf;
  while (len > 0) {
    ssize_t n = read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    len -= (size_t)n;
  }
  return 1;
}

static int rs_write_all(int fd, const void *buf, size_t len) {
  const char *p = buf;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0;
    p += n;
    len -= (size_t)n;
  }
  return 1;
}

/* Open name for reading as a regular file of this user's that nobody else can write;
 * -1 (with *why set when the file exists but is refused) otherwise. */
static int rs_open_trusted(int dfd, const char *name, struct stat *st, char *why, size_t len) {
  why[0] = '\0';
  int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP) snprintf(why, len, "it is a symbolic link");
    return -1;
  }
  const char *bad = NULL;
  if (fstat(fd, st) != 0) bad = "it cannot be examined";
  else if (!S_ISREG(st->st_mode)) bad = "it is not a regular file";
  else bad = rs_untrusted(st, why, len);
  if (bad) {
    if (bad != why) snprintf(why, len, "%s", bad);
    close(fd);
    return -1;
  }
  return fd;
}

/* Remove name if it is still the file that was examined (another process may have put a
 * fresh entry in its place since). */
static void rs_remove_examined(int dfd, const char *name, const struct stat *examined) {
  struct stat now;
  if (fstatat(dfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == examined->st_ino &&
      now.st_dev == examined->st_dev)
    (void)unlinkat(dfd, name, 0);
}

int rs_kdisk_read(int dfd, const char *dir, const char *name, const char *key, size_t key_len, void **image,
                  size_t *bytes) {
  struct stat st;
  char why[160];
  int fd = rs_open_trusted(dfd, name, &st, why, sizeof why);
  if (fd < 0) {
    if (why[0]) rs_log_line("kernel cache: not using '%s/%s': %s", dir, name, why);
    return 0;
  }
  /* the file's size bounds every allocation: no size field is believed before it */
  const char *bad = NULL;
  size_t n = (size_t)st.st_size;
  unsigned char *e = NULL;
  if ((uint64_t)st.st_size > RS_KDISK_MAX_ENTRY) bad = "it is larger than any kernel";
  else e = malloc(n ? n : 1); /* out of memory: a plain miss */
  if (e && !rs_read_all(fd, e, n)) bad = "it cannot be read whole";
  if (e && !bad) bad = rs_check_entry(e, n, key, key_len);
  int hit = e && !bad;
  if (hit) {
    size_t ilen = n - RS_KDISK_HEADER - key_len;
    void *img = malloc(ilen);
    hit = img != NULL;
    if (hit) {
      memcpy(img, e + RS_KDISK_HEADER + key_len, ilen);
      *image = img;
      *bytes = ilen;
      rs_stamp(fd); /* used now: the last to go when the directory is trimmed */
    }
  }
  free(e);
  close(fd);
  if (bad) {
    rs_log_line("kernel cache: removed '%s/%s': %s", dir, name, bad);
    rs_remove_examined(dfd, name, &st);
  }
  return hit;
}

int rs_kdisk_write(int dfd, const char *name, const char *key, size_t key_len, const void *image, size_t bytes) {
  static _Atomic unsigned counter;
  size_t len = 0;
  void *e = rs_kdisk_encode(key, key_len, image, bytes, &len);
  if (!e) return 0;
  char tmp[400];
  snprintf(tmp, sizeof tmp, "%s.%ld.%u.tmp", name, (long)getpid(), atomic_fetch_add(&counter, 1));
  /* Private; O_EXCL so two writers never share a temporary, and nothing else is followed. */
  int fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int ok = fd >= 0 && rs_write_all(fd, e, len);
  free(e);
  if (ok) rs_stamp(fd);
  if (fd >= 0) ok = close(fd) == 0 && ok;
  /* rename takes the place of whatever is at name (a damaged entry, a FIFO, a link) */
  if (ok && renameat(dfd, tmp, dfd, name) == 0) return 1;
  if (fd >= 0) (void)unlinkat(dfd, tmp, 0);
  return 0;
}

uint64_t rs_kdisk_entry_bytes(size_t key_len, size_t image_bytes) {
  return (uint64_t)RS_KDISK_HEADER + key_len + image_bytes;
}

int rs_kdisk_written_here(int dfd, const char *name, int allow_empty) {
  struct stat st;
  char why[160];
  int fd = rs_open_trusted(dfd, name, &st, why, sizeof why);
  if (fd < 0) return 0;
  char head[4];
  ssize_t n = read(fd, head, sizeof head);
  close(fd);
  return (n == 0 && allow_empty) || (n == (ssize_t)sizeof head && memcmp(head, RS_KDISK_MAGIC, 4) == 0);
}

void rs_kdisk_remove(int dfd, const char *name) {
  if (rs_kdisk_written_here(dfd, name, 0)) (void)unlinkat(dfd, name, 0);
}
