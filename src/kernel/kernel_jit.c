/* From source to a loaded module through the cache, for user kernels and for the jit
 * service (generated source, compiled once per machine rather than once per process). */
#include <stdlib.h>
#include <string.h>
#include "kernel/kernel_internal.h"
#include "kernel/kernel_jit.h"
#include "ledger/ledger_hooks.h"

static rs_status rs_jit_key(rs_textbuf *key, rs_backend *b, const rs_kernel_table *kt, const rs_kernel_source *src,
                            const char *salt) {
  char target[256];
  RS_TRY(kt->target(b, target, sizeof target));
  RS_TRY(rs_textbuf_addf(key, "%s\ntarget %s\nname %s\n", salt, target, src->name));
  for (int i = 0; i < src->noptions; i++) RS_TRY(rs_textbuf_addf(key, "option %s\n", src->options[i]));
  return rs_textbuf_add(key, src->text, strlen(src->text));
}

/* Load a cached image; 1 when it loaded. One that does not is removed from both caches
 * (it would fail every later process too), unless memory ran out, which says nothing
 * about the image. */
static int rs_load_cached(rs_backend *b, const rs_kernel_table *kt, const rs_textbuf *key, const rs_kernel_source *src,
                          const char *cache_dir, void *image, size_t bytes, rs_kernel_origin origin, void **module,
                          rs_status *st) {
  *st = kt->load(b, image, bytes, module);
  if (*st == RS_OK) {
    rs_kcache_keep(kt->name, key, image, bytes, origin);
    return 1;
  }
  if (*st == RS_ERR_OUT_OF_MEMORY || *st == RS_ERR_HOST_OUT_OF_MEMORY) return 1;
  rs_log_line("kernel cache: the cached code of '%s' does not load (%s); removed, compiling it again", src->name,
              rs_last_error());
  rs_kcache_forget(kt->name, key, cache_dir);
  return 0;
}

rs_status rs_kcache_load(rs_backend *b, const rs_kernel_table *kt, const rs_textbuf *key, const rs_kernel_source *src,
                         const char *cache_dir, size_t cache_max, int use_cache, void **module,
                         rs_kernel_origin *origin, char **log) {
  *log = NULL;
  *module = NULL;
  void *image = NULL;
  size_t bytes = 0;
  rs_status st;
  if (use_cache && rs_kcache_get(kt->name, key, cache_dir, &image, &bytes, origin) == RS_OK) {
    int done = rs_load_cached(b, kt, key, src, cache_dir, image, bytes, *origin, module, &st);
    free(image);
    if (done) return st;
    image = NULL;
  }
  st = kt->compile(b, src, &image, &bytes, log);
  rs_kcache_count_compile();
  if (st != RS_OK) return st;
  *origin = RS_KERNEL_COMPILED;
  st = kt->load(b, image, bytes, module);
  /* cached only once it has loaded: a bad image is never kept */
  if (st == RS_OK && use_cache) {
    rs_kcache_put(kt->name, key, cache_dir, cache_max, image, bytes);
    rs_kcache_keep(kt->name, key, image, bytes, RS_KERNEL_COMPILED);
  }
  free(image);
  return st;
}

static rs_status rs_jit_module(rs_backend *b, const rs_kernel_table *kt, const rs_kernel_source *src, const char *salt,
                               const char *cache_dir, size_t cache_max, void **module, char **log) {
  *log = NULL;
  rs_textbuf key = {0};
  rs_kernel_origin origin;
  rs_status st = rs_jit_key(&key, b, kt, src, salt);
  if (st == RS_OK) st = rs_kcache_load(b, kt, &key, src, cache_dir, cache_max, 1, module, &origin, log);
  if (st == RS_OK) {
    free(*log); /* a clean compile's warnings are of no use for generated code */
    *log = NULL;
  }
  rs_textbuf_free(&key);
  return st;
}

const rs_jit_service rs_kernel_jit = {.module = rs_jit_module};
