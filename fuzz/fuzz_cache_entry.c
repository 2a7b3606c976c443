/* A fuzzed file at a kernel's on-disk cache entry, then rs_kernel_create: the kernel is
 * made (from the entry, or compiled again) or refused with a message, and nothing
 * crashes. The entry's path is found once, by compiling the kernel into an empty cache
 * directory; the input is either the whole file (first byte even) or edits of the real
 * entry (first byte odd: pairs of offset and byte, then a length to cut it to).
 *
 * Edits stay in the entry's first 64 bytes unless RS_FUZZ_KNOWN=1: a changed image
 * crashes inside dlopen today (issue 11 item 2, being fixed). A miss compiles again
 * (half a second), so this harness is slow by nature: its CI run only checks the corpus. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_util.h"

static rs_context *ctx;
static char dir[64] = "/tmp/rs-fuzz-cache-XXXXXX";
static char entry[1200];
static unsigned char *valid;
static size_t valid_len;
static const char *source = "__global__ void fz(float *x, int n) { if (n > 0) x[0] = 1.0f; }";

/* The first regular file under path (the cache may keep entries in a subdirectory). */
static int find_entry(const char *path) {
  DIR *d = opendir(path);
  if (!d) return 0;
  struct dirent *e;
  int found = 0;
  while (!found && (e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    struct stat st;
    if (lstat(p, &st) != 0) continue;
    if (S_ISREG(st.st_mode) && strstr(e->d_name, ".tmp") == NULL) {
      snprintf(entry, sizeof entry, "%s", p);
      found = 1;
    } else if (S_ISDIR(st.st_mode)) {
      found = find_entry(p);
    }
  }
  closedir(d);
  return found;
}

static void cleanup(void) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "fuzz_cache_entry: could not remove %s\n", dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (!mkdtemp(dir)) abort();
  atexit(cleanup);
  setenv("RESIDENT_CACHE_DIR", dir, 1);
  rs_kernel *k = NULL;
  if (rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK || rs_kernel_create(&k, ctx, source, "fz", NULL) != RS_OK) {
    fprintf(stderr, "fuzz_cache_entry: %s\n", rs_last_error());
    abort();
  }
  rs_kernel_destroy(k);
  if (!find_entry(dir)) {
    fprintf(stderr, "fuzz_cache_entry: no cache entry under %s\n", dir);
    abort();
  }
  FILE *f = fopen(entry, "rb");
  if (!f) abort();
  valid = malloc(1 << 22);
  valid_len = fread(valid, 1, 1 << 22, f);
  fclose(f);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  unsigned char *file = malloc(valid_len + size + 1);
  size_t len;
  if (!file) return 0;
  if (data[0] % 2 == 0) {
    len = size - 1;
    memcpy(file, data + 1, len);
  } else {
    memcpy(file, valid, valid_len);
    len = valid_len;
    rs_fz_reader r = {data + 1, size - 1};
    size_t span = rs_fz_known() ? valid_len : (valid_len < 64 ? valid_len : 64);
    unsigned nedits = rs_fz_below(&r, 8);
    for (unsigned i = 0; i < nedits && span; i++) {
      size_t at = rs_fz_below(&r, 65536) % span;
      file[at] = (unsigned char)rs_fz_u8(&r);
    }
    if (rs_fz_u8(&r) & 1) len = rs_fz_below(&r, 65536) % (valid_len + 1);
  }
  int fd = open(entry, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  FZ_ASSERT(fd >= 0, "cannot write %s", entry);
  FZ_ASSERT(write(fd, file, len) == (ssize_t)len, "short write");
  close(fd);
  free(file);

  rs_kernel_cache_clear(); /* from the disk, not from memory */
  rs_kernel *k = NULL;
  rs_clear_error();
  rs_status st = rs_kernel_create(&k, ctx, source, "fz", NULL);
  if (st == RS_OK) {
    rs_kernel_info info;
    FZ_ASSERT(rs_kernel_get_info(k, &info) == RS_OK, "info: %s", rs_last_error());
    FZ_ASSERT(rs_kernel_destroy(k) == RS_OK, "destroy: %s", rs_last_error());
  } else {
    FZ_FAILED_WITH_MESSAGE(st, "rs_kernel_create");
  }
  return 0;
}
