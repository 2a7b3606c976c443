/* Private to sim_kernel_run.c and sim_kernel_warp.c: one simulated block's threads, the
 * host thread that runs them, and the launch they belong to. */
#ifndef RS_BACKEND_SIM_KERNEL_BLOCK_H
#define RS_BACKEND_SIM_KERNEL_BLOCK_H

#include <setjmp.h>
#include "backend/sim/sim_kernel.h"

/* G_WAIT: at a __syncthreads(); G_WARP: at a warp collective (__shfl_sync, ...). */
enum { G_RUN = 0, G_WAIT = 1, G_DONE = 2, G_TRAP = 3, G_WARP = 4 };

typedef struct sim_gthread {
  rs_sim_thread state; /* what the kernel reads as threadIdx, ... */
  sim_fiber fiber;
  int status;
  int op, value, result; /* a block barrier's */
  int site;              /* which call of the source it waits at */
  const char *file;
  int line;
  /* a warp collective's (status G_WARP): the operand, CUDA's arguments and the answer */
  unsigned wmask;
  int warg, wwidth;
  unsigned long long wvalue, wresult;
} sim_gthread;

typedef struct sim_launch {
  rs_backend *b;
  sim_kmodule *m;
  rs_kernel_dims d;
  uint64_t nblocks;
  unsigned threads; /* per block */
  _Atomic int abort;
  void **argv;
  struct sim_check_snap *snap; /* the memory checks' view of live memory, or NULL (off) */
} sim_launch;

/* The race check's shadow of one shared byte (sim_check_race.c): the last write and the
 * reads since, with the barrier interval (epoch) and warp-sync count they happened at. */
typedef struct sim_shadow {
  uint32_t wepoch, repoch;
  uint16_t writer, reader, reader2; /* thread indices in the block; reader2: another reader */
  int16_t rwarp;                    /* the readers' warp, -1 for several warps */
  uint32_t wsync, rsync;
  uint32_t wwepoch, wwslot; /* the write-write note of this byte's interval (sim_check_ww.c) */
  const void *wpc, *rpc, *rpc2;
} sim_shadow;

/* Per host thread that runs blocks. Never moves once made: kernels keep references into
 * `shared`. */
typedef struct sim_host {
  sim_fiber sched;
  sim_gthread *g;
  void **stacks;
  unsigned cap; /* GPU threads g and stacks have room for */
  unsigned char *shared;
  sim_gthread *cur;
  const sim_launch *launch;
  int direct;
  jmp_buf escape; /* a trap's way out of a kernel that runs without fibers */
  const char *trap_what, *trap_file;
  int trap_line;
  char trap_text[512]; /* a trap's `what`, copied (it may be composed on the stack) */
  const char *stray_what; /* a barrier or warp collective the source scan did not see */
  const char *stray_file;
  int stray_line;
  /* the memory checks (sim_check.h) */
  rs_sim_check check;
  const sim_launch *checked; /* the launch check describes */
  uint32_t epoch;            /* barrier intervals so far on this host thread */
  uint32_t wsync[32];        /* per warp of the block: collectives resolved so far */
  sim_shadow *shadow;        /* dynamic shared bytes, then the object's TLS block */
  size_t shadow_cap;
  char where_file[256];      /* a checked fault's source file */
  void *race_pc;             /* the access being checked */
  struct sim_ww *ww;         /* the interval's conflicting writes (sim_check_ww.c) */
  unsigned nww, ww_cap;
} sim_host;

/* The host thread's block state (NULL outside a block). */
extern _Thread_local sim_host *sim_host_current;

/* Per GPU thread: locals and arrays of device functions live here. CUDA allows 512 KiB of
 * local memory per thread; the compile refuses a function frame above that
 * (RS_SIM_LOCAL_LIMIT), and this leaves room for one such frame and the calls around it.
 * Pages are committed only when touched. */
#define RS_SIM_STACK ((size_t)1024 * 1024)

/* This host thread's state with room for n GPU threads (stacks only when fibers are
 * used); NULL when out of memory. */
sim_host *sim_host_get(unsigned n, int fibers);

/* Stop the running GPU thread with a fault (never returns). */
void sim_rt_trap(const char *what, const char *file, int line);

/* The runtime's warp collective (rs_sim_runtime.warp). */
unsigned long long sim_rt_warp(int op, unsigned mask, unsigned long long value, int arg, int width, int site,
                               const char *file, int line);

/* Once every thread of the block is parked: answer the warp collectives whose lanes have
 * all arrived. 1 if some thread can go on, 0 if none waits at one, -1 (the reason in msg)
 * if some wait for lanes that will never come. */
int sim_warp_step(sim_host *h, unsigned n, char *msg, size_t len);

#endif
