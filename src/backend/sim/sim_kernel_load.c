/* Loading a simulator kernel: the image (a shared object) goes into an anonymous memory
 * file and is dlopen'ed from there - no file on disk to clean up, and every load is a new
 * inode, so two kernels never share globals (their __constant__ and __device__ variables
 * are their own, as two CUDA modules' are). */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "backend/sim/sim_kernel.h"
#include "core/error.h"

static int rs_write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n <= 0) return 0;
    p += n;
    len -= (size_t)n;
  }
  return 1;
}

typedef unsigned (*rs_bind_fn)(const rs_sim_runtime *);

/* dlopen path and bind the object. dlopen knows objects by path first: a path that named
 * an object still resident (one whose dlclose did not unload it) would hand that back, and
 * its rs_sim_bind says so. */
static void *rs_open_bound(const char *path, char *why, size_t why_len) {
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    snprintf(why, why_len, "%s", dlerror());
    return NULL;
  }
  rs_bind_fn bind = (rs_bind_fn)dlsym(dl, "rs_sim_bind");
  unsigned abi = bind ? bind(&rs_sim_runtime_table) : RS_SIM_ABI + 1;
  if (abi == RS_SIM_ABI) return dl;
  snprintf(why, why_len, abi == 0 ? "the loader returned an earlier copy of the object"
                                  : "the object was not built by this library's simulator");
  dlclose(dl);
  return NULL;
}

/* Load the image from a memory file, kept open while the object is loaded so that its
 * /proc path names no other live object; failing that, from a file in a private (0700)
 * temporary directory. Either way what is loaded is exactly the bytes given, which the
 * kernel cache verified: the memory file is sealed against writes before dlopen, and
 * nobody else can reach into the directory. */
static void *rs_dlopen_image(const void *image, size_t bytes, int *fd_out, char *why, size_t why_len) {
  *fd_out = -1;
  int fd = memfd_create("resident-sim-kernel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd >= 0) {
    if (rs_write_all(fd, image, bytes) &&
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0) {
      char path[64];
      snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
      void *dl = rs_open_bound(path, why, why_len);
      if (dl) {
        *fd_out = fd;
        return dl;
      }
    }
    close(fd); /* and on to a file: the /proc path may name an object still resident */
  }
  char dir[] = "/tmp/resident-sim-load-XXXXXX";
  if (!mkdtemp(dir)) return NULL;
  char path[sizeof dir + 16];
  snprintf(path, sizeof path, "%s/kernel.so", dir);
  fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int written = fd >= 0 && rs_write_all(fd, image, bytes);
  if (fd >= 0) written = close(fd) == 0 && written;
  void *dl = written ? rs_open_bound(path, why, why_len) : NULL;
  unlink(path);
  rmdir(dir);
  return dl;
}

/* Static __shared__ memory: the shim makes it thread-local storage of the object, so it is
 * the object's TLS segment less the entry stub's own thread-locals (the current-thread
 * slot and one reference per extern __shared__ declaration, rs_sim_tls_own). */
typedef struct rs_tls_find {
  ElfW(Addr) base;
  size_t size;
} rs_tls_find;

static int rs_tls_segment(struct dl_phdr_info *info, size_t n, void *arg) {
  (void)n;
  rs_tls_find *f = arg;
  if (info->dlpi_addr != f->base) return 0;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_TLS) f->size = (size_t)info->dlpi_phdr[i].p_memsz;
  return 1;
}

static size_t rs_static_shared(void *dl, size_t *tls_size) {
  struct link_map *map = NULL;
  *tls_size = 0;
  if (dlinfo(dl, RTLD_DI_LINKMAP, &map) != 0 || !map) return 0;
  rs_tls_find f = {map->l_addr, 0};
  dl_iterate_phdr(rs_tls_segment, &f);
  size_t (*own)(void) = (size_t (*)(void))dlsym(dl, "rs_sim_tls_own");
  size_t o = own ? own() : 0;
  *tls_size = f.size;
  return f.size > o ? f.size - o : 0;
}

rs_status sim_kernel_load(rs_backend *b, const void *image, size_t bytes, void **module) {
  (void)b;
  char why[512] = "cannot write the object";
  int fd = -1;
  void *dl = rs_dlopen_image(image, bytes, &fd, why, sizeof why);
  if (!dl) return rs_fail(RS_ERR_DEVICE, "sim kernel load: %s", why);
  sim_kmodule *m = calloc(1, sizeof *m);
  if (!m) {
    dlclose(dl);
    if (fd >= 0) close(fd);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim kernel load: out of host memory");
  }
  m->dl = dl;
  m->fd = fd;
  m->entry = (void (*)(void **))dlsym(dl, "rs_sim_entry");
  m->current_slot = (rs_sim_thread * *(*)(void)) dlsym(dl, "rs_sim_current_slot");
  int (*count)(void) = (int (*)(void))dlsym(dl, "rs_sim_param_count");
  const size_t *(*sizes)(void) = (const size_t *(*)(void))dlsym(dl, "rs_sim_param_sizes");
  const char *(*name)(void) = (const char *(*)(void))dlsym(dl, "rs_sim_kernel_name");
  int (*barrier)(void) = (int (*)(void))dlsym(dl, "rs_sim_uses_barrier");
  int n = count ? count() : -1;
  if (!m->entry || !m->current_slot || !sizes || !name || !barrier || n < 0 || n > RS_KERNEL_MAX_PARAMS) {
    dlclose(dl);
    if (fd >= 0) close(fd);
    free(m);
    return rs_fail(RS_ERR_DEVICE, "sim kernel load: the object lacks the simulator's entry points");
  }
  m->nparams = n;
  memcpy(m->param_sizes, sizes(), (size_t)n * sizeof(size_t));
  snprintf(m->name, sizeof m->name, "%s", name());
  m->uses_barrier = barrier();
  m->static_shared = rs_static_shared(dl, &m->tls_size);
  sim_check_tls_skips(m, image, bytes);
  atomic_init(&m->refs, 1);
  pthread_mutex_init(&m->fault_lock, NULL);
  *module = m;
  return RS_OK;
}

rs_status sim_kernel_get_function(rs_backend *b, void *module, const char *name, void **fn, rs_kernel_attrs *a) {
  sim_kmodule *m = module;
  if (strcmp(m->name, name) != 0)
    return rs_fail(RS_ERR_NOT_FOUND, "sim: the object holds kernel '%s', not '%s'", m->name, name);
  memset(a, 0, sizeof *a);
  a->max_threads_per_block = 1024;
  a->max_block[0] = a->max_block[1] = 1024;
  a->max_block[2] = 64;
  a->max_grid[0] = 2147483647u;
  a->max_grid[1] = a->max_grid[2] = 65535;
  /* CUDA's rule without an opt-in: static and dynamic shared memory share 48 KiB. */
  if (m->static_shared > RS_SIM_SHARED_BYTES)
    return rs_fail(RS_ERR_COMPILE,
                   "kernel '%s' declares %zu bytes of static __shared__ memory; a block has at most %zu (48 KiB), "
                   "as on CUDA",
                   m->name, m->static_shared, RS_SIM_SHARED_BYTES);
  a->static_shared_bytes = m->static_shared;
  a->dynamic_shared_limit = RS_SIM_SHARED_BYTES - m->static_shared;
  a->dynamic_shared_optin = RS_SIM_SHARED_BYTES - m->static_shared;
  a->nparams = m->nparams;
  memcpy(a->param_sizes, m->param_sizes, sizeof a->param_sizes);
  a->multiprocessors = rs_sim_thread_count(b);
  a->max_threads_per_multiprocessor = 1024;
  *fn = m->entry;
  return RS_OK;
}

rs_status sim_kernel_get_symbol(rs_backend *b, void *module, const char *symbol, void **ptr, size_t *bytes) {
  (void)b;
  sim_kmodule *m = module;
  void *p = dlsym(m->dl, symbol);
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (!p || !dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || sym->st_size == 0 ||
      (sym->st_info & 0xf) != STT_OBJECT) /* ELF's ST_TYPE, the same for 32 and 64 bits */
    return rs_fail(RS_ERR_NOT_FOUND, "kernel '%s' has no __constant__ or __device__ variable '%s'", m->name, symbol);
  *ptr = p;
  *bytes = (size_t)sym->st_size;
  return RS_OK;
}
