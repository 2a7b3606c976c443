/* Fibers for simulated GPU threads: one per thread of a block, switched in turn on one
 * host thread, so __syncthreads() can park a thread until the whole block arrives.
 *
 * On x86-64 the switch is our own: push the callee-saved registers and the SSE/x87
 * control words, swap stack pointers, pop. That is a few nanoseconds, where swapcontext
 * makes a signal-mask system call each time - and a block of 256 threads switches at
 * least 512 times per barrier. Other architectures use ucontext.
 *
 * Under AddressSanitizer every switch is announced (__sanitizer_start/finish_switch_fiber)
 * so it keeps tracking which stack is current; ThreadSanitizer gets a fiber of its own
 * per simulated thread (__tsan_create_fiber / __tsan_switch_to_fiber). */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "backend/sim/sim_asan.h"
#include "backend/sim/sim_kernel.h"

#if defined(__SANITIZE_THREAD__)
#define RS_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RS_SIM_TSAN 1
#endif
#endif
#ifndef RS_SIM_TSAN
#define RS_SIM_TSAN 0
#endif
#if RS_SIM_TSAN
#include <sanitizer/tsan_interface.h>
#endif

#if RS_SIM_FIBER_ASM
/* rs_sim_fiber_swap(void **save_sp, void *load_sp): the System V ABI's callee-saved
 * registers (rbx, rbp, r12-r15) go on the current stack, its pointer into *save_sp; then
 * the other stack's are restored and `ret` resumes it. The MXCSR and x87 control words,
 * callee-saved too, are left alone: loading them costs more than the rest of the switch,
 * and device code has no way to change them (CUDA C sets rounding per instruction).
 * rs_sim_fiber_boot is where a new fiber's first `ret` lands: it calls r13(r12) with the
 * stack aligned as a call expects and never comes back. */
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl rs_sim_fiber_swap\n"
    ".hidden rs_sim_fiber_swap\n"
    ".type rs_sim_fiber_swap,@function\n"
    "rs_sim_fiber_swap:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size rs_sim_fiber_swap, .-rs_sim_fiber_swap\n"
    ".p2align 4\n"
    ".globl rs_sim_fiber_boot\n"
    ".hidden rs_sim_fiber_boot\n"
    ".type rs_sim_fiber_boot,@function\n"
    "rs_sim_fiber_boot:\n"
    "  movq %r12, %rdi\n"
    "  callq *%r13\n"
    "  ud2\n"
    ".size rs_sim_fiber_boot, .-rs_sim_fiber_boot\n");

void rs_sim_fiber_swap(void **save_sp, void *load_sp);
void rs_sim_fiber_boot(void);

void sim_fiber_init(sim_fiber *f, void *stack, size_t size, void (*fn)(void *), void *arg) {
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  uint64_t *frame = (uint64_t *)top - 7; /* what the swap pops, in order */
  frame[0] = 0;                                      /* r15 */
  frame[1] = 0;                                      /* r14 */
  frame[2] = (uint64_t)(uintptr_t)fn;                /* r13 */
  frame[3] = (uint64_t)(uintptr_t)arg;               /* r12 */
  frame[4] = 0;                                      /* rbx */
  frame[5] = 0;                                      /* rbp */
  frame[6] = (uint64_t)(uintptr_t)rs_sim_fiber_boot; /* ret lands here, leaving rsp = top */
  f->sp = frame;
  f->stack_lo = stack;
  f->stack_size = size;
}

static void rs_raw_switch(sim_fiber *from, sim_fiber *to) { rs_sim_fiber_swap(&from->sp, to->sp); }

#else /* ucontext */

static _Thread_local sim_fiber *rs_starting;

static void rs_uc_start(void) {
  sim_fiber *f = rs_starting;
  f->fn(f->arg);
  abort(); /* fn never returns */
}

void sim_fiber_init(sim_fiber *f, void *stack, size_t size, void (*fn)(void *), void *arg) {
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = stack;
  f->uc.uc_stack.ss_size = size;
  f->uc.uc_link = NULL;
  f->fn = fn;
  f->arg = arg;
  makecontext(&f->uc, rs_uc_start, 0);
  f->stack_lo = stack;
  f->stack_size = size;
}

static void rs_raw_switch(sim_fiber *from, sim_fiber *to) {
  rs_starting = to;
  swapcontext(&from->uc, &to->uc);
}
#endif

void sim_fiber_switch(sim_fiber *from, sim_fiber *to, int last) {
#if RS_SIM_TSAN
  if (!from->tsan) from->tsan = __tsan_get_current_fiber(); /* the host thread's own */
  if (!to->tsan) to->tsan = __tsan_create_fiber(0);
  __tsan_switch_to_fiber(to->tsan, 0);
#endif
#if RS_SIM_ASAN
  void *fake_stack = NULL;
  __sanitizer_start_switch_fiber(last ? NULL : &fake_stack, to->stack_lo, to->stack_size);
  rs_raw_switch(from, to);
  __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#else
  (void)last;
  rs_raw_switch(from, to);
#endif
}

void sim_fiber_started(sim_fiber *from) {
#if RS_SIM_ASAN
  const void *lo = NULL;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(NULL, &lo, &size);
  from->stack_lo = (void *)(uintptr_t)lo;
  from->stack_size = size;
#else
  (void)from;
#endif
}

void sim_fiber_destroy(sim_fiber *f) {
#if RS_SIM_TSAN
  if (f->tsan && f->tsan != __tsan_get_current_fiber()) __tsan_destroy_fiber(f->tsan);
#endif
  f->tsan = NULL;
}

void *sim_stack_alloc(size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void *p = mmap(NULL, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return NULL;
  /* A guard page below: a kernel that overflows its stack faults instead of silently
   * writing into the next thread's. */
  mprotect(p, page, PROT_NONE);
  sim_asan_unpoison((char *)p + page, size);
  return (char *)p + page;
}

void sim_stack_free(void *stack, size_t size) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  sim_asan_unpoison(stack, size); /* its frames' poison must not outlive the mapping */
  munmap((char *)stack - page, size + page);
}
