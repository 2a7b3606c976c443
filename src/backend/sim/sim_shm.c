/* Shareable backing for the simulator's large device allocations: a memfd mapped shared
 * (see sim_ipc.c for why and how another process maps it). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backend/sim/sim_asan.h"
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* What a simulator handle holds (inside the backend's RS_BE_IPC_BYTES). */
typedef struct sim_ipc_wire {
  int32_t pid, fd;
  uint64_t ino, dev;
} sim_ipc_wire;
_Static_assert(sizeof(sim_ipc_wire) <= RS_BE_IPC_BYTES, "the simulator's handle fits");

size_t sim_shm_len(size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  size_t unit = page > 0 ? (size_t)page : 4096;
  return (bytes + unit - 1) / unit * unit;
}

void *sim_shm_map(size_t bytes, int *fd) {
  *fd = -1;
  int f = memfd_create("resident-sim-device", MFD_CLOEXEC);
  if (f < 0) return NULL;
  if (ftruncate(f, (off_t)sim_shm_len(bytes)) != 0) {
    close(f);
    return NULL;
  }
  /* Inaccessible guards on both sides (address space only): an unchecked kernel running
   * off the end faults rather than writing into a neighbour, and the memory checks know
   * any access there is out of bounds (SIM_SHM_GUARD). */
  size_t len = sim_shm_len(bytes);
  char *g = mmap(NULL, len + 2 * SIM_SHM_GUARD, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *p = g == MAP_FAILED ? MAP_FAILED : mmap(g + SIM_SHM_GUARD, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f, 0);
  if (p == MAP_FAILED) {
    if (g != MAP_FAILED) munmap(g, len + 2 * SIM_SHM_GUARD);
    close(f);
    return NULL;
  }
  sim_asan_unpoison(p, sim_shm_len(bytes));
  *fd = f;
  return p;
}

void sim_shm_unmap(void *p, size_t bytes, int fd) {
  if (fd >= 0) { /* one of sim_shm_map's, with its guards */
    munmap((char *)p - SIM_SHM_GUARD, sim_shm_len(bytes) + 2 * SIM_SHM_GUARD);
    close(fd);
  } else {
    munmap(p, sim_shm_len(bytes));
  }
}


rs_status sim_shm_handle(int fd, unsigned char *handle, const char *who) {
  struct stat st;
  if (fstat(fd, &st) != 0) {
    char e[128];
    return rs_fail(RS_ERR_INTERNAL, "%s: fstat of the memfd: %s", who, sim_errno_text(errno, e, sizeof e));
  }
  sim_ipc_wire w = {(int32_t)getpid(), fd, (uint64_t)st.st_ino, (uint64_t)st.st_dev};
  memset(handle, 0, RS_BE_IPC_BYTES);
  memcpy(handle, &w, sizeof w);
  return RS_OK;
}

rs_status sim_shm_open(const unsigned char *handle, size_t bytes, void **out, const char *who) {
  sim_ipc_wire w;
  memcpy(&w, handle, sizeof w);
  char path[64], e[128];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w.pid, (int)w.fd);
  int f = open(path, O_RDWR | O_CLOEXEC);
  if (f < 0)
    return rs_fail(RS_ERR_DESTROYED, "%s: %s: %s (a stale handle: the exporting process or its memory is gone)",
                   who, path, sim_errno_text(errno, e, sizeof e));
  struct stat st;
  if (fstat(f, &st) != 0 || (uint64_t)st.st_ino != w.ino || (uint64_t)st.st_dev != w.dev ||
      (size_t)st.st_size < bytes) {
    close(f);
    return rs_fail(RS_ERR_DESTROYED, "%s: %s is no longer the memory the handle named (a stale handle: it was "
                   "freed)", who, path);
  }
  void *p = mmap(NULL, sim_shm_len(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  close(f); /* the mapping keeps the memory */
  if (p == MAP_FAILED)
    return rs_fail(RS_ERR_OUT_OF_MEMORY, "%s: mmap of %zu bytes: %s", who, bytes, sim_errno_text(errno, e, sizeof e));
  sim_asan_unpoison(p, sim_shm_len(bytes));
  *out = p;
  return RS_OK;
}
