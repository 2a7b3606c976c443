/* Creating a user kernel: parse its parameters, find its code in the cache or compile it,
 * load it and check the compiled parameter list against the parsed one. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"
#include "resident/version.h"
#include "ledger/ledger_hooks.h"
#include "resident_device.h"

/* Kernels live in a process-wide slab, like arrays in a context's: a destroyed handle
 * keeps a dead magic, so using it is RS_ERR_DESTROYED rather than a use after free. */
static rs_slab rs_kernels;
static pthread_once_t rs_kernels_once = PTHREAD_ONCE_INIT;
static void rs_kernels_init(void) { rs_slab_init(&rs_kernels, sizeof(rs_kernel)); }

rs_status rs_kernel_check(const rs_kernel *k, const char *who) {
  return rs_handle_check(k, RS_MAGIC_KERNEL, who);
}

static rs_status rs_check_strings(int n, const char *const *list, const char *what, const char *who) {
  if (n < 0) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d %s", who, n, what);
  if (n > 0 && !list) return rs_fail(RS_ERR_NULL_POINTER, "%s: %d %s but the list is NULL", who, n, what);
  for (int i = 0; i < n; i++)
    if (!list[i]) return rs_fail(RS_ERR_NULL_POINTER, "%s: %s %d is NULL", who, what, i);
  return RS_OK;
}

/* The cache key: everything the compiled code depends on. */
static rs_status rs_build_key(rs_textbuf *key, const rs_kernel_table *kb, const char *target,
                              const rs_kernel_source *src, int *barrier) {
  RS_TRY(rs_textbuf_addf(key, "resident %s\nbackend %s\ntarget %s\nname %s\n", rs_version(), kb->name, target,
                      src->name));
  for (int i = 0; i < src->noptions; i++) RS_TRY(rs_textbuf_addf(key, "option %s\n", src->options[i]));
  for (int i = 0; i < src->ninclude_paths; i++) RS_TRY(rs_textbuf_addf(key, "include %s\n", src->include_paths[i]));
  /* The device header too: it is the library's, but a development build may change it
   * without a new version number. */
  RS_TRY(rs_textbuf_addf(key, "device-header %zu\n", strlen(rs_kernel_device_header())));
  RS_TRY(rs_textbuf_add(key, rs_kernel_device_header(), strlen(rs_kernel_device_header())));
  RS_TRY(rs_textbuf_addf(key, "\nsource %zu\n", strlen(src->text)));
  RS_TRY(rs_textbuf_add(key, src->text, strlen(src->text)));
  return rs_ksrc_add_headers(key, src->text, src->ninclude_paths, src->include_paths, barrier);
}

/* The loaded module for src: its image from the cache, else compiled (and then cached). */
static rs_status rs_get_module(rs_context *ctx, const rs_kernel_table *kb, const rs_kernel_source *src,
                               unsigned flags, const char *prefix, int *barrier, void **module,
                               rs_kernel_origin *origin) {
  char target[256];
  RS_TRY(kb->target(ctx->be, target, sizeof target));
  rs_textbuf key = {0};
  rs_status st = rs_build_key(&key, kb, target, src, barrier);
  if (st != RS_OK) {
    rs_textbuf_free(&key);
    return rs_fail_prefix(st, "%s: ", prefix);
  }
  rs_kernel_source with_barrier = *src;
  with_barrier.uses_barrier = *barrier;
  char *log = NULL;
  st = rs_kcache_load(ctx->be, kb, &key, &with_barrier, ctx->cfg.cache_dir, ctx->cfg.cache_max,
                      !(flags & RS_KERNEL_NO_CACHE), module, origin, &log);
  if (st != RS_OK) {
    char reason[512];
    snprintf(reason, sizeof reason, "%s", rs_last_error());
    rs_klog_fail(st, prefix, reason, log);
  }
  rs_klog_set(log);
  rs_textbuf_free(&key);
  return st;
}

/* The parsed list must be the compiled one: a macro in the list, or a parameter type the
 * parser misread, would otherwise pass arguments at the wrong offsets. */
static rs_status rs_match_compiled(rs_kernel *k, const char *prefix) {
  const rs_kernel_attrs *a = &k->attrs;
  if (a->nparams < 0) return RS_OK;
  if (a->nparams != k->nparams)
    return rs_fail(RS_ERR_COMPILE,
                   "%s: the source reads as %d parameter%s but the compiled kernel has %d (write the "
                   "parameter list out, without macros)",
                   prefix, k->nparams, k->nparams == 1 ? "" : "s", a->nparams);
  for (int i = 0; i < k->nparams; i++) {
    rs_kparam *p = &k->params[i];
    p->size = a->param_sizes[i];
    size_t want = p->kind == RS_PARAM_POINTER      ? sizeof(void *)
                  : p->kind == RS_PARAM_DESCRIPTOR ? sizeof(rs_array_desc)
                                                   : p->size;
    if (p->size != want)
      return rs_fail(RS_ERR_COMPILE,
                     "%s: parameter %d '%s' (%s) reads as a %s but is %zu bytes in the compiled kernel",
                     prefix, i, p->name, p->type, p->kind == RS_PARAM_POINTER ? "pointer" : "descriptor",
                     p->size);
  }
  return RS_OK;
}

static rs_status rs_kernel_build(rs_kernel **out, rs_context *ctx, const char *text, const char *name,
                                 const char *file, const char *file_dir, const rs_kernel_options *opts) {
  double t0 = rs_now_ms();
  char prefix[200];
  snprintf(prefix, sizeof prefix, "kernel '%s' (%s)", name, file);
  const rs_backend_desc *desc = rs_backend_get(ctx->kind);
  const rs_kernel_table *kb = desc ? desc->kernels : NULL;
  if (!kb) return rs_fail(RS_ERR_UNSUPPORTED, "%s: this build has no user kernels for the %s backend", prefix,
                          rs_backend_name(ctx->kind));
  rs_kernel_options none = {0};
  if (!opts) opts = &none;
  RS_TRY(rs_check_strings(opts->noptions, opts->options, "options", prefix));
  RS_TRY(rs_check_strings(opts->ninclude_paths, opts->include_paths, "include paths", prefix));
  if (opts->flags & ~RS_KERNEL_NO_CACHE)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: unknown flag bits 0x%x (known: RS_KERNEL_NO_CACHE)",
                   prefix, opts->flags & ~RS_KERNEL_NO_CACHE);

  /* The file's own directory is searched first, as nvcc does. */
  int ninc = opts->ninclude_paths + (file_dir ? 1 : 0);
  const char **inc = calloc((size_t)ninc + 1, sizeof *inc);
  char *blanked = rs_ksrc_blank(text);
  char *own = strdup(text); /* the source as compiled (rs_ksrc_unstatic) */
  rs_kernel *k = NULL;
  rs_status st = RS_OK;
  if (!inc || !blanked || !own) {
    st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", prefix);
    goto done;
  }
  rs_ksrc_unstatic(own, blanked);
  text = own;
  if (file_dir) inc[0] = file_dir;
  for (int i = 0; i < opts->ninclude_paths; i++) inc[i + (file_dir ? 1 : 0)] = opts->include_paths[i];

  pthread_once(&rs_kernels_once, rs_kernels_init);
  k = rs_slab_alloc(&rs_kernels, RS_MAGIC_KERNEL);
  if (!k) {
    st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", prefix);
    goto done;
  }
  k->ctx = ctx;
  k->kb = kb;
  snprintf(k->name, sizeof k->name, "%s", name);
  st = rs_kparse_params(blanked, name, k->params, &k->nparams);
  if (st != RS_OK) {
    rs_fail_prefix(st, "%s: ", prefix);
    goto done;
  }
  int barrier = rs_ksrc_uses_barrier(blanked);
  rs_kernel_source src = {text, blanked, name, file, opts->noptions, opts->options, ninc, inc, 0};
  st = rs_get_module(ctx, kb, &src, opts->flags, prefix, &barrier, &k->module, &k->origin);
  if (st != RS_OK) goto done;
  k->uses_barrier = barrier;
  st = kb->get_function(ctx->be, k->module, name, &k->fn, &k->attrs);
  if (st != RS_OK) {
    rs_fail_prefix(st, "%s: ", prefix);
    goto done;
  }
  st = rs_match_compiled(k, prefix);
  if (st != RS_OK) goto done;
  for (int i = 0; i < k->nparams; i++) {
    k->kinds[i] = k->params[i].kind == RS_PARAM_POINTER      ? RS_KARG_POINTER
                  : k->params[i].kind == RS_PARAM_DESCRIPTOR ? RS_KARG_DESCRIPTOR
                                                             : RS_KARG_SCALAR;
    rs_kparam_default(&k->params[i]); /* kernel_defaults.c */
  }
  k->create_ms = rs_now_ms() - t0;
  *out = k;
  k = NULL;
done:
  if (k) {
    if (k->module) kb->unload(k->module);
    rs_slab_free(&rs_kernels, k);
  }
  free(blanked);
  free(own);
  free(inc);
  return st;
}

static rs_status rs_check_create(rs_kernel **out, rs_context *ctx, const char *what, const char *name,
                                 const char *who) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  *out = NULL;
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (!what) return rs_fail(RS_ERR_NULL_POINTER, "%s: the source is NULL", who);
  if (!name || !name[0]) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the kernel name is empty", who);
  if (strlen(name) >= sizeof(((rs_kernel *)0)->name))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: the kernel name is longer than %zu bytes", who,
                   sizeof(((rs_kernel *)0)->name) - 1);
  return RS_OK;
}

rs_status rs_kernel_create(rs_kernel **out, rs_context *ctx, const char *source, const char *name,
                           const rs_kernel_options *opts) {
  RS_TRY(rs_check_create(out, ctx, source, name, "rs_kernel_create"));
  return rs_kernel_build(out, ctx, source, name, "<string>", NULL, opts);
}

rs_status rs_kernel_create_from_file(rs_kernel **out, rs_context *ctx, const char *path, const char *name,
                                     const rs_kernel_options *opts) {
  RS_TRY(rs_check_create(out, ctx, path, name, "rs_kernel_create_from_file"));
  char *text = NULL;
  rs_status st = rs_ksrc_read_file(path, &text, NULL);
  if (st != RS_OK) return rs_fail_prefix(st, "rs_kernel_create_from_file: ");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) dir[1] = '\0';
  else if (slash) *slash = '\0';
  else snprintf(dir, sizeof dir, ".");
  st = rs_kernel_build(out, ctx, text, name, path, dir, opts);
  free(text);
  return st;
}

rs_status rs_kernel_destroy(rs_kernel *k) {
  if (!k) return RS_OK;
  RS_TRY(rs_handle_claim(k, RS_MAGIC_KERNEL, "rs_kernel_destroy"));
  k->kb->unload(k->module);
  rs_slab_free(&rs_kernels, k);
  return RS_OK;
}

rs_status rs_kernel_get_info(const rs_kernel *k, rs_kernel_info *out) {
  RS_TRY(rs_kernel_check(k, "rs_kernel_get_info"));
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_kernel_get_info: out is NULL");
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", k->name);
  out->nparams = k->nparams;
  out->max_threads_per_block = k->attrs.max_threads_per_block;
  out->static_shared_bytes = k->attrs.static_shared_bytes;
  out->max_dynamic_shared_bytes = k->attrs.dynamic_shared_optin;
  out->registers = k->attrs.registers;
  out->uses_barrier = k->uses_barrier;
  out->origin = k->origin;
  out->create_ms = k->create_ms;
  out->launches = atomic_load(&((rs_kernel *)k)->launches);
  out->idle_launches = atomic_load(&((rs_kernel *)k)->idle_launches);
  return RS_OK;
}

rs_status rs_kernel_get_param(const rs_kernel *k, int index, rs_kernel_param *out) {
  RS_TRY(rs_kernel_check(k, "rs_kernel_get_param"));
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_kernel_get_param: out is NULL");
  if (index < 0 || index >= k->nparams) {
    if (k->nparams == 0)
      return rs_fail(RS_ERR_INDEX, "rs_kernel_get_param: kernel '%s' has no parameters; index %d is out of range",
                     k->name, index);
    return rs_fail(RS_ERR_INDEX,
                   "rs_kernel_get_param: index %d is out of range: kernel '%s' has %d parameter%s (0 to %d)", index,
                   k->name, k->nparams, k->nparams == 1 ? "" : "s", k->nparams - 1);
  }
  const rs_kparam *p = &k->params[index];
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", p->name);
  snprintf(out->type, sizeof out->type, "%s", p->type);
  out->kind = p->kind;
  out->read_only = p->read_only;
  out->size = p->size;
  return RS_OK;
}

/* The compiler's log: the whole text kept per thread for rs_kernel_last_log, and its
 * start quoted in the status message of a failed compile. */
/* How much of the log a message quotes: rs_last_error holds 1 KiB, and the first errors
 * are the ones that matter. The note on where the rest is comes first, so it survives. */
#define RS_LOG_EXCERPT 640

/* A key rather than _Thread_local: the destructor frees the text when a thread exits. */
static pthread_key_t rs_log_key;
static pthread_once_t rs_log_once = PTHREAD_ONCE_INIT;

static void rs_log_key_init(void) { (void)pthread_key_create(&rs_log_key, free); }

void rs_klog_set(char *log) {
  pthread_once(&rs_log_once, rs_log_key_init);
  free(pthread_getspecific(rs_log_key));
  if (pthread_setspecific(rs_log_key, log) != 0) free(log);
}

const char *rs_kernel_last_log(void) {
  pthread_once(&rs_log_once, rs_log_key_init);
  const char *log = pthread_getspecific(rs_log_key);
  return log ? log : "";
}

rs_status rs_klog_fail(rs_status status, const char *prefix, const char *reason, const char *log) {
  size_t len = log ? strlen(log) : 0;
  while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' ')) len--;
  if (len == 0) return rs_fail(status, "%s: %s", prefix, reason);
  if (len <= RS_LOG_EXCERPT) return rs_fail(status, "%s: %s\n%.*s", prefix, reason, (int)len, log);
  return rs_fail(status, "%s: %s (log of %zu bytes, first %d below; all of it: rs_kernel_last_log())\n%.*s ...",
                 prefix, reason, len, RS_LOG_EXCERPT, RS_LOG_EXCERPT, log);
}
