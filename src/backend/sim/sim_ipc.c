/* Interprocess sharing for the simulator, with the same contract as CUDA IPC.
 *
 * The simulated device heap lives in this process, so a handle must name memory another
 * process can map. The least invasive way: large device allocations (SIM_SHARE_MIN and up,
 * which every pool segment is) are a memfd mapped MAP_SHARED rather than heap memory, and
 * the memfd stays open while the allocation lives. A handle names the exporting process,
 * the descriptor and the memfd's inode; the other process opens /proc/<pid>/fd/<fd>,
 * checks the inode (a descriptor number reused for another file is a stale handle) and
 * maps it. Nothing is named in /dev/shm, so a crashed process leaves nothing behind.
 * Small allocations keep their exact-size heap blocks, and are refused for export with a
 * message that says so. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"

/* What a simulator handle holds (inside the backend's RS_BE_IPC_BYTES). */
typedef struct sim_ipc_wire {
  int32_t pid, fd;
  uint64_t ino, dev;
} sim_ipc_wire;
_Static_assert(sizeof(sim_ipc_wire) <= RS_BE_IPC_BYTES, "the simulator's handle fits");

rs_status sim_ipc_mem_export(rs_backend *b, void *ptr, unsigned char *handle, size_t *offset, size_t *alloc_bytes) {
  const char *who = "sim ipc_mem_export";
  if (!rs_sim_is_device_ptr(ptr))
    return rs_fail(RS_ERR_MEMORY_KIND, "%s(%p): not device memory", who, ptr);
  pthread_mutex_lock(&b->mem_lock);
  const sim_range *r = sim_ptrmap_containing(&b->device, (uintptr_t)ptr);
  sim_range got = r ? *r : (sim_range){0, 0, 0, 0};
  pthread_mutex_unlock(&b->mem_lock);
  if (!r)
    return rs_fail(RS_ERR_FOREIGN_MEMORY, "%s(%p): not inside a live device allocation of this context", who, ptr);
  if (got.flags & SIM_RANGE_IPC_OPENED)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s(%p): memory opened from another process's handle is not exported again "
                   "(hand on the original handle)", who, ptr);
  if (!got.shm)
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "%s(%p): the simulator shares device allocations of %zu bytes or more (every pool "
                   "segment is one); this one is a %zu-byte heap block (a small allocation "
                   "of the direct, async or a user allocator)", who, ptr, SIM_SHARE_MIN, got.size);
  struct stat st;
  if (fstat(got.shm - 1, &st) != 0) {
    char e[128];
    return rs_fail(RS_ERR_INTERNAL, "%s: fstat of the allocation's memfd: %s", who, sim_errno_text(errno, e, sizeof e));
  }
  sim_ipc_wire w = {(int32_t)getpid(), got.shm - 1, (uint64_t)st.st_ino, (uint64_t)st.st_dev};
  memset(handle, 0, RS_BE_IPC_BYTES);
  memcpy(handle, &w, sizeof w);
  *offset = (size_t)((uintptr_t)ptr - got.addr);
  *alloc_bytes = got.size;
  return RS_OK;
}

rs_status sim_ipc_mem_open(rs_backend *b, const unsigned char *handle, size_t alloc_bytes, void **base) {
  const char *who = "sim ipc_mem_open";
  sim_ipc_wire w;
  memcpy(&w, handle, sizeof w);
  char path[64], e[128];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w.pid, (int)w.fd);
  int f = open(path, O_RDWR | O_CLOEXEC);
  if (f < 0)
    return rs_fail(RS_ERR_DESTROYED, "%s: %s: %s (a stale handle: the exporting process or its allocation is gone)",
                   who, path, sim_errno_text(errno, e, sizeof e));
  struct stat st;
  if (fstat(f, &st) != 0 || (uint64_t)st.st_ino != w.ino || (uint64_t)st.st_dev != w.dev ||
      (size_t)st.st_size < alloc_bytes) {
    close(f);
    return rs_fail(RS_ERR_DESTROYED, "%s: %s is no longer the allocation the handle named (a stale handle: "
                   "it was freed)", who, path);
  }
  void *p = mmap(NULL, sim_shm_len(alloc_bytes), PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
  close(f); /* the mapping keeps the memory */
  if (p == MAP_FAILED)
    return rs_fail(RS_ERR_OUT_OF_MEMORY, "%s: mmap of %zu bytes: %s", who, alloc_bytes,
                   sim_errno_text(errno, e, sizeof e));
  uintptr_t tagged = (uintptr_t)sim_device_tag(p);
  pthread_mutex_lock(&b->mem_lock);
  int err = sim_ptrmap_insert(&b->device, tagged, alloc_bytes, SIM_RANGE_IPC_OPENED);
  pthread_mutex_unlock(&b->mem_lock);
  if (err) {
    sim_shm_unmap(p, alloc_bytes, -1);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: no host memory to track the mapping", who);
  }
  *base = (void *)tagged;
  return RS_OK;
}

rs_status sim_ipc_mem_close(rs_backend *b, void *base) {
  sim_range r;
  pthread_mutex_lock(&b->mem_lock);
  const sim_range *in = sim_ptrmap_containing(&b->device, (uintptr_t)base);
  int ok = in && in->addr == (uintptr_t)base && (in->flags & SIM_RANGE_IPC_OPENED);
  if (ok) sim_ptrmap_remove(&b->device, (uintptr_t)base, &r);
  pthread_mutex_unlock(&b->mem_lock);
  if (!ok)
    return rs_fail(RS_ERR_FOREIGN_MEMORY, "sim ipc_mem_close(%p): not a mapping opened from an IPC handle", base);
  sim_shm_unmap(rs_sim_translate(base), r.size, -1);
  return RS_OK;
}
