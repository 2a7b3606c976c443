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
#include "backend/sim/sim_internal.h"
#include "core/error.h"

rs_status sim_ipc_mem_export(rs_backend *b, void *ptr, unsigned char *handle, size_t *offset, size_t *alloc_bytes) {
  const char *who = "sim ipc_mem_export";
  if (!rs_sim_is_device_ptr(ptr))
    return rs_fail(RS_ERR_MEMORY_KIND, "%s(%p): not device memory", who, ptr);
  pthread_mutex_lock(&b->mem_lock);
  const sim_range *r = sim_ptrmap_containing(&b->device, (uintptr_t)ptr);
  sim_range got = r ? *r : (sim_range){0, 0, 0, 0, 0};
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
  RS_TRY(sim_shm_handle(got.shm - 1, handle, who));
  *offset = (size_t)((uintptr_t)ptr - got.addr);
  *alloc_bytes = got.size;
  return RS_OK;
}

rs_status sim_ipc_mem_open(rs_backend *b, const unsigned char *handle, size_t alloc_bytes, void **base) {
  const char *who = "sim ipc_mem_open";
  void *p = NULL;
  RS_TRY(sim_shm_open(handle, alloc_bytes, &p, who));
  uintptr_t tagged = (uintptr_t)sim_device_tag(p);
  pthread_mutex_lock(&b->mem_lock);
  int err = sim_ptrmap_insert(&b->device, tagged, alloc_bytes, SIM_RANGE_IPC_OPENED);
  b->map_gen++; /* the memory checks' snapshot */
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
  b->map_gen++; /* the memory checks' snapshot */
  pthread_mutex_unlock(&b->mem_lock);
  if (!ok)
    return rs_fail(RS_ERR_FOREIGN_MEMORY, "sim ipc_mem_close(%p): not a mapping opened from an IPC handle", base);
  sim_shm_unmap(rs_sim_translate(base), r.size, -1);
  return RS_OK;
}
