/* The jit service: generated source to an image through the same cache (memory and disk)
 * as user kernels, so a generated kernel is compiled once per machine, not once per
 * process. */
#include <stdlib.h>
#include <string.h>
#include "kernel/kernel_internal.h"
#include "kernel/kernel_jit.h"

static rs_status rs_jit_key(rs_textbuf *key, rs_backend *b, const rs_kernel_table *kt, const rs_kernel_source *src,
                            const char *salt) {
  char target[256];
  RS_TRY(kt->target(b, target, sizeof target));
  RS_TRY(rs_textbuf_addf(key, "%s\ntarget %s\nname %s\n", salt, target, src->name));
  for (int i = 0; i < src->noptions; i++) RS_TRY(rs_textbuf_addf(key, "option %s\n", src->options[i]));
  return rs_textbuf_add(key, src->text, strlen(src->text));
}

static rs_status rs_jit_image(rs_backend *b, const rs_kernel_table *kt, const rs_kernel_source *src, const char *salt,
                              const char *cache_dir, size_t cache_max, void **image, size_t *bytes, char **log) {
  *log = NULL;
  rs_textbuf key = {0};
  rs_status st = rs_jit_key(&key, b, kt, src, salt);
  rs_kernel_origin origin;
  if (st == RS_OK && rs_kcache_get(kt->name, &key, cache_dir, image, bytes, &origin) == RS_OK) {
    rs_textbuf_free(&key);
    return RS_OK;
  }
  if (st == RS_OK) {
    st = kt->compile(b, src, image, bytes, log);
    rs_kcache_count_compile();
    if (st == RS_OK) {
      rs_kcache_put(kt->name, &key, cache_dir, cache_max, *image, *bytes);
      free(*log);
      *log = NULL;
    }
  }
  rs_textbuf_free(&key);
  return st;
}

const rs_jit_service rs_kernel_jit = {.image = rs_jit_image};
