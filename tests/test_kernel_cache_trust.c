/* The on-disk kernel cache as a trust boundary (issue 11, items 1 to 6): a directory or
 * entry another user could have written is not used; links, FIFOs and damaged or
 * misplaced entries are misses (never loaded, never a hang), a cached image that does not
 * load is compiled again and replaced; sizes read from an entry are bounded by the file;
 * eviction deletes only the cache's own files; includes must be regular files of bounded
 * size; RESIDENT_CACHE_DIR's off values and relative paths.
 *
 * Entries are edited here as the cache lays them out (kernel_cache_disk.c):
 *   "RSKC0002" | u64 key bytes | u64 image bytes | 16-byte digest | key | image */
#define RS_TEST_TIMEOUT_S 60 /* a FIFO that blocks is reported, not waited for */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "harness.h"
#include "kernel/kernel_internal.h"
#include "kernel_test_util.h"

#define ENTRY_HEADER 40

/* ---- helpers -------------------------------------------------------------------------- */

static char logged[16384];
static int nlogged;

static void capture(const char *line, void *user) {
  (void)user;
  size_t have = strlen(logged);
  snprintf(logged + have, sizeof logged - have, "%s\n", line);
  nlogged++;
}

static void capture_log(void) {
  logged[0] = '\0';
  nlogged = 0;
  rs_set_log_handler(capture, NULL);
}

/* Lines logged that mention needle. */
static int logged_with(const char *needle) {
  int n = 0;
  for (const char *p = strstr(logged, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

static void rm_rf(const char *dir) {
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", dir, dir);
  if (system(cmd) != 0) printf("    (could not remove %s)\n", dir);
}

static rs_context *cache_context(rs_context *like, const char *dir, const char *max) {
  setenv("RESIDENT_CACHE_DIR", dir, 1);
  if (max) setenv("RESIDENT_CACHE_MAX", max, 1);
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(like), rs_context_device(like));
  unsetenv("RESIDENT_CACHE_DIR");
  unsetenv("RESIDENT_CACHE_MAX");
  return st == RS_OK ? c : NULL;
}

/* A kernel `trust` writing value, in a source no earlier run can have cached. */
static void trust_source(char *out, size_t len, int value) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(out, len,
           "// nonce %ld.%09ld pid %ld\n"
           "extern \"C\" __global__ void trust(int *x) { x[threadIdx.x] = %d; }\n",
           (long)ts.tv_sec, ts.tv_nsec, (long)getpid(), value);
}

/* Create `trust` from src on c, run it, check it wrote value; where its code came from. */
static rs_status create_run(rs_context *c, const char *src, int value, rs_kernel_origin *origin, int *right) {
  rs_kernel *k = NULL;
  rs_array *x = NULL;
  int out[32] = {0};
  int64_t n = 32;
  *right = 0;
  rs_status st = rs_kernel_create(&k, c, src, "trust", NULL);
  rs_kernel_info info;
  if (st == RS_OK) st = rs_kernel_get_info(k, &info);
  if (st == RS_OK) st = rs_device_array(&x, c, 1, &n, RS_INT32, NULL, RS_ORDER_C);
  rs_launch_config cfg = {.grid = {1}, .block = {32}};
  if (st == RS_OK) st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x)));
  if (st == RS_OK) st = rs_t_read_(x, out);
  if (st == RS_OK) {
    *origin = info.origin;
    *right = out[0] == value && out[31] == value;
  }
  rs_array_release(x);
  rs_kernel_destroy(k);
  return st;
}

/* The one entry file of dir (its path), or 0 when there is not exactly one. */
static int only_entry(const char *dir, char *path, size_t len) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 4 || strcmp(e->d_name + l - 4, ".rsk") != 0) continue;
    snprintf(path, len, "%s/%s", dir, e->d_name);
    n++;
  }
  if (d) closedir(d);
  return n == 1;
}

static int count_entries(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    n += l >= 4 && strcmp(e->d_name + l - 4, ".rsk") == 0;
  }
  if (d) closedir(d);
  return n;
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = (size_t)n;
  return b;
}

static int spill(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  int ok = fwrite(data, 1, len, f) == len;
  ok = fclose(f) == 0 && ok;
  return ok && chmod(path, 0600) == 0;
}

static uint64_t u64_at(const unsigned char *b, size_t at) {
  uint64_t v;
  memcpy(&v, b + at, 8);
  return v;
}

/* A context on a fresh private cache directory with one cached `trust` kernel (value 1):
 * the directory, the source and the entry's path. */
static rs_context *one_entry(rs_context *ctx, char *dir, char *src, size_t src_len, char *entry, size_t entry_len) {
  if (!mkdtemp(dir)) return NULL;
  rs_context *c = cache_context(ctx, dir, NULL);
  if (!c) return NULL;
  trust_source(src, src_len, 1);
  rs_kernel_origin o;
  int right = 0;
  if (create_run(c, src, 1, &o, &right) != RS_OK || !right || o != RS_KERNEL_COMPILED ||
      !only_entry(dir, entry, entry_len)) {
    rs_context_destroy(c);
    return NULL;
  }
  return c;
}

/* Create again as a new process would (memory cache empty): where the code came from. */
static rs_status again(rs_context *c, const char *src, rs_kernel_origin *o, int *right) {
  rs_kernel_cache_clear();
  return create_run(c, src, 1, o, right);
}

static int64_t vm_kib(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int64_t v = -1;
  size_t n = strlen(field);
  while (f && fgets(line, sizeof line, f))
    if (strncmp(line, field, n) == 0) v = strtoll(line + n, NULL, 10);
  if (f) fclose(f);
  return v;
}

/* ---- item 4: sizes bounded by the file (first: it watches the process's peak size) ---- */

static void test_size_claim_bounded_by_file(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200];
  rs_context *c = one_entry(ctx, dir, src, sizeof src, entry, sizeof entry);
  CHECK(c != NULL);
  size_t len = 0;
  unsigned char *e = slurp(entry, &len);
  rs_status st = e && len > ENTRY_HEADER ? RS_OK : RS_ERR_INTERNAL;
  /* the header claims a 2 GiB image; the file stays a few hundred bytes past the key */
  uint64_t claim = (uint64_t)1 << 31, klen = e ? u64_at(e, 8) : 0;
  size_t keep = ENTRY_HEADER + (size_t)klen + 100 < len ? ENTRY_HEADER + (size_t)klen + 100 : len;
  if (st == RS_OK) memcpy(e + 16, &claim, 8);
  if (st == RS_OK && !spill(entry, e, keep)) st = RS_ERR_INTERNAL;
  free(e);
  capture_log();
  int64_t size0 = vm_kib("VmSize:"), peak0 = vm_kib("VmPeak:");
  rs_kernel_origin o = RS_KERNEL_DISK_CACHE;
  int right = 0;
  if (st == RS_OK) st = again(c, src, &o, &right);
  int64_t peak1 = vm_kib("VmPeak:");
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(o == RS_KERNEL_COMPILED && right);
  CHECK(size0 > 0 && peak1 > 0);
  /* a 2 GiB allocation, even untouched, would have raised the peak past this */
  int64_t bound = peak0 > size0 + (1 << 20) ? peak0 : size0 + (1 << 20);
  CHECK_MSG(peak1 <= bound, "VmPeak %lld KiB, VmSize before %lld KiB", (long long)peak1, (long long)size0);
  CHECK_MSG(logged_with("sizes do not match") == 1, "log: %s", logged);
}

/* ---- item 1: the directory and the entries must be this user's alone ------------------- */

static void test_dir_writable_by_others_refused(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512];
  CHECK(mkdtemp(dir) != NULL);
  CHECK(chmod(dir, 0777) == 0);
  capture_log();
  rs_context *c = cache_context(ctx, dir, NULL);
  rs_kernel_cache_stats s0, s1;
  rs_kernel_origin o1 = RS_KERNEL_DISK_CACHE, o2 = RS_KERNEL_DISK_CACHE;
  int r1 = 0, r2 = 0;
  rs_status st = c ? rs_kernel_cache_get_stats(&s0) : RS_ERR_INTERNAL;
  trust_source(src, sizeof src, 1);
  if (st == RS_OK) st = create_run(c, src, 1, &o1, &r1);
  if (st == RS_OK) st = again(c, src, &o2, &r2);
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s1);
  int entries = count_entries(dir);
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(r1 && r2 && o1 == RS_KERNEL_COMPILED && o2 == RS_KERNEL_COMPILED);
  CHECK_EQ_I64(s1.disk_writes - s0.disk_writes, 0);
  CHECK_EQ_I64(entries, 0);
  /* said once, naming the directory and why */
  CHECK_MSG(logged_with(dir) == 1 && logged_with("writable by others") == 1, "log: %s", logged);
}

static void test_dir_of_another_user_refused(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512];
  CHECK(mkdtemp(dir) != NULL);
  if (chown(dir, 4242, 4242) != 0) {
    printf(" (not root: cannot give a directory to another user; skipped)");
    rm_rf(dir);
    return;
  }
  capture_log();
  rs_context *c = cache_context(ctx, dir, NULL);
  rs_kernel_cache_stats s0, s1;
  rs_kernel_origin o = RS_KERNEL_DISK_CACHE;
  int right = 0;
  rs_status st = c ? rs_kernel_cache_get_stats(&s0) : RS_ERR_INTERNAL;
  trust_source(src, sizeof src, 1);
  if (st == RS_OK) st = create_run(c, src, 1, &o, &right);
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s1);
  int entries = count_entries(dir);
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(right && o == RS_KERNEL_COMPILED);
  CHECK_EQ_I64(s1.disk_writes - s0.disk_writes, 0);
  CHECK_EQ_I64(entries, 0);
  CHECK_MSG(logged_with(dir) == 1 && logged_with("uid 4242") == 1, "log: %s", logged);
}

/* An entry others can write, or another user's, is not used (and is replaced). */
static void test_entry_not_private_refused(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200];
  rs_context *c = one_entry(ctx, dir, src, sizeof src, entry, sizeof entry);
  CHECK(c != NULL);
  capture_log();
  rs_kernel_origin o1 = RS_KERNEL_DISK_CACHE, o2 = RS_KERNEL_DISK_CACHE, o3 = RS_KERNEL_COMPILED;
  int r1 = 0, r2 = 0, r3 = 0, owned = 1;
  rs_status st = chmod(entry, 0666) == 0 ? RS_OK : RS_ERR_INTERNAL;
  if (st == RS_OK) st = again(c, src, &o1, &r1);
  if (st == RS_OK && chown(entry, 4242, 4242) != 0) owned = 0; /* not root */
  if (st == RS_OK && owned) st = again(c, src, &o2, &r2);
  if (st == RS_OK) st = again(c, src, &o3, &r3); /* the entry was replaced by a good one */
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(r1 && o1 == RS_KERNEL_COMPILED);
  CHECK_MSG(logged_with("writable by others") == 1, "log: %s", logged);
  if (owned) {
    CHECK(r2 && o2 == RS_KERNEL_COMPILED);
    CHECK_MSG(logged_with("uid 4242") == 1, "log: %s", logged);
  }
  CHECK(r3 && o3 == RS_KERNEL_DISK_CACHE);
}

static void test_symlinked_entry_not_followed(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200], elsewhere[] = "/tmp/resident-trust-XXXXXX";
  rs_context *c = one_entry(ctx, dir, src, sizeof src, entry, sizeof entry);
  CHECK(c != NULL);
  rs_status st = mkdtemp(elsewhere) ? RS_OK : RS_ERR_INTERNAL;
  char target[1200];
  snprintf(target, sizeof target, "%s/real.rsk", elsewhere);
  /* the link leads to a good entry of this very key: still not followed */
  if (st == RS_OK && (rename(entry, target) != 0 || symlink(target, entry) != 0)) st = RS_ERR_INTERNAL;
  capture_log();
  rs_kernel_origin o = RS_KERNEL_DISK_CACHE;
  int right = 0;
  if (st == RS_OK) st = again(c, src, &o, &right);
  struct stat at_entry, at_target;
  int entry_regular = lstat(entry, &at_entry) == 0 && S_ISREG(at_entry.st_mode);
  int target_kept = stat(target, &at_target) == 0 && S_ISREG(at_target.st_mode);
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  rm_rf(elsewhere);
  CHECK_OK(st);
  CHECK(right && o == RS_KERNEL_COMPILED);
  CHECK_MSG(logged_with("symbolic link") == 1, "log: %s", logged);
  CHECK(entry_regular); /* the link was replaced by the cache's own entry */
  CHECK(target_kept);
}

/* ---- item 2: damaged or misplaced entries are misses, removed and replaced ------------ */

/* Change the entry with edit, create again: the entry must not have been used. */
typedef int (*entry_edit)(const char *entry, unsigned char *e, size_t len, void *arg);

static void check_refused_then_replaced(rs_context *ctx, entry_edit edit, void *arg, const char *why) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200];
  rs_context *c = one_entry(ctx, dir, src, sizeof src, entry, sizeof entry);
  CHECK(c != NULL);
  size_t len = 0;
  unsigned char *e = slurp(entry, &len);
  rs_status st = e && len > ENTRY_HEADER && edit(entry, e, len, arg) ? RS_OK : RS_ERR_INTERNAL;
  free(e);
  capture_log();
  rs_kernel_origin o1 = RS_KERNEL_DISK_CACHE, o2 = RS_KERNEL_COMPILED;
  int r1 = 0, r2 = 0;
  if (st == RS_OK) st = again(c, src, &o1, &r1);
  if (st == RS_OK) st = again(c, src, &o2, &r2);
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(r1 && o1 == RS_KERNEL_COMPILED); /* refused, compiled again, right result */
  CHECK_MSG(logged_with(why) == 1, "log (expected '%s'): %s", why, logged);
  CHECK(r2 && o2 == RS_KERNEL_DISK_CACHE); /* and replaced by a good entry */
}

static int flip_image_bytes(const char *entry, unsigned char *e, size_t len, void *arg) {
  (void)arg;
  uint64_t ilen = u64_at(e, 16);
  if (ilen < 64 || ilen > len) return 0;
  size_t at = len - (size_t)ilen / 2; /* the middle of the image: same size, other bytes */
  for (size_t i = 0; i < 16; i++) e[at + i] ^= 0x5a;
  return spill(entry, e, len);
}

static int not_an_image(const char *entry, unsigned char *e, size_t len, void *arg) {
  (void)e, (void)len, (void)arg;
  static const char text[] = "this is a text file, not a compiled kernel\n";
  return spill(entry, text, sizeof text - 1);
}

static int truncate_half(const char *entry, unsigned char *e, size_t len, void *arg) {
  (void)arg;
  return spill(entry, e, len / 2);
}

/* The same key with another kernel's image (same name, other code): the digest covers
 * key and image together. */
static int other_image(const char *entry, unsigned char *e, size_t len, void *arg) {
  const unsigned char *other = ((const unsigned char **)arg)[0];
  size_t other_len = *((const size_t **)arg)[1];
  uint64_t klen = u64_at(e, 8), oklen = u64_at(other, 8);
  uint64_t olen = other_len - ENTRY_HEADER - oklen;
  if (ENTRY_HEADER + klen > len) return 0;
  unsigned char *mix = malloc(ENTRY_HEADER + klen + olen);
  if (!mix) return 0;
  memcpy(mix, e, ENTRY_HEADER + klen);
  memcpy(mix + 16, &olen, 8);
  memcpy(mix + ENTRY_HEADER + klen, other + ENTRY_HEADER + oklen, olen);
  int ok = spill(entry, mix, ENTRY_HEADER + klen + olen);
  free(mix);
  return ok;
}

static int whole_other_entry(const char *entry, unsigned char *e, size_t len, void *arg) {
  (void)e, (void)len;
  const unsigned char *other = ((const unsigned char **)arg)[0];
  size_t other_len = *((const size_t **)arg)[1];
  return spill(entry, other, other_len);
}

static void test_flipped_bytes_refused(rs_context *ctx) {
  check_refused_then_replaced(ctx, flip_image_bytes, NULL, "digest does not match");
}

static void test_non_image_refused(rs_context *ctx) {
  check_refused_then_replaced(ctx, not_an_image, NULL, "not an entry");
}

static void test_truncated_refused(rs_context *ctx) {
  check_refused_then_replaced(ctx, truncate_half, NULL, "sizes do not match");
}

/* An entry of another kernel `trust` (writing 2), taken whole or its image spliced in:
 * had it been loaded, the kernel would write 2. */
static void test_other_image_of_same_key_refused(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200];
  CHECK(mkdtemp(dir) != NULL);
  rs_context *c = cache_context(ctx, dir, NULL);
  rs_kernel_origin o;
  int right = 0;
  trust_source(src, sizeof src, 2);
  rs_status st = c ? create_run(c, src, 2, &o, &right) : RS_ERR_INTERNAL;
  size_t other_len = 0;
  unsigned char *other = st == RS_OK && right && only_entry(dir, entry, sizeof entry) ? slurp(entry, &other_len) : NULL;
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(other != NULL && other_len > ENTRY_HEADER);
  const void *arg[2] = {other, &other_len};
  check_refused_then_replaced(ctx, other_image, arg, "digest does not match");
  check_refused_then_replaced(ctx, whole_other_entry, arg, "holds another kernel");
  free(other);
}

/* An entry whose digest is right but whose image does not load: the cache cannot tell
 * before loading, so the failed load is the miss - removed, compiled, replaced - and the
 * bad image never enters the memory cache. */
static void test_failed_load_is_a_miss(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200];
  rs_context *c = one_entry(ctx, dir, src, sizeof src, entry, sizeof entry);
  CHECK(c != NULL);
  size_t len = 0, bad_len = 0;
  unsigned char *e = slurp(entry, &len);
  static const char junk[] = "\x7f" "ELF, but only in name: not an object or a cubin";
  void *bad = e && len > ENTRY_HEADER
                  ? rs_kdisk_encode((const char *)e + ENTRY_HEADER, (size_t)u64_at(e, 8), junk, sizeof junk, &bad_len)
                  : NULL;
  rs_status st = bad && spill(entry, bad, bad_len) ? RS_OK : RS_ERR_INTERNAL;
  free(bad);
  free(e);
  capture_log();
  rs_kernel_cache_stats s0, s1;
  rs_kernel_origin o1 = RS_KERNEL_DISK_CACHE, o2 = RS_KERNEL_COMPILED, o3 = RS_KERNEL_COMPILED;
  int r1 = 0, r2 = 0, r3 = 0;
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s0);
  if (st == RS_OK) st = again(c, src, &o1, &r1);
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s1);
  if (st == RS_OK) st = create_run(c, src, 1, &o2, &r2); /* memory: the good image */
  if (st == RS_OK) st = again(c, src, &o3, &r3);         /* disk: replaced */
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(r1 && o1 == RS_KERNEL_COMPILED);
  CHECK_EQ_I64(s1.disk_hits - s0.disk_hits, 0); /* read and verified, but it served nothing */
  CHECK_EQ_I64(s1.compiles - s0.compiles, 1);   /* it failed to load: compiled */
  CHECK_EQ_I64(s1.disk_writes - s0.disk_writes, 1);
  CHECK_MSG(logged_with("does not load") == 1, "log: %s", logged);
  CHECK(r2 && o2 == RS_KERNEL_MEMORY_CACHE);
  CHECK(r3 && o3 == RS_KERNEL_DISK_CACHE);
}

/* ---- item 3: a FIFO cannot block; eviction spares files the cache did not write ------- */

static void test_fifo_entry_does_not_block(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512], entry[1200];
  rs_context *c = one_entry(ctx, dir, src, sizeof src, entry, sizeof entry);
  CHECK(c != NULL);
  rs_status st = unlink(entry) == 0 && mkfifo(entry, 0600) == 0 ? RS_OK : RS_ERR_INTERNAL;
  capture_log();
  rs_kernel_origin o1 = RS_KERNEL_DISK_CACHE, o2 = RS_KERNEL_COMPILED;
  int r1 = 0, r2 = 0;
  if (st == RS_OK) st = again(c, src, &o1, &r1); /* the test's alarm catches a hang */
  if (st == RS_OK) st = again(c, src, &o2, &r2);
  rs_set_log_handler(NULL, NULL);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(r1 && o1 == RS_KERNEL_COMPILED);
  CHECK_MSG(logged_with("not a regular file") == 1, "log: %s", logged);
  CHECK(r2 && o2 == RS_KERNEL_DISK_CACHE); /* the FIFO was replaced by an entry */
}

typedef struct foreign_file {
  const char *name;
  const char *text;
  int old; /* modified two hours ago */
} foreign_file;

static int plant(const char *dir, const foreign_file *f) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, f->name);
  if (!spill(path, f->text, strlen(f->text))) return 0;
  if (!f->old) return 1;
  struct timespec t[2];
  clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= 7200;
  t[1] = t[0];
  return utimensat(AT_FDCWD, path, t, 0) == 0;
}

static int intact(const char *dir, const foreign_file *f) {
  char path[1200];
  snprintf(path, sizeof path, "%s/%s", dir, f->name);
  size_t len = 0;
  unsigned char *b = slurp(path, &len);
  int same = b && len == strlen(f->text) && memcmp(b, f->text, len) == 0;
  free(b);
  return same;
}

static void test_eviction_spares_foreign_files(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", src[512];
  CHECK(mkdtemp(dir) != NULL);
  /* a directory the user keeps other files in (RESIDENT_CACHE_DIR=$HOME, /tmp) */
  static const foreign_file files[] = {
      {"notes.tmp", "the user's notes\n", 1},
      {"thesis.rsk", "not a kernel\n", 1},
      {"sim-0123456789abcdef0123456789abcdef.rsk", "named like an entry, written by the user\n", 1},
      {"cuda-0123456789abcdef0123456789abcdef.rsk", "named like an entry, written by the user\n", 1},
      {"sim-0123456789abcdef0123456789abcdef.rsk.1.2.tmp", "named like a temporary\n", 1},
      {"cuda-0123456789abcdef0123456789abcdef.rsk.1.2.tmp", "named like a temporary\n", 1},
  };
  /* and a temporary a crashed writer of the cache left two hours ago: that one goes */
  static const foreign_file stale[] = {{"sim-00000000000000000000000000000000.rsk.7.1.tmp", "RSKC0002", 1},
                                       {"cuda-00000000000000000000000000000000.rsk.7.1.tmp", "RSKC0002", 1}};
  int planted = 1;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) planted = planted && plant(dir, &files[i]);
  for (size_t i = 0; i < 2; i++) planted = planted && plant(dir, &stale[i]);
  CHECK(planted);
  rs_context *c = cache_context(ctx, dir, "1KB"); /* every entry is over it: each write evicts */
  rs_kernel_cache_stats s0, s1;
  rs_status st = c ? rs_kernel_cache_get_stats(&s0) : RS_ERR_INTERNAL;
  for (int v = 1; v <= 3 && st == RS_OK; v++) {
    rs_kernel_origin o;
    int right = 0;
    trust_source(src, sizeof src, v);
    st = create_run(c, src, v, &o, &right);
    if (st == RS_OK && !right) st = RS_ERR_INTERNAL;
  }
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s1);
  int all_intact = 1;
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    if (intact(dir, &files[i])) continue;
    printf("\n    %s was deleted or changed", files[i].name);
    all_intact = 0;
  }
  int stale_left = intact(dir, &stale[0]) + intact(dir, &stale[1]);
  int entries = count_entries(dir);
  rs_context_destroy(c);
  rm_rf(dir);
  CHECK_OK(st);
  CHECK(all_intact);
  CHECK(s1.disk_evictions - s0.disk_evictions >= 2); /* eviction did run */
  CHECK_EQ_I64(entries, 3 + 1);                      /* the user's three *.rsk and the newest */
  CHECK_EQ_I64(stale_left, 0);
}

/* ---- item 5: includes must be regular files of bounded size ---------------------------- */

static rs_status create_including(rs_context *ctx, const char *include, int ninclude, const char *const *paths) {
  char src[1400];
  snprintf(src, sizeof src,
           "#include \"%s\"\n"
           "extern \"C\" __global__ void inc(int *x) { x[0] = 1; }\n",
           include);
  rs_kernel_options opts = {0};
  opts.ninclude_paths = ninclude;
  opts.include_paths = paths;
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, ctx, src, "inc", &opts);
  rs_kernel_destroy(k);
  return st;
}

static void test_include_dev_zero_refused(rs_context *ctx) {
  CHECK_STATUS(create_including(ctx, "/dev/zero", 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("/dev/zero");
  CHECK_ERRMSG("not a regular file");
}

static void test_include_fifo_refused(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", fifo[1200];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(fifo, sizeof fifo, "%s/header.h", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  const char *paths[] = {dir};
  rs_status by_path = create_including(ctx, fifo, 0, NULL); /* the test's alarm catches a hang */
  char msg1[1024];
  snprintf(msg1, sizeof msg1, "%s", rs_last_error());
  rs_status by_search = create_including(ctx, "header.h", 1, paths);
  char msg2[1024];
  snprintf(msg2, sizeof msg2, "%s", rs_last_error());
  rs_kernel *k = NULL;
  rs_status as_source = rs_kernel_create_from_file(&k, ctx, fifo, "inc", NULL); /* the source itself */
  char msg3[1024];
  snprintf(msg3, sizeof msg3, "%s", rs_last_error());
  rs_kernel_destroy(k);
  rm_rf(dir);
  CHECK_EQ_I64(by_path, RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(by_search, RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg1, fifo) && strstr(msg1, "not a regular file"), "message: %s", msg1);
  CHECK_MSG(strstr(msg2, fifo) && strstr(msg2, "not a regular file"), "message: %s", msg2);
  CHECK_EQ_I64(as_source, RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg3, fifo) && strstr(msg3, "not a regular file"), "message: %s", msg3);
}

static void test_include_too_large_refused(rs_context *ctx) {
  char dir[] = "/tmp/resident-trust-XXXXXX", big[1200];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(big, sizeof big, "%s/big.h", dir);
  int fd = open(big, O_WRONLY | O_CREAT | O_EXCL, 0600);
  int made = fd >= 0 && ftruncate(fd, (16 << 20) + 1) == 0; /* sparse: costs no disk */
  if (fd >= 0) close(fd);
  rs_status st = made ? create_including(ctx, big, 0, NULL) : RS_ERR_INTERNAL;
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  rm_rf(dir);
  CHECK(made);
  CHECK_EQ_I64(st, RS_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(msg, big) && strstr(msg, "16 MiB"), "message: %s", msg);
}

/* ---- item 6: RESIDENT_CACHE_DIR off values and relative paths --------------------------- */

static void test_cache_dir_off_and_relative(rs_context *ctx) {
  char here[] = "/tmp/resident-trust-XXXXXX", src[512];
  CHECK(mkdtemp(here) != NULL);
  int back = open(".", O_RDONLY | O_DIRECTORY);
  CHECK(back >= 0);
  rs_status st = chdir(here) == 0 ? RS_OK : RS_ERR_INTERNAL;
  static const char *const off[] = {"off", "none", "0"};
  int64_t writes = -1;
  for (int i = 0; i < 3 && st == RS_OK; i++) {
    rs_context *c = cache_context(ctx, off[i], NULL);
    rs_kernel_cache_stats s0, s1;
    rs_kernel_origin o;
    int right = 0;
    st = c ? rs_kernel_cache_get_stats(&s0) : RS_ERR_INTERNAL;
    trust_source(src, sizeof src, 1);
    if (st == RS_OK) st = create_run(c, src, 1, &o, &right);
    if (st == RS_OK) st = rs_kernel_cache_get_stats(&s1);
    if (st == RS_OK) writes = s1.disk_writes - s0.disk_writes;
    if (writes != 0 || !right) st = RS_ERR_INTERNAL;
    rs_context_destroy(c);
  }
  int left = 0;
  for (int i = 0; i < 3; i++) left += access(off[i], F_OK) == 0; /* no folder made here */
  setenv("RESIDENT_CACHE_DIR", "kernels/cache", 1);
  rs_context *rel = NULL;
  rs_status relative = rs_context_create(&rel, rs_context_backend(ctx), rs_context_device(ctx));
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  unsetenv("RESIDENT_CACHE_DIR");
  if (rel) rs_context_destroy(rel);
  left += access("kernels", F_OK) == 0;
  if (fchdir(back) != 0) st = RS_ERR_INTERNAL;
  close(back);
  rm_rf(here);
  CHECK_OK(st);
  CHECK_EQ_I64(writes, 0);
  CHECK_EQ_I64(left, 0);
  CHECK_EQ_I64(relative, RS_ERR_PARSE);
  CHECK_MSG(strstr(msg, "RESIDENT_CACHE_DIR") && strstr(msg, "relative"), "message: %s", msg);
}

static const rs_test_case tests[] = {
    RS_TEST(test_size_claim_bounded_by_file),
    RS_TEST(test_dir_writable_by_others_refused),
    RS_TEST(test_dir_of_another_user_refused),
    RS_TEST(test_entry_not_private_refused),
    RS_TEST(test_symlinked_entry_not_followed),
    RS_TEST(test_flipped_bytes_refused),
    RS_TEST(test_non_image_refused),
    RS_TEST(test_truncated_refused),
    RS_TEST(test_other_image_of_same_key_refused),
    RS_TEST(test_failed_load_is_a_miss),
    RS_TEST(test_fifo_entry_does_not_block),
    RS_TEST(test_eviction_spares_foreign_files),
    RS_TEST(test_include_dev_zero_refused),
    RS_TEST(test_include_fifo_refused),
    RS_TEST(test_include_too_large_refused),
    RS_TEST(test_cache_dir_off_and_relative),
};

RS_TEST_MAIN(tests)
