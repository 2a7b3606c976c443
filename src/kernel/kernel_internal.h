/* Internal to src/kernel: the rs_kernel object and the pieces the kernel files share
 * (source scanning, the parameter parser, the cache, the compile log). */
#ifndef RS_KERNEL_INTERNAL_H
#define RS_KERNEL_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "core/error.h"
#include "core/handles.h"
#include "core/textbuf.h"
#include "core/objects.h"
#include "backend/kernel_table.h"
#include "resident/kernel.h"

/* Scalar families, to match a dtype against a declared C type. */
typedef enum rs_scalar_family {
  RS_FAMILY_UNKNOWN = 0, /* a type the parser does not know (a struct, a typedef, T) */
  RS_FAMILY_BOOL,
  RS_FAMILY_INT,
  RS_FAMILY_UINT,
  RS_FAMILY_FLOAT,
  RS_FAMILY_COMPLEX
} rs_scalar_family;

/* One parameter as parsed from the source. */
typedef struct rs_kparam {
  char name[64];
  char type[128];
  rs_param_kind kind;
  int read_only;
  rs_scalar_family family; /* scalars, and what a one-level pointer points at */
  size_t declared_size;    /* the size of that type when known, else 0 */
  size_t size;             /* from the compiled code */
  /* CUDA vector types (float2, int4, ...): lanes > 1, each of lane_family and lane_size */
  int lanes;
  rs_scalar_family lane_family;
  size_t lane_size;
  /* a default argument in the source (`float scale = 1.0f`): its text, and the value a
   * launch that omits the parameter passes when the text is a literal (kernel_defaults.c) */
  char defval[64];
  int has_default;
  rs_arg default_arg;
} rs_kparam;

/* Fill p->default_arg from p->defval once p's type is known; has_default stays 0 when the
 * default is not a literal of a scalar or pointer parameter. */
void rs_kparam_default(rs_kparam *p);
/* Launch arguments with omitted trailing parameters filled from their defaults, in full
 * (room for RS_KERNEL_MAX_PARAMS): the count filled, or nargs when some omitted
 * parameter has no usable default (the caller then reports the count). */
int rs_kargs_defaults(const rs_kernel *k, int nargs, const rs_arg *args, rs_arg *full);

struct rs_kernel {
  rs_handle_header header;
  rs_context *ctx;
  const rs_kernel_table *kb;
  void *module;
  void *fn;
  char name[128];
  int nparams;
  rs_kparam params[RS_KERNEL_MAX_PARAMS];
  unsigned char kinds[RS_KERNEL_MAX_PARAMS]; /* RS_KARG_* per parameter, for the backend */
  rs_kernel_attrs attrs;
  rs_kernel_origin origin;
  int uses_barrier;
  double create_ms;
  /* The block size occupancy chose, for the last shared_bytes asked: packed as
   * (shared_bytes << 32) | (best << 16) | smallest-best, so one atomic load serves a launch. */
  _Atomic uint64_t occupancy_cache;
  _Atomic size_t shared_granted; /* dynamic shared memory the backend was told to allow */
  _Atomic int64_t launches;
  _Atomic int64_t idle_launches;
  _Atomic int idle_logged;
};

/* ---- source text (kernel_source.c) ----------------------------------------------------- */

/* A copy of text with comments, string and character literals and preprocessor lines
 * blanked to spaces (lengths and line breaks kept), for the parser and scanners.
 * NULL when out of memory. */
char *rs_ksrc_blank(const char *text);

/* 1 if the identifier `word` occurs as a whole token in blanked text. */
int rs_ksrc_has_token(const char *blanked, const char *word);

/* In place, on a source and its blanked copy: the word `static` before __constant__,
 * __device__, __managed__ or __shared__ becomes spaces (columns kept). A static variable
 * is not visible by name in the loaded module (the simulator's dlsym, the driver's global
 * lookup), yet rs_kernel_set_constant must find it; within the one translation unit of a
 * kernel module the linkage changes nothing else. `static __shared__` is legal CUDA that
 * the simulator's __shared__ (itself static) would double. */
void rs_ksrc_unstatic(char *text, char *blanked);

/* 1 if blanked text names a block barrier, a warp collective or cooperative groups: its
 * threads must be able to wait for each other (the simulator then runs them as fibers). */
int rs_ksrc_uses_barrier(const char *blanked);

/* The user headers a source includes, found in the include paths (recursively; system
 * headers and resident_device.h are not looked for). Each is appended to *key as
 * "\n#header <path>\n<contents>", and *barrier is set if one calls __syncthreads or the like (rs_ksrc_uses_barrier).
 * A header that is not a regular file, is over the size limit or cannot be read is
 * refused (RS_ERR_INVALID_ARGUMENT naming it) before any compiler reads it; one that is
 * gone by then is left to the compiler to report. */
rs_status rs_ksrc_add_headers(rs_textbuf *key, const char *text, int ninclude, const char *const *include,
                              int *barrier);

/* Read a whole file (NUL-terminated, malloc'ed): a regular file of at most 16 MiB.
 * RS_ERR_NOT_FOUND / RS_ERR_INVALID_ARGUMENT with the reason otherwise. */
rs_status rs_ksrc_read_file(const char *path, char **out, size_t *len);

/* ---- parameters (kernel_parse.c) ------------------------------------------------------- */

/* Find the __global__ function `name` (template arguments ignored) in blanked text and
 * parse its parameters. RS_ERR_NOT_FOUND naming the function (and the __global__
 * functions the source does have), RS_ERR_COMPILE if the list cannot be read. */
rs_status rs_kparse_params(const char *blanked, const char *name, rs_kparam *params, int *nparams);

/* ---- the cache (kernel_cache.c) -------------------------------------------------------- */

/* The image compiled for key, from memory or else the disk directory dir (may be ""): a
 * malloc'ed copy in *image, and where it came from. RS_ERR_NOT_FOUND on a miss. Nothing
 * is counted or remembered until the image has loaded: then rs_kcache_keep. */
rs_status rs_kcache_get(const char *backend, const rs_textbuf *key, const char *dir, void **image,
                        size_t *bytes, rs_kernel_origin *origin);

/* An image from origin has loaded: count the hit, and remember the image in the memory
 * cache unless it came from there (a copy; best effort). */
void rs_kcache_keep(const char *backend, const rs_textbuf *key, const void *image, size_t bytes,
                    rs_kernel_origin origin);

/* Write a freshly compiled image to the disk directory (best effort), keeping it under
 * max_bytes (0 = no limit; RESIDENT_CACHE_MAX). */
void rs_kcache_put(const char *backend, const rs_textbuf *key, const char *dir, size_t max_bytes, const void *image,
                   size_t bytes);

/* Drop key's image from memory and from the disk directory: it did not load. */
void rs_kcache_forget(const char *backend, const rs_textbuf *key, const char *dir);

/* Count a compile (for rs_kernel_cache_get_stats). */
void rs_kcache_count_compile(void);

/* The module for src under key (kernel_jit.c): its image from the cache when use_cache,
 * else compiled by kt (counted, and cached when use_cache), then loaded. A cached image
 * that does not load is a miss: forgotten, compiled again and replaced. *origin says
 * where the loaded image came from. *log is the compiler's output (malloc'ed, may be
 * NULL; the caller frees it), also on success. */
rs_status rs_kcache_load(rs_backend *b, const rs_kernel_table *kt, const rs_textbuf *key, const rs_kernel_source *src,
                         const char *cache_dir, size_t cache_max, int use_cache, void **module,
                         rs_kernel_origin *origin, char **log);

/* ---- the disk directory (kernel_cache_disk.c; what it trusts is said there) ------------ */

/* 64-bit hash of bytes (not cryptographic). */
uint64_t rs_kcache_hash(const void *data, size_t len, uint64_t seed);

/* A descriptor of dir (made first, mode 0700, when create) when it is a directory of this
 * user's that nobody else can write, else -1; a refused one is logged once per process. */
int rs_kdisk_open_dir(const char *dir, int create);

/* The entry name of a full key: "<backend>-<32 hex digits>.rsk". */
void rs_kdisk_name(char *out, size_t len, const char *backend, const char *key, size_t key_len);

/* 1 when name is an entry's or a writer's temporary's (*is_tmp), as this cache names them. */
int rs_kdisk_entry_name(const char *name, int *is_tmp);

/* An entry's bytes for key and image (malloc'ed, *len bytes), or NULL. */
void *rs_kdisk_encode(const char *key, size_t key_len, const void *image, size_t bytes, size_t *len);

/* 1 and the image (malloc'ed) when the entry name in dfd is trusted, whole and holds key;
 * 0 otherwise. A refused entry is logged (dir names it); a damaged one is also removed. */
int rs_kdisk_read(int dfd, const char *dir, const char *name, const char *key, size_t key_len, void **image,
                  size_t *bytes);

/* Write the entry through a private temporary and a rename; 1 when it is in place. */
int rs_kdisk_write(int dfd, const char *name, const char *key, size_t key_len, const void *image, size_t bytes);

/* 1 when name is a regular file of this user's that starts as an entry does (or is empty,
 * when allow_empty: a temporary whose writer died before writing). */
int rs_kdisk_written_here(int dfd, const char *name, int allow_empty);

/* The size on disk of an entry with this key and image (what RESIDENT_CACHE_MAX counts). */
uint64_t rs_kdisk_entry_bytes(size_t key_len, size_t image_bytes);

/* Remove the entry name if the cache wrote it. */
void rs_kdisk_remove(int dfd, const char *name);

/* Delete the least recently used entries of the directory dfd, never keep, when its
 * entries hold more than max_bytes (kernel_cache_evict.c). Best effort, silent. */
void rs_kcache_evict(int dfd, const char *keep, size_t max_bytes);
int64_t rs_kcache_evictions(void);

/* ---- the compile log (kernel_log.c) ---------------------------------------------------- */

/* Make log (malloc'ed, may be NULL; ownership taken) this thread's rs_kernel_last_log. */
void rs_klog_set(char *log);

/* Set the RS_ERR_COMPILE-style message: "<prefix>: <reason>" followed by the start of the
 * log, with a note where it was cut. Returns status. */
rs_status rs_klog_fail(rs_status status, const char *prefix, const char *reason, const char *log);

/* ---- launch configuration (kernel_config.c) --------------------------------------------- */

/* Fill d from cfg: computed grid/block where zero, every limit checked (RS_ERR_LAUNCH). */
rs_status rs_kconfig_resolve(rs_kernel *k, const rs_launch_config *cfg, rs_kernel_dims *d);

/* Let k use bytes of dynamic shared memory where that needs the backend's opt-in. */
rs_status rs_kconfig_grant_shared(rs_kernel *k, size_t bytes);

/* Log, once per kernel, a launch whose threads leave most of the device idle over
 * `elements` elements. */
void rs_kconfig_check_idle(rs_kernel *k, const rs_kernel_dims *d, int64_t elements);

/* Validate a kernel handle. */
rs_status rs_kernel_check(const rs_kernel *k, const char *who);

#endif
