/* Private to the simulator: the debugger's checks of a simulated kernel's memory accesses
 * (RESIDENT_SIM_CHECKS, on by default).
 *
 * The kernel object is compiled with ThreadSanitizer's instrumentation and its callbacks
 * are the shim's (sim_shim_check.h), which send what they cannot clear at once here:
 *  - device memory (sim_check_mem.c): an address inside the simulator's own backing of a
 *    device allocation - its red zones, a pool segment's free space - but outside every
 *    live allocation is reported like memcheck, relative to the nearest live allocation.
 *    "Live" is as at the launch's enqueue (a snapshot), because frees are stream-ordered:
 *    memory freed after the launch was queued is still the kernel's.
 *  - shared memory (sim_check_race.c): bounds of the dynamic shared memory and races
 *    between two barriers, from a shadow of the block's shared bytes.
 * Addresses of no device allocation (stack locals, mapped, managed and host memory) are
 * never reported: a GPU reaches those legitimately.
 */
#ifndef RS_BACKEND_SIM_CHECK_H
#define RS_BACKEND_SIM_CHECK_H

#include "backend/sim/sim_kernel_block.h"

/* Red zone on each side of a device allocation that lives on the heap (a multiple of the
 * 256-byte alignment cudaMalloc gives). */
#define SIM_CHECK_PAD ((size_t)256)

/* What a launch checks against: live ranges and the simulator's backing of them (both in
 * host addresses, sorted, not overlapping), shared by the launches of one generation. */
typedef struct sim_check_snap {
  _Atomic int refs;
  uint64_t gen;
  size_t nlive, nown;
  sim_range *live, *own;
} sim_check_snap;

/* The snapshot of b's live device memory, referenced for the caller (NULL when checks are
 * off or host memory ran out: the launch then runs unchecked). */
sim_check_snap *sim_check_snapshot(rs_backend *b);
void sim_check_snap_release(sim_check_snap *s);

/* A pool's note about device memory (the vtable's device_note). */
void sim_device_note(rs_backend *b, void *ptr, size_t bytes, int what);

/* Before a launch's first block on this host thread: the thread's check state for the
 * kernel (shared ranges, an empty cache), or NULL when checks are off. */
rs_sim_check *sim_check_begin(sim_host *h, const sim_launch *L);
/* A new barrier interval of the running block (its start, or every thread past a barrier). */
static inline void sim_check_epoch(sim_host *h) {
  h->epoch++;
  h->nww = 0; /* what a block that stopped early left unchecked */
}

/* The runtime's access (rs_sim_runtime.access): never returns when it reports. */
void sim_rt_access(uintptr_t addr, unsigned size, unsigned flags, void *pc);
/* Shared memory (sim_check_race.c): a bounds and race check of one access. */
void sim_check_shared(sim_host *h, uintptr_t addr, unsigned size, unsigned flags, void *pc);

/* Write-write races (sim_check_ww.c). A conflicting write: thread t (at pc) writes the
 * size bytes at shadow index `index` (address a, offset off of the dynamic or static
 * shared memory) that thread `other` (at other_pc) wrote in this interval. */
void sim_check_ww_note(sim_host *h, size_t index, uintptr_t a, unsigned size, int dynamic, size_t off, unsigned other,
                       const void *other_pc, unsigned t, const void *pc);
/* At a barrier or the block's end, every thread parked: 1 (msg: "thread (x,y,z) stopped
 * at ...") if two of the interval's conflicting writes disagreed; the notes are cleared. */
int sim_check_ww_flush(sim_host *h, char *msg, size_t len);
/* "(x,y,z)": thread t's threadIdx (sim_check_where.c). */
void sim_check_thread_name(const sim_host *h, unsigned t, char *out, size_t len);

/* Stop the running thread with a fault at pc (what: the message) - the source line found
 * from the object's line table where it can be. */
void sim_check_fault(sim_host *h, const char *what, void *pc);
/* "file:line" of pc in the kernel object (or "<kernel>+0xOFFSET" without a line table). */
void sim_check_where(const sim_kmodule *m, void *pc, char *file, size_t len, int *line);

/* What the compiler's directory is replaced with in the line table (-fdebug-prefix-map). */
#define SIM_CHECK_CWD_MARK "@resident-sim@"

#define SIM_A_WRITE 1u
#define SIM_A_ATOMIC 2u
#define SIM_A_ALIGNED 4u

#endif
