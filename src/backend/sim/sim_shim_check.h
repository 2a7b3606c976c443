// The debugger's memory checks in a simulated kernel (joined to sim_shim.h when it is
// embedded). With the checks on (RESIDENT_SIM_CHECKS, the default) the simulator compiles
// the kernel with the compiler's ThreadSanitizer instrumentation but links no sanitizer
// runtime: the compiler's calls before each load and store (__tsan_read4, ...) land in
// the hidden functions below. They filter in a few instructions - an address in a range
// the runtime said is fine (the thread's cache of four) goes on - and hand the rest to
// the runtime (rs_sim_runtime.access, sim_check_*.c): device addresses outside every live
// allocation and accesses to shared memory, which it checks for bounds and races.
// These functions must not be instrumented themselves (no_sanitize), nor may anything
// they call be.
#ifndef RS_SIM_SHIM_CHECK_H
#define RS_SIM_SHIM_CHECK_H
#define RS_SIM_NOCHECK __attribute__((no_sanitize("thread"), visibility("hidden")))
#define RS_SIM_CHECK_CB extern "C" RS_SIM_NOCHECK
namespace rs_sim_rt {
enum { A_WRITE = 1, A_ATOMIC = 2, A_ALIGNED = 4 };
RS_SIM_NOCHECK inline void access(uintptr_t a, unsigned size, unsigned flags, void *pc) {
  const ::rs_sim_thread *t = current;
  if (!t || !t->check) return; /* outside a launch (the object's constructors), or checks off */
  ::rs_sim_check *c = t->check;
  if (a - c->shared_lo < c->shared_len || a - c->dyn_lo < c->dyn_len ||
      ((flags & A_ALIGNED) && (a & (size - 1)))) {
    rt->access(a, size, flags, pc);
    return;
  }
  for (int i = 0; i < 4; i++)
    if (a - c->ok_lo[i] < c->ok_len[i] && c->ok_len[i] - (a - c->ok_lo[i]) >= size) return;
  rt->access(a, size, flags, pc);
}
}  // namespace rs_sim_rt
#define RS_SIM_PC __builtin_return_address(0)
// The aligned callbacks are taken as a promise of natural alignment up to 8 bytes only:
// clang calls __tsan_read16 for a 16-byte access it knows to be 8-byte aligned.
#define RS_SIM_AL(N) ((N) <= 8 ? 4u : 0u)
#define RS_SIM_PLAIN(N)                                                                                    \
  RS_SIM_CHECK_CB void __tsan_read##N(void *a) { ::rs_sim_rt::access((uintptr_t)a, N, RS_SIM_AL(N), RS_SIM_PC); } \
  RS_SIM_CHECK_CB void __tsan_write##N(void *a) { ::rs_sim_rt::access((uintptr_t)a, N, RS_SIM_AL(N) | 1, RS_SIM_PC); } \
  RS_SIM_CHECK_CB void __tsan_unaligned_read##N(void *a) { ::rs_sim_rt::access((uintptr_t)a, N, 0, RS_SIM_PC); } \
  RS_SIM_CHECK_CB void __tsan_unaligned_write##N(void *a) { ::rs_sim_rt::access((uintptr_t)a, N, 1, RS_SIM_PC); } \
  RS_SIM_CHECK_CB void __tsan_volatile_read##N(void *a) { ::rs_sim_rt::access((uintptr_t)a, N, RS_SIM_AL(N), RS_SIM_PC); } \
  RS_SIM_CHECK_CB void __tsan_volatile_write##N(void *a) { ::rs_sim_rt::access((uintptr_t)a, N, RS_SIM_AL(N) | 1, RS_SIM_PC); }
RS_SIM_PLAIN(1) RS_SIM_PLAIN(2) RS_SIM_PLAIN(4) RS_SIM_PLAIN(8) RS_SIM_PLAIN(16)
#undef RS_SIM_PLAIN
RS_SIM_CHECK_CB void __tsan_read_range(void *a, unsigned long n) {
  if (n) ::rs_sim_rt::access((uintptr_t)a, (unsigned)n, 0, RS_SIM_PC);
}
RS_SIM_CHECK_CB void __tsan_write_range(void *a, unsigned long n) {
  if (n) ::rs_sim_rt::access((uintptr_t)a, (unsigned)n, 1, RS_SIM_PC);
}
RS_SIM_CHECK_CB void __tsan_func_entry(void *) {}
RS_SIM_CHECK_CB void __tsan_func_exit(void) {}
RS_SIM_CHECK_CB void __tsan_init(void) {}
RS_SIM_CHECK_CB void __tsan_vptr_update(void **, void *) {}
RS_SIM_CHECK_CB void __tsan_vptr_read(void **) {}
// Atomics: checked for bounds like any access (never for races), then done as asked, with
// sequential consistency whatever order the caller named.
#define RS_SIM_SC __ATOMIC_SEQ_CST
#define RS_SIM_ATOMICS(N, T)                                                                                \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_load(const volatile T *a, int) {                                    \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 6, RS_SIM_PC);                                             \
    return __atomic_load_n(a, RS_SIM_SC);                                                                   \
  }                                                                                                         \
  RS_SIM_CHECK_CB void __tsan_atomic##N##_store(volatile T *a, T v, int) {                                 \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    __atomic_store_n(a, v, RS_SIM_SC);                                                                      \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_exchange(volatile T *a, T v, int) {                                 \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_exchange_n(a, v, RS_SIM_SC);                                                            \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_fetch_add(volatile T *a, T v, int) {                                \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_fetch_add(a, v, RS_SIM_SC);                                                             \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_fetch_sub(volatile T *a, T v, int) {                                \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_fetch_sub(a, v, RS_SIM_SC);                                                             \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_fetch_and(volatile T *a, T v, int) {                                \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_fetch_and(a, v, RS_SIM_SC);                                                             \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_fetch_or(volatile T *a, T v, int) {                                 \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_fetch_or(a, v, RS_SIM_SC);                                                              \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_fetch_xor(volatile T *a, T v, int) {                                \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_fetch_xor(a, v, RS_SIM_SC);                                                             \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_fetch_nand(volatile T *a, T v, int) {                               \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_fetch_nand(a, v, RS_SIM_SC);                                                            \
  }                                                                                                         \
  RS_SIM_CHECK_CB int __tsan_atomic##N##_compare_exchange_strong(volatile T *a, T *c, T v, int, int) {     \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_compare_exchange_n(a, c, v, false, RS_SIM_SC, RS_SIM_SC);                               \
  }                                                                                                         \
  RS_SIM_CHECK_CB int __tsan_atomic##N##_compare_exchange_weak(volatile T *a, T *c, T v, int, int) {       \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    return __atomic_compare_exchange_n(a, c, v, true, RS_SIM_SC, RS_SIM_SC);                                \
  }                                                                                                         \
  RS_SIM_CHECK_CB T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v, int, int) {           \
    ::rs_sim_rt::access((uintptr_t)a, sizeof(T), 7, RS_SIM_PC);                                             \
    __atomic_compare_exchange_n(a, &c, v, false, RS_SIM_SC, RS_SIM_SC);                                     \
    return c;                                                                                               \
  }
RS_SIM_ATOMICS(8, unsigned char) RS_SIM_ATOMICS(16, unsigned short) RS_SIM_ATOMICS(32, unsigned)
RS_SIM_ATOMICS(64, unsigned long long)
#undef RS_SIM_ATOMICS
#undef RS_SIM_SC
RS_SIM_CHECK_CB void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
RS_SIM_CHECK_CB void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
#undef RS_SIM_PC
#undef RS_SIM_AL
#undef RS_SIM_CHECK_CB
#endif
