/* Private to the simulator's user-kernel files (sim_kernel*.c, sim_kmodule.c, sim_fiber.c).
 *
 * A user kernel runs on the simulator as a shared object built by the host C++ compiler
 * from the user's source, a shim header (sim_shim.h) and a small entry stub. The
 * object and this library talk through a tiny C ABI: the object exports rs_sim_bind,
 * rs_sim_current_slot, rs_sim_entry and its parameter table; the library hands it an
 * rs_sim_runtime of callbacks (barrier, dynamic shared memory, trap). RS_SIM_ABI changes
 * whenever either side of it does (the shim's hash is in the cache key, too).
 */
#ifndef RS_BACKEND_SIM_KERNEL_H
#define RS_BACKEND_SIM_KERNEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include "backend/sim/sim_internal.h"
#include "core/error.h"
#include "core/textbuf.h"
#include "backend/kernel_table.h"

#define RS_SIM_ABI 3u

/* Dynamic shared memory per block on the simulator (the shared memory of one SM of a
 * common GPU without opt-in). Each host thread has one such buffer that never moves:
 * compiled kernels keep references to it. */
#define RS_SIM_SHARED_BYTES ((size_t)48 * 1024)

/* Block size the simulator prefers: a block's fibers switch in turn, and 256 keeps the
 * per-block work cache-friendly while leaving enough blocks to spread over the cores. */
#define RS_SIM_PREFERRED_BLOCK 256

/* ---- the ABI shared with the shim (mirrored there in C++) ------------------------------- */

typedef struct rs_sim_dim3 {
  unsigned x, y, z;
} rs_sim_dim3;

/* The memory checks' state of a host thread (sim_check.h), read by the shim's callbacks:
 * accesses in the two shared ranges and outside the four cleared ranges go to the
 * runtime's access. */
typedef struct rs_sim_check {
  uintptr_t shared_lo, shared_len, dyn_lo, dyn_len;
  uintptr_t ok_lo[4], ok_len[4];
  unsigned next;
} rs_sim_check;

/* What a GPU thread reads as threadIdx, blockIdx, blockDim and gridDim; check is NULL
 * when the checks are off. */
typedef struct rs_sim_thread {
  rs_sim_dim3 thread_idx, block_idx, block_dim, grid_dim;
  rs_sim_check *check;
} rs_sim_thread;

enum { RS_SIM_SYNC_PLAIN = 0, RS_SIM_SYNC_COUNT = 1, RS_SIM_SYNC_AND = 2, RS_SIM_SYNC_OR = 3 };

/* The warp collectives (the `op` of rs_sim_runtime.warp; the shim's numbers are the same). */
enum {
  RS_SIM_WARP_SYNC = 0,   /* __syncwarp */
  RS_SIM_WARP_SHFL = 1,   /* __shfl_sync: arg is the source lane */
  RS_SIM_WARP_UP = 2,     /* __shfl_up_sync: arg is the delta */
  RS_SIM_WARP_DOWN = 3,   /* __shfl_down_sync */
  RS_SIM_WARP_XOR = 4,    /* __shfl_xor_sync: arg is the lane mask */
  RS_SIM_WARP_BALLOT = 5, /* __ballot_sync, __any_sync, __all_sync (the lanes' predicates) */
  RS_SIM_WARP_MATCH_ANY = 6,
  RS_SIM_WARP_MATCH_ALL = 7,
  RS_SIM_WARP_ACTIVE = 8, /* __activemask: the lanes that reach the same call together */
  RS_SIM_WARP_ADD = 9,    /* __reduce_*_sync: arg 1 for the signed forms of min and max */
  RS_SIM_WARP_MIN = 10,
  RS_SIM_WARP_MAX = 11,
  RS_SIM_WARP_AND = 12,
  RS_SIM_WARP_OR = 13,
  RS_SIM_WARP_XOR_ALL = 14,
  RS_SIM_WARP_OPS = 15
};

typedef struct rs_sim_runtime {
  unsigned abi;
  unsigned size;
  /* __syncthreads and its _count/_and/_or forms: the block's answer. site tells two calls
   * on one line apart (the shim's __COUNTER__ or a column). */
  int (*barrier)(int op, int value, int site, const char *file, int line);
  /* this block's dynamic shared memory */
  void *(*dynamic_shared)(void);
  /* stop this block with a fault (never returns) */
  void (*trap)(const char *what, const char *file, int line);
  /* a warp collective (RS_SIM_WARP_*) of the lanes in mask: value is this lane's operand
   * (up to 8 bytes), arg and width as CUDA's; returns this lane's result */
  unsigned long long (*warp)(int op, unsigned mask, unsigned long long value, int arg, int width, int site,
                             const char *file, int line);
  /* the memory checks: an access of size bytes at addr (flags SIM_A_* of sim_check.h)
   * from the instruction before pc; returns if it is fine, else stops the thread */
  void (*access)(uintptr_t addr, unsigned size, unsigned flags, void *pc);
} rs_sim_runtime;

/* ---- fibers (sim_fiber.c) -------------------------------------------------------------- */

/* x86-64 switches with a few instructions of its own (sim_fiber.c); elsewhere ucontext,
 * whose swapcontext also saves the signal mask with a system call per switch. */
#if defined(__x86_64__)
#define RS_SIM_FIBER_ASM 1
#else
#define RS_SIM_FIBER_ASM 0
#include <ucontext.h>
#endif

typedef struct sim_fiber {
#if RS_SIM_FIBER_ASM
  void *sp; /* saved stack pointer; the registers are on that stack */
#else
  ucontext_t uc;
  void (*fn)(void *);
  void *arg;
#endif
  void *stack_lo; /* for the address sanitizer's stack bookkeeping */
  size_t stack_size;
  void *tsan; /* the thread sanitizer's fiber, where it runs */
} sim_fiber;

/* Prepare f to run fn(arg) on [stack, stack + size) at its first switch-in. fn must never
 * return: it ends by switching away for good (sim_fiber_switch with last = 1). */
void sim_fiber_init(sim_fiber *f, void *stack, size_t size, void (*fn)(void *), void *arg);
/* Save the current context in from and resume to. last = 1: from is never resumed. */
void sim_fiber_switch(sim_fiber *from, sim_fiber *to, int last);
/* The first thing fn does on a new fiber (sanitizer bookkeeping). from: the fiber that
 * switched to it, whose stack bounds are recorded so it can be resumed. */
void sim_fiber_started(sim_fiber *from);

/* Forget f's sanitizer state (before its memory goes). */
void sim_fiber_destroy(sim_fiber *f);

/* Stacks with a guard page below; NULL when out of memory. */
void *sim_stack_alloc(size_t size);
void sim_stack_free(void *stack, size_t size);

/* ---- a loaded kernel object (sim_kernel_load.c; lifetime and faults: sim_kmodule.c) ------- */

typedef struct sim_kmodule {
  _Atomic int refs; /* the owner's, plus one per queued launch */
  void *dl;
  int fd; /* the memory file the object was loaded from, or -1 */
  char name[128];
  int uses_barrier;
  size_t static_shared; /* bytes of static __shared__ variables */
  size_t tls_size;      /* the object's whole TLS block: the checks' static shared range */
  /* thread-locals of the TLS block that are not __shared__ variables (the compiler's
   * initialization guards, the shim's current thread): the race check skips them */
  struct {
    uint32_t off, len;
  } tls_skip[16];
  int ntls_skip;
  int nparams;
  size_t param_sizes[RS_KERNEL_MAX_PARAMS];
  void (*entry)(void **args);
  rs_sim_thread **(*current_slot)(void);
  pthread_mutex_t fault_lock;
  rs_status fault;
  char fault_message[768];
} sim_kmodule;

void sim_kmodule_retain(sim_kmodule *m);
void sim_kmodule_release(sim_kmodule *m);
/* Record the first fault of a launch (later ones are dropped: the first explains). */
void sim_kmodule_fault(sim_kmodule *m, rs_status st, const char *message);

/* Fill m->tls_skip from the object's symbol table (sim_check_tls.c). */
void sim_check_tls_skips(sim_kmodule *m, const void *image, size_t bytes);

/* The C++ translation unit for src: shim, user source (rewritten), entry stub. */
rs_status sim_kernel_translation_unit(const rs_kernel_source *src, rs_textbuf *out);

/* The host C++ compiler (sim_kernel_cxx.c). sim_cxx_ready: RS_ERR_UNSUPPORTED if none
 * runs. sim_cxx_run: run argv (PATH lookup), stdout and stderr into *output (malloc'ed);
 * the exit status, or -1 if it could not run. */
rs_status sim_cxx_ready(void);
const char *sim_cxx_name(void);
int sim_cxx_is_gcc(void);
int sim_cxx_run(char *const argv[], char **output);

/* The table's entries, by file. */
rs_status sim_kernel_target(rs_backend *b, char *out, size_t len);
rs_status sim_kernel_compile(rs_backend *b, const rs_kernel_source *src, void **image, size_t *bytes,
                             char **log);
rs_status sim_kernel_load(rs_backend *b, const void *image, size_t bytes, void **module);
rs_status sim_kernel_get_function(rs_backend *b, void *module, const char *name, void **fn,
                                  rs_kernel_attrs *attrs);
rs_status sim_kernel_get_symbol(rs_backend *b, void *module, const char *symbol, void **ptr, size_t *bytes);
rs_status sim_kernel_take_fault(void *module);
void sim_kernel_unload(void *module);
rs_status sim_kernel_launch(rs_backend *b, void *module, void *fn, const rs_kernel_dims *d, void **args,
                            const unsigned char *kinds, int nargs, void *stream);

/* The shim header's text (sim_shim.h) and the entry stub appended to the user's source
 * (sim_shim_entry.inc), with "@NAME@" standing for the kernel's name, "@DYNREFS@" for the
 * count of extern __shared__ declarations and "@BARRIER@" for
 * 0 or 1; both embedded at build time. */
extern const char rs_sim_shim_text[];
extern const char rs_sim_entry_text[];
/* cooperative_groups.h of the simulator (sim_cg.h), embedded at build time. */
extern const char rs_sim_cg_text[];

/* The runtime handed to every loaded object (sim_kernel_run.c). */
extern const rs_sim_runtime rs_sim_runtime_table;

#endif
