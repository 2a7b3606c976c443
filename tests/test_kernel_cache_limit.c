/* RESIDENT_CACHE_MAX counts the files on disk, and a write past it trims the directory.
 * The trim used to be triggered by the bytes of the images written, while the limit counts
 * whole entries, whose key holds the source and the device header: PTX images of small
 * kernels are a tenth of their entry, so a write past the limit did not trim (found on the
 * H200 with CUDA_FORCE_PTX_JIT=1). Here the entries are written directly with small images
 * and long keys, as that case makes them. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "core/textbuf.h"
#include "kernel/kernel_internal.h"

/* How many entries dir holds and their bytes. */
static int entries(const char *dir, int64_t *bytes) {
  int n = 0;
  *bytes = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".rsk") != 0) continue;
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) != 0) continue;
    n++;
    *bytes += st.st_size;
  }
  if (d) closedir(d);
  return n;
}

static rs_status long_key(rs_textbuf *key, char which) {
  RS_TRY(rs_textbuf_addf(key, "key %c pid %ld\n", which, (long)getpid()));
  for (int i = 0; i < 100; i++) RS_TRY(rs_textbuf_addf(key, "a line of a long kernel source %03d\n", i));
  return RS_OK;
}

static void test_small_images_long_keys_are_trimmed(rs_context *ctx) {
  (void)ctx;
  char dir[] = "/tmp/resident-kc-limit-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  static const unsigned char image[100] = {1};
  rs_textbuf ka = {0}, kb = {0}, kc = {0};
  CHECK_OK(long_key(&ka, 'a'));
  CHECK_OK(long_key(&kb, 'b'));
  CHECK_OK(long_key(&kc, 'c'));
  int64_t one = 0, bytes = 0;
  rs_kcache_put("cuda", &ka, dir, 0, image, sizeof image);
  int after_a = entries(dir, &one);
  size_t max = (size_t)(one * 28 / 10); /* room for 2.8 entries */
  rs_kcache_put("cuda", &kb, dir, max, image, sizeof image);
  int after_b = entries(dir, &bytes);
  rs_kcache_put("cuda", &kc, dir, max, image, sizeof image);
  int after_c = entries(dir, &bytes);
  rs_textbuf_free(&ka);
  rs_textbuf_free(&kb);
  rs_textbuf_free(&kc);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  CHECK_EQ_I64(after_a, 1);
  CHECK_MSG(one > 10 * (int64_t)sizeof image, "an entry of %lld bytes: the key should dominate", (long long)one);
  CHECK_EQ_I64(after_b, 2);
  CHECK_MSG(after_c == 2 && bytes <= (int64_t)max,
            "after the third write: %d entries, %lld bytes, limit %zu (the write past the limit did not trim)",
            after_c, (long long)bytes, max);
}

static const rs_test_case tests[] = {
    RS_TEST(test_small_images_long_keys_are_trimmed),
};

RS_TEST_MAIN(tests)
