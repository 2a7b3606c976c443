/* Shareable backing for the simulator's large device allocations: a memfd mapped shared
 * (see sim_ipc.c for why and how another process maps it). */
#include <sys/mman.h>
#include <unistd.h>
#include "backend/sim/sim_internal.h"

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
  void *p = mmap(NULL, sim_shm_len(bytes), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  if (p == MAP_FAILED) {
    close(f);
    return NULL;
  }
  *fd = f;
  return p;
}

void sim_shm_unmap(void *p, size_t bytes, int fd) {
  munmap(p, sim_shm_len(bytes));
  if (fd >= 0) close(fd);
}

