/* Generated kernels of the array operations (elementwise programs, fused expressions,
 * axis reductions): compiled by this backend's user-kernel path (NVRTC via dlopen,
 * cudaLibraryLoadData) through the plan's jit service, the kernel layer's cache - in
 * memory and, with RESIDENT_CACHE_DIR, on disk -
 * so a kernel is compiled once per machine, not once per process. In front of that, a
 * table keyed by the op's own compact description (not its source) finds a loaded kernel
 * in well under a microsecond, so a launch costs no string building. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_kernel.h"

#define JIT_BUCKETS 1024
/* Bump when the prelude or the generators change meaning: part of the disk cache key. */
#define JIT_VERSION "resident-ops 1"

typedef struct jit_entry {
  struct jit_entry *next;
  int device;
  size_t key_len;
  unsigned char *key;
  void *fn;
} jit_entry;

static jit_entry *rs_jit_buckets[JIT_BUCKETS];
static pthread_mutex_t rs_jit_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t fnv1a(const void *p, size_t n, uint64_t h) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

static void *lookup_locked(size_t bucket, int device, const void *key, size_t key_len) {
  for (jit_entry *e = rs_jit_buckets[bucket]; e; e = e->next)
    if (e->device == device && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) return e->fn;
  return NULL;
}

/* The loaded module for source, through the plan's jit service (the kernel cache). */
static rs_status get_module(rs_backend *b, const rs_jit_service *jit, const char *source, const char *name,
                            int uses_barrier, const char *cache_dir, size_t cache_max, void **module) {
  static const char *const options[] = {"-std=c++17", "-fmad=false"};
  if (!jit) return rs_fail(RS_ERR_INTERNAL, "array operation kernel %s: the plan has no jit service", name);
  rs_kernel_source src = {source, source, name, "<resident array operation>", 2, options, 0, NULL, uses_barrier};
  char *log = NULL;
  rs_status st = jit->module(b, &rs_cuda_kernels, &src, JIT_VERSION, cache_dir, cache_max, module, &log);
  if (st == RS_ERR_COMPILE || log) {
    /* generated code that does not compile is a bug of this library: say so, with the log */
    char reason[512];
    snprintf(reason, sizeof reason, "%s", rs_last_error());
    st = rs_fail(RS_ERR_INTERNAL, "array operation kernel %s does not compile (a library bug): %s\n%.1500s", name, reason,
                 log ? log : "");
  }
  free(log);
  return st;
}

rs_status rs_cuda_ops_kernel(rs_backend *b, const void *key, size_t key_len, const char *name, int uses_barrier,
                             const rs_jit_service *jit, const char *cache_dir, size_t cache_max,
                             rs_cuda_source_fn make_source, void *arg, void **fn) {
  size_t bucket = (size_t)(fnv1a(key, key_len, 0xcbf29ce484222325ull ^ (uint64_t)b->device) % JIT_BUCKETS);
  pthread_mutex_lock(&rs_jit_lock);
  *fn = lookup_locked(bucket, b->device, key, key_len);
  pthread_mutex_unlock(&rs_jit_lock);
  if (*fn) return RS_OK;
  /* A miss compiles outside the lock: two threads may compile the same kernel once each,
   * which is harmless; the first one in the table wins. */
  const rs_kernel_table *kb = &rs_cuda_kernels;
  char *source = NULL;
  RS_TRY(make_source(&source, arg));
  void *module = NULL, *f = NULL;
  rs_status st = get_module(b, jit, source, name, uses_barrier, cache_dir, cache_max, &module);
  free(source);
  rs_kernel_attrs attrs;
  if (st == RS_OK) st = kb->get_function(b, module, name, &f, &attrs);
  if (st != RS_OK) {
    if (module) kb->unload(module);
    return st;
  }
  jit_entry *e = calloc(1, sizeof *e);
  unsigned char *k = malloc(key_len);
  if (!e || !k) {
    free(e);
    free(k);
    kb->unload(module);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "array operations: out of host memory for the kernel table");
  }
  memcpy(k, key, key_len);
  *e = (jit_entry){NULL, b->device, key_len, k, f};
  pthread_mutex_lock(&rs_jit_lock);
  void *there = lookup_locked(bucket, b->device, key, key_len);
  if (!there) {
    e->next = rs_jit_buckets[bucket];
    rs_jit_buckets[bucket] = e;
  }
  pthread_mutex_unlock(&rs_jit_lock);
  if (there) { /* another thread was first: use its kernel */
    free(k);
    free(e);
    kb->unload(module);
    f = there;
  }
  *fn = f;
  return RS_OK;
}
