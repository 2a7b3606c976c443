/* The simulator's memory kinds.
 *
 * Device memory is a separate heap: real host storage, handed out under a tag that makes
 * the address unusable by host code, and bounded by the configured size so that
 * out-of-memory happens where it would on a small GPU. Pinned, mapped and managed memory
 * are host-visible on a GPU too, so they are plain host storage here; the maps only
 * remember which pointers are ours so that foreign frees are reported, not crashed on.
 *
 * Freeing waits for all queued work first, because cudaFree / cudaFreeHost do: code that
 * frees a buffer a queued copy still reads is correct on a GPU and must stay so here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/sim/sim_check.h"
#include "backend/sim/sim_internal.h"
#include "core/error.h"

#if defined(__aarch64__)
/* aarch64 ignores an address's top byte (TBI), so a tag there would still dereference. */
#define SIM_DEVICE_TAG 0x0050000000000000ull
#define SIM_TAG_MASK 0x00f0000000000000ull
#else
/* Non-canonical on x86-64 with 4- and 5-level paging alike: any access faults. */
#define SIM_DEVICE_TAG 0x5000000000000000ull
#define SIM_TAG_MASK 0xf000000000000000ull
#endif

#define SIM_DEVICE_ALIGN 256 /* what cudaMalloc guarantees */

void *rs_sim_translate(const void *device_ptr) {
  uintptr_t a = (uintptr_t)device_ptr;
  if ((a & SIM_TAG_MASK) == SIM_DEVICE_TAG) a ^= SIM_DEVICE_TAG;
  return (void *)a;
}

void *sim_device_tag(void *host_ptr) { return (void *)((uintptr_t)host_ptr ^ SIM_DEVICE_TAG); }

int rs_sim_is_device_ptr(const void *p) {
  return ((uintptr_t)p & SIM_TAG_MASK) == SIM_DEVICE_TAG;
}

static size_t host_align(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? (size_t)page : 4096;
}

/* Frees are synchronizing (see the top); a worker must not wait for itself. */
static void wait_before_free(rs_backend *b) {
  if (!sim_on_worker_of(b)) (void)sim_synchronize_all(b);
}

/* ---- device ------------------------------------------------------------------------- */

rs_status sim_device_alloc(rs_backend *b, size_t bytes, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim device_alloc(%zu bytes): out is NULL", bytes);
  pthread_mutex_lock(&b->mem_lock);
  size_t used = b->mem_used;
  if (bytes > b->mem_total - used) {
    pthread_mutex_unlock(&b->mem_lock);
    return rs_fail(RS_ERR_OUT_OF_MEMORY,
                   "sim device_alloc(%zu bytes): out of memory: %zu bytes configured, %zu in use",
                   bytes, b->mem_total, used);
  }
  /* Reserve before allocating so concurrent callers cannot both fit in the same room. */
  b->mem_used += bytes;
  pthread_mutex_unlock(&b->mem_lock);

  void *p = NULL;
  int fd = -1, err = 0;
  /* Large allocations (pool segments) are shareable with other processes (sim_ipc.c);
   * small ones keep their exact size (not rounded) so AddressSanitizer catches a kernel
   * running one byte past. */
  if (bytes >= SIM_SHARE_MIN) p = sim_shm_map(bytes, &fd);
  /* With the memory checks on, heap storage has red zones on both sides: an access there
   * is certainly a kernel's out-of-bounds one (nothing else lives there). */
  size_t pad = fd >= 0 ? SIM_SHM_GUARD : b->checks ? SIM_CHECK_PAD : 0;
  if (!p) {
    pad = b->checks ? SIM_CHECK_PAD : 0;
    err = posix_memalign(&p, SIM_DEVICE_ALIGN, bytes + 2 * pad ? bytes + 2 * pad : 1);
    if (err == 0) p = (char *)p + pad;
  }
  uintptr_t tagged = (uintptr_t)p ^ SIM_DEVICE_TAG;
  pthread_mutex_lock(&b->mem_lock);
  if (err == 0 && sim_ptrmap_insert(&b->device, tagged, bytes, 0) == 0) {
    sim_range *r = (sim_range *)sim_ptrmap_containing(&b->device, tagged);
    if (fd >= 0) r->shm = fd + 1;
    r->pad = pad;
    b->map_gen++;
    pthread_mutex_unlock(&b->mem_lock);
    *out = (void *)tagged;
    return RS_OK;
  }
  b->mem_used -= bytes;
  pthread_mutex_unlock(&b->mem_lock);
  if (fd >= 0)
    sim_shm_unmap(p, bytes, fd);
  else if (err == 0)
    free((char *)p - pad);
  return rs_fail(RS_ERR_OUT_OF_MEMORY,
                 "sim device_alloc(%zu bytes): the host could not provide the backing storage",
                 bytes);
}

rs_status sim_device_free(rs_backend *b, void *ptr) {
  if (!ptr) return RS_OK; /* as cudaFree(NULL) */
  if (!rs_sim_is_device_ptr(ptr))
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "sim device_free(%p): not device memory (a host-visible address)", ptr);
  wait_before_free(b);
  sim_range r;
  pthread_mutex_lock(&b->mem_lock);
  const sim_range *in = sim_ptrmap_containing(&b->device, (uintptr_t)ptr);
  int opened = in && in->addr == (uintptr_t)ptr && (in->flags & SIM_RANGE_IPC_OPENED);
  int found = !opened && sim_ptrmap_remove(&b->device, (uintptr_t)ptr, &r);
  if (found) b->mem_used -= r.size;
  if (found) b->map_gen++;
  pthread_mutex_unlock(&b->mem_lock);
  if (opened)
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "sim device_free(%p): memory of another process (opened from an IPC handle); "
                   "releasing the array closes it",
                   ptr);
  if (!found)
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "sim device_free(%p): not the start of a live device allocation of this "
                   "context (freed twice, offset, or from another context)",
                   ptr);
  if (r.shm)
    sim_shm_unmap(rs_sim_translate(ptr), r.size, r.shm - 1);
  else
    free((char *)rs_sim_translate(ptr) - r.pad);
  return RS_OK;
}

rs_status sim_check_device_range(rs_backend *b, const void *p, int64_t lo, int64_t hi,
                                 const char *what) {
  if (!rs_sim_is_device_ptr(p) || hi <= lo) return RS_OK;
  /* Unsigned arithmetic: lo may be negative (reversed views) and wraps as intended. */
  uintptr_t start = (uintptr_t)p + (uintptr_t)lo;
  uintptr_t len = (uintptr_t)hi - (uintptr_t)lo;
  pthread_mutex_lock(&b->mem_lock);
  const sim_range *r = sim_ptrmap_containing(&b->device, start);
  int inside = r != NULL;
  uintptr_t room = inside ? r->addr + r->size - start : 0;
  size_t rsize = inside ? r->size : 0;
  uintptr_t rstart = inside ? r->addr : 0;
  pthread_mutex_unlock(&b->mem_lock);
  if (!inside)
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "%s: device address %p is not inside a live device allocation of this context",
                   what, (void *)start);
  if (len > room)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: %zu bytes at device address %p run past the end of its %zu-byte "
                   "allocation at %p",
                   what, (size_t)len, (void *)start, rsize, (void *)rstart);
  return RS_OK;
}

/* ---- pinned and mapped host memory ------------------------------------------------------ */

#define SIM_HOST_FLAGS (RS_BE_HOST_MAPPED | RS_BE_HOST_PORTABLE | RS_BE_HOST_WRITE_COMBINED)

rs_status sim_host_alloc(rs_backend *b, size_t bytes, unsigned flags, void **out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim host_alloc(%zu bytes): out is NULL", bytes);
  if (flags & ~SIM_HOST_FLAGS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim host_alloc(%zu bytes): unknown flags 0x%x",
                   bytes, flags & ~SIM_HOST_FLAGS);
  void *p = NULL;
  if (posix_memalign(&p, host_align(), bytes ? bytes : 1) != 0)
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim host_alloc(%zu bytes): out of host memory",
                   bytes);
  pthread_mutex_lock(&b->mem_lock);
  int err = sim_ptrmap_insert(&b->host, (uintptr_t)p, bytes, flags);
  pthread_mutex_unlock(&b->mem_lock);
  if (err) {
    free(p);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY,
                   "sim host_alloc(%zu bytes): out of host memory for bookkeeping", bytes);
  }
  *out = p;
  return RS_OK;
}

rs_status sim_host_free(rs_backend *b, void *ptr) {
  if (!ptr) return RS_OK;
  wait_before_free(b);
  pthread_mutex_lock(&b->mem_lock);
  int found = sim_ptrmap_remove(&b->host, (uintptr_t)ptr, NULL);
  pthread_mutex_unlock(&b->mem_lock);
  if (!found)
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "sim host_free(%p): not the start of a live pinned allocation of this context",
                   ptr);
  free(ptr);
  return RS_OK;
}

rs_status sim_host_register(rs_backend *b, void *ptr, size_t bytes, unsigned flags) {
  if (!ptr) return rs_fail(RS_ERR_NULL_POINTER, "sim host_register(NULL, %zu bytes)", bytes);
  if (bytes == 0)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim host_register(%p, 0 bytes): empty range", ptr);
  if (flags & ~SIM_HOST_FLAGS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim host_register(%p, %zu bytes): unknown flags 0x%x",
                   ptr, bytes, flags & ~SIM_HOST_FLAGS);
  if (rs_sim_is_device_ptr(ptr))
    return rs_fail(RS_ERR_MEMORY_KIND, "sim host_register(%p, %zu bytes): device memory", ptr,
                   bytes);
  if ((uintptr_t)ptr + bytes < (uintptr_t)ptr)
    return rs_fail(RS_ERR_OVERFLOW, "sim host_register(%p, %zu bytes): range wraps", ptr, bytes);
  rs_status st = RS_OK;
  pthread_mutex_lock(&b->mem_lock);
  if (sim_ptrmap_overlaps(&b->registered, (uintptr_t)ptr, bytes))
    st = rs_fail(RS_ERR_STATE, "sim host_register(%p, %zu bytes): overlaps a registered range",
                 ptr, bytes);
  else if (sim_ptrmap_overlaps(&b->host, (uintptr_t)ptr, bytes))
    st = rs_fail(RS_ERR_STATE,
                 "sim host_register(%p, %zu bytes): overlaps pinned memory from host_alloc", ptr,
                 bytes);
  else if (sim_ptrmap_insert(&b->registered, (uintptr_t)ptr, bytes, flags) != 0)
    st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY,
                 "sim host_register(%p, %zu bytes): out of host memory for bookkeeping", ptr,
                 bytes);
  pthread_mutex_unlock(&b->mem_lock);
  return st;
}

rs_status sim_host_unregister(rs_backend *b, void *ptr) {
  if (!ptr) return rs_fail(RS_ERR_NULL_POINTER, "sim host_unregister(NULL)");
  wait_before_free(b);
  pthread_mutex_lock(&b->mem_lock);
  int found = sim_ptrmap_remove(&b->registered, (uintptr_t)ptr, NULL);
  pthread_mutex_unlock(&b->mem_lock);
  if (!found)
    return rs_fail(RS_ERR_STATE, "sim host_unregister(%p): not the start of a registered range",
                   ptr);
  return RS_OK;
}

rs_status sim_host_device_pointer(rs_backend *b, void *host_ptr, void **out) {
  if (!out || !host_ptr)
    return rs_fail(RS_ERR_NULL_POINTER, "sim host_device_pointer(%p): NULL argument", host_ptr);
  if (rs_sim_is_device_ptr(host_ptr))
    return rs_fail(RS_ERR_MEMORY_KIND, "sim host_device_pointer(%p): already device memory",
                   host_ptr);
  pthread_mutex_lock(&b->mem_lock);
  int ok = sim_ptrmap_containing(&b->host, (uintptr_t)host_ptr) != NULL ||
           sim_ptrmap_containing(&b->registered, (uintptr_t)host_ptr) != NULL;
  pthread_mutex_unlock(&b->mem_lock);
  if (!ok)
    return rs_fail(RS_ERR_MEMORY_KIND,
                   "sim host_device_pointer(%p): not inside pinned or registered host memory of "
                   "this context",
                   host_ptr);
  /* Mapped memory is reachable from both sides at the same address, as under UVA. */
  *out = host_ptr;
  return RS_OK;
}

/* ---- managed ------------------------------------------------------------------------ */

rs_status sim_managed_alloc(rs_backend *b, size_t bytes, int attach_host, void **out) {
  (void)attach_host; /* one address space, nothing to attach */
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim managed_alloc(%zu bytes): out is NULL", bytes);
  void *p = NULL;
  if (posix_memalign(&p, SIM_DEVICE_ALIGN, bytes ? bytes : 1) != 0)
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim managed_alloc(%zu bytes): out of host memory",
                   bytes);
  pthread_mutex_lock(&b->mem_lock);
  int err = sim_ptrmap_insert(&b->managed, (uintptr_t)p, bytes, 0);
  pthread_mutex_unlock(&b->mem_lock);
  if (err) {
    free(p);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY,
                   "sim managed_alloc(%zu bytes): out of host memory for bookkeeping", bytes);
  }
  *out = p;
  return RS_OK;
}

rs_status sim_managed_free(rs_backend *b, void *ptr) {
  if (!ptr) return RS_OK;
  wait_before_free(b);
  pthread_mutex_lock(&b->mem_lock);
  int found = sim_ptrmap_remove(&b->managed, (uintptr_t)ptr, NULL);
  pthread_mutex_unlock(&b->mem_lock);
  if (!found)
    return rs_fail(RS_ERR_FOREIGN_MEMORY,
                   "sim managed_free(%p): not the start of a live managed allocation of this "
                   "context",
                   ptr);
  free(ptr);
  return RS_OK;
}

/* Only reached at close, after every worker has stopped: what the caller leaked. */
void sim_memory_release_all(rs_backend *b) {
  for (size_t i = 0; i < b->device.count; i++) {
    const sim_range *r = &b->device.items[i];
    void *p = rs_sim_translate((void *)r->addr);
    if (r->shm || (r->flags & SIM_RANGE_IPC_OPENED))
      sim_shm_unmap(p, r->size, r->shm - 1);
    else
      free((char *)p - r->pad);
  }
  for (size_t i = 0; i < b->host.count; i++) free((void *)b->host.items[i].addr);
  for (size_t i = 0; i < b->managed.count; i++) free((void *)b->managed.items[i].addr);
  sim_ptrmap_release(&b->device);
  sim_ptrmap_release(&b->host);
  sim_ptrmap_release(&b->registered);
  sim_ptrmap_release(&b->managed);
  b->mem_used = 0;
}

int sim_is_pageable(rs_backend *b, const void *p) {
  if (rs_sim_is_device_ptr(p)) return 0;
  uintptr_t a = (uintptr_t)p;
  pthread_mutex_lock(&b->mem_lock);
  int known = sim_ptrmap_containing(&b->host, a) || sim_ptrmap_containing(&b->registered, a) ||
              sim_ptrmap_containing(&b->managed, a);
  pthread_mutex_unlock(&b->mem_lock);
  return !known;
}
