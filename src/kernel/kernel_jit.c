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

rs_status rs_kcache_compile(rs_backend *b, const rs_kernel_table *kt, const rs_textbuf *key, const rs_kernel_source *src,
                            const char *cache_dir, size_t cache_max, int use_cache, void **image, size_t *bytes,
                            rs_kernel_origin *origin, char **log) {
  *log = NULL;
  if (use_cache && rs_kcache_get(kt->name, key, cache_dir, image, bytes, origin) == RS_OK) return RS_OK;
  rs_status st = kt->compile(b, src, image, bytes, log);
  rs_kcache_count_compile();
  if (st != RS_OK) return st;
  *origin = RS_KERNEL_COMPILED;
  if (use_cache) rs_kcache_put(kt->name, key, cache_dir, cache_max, *image, *bytes);
  return RS_OK;
}

static rs_status rs_jit_image(rs_backend *b, const rs_kernel_table *kt, const rs_kernel_source *src, const char *salt,
                              const char *cache_dir, size_t cache_max, void **image, size_t *bytes, char **log) {
  *log = NULL;
  rs_textbuf key = {0};
  rs_kernel_origin origin;
  rs_status st = rs_jit_key(&key, b, kt, src, salt);
  if (st == RS_OK) st = rs_kcache_compile(b, kt, &key, src, cache_dir, cache_max, 1, image, bytes, &origin, log);
  if (st == RS_OK) {
    free(*log); /* a clean compile's warnings are of no use for generated code */
    *log = NULL;
  }
  rs_textbuf_free(&key);
  return st;
}

const rs_jit_service rs_kernel_jit = {.image = rs_jit_image};
