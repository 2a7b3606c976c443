// rs_sim_shim.h - CUDA C device code on the host CPU (resident simulator).
// Written as rs_sim_shim.h next to every user kernel the simulator compiles, and
// included before the kernel's source; the library holds its text through the build's
// embed step (cmake/embed_text.cmake). The entry stub that follows the source is
// sim_shim_entry.inc.
#ifndef RS_SIM_SHIM_H
#define RS_SIM_SHIM_H
#define RESIDENT_SIM 1
// The architecture the simulator imitates (an H100's): kernels that test __CUDA_ARCH__
// take their sm_90 path. Stated in resident/kernel.h.
#define __CUDA_ARCH__ 900
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <cmath>
#include <type_traits>
#include <utility>

// ---- the ABI with libresident (mirrors src/backend/sim/sim_kernel.h) ----
#define RS_SIM_ABI 3u
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern "C" {
struct rs_sim_check {
  uintptr_t shared_lo, shared_len, dyn_lo, dyn_len;
  uintptr_t ok_lo[4], ok_len[4];
  unsigned next;
};
struct rs_sim_thread { uint3 thread_idx; uint3 block_idx; dim3 block_dim; dim3 grid_dim; rs_sim_check *check; };
struct rs_sim_runtime {
  unsigned abi, size;
  int (*barrier)(int op, int value, int site, const char *file, int line);
  void *(*dynamic_shared)(void);
  void (*trap)(const char *what, const char *file, int line);
  unsigned long long (*warp)(int op, unsigned mask, unsigned long long value, int arg, int width, int site,
                             const char *file, int line);
  void (*access)(uintptr_t addr, unsigned size, unsigned flags, void *pc);
};
}
namespace rs_sim_rt {
extern const ::rs_sim_runtime *rt;
extern thread_local ::rs_sim_thread *current;
// The compiler must not keep shared memory in registers across a barrier.
inline int sync(int op, int value, int site, const char *file, int line) {
  __asm__ __volatile__("" ::: "memory");
  int r = rt->barrier(op, value, site, file, line);
  __asm__ __volatile__("" ::: "memory");
  return r;
}
inline unsigned long long warp(int op, unsigned mask, unsigned long long v, int arg, int width, int site,
                               const char *file, int line) {
  __asm__ __volatile__("" ::: "memory");
  unsigned long long r = rt->warp(op, mask, v, arg, width, site, file, line);
  __asm__ __volatile__("" ::: "memory");
  return r;
}
template <class... A> struct always_false { static constexpr bool value = false; };
// The warp collectives' numbers (RS_SIM_WARP_* of sim_kernel.h).
enum { W_SYNC, W_SHFL, W_UP, W_DOWN, W_XOR, W_BALLOT, W_MATCH_ANY, W_MATCH_ALL, W_ACTIVE, W_ADD, W_MIN, W_MAX,
       W_AND, W_OR, W_XOR_ALL };
// Where a barrier or warp collective is called: file, line and which call (__COUNTER__
// for the macros below; cooperative groups pass their caller's line and column).
struct at {
  const char *file;
  int line, site;
  int block(int op, int v) const { return sync(op, v, site, file, line); }
  void syncthreads() const { (void)block(0, 0); }
  int syncthreads_count(int p) const { return block(1, p ? 1 : 0); }
  int syncthreads_and(int p) const { return block(2, p ? 1 : 0); }
  int syncthreads_or(int p) const { return block(3, p ? 1 : 0); }
  unsigned long long w(int op, unsigned mask, unsigned long long v, int arg = 0, int width = 32) const {
    return warp(op, mask, v, arg, width, site, file, line);
  }
  template <class T> T shuffle(int op, unsigned mask, T v, long arg, int width) const {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8,
                  "warp shuffles of types over 8 bytes are not supported by the resident simulator");
    unsigned long long u = 0;
    memcpy(&u, &v, sizeof v);
    u = w(op, mask, u, (int)arg, width);
    T r;
    memcpy(&r, &u, sizeof r);
    return r;
  }
  template <class T> T shfl_sync(unsigned m, T v, int src, int width = 32) const { return shuffle(W_SHFL, m, v, src, width); }
  template <class T> T shfl_up_sync(unsigned m, T v, unsigned d, int width = 32) const { return shuffle(W_UP, m, v, d, width); }
  template <class T> T shfl_down_sync(unsigned m, T v, unsigned d, int width = 32) const { return shuffle(W_DOWN, m, v, d, width); }
  template <class T> T shfl_xor_sync(unsigned m, T v, int x, int width = 32) const { return shuffle(W_XOR, m, v, x, width); }
  unsigned ballot_sync(unsigned m, int p) const { return (unsigned)w(W_BALLOT, m, p != 0, 0); }
  int any_sync(unsigned m, int p) const { return (int)w(W_BALLOT, m, p != 0, 1); }
  int all_sync(unsigned m, int p) const { return (int)w(W_BALLOT, m, p != 0, 2); }
  unsigned activemask() const { return (unsigned)w(W_ACTIVE, 0, 0); }
  void syncwarp(unsigned m = 0xffffffffu) const { (void)w(W_SYNC, m, 0); }
  template <class T> unsigned long long key(T v) const {
    static_assert(std::is_trivially_copyable<T>::value && sizeof(T) <= 8, "__match_*_sync takes 4 or 8 bytes");
    unsigned long long u = 0;
    memcpy(&u, &v, sizeof v);
    return u;
  }
  template <class T> unsigned match_any_sync(unsigned m, T v) const { return (unsigned)w(W_MATCH_ANY, m, key(v)); }
  template <class T> unsigned match_all_sync(unsigned m, T v, int *pred) const {
    unsigned r = (unsigned)w(W_MATCH_ALL, m, key(v));
    *pred = r != 0;
    return r;
  }
  unsigned reduce_add_sync(unsigned m, unsigned v) const { return (unsigned)w(W_ADD, m, v); }
  int reduce_add_sync(unsigned m, int v) const { return (int)(unsigned)w(W_ADD, m, (unsigned)v); }
  unsigned reduce_min_sync(unsigned m, unsigned v) const { return (unsigned)w(W_MIN, m, v, 0); }
  int reduce_min_sync(unsigned m, int v) const { return (int)(unsigned)w(W_MIN, m, (unsigned)v, 1); }
  unsigned reduce_max_sync(unsigned m, unsigned v) const { return (unsigned)w(W_MAX, m, v, 0); }
  int reduce_max_sync(unsigned m, int v) const { return (int)(unsigned)w(W_MAX, m, (unsigned)v, 1); }
  unsigned reduce_and_sync(unsigned m, unsigned v) const { return (unsigned)w(W_AND, m, v); }
  unsigned reduce_or_sync(unsigned m, unsigned v) const { return (unsigned)w(W_OR, m, v); }
  unsigned reduce_xor_sync(unsigned m, unsigned v) const { return (unsigned)w(W_XOR_ALL, m, v); }
};
}  // namespace rs_sim_rt

// ---- execution space and memory space keywords ----
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) alignas(n)
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __grid_constant__
#define __cluster_dims__(...)

// ---- built-in variables ----
#define threadIdx (::rs_sim_rt::current->thread_idx)
#define blockIdx (::rs_sim_rt::current->block_idx)
#define blockDim (::rs_sim_rt::current->block_dim)
#define gridDim (::rs_sim_rt::current->grid_dim)
static constexpr int warpSize = 32;

// ---- synchronization ----
#define RS_SIM_AT (::rs_sim_rt::at{__FILE__, __LINE__, __COUNTER__})
#define __syncthreads RS_SIM_AT.syncthreads
#define __syncthreads_count RS_SIM_AT.syncthreads_count
#define __syncthreads_and RS_SIM_AT.syncthreads_and
#define __syncthreads_or RS_SIM_AT.syncthreads_or
// ---- warp collectives (sim_kernel_warp.c): CUDA's semantics among a warp's 32 lanes ----
#define __shfl_sync RS_SIM_AT.shfl_sync
#define __shfl_up_sync RS_SIM_AT.shfl_up_sync
#define __shfl_down_sync RS_SIM_AT.shfl_down_sync
#define __shfl_xor_sync RS_SIM_AT.shfl_xor_sync
#define __ballot_sync RS_SIM_AT.ballot_sync
#define __any_sync RS_SIM_AT.any_sync
#define __all_sync RS_SIM_AT.all_sync
#define __activemask RS_SIM_AT.activemask
#define __syncwarp RS_SIM_AT.syncwarp
#define __match_any_sync RS_SIM_AT.match_any_sync
#define __match_all_sync RS_SIM_AT.match_all_sync
#define __reduce_add_sync RS_SIM_AT.reduce_add_sync
#define __reduce_min_sync RS_SIM_AT.reduce_min_sync
#define __reduce_max_sync RS_SIM_AT.reduce_max_sync
#define __reduce_and_sync RS_SIM_AT.reduce_and_sync
#define __reduce_or_sync RS_SIM_AT.reduce_or_sync
#define __reduce_xor_sync RS_SIM_AT.reduce_xor_sync
namespace rs_sim_rt {
inline unsigned lane() {
  const ::rs_sim_thread *t = current;
  return (t->thread_idx.x + t->block_dim.x * (t->thread_idx.y + t->block_dim.y * t->thread_idx.z)) % 32u;
}
}  // namespace rs_sim_rt
inline unsigned __lanemask_lt() { return (1u << ::rs_sim_rt::lane()) - 1u; }
inline unsigned __lanemask_le() { return (unsigned)((2ull << ::rs_sim_rt::lane()) - 1u); }
inline unsigned __lanemask_eq() { return 1u << ::rs_sim_rt::lane(); }
inline unsigned __lanemask_gt() { return ~__lanemask_le(); }
inline unsigned __lanemask_ge() { return ~__lanemask_lt(); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#define __trap() ::rs_sim_rt::rt->trap("__trap()", __FILE__, __LINE__)
#define __brkpt() ::rs_sim_rt::rt->trap("__brkpt()", __FILE__, __LINE__)
inline void __nanosleep(unsigned ns) {
  struct timespec t = {0, (long)ns};
  nanosleep(&t, 0);
}
inline long long clock64() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// ---- atomics: host atomics (blocks run on several host threads at once) ----
#define RS_SIM_ATOMIC_INT(T)                                                                   \
  inline T atomicAdd(T *a, T v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }         \
  inline T atomicSub(T *a, T v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }         \
  inline T atomicExch(T *a, T v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }       \
  inline T atomicAnd(T *a, T v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }         \
  inline T atomicOr(T *a, T v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }           \
  inline T atomicXor(T *a, T v) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); }         \
  inline T atomicCAS(T *a, T expected, T v) {                                                  \
    __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
    return expected;                                                                           \
  }                                                                                            \
  inline T atomicMin(T *a, T v) {                                                              \
    T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                              \
    while (v < old &&                                                                          \
           !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
      ;                                                                                        \
    return old;                                                                                \
  }                                                                                            \
  inline T atomicMax(T *a, T v) {                                                              \
    T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                              \
    while (v > old &&                                                                          \
           !__atomic_compare_exchange_n(a, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) \
      ;                                                                                        \
    return old;                                                                                \
  }
RS_SIM_ATOMIC_INT(int)
RS_SIM_ATOMIC_INT(unsigned)
RS_SIM_ATOMIC_INT(long long)
RS_SIM_ATOMIC_INT(unsigned long long)
#undef RS_SIM_ATOMIC_INT
inline unsigned short atomicCAS(unsigned short *a, unsigned short expected, unsigned short v) {
  __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
inline unsigned atomicInc(unsigned *a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST), next;
  do next = old >= limit ? 0u : old + 1u;
  while (!__atomic_compare_exchange_n(a, &old, next, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return old;
}
inline unsigned atomicDec(unsigned *a, unsigned limit) {
  unsigned old = __atomic_load_n(a, __ATOMIC_SEQ_CST), next;
  do next = (old == 0u || old > limit) ? limit : old - 1u;
  while (!__atomic_compare_exchange_n(a, &old, next, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return old;
}
// Floating point: a compare-and-swap loop on the bits, as GPUs without native support do.
template <class F, class B, class Op> inline F rs_sim_atomic_float(F *a, Op op) {
  B *bits = reinterpret_cast<B *>(a);
  B old = __atomic_load_n(bits, __ATOMIC_SEQ_CST), next;
  F f, r;
  do {
    memcpy(&f, &old, sizeof f);
    r = op(f);
    memcpy(&next, &r, sizeof next);
  } while (!__atomic_compare_exchange_n(bits, &old, next, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
  return f;
}
inline float atomicAdd(float *a, float v) { return rs_sim_atomic_float<float, uint32_t>(a, [v](float x) { return x + v; }); }
inline double atomicAdd(double *a, double v) { return rs_sim_atomic_float<double, uint64_t>(a, [v](double x) { return x + v; }); }
inline float atomicSub(float *a, float v) { return rs_sim_atomic_float<float, uint32_t>(a, [v](float x) { return x - v; }); }
inline double atomicSub(double *a, double v) { return rs_sim_atomic_float<double, uint64_t>(a, [v](double x) { return x - v; }); }
inline float atomicExch(float *a, float v) { return rs_sim_atomic_float<float, uint32_t>(a, [v](float) { return v; }); }
inline float atomicMin(float *a, float v) { return rs_sim_atomic_float<float, uint32_t>(a, [v](float x) { return v < x ? v : x; }); }
inline float atomicMax(float *a, float v) { return rs_sim_atomic_float<float, uint32_t>(a, [v](float x) { return v > x ? v : x; }); }
inline double atomicMin(double *a, double v) { return rs_sim_atomic_float<double, uint64_t>(a, [v](double x) { return v < x ? v : x; }); }
inline double atomicMax(double *a, double v) { return rs_sim_atomic_float<double, uint64_t>(a, [v](double x) { return v > x ? v : x; }); }
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicAnd_block atomicAnd
#define atomicOr_block atomicOr
#define atomicXor_block atomicXor

// ---- vector types ----
#define RS_SIM_VEC2(N, T, A) struct alignas(A) N { T x, y; }; inline N make_##N(T x, T y) { return N{x, y}; }
#define RS_SIM_VEC3(N, T) struct N { T x, y, z; }; inline N make_##N(T x, T y, T z) { return N{x, y, z}; }
#define RS_SIM_VEC4(N, T, A) struct alignas(A) N { T x, y, z, w; }; \
  inline N make_##N(T x, T y, T z, T w) { return N{x, y, z, w}; }
RS_SIM_VEC2(float2, float, 8) RS_SIM_VEC3(float3, float) RS_SIM_VEC4(float4, float, 16)
RS_SIM_VEC2(double2, double, 16) RS_SIM_VEC3(double3, double) RS_SIM_VEC4(double4, double, 16)
RS_SIM_VEC2(int2, int, 8) RS_SIM_VEC3(int3, int) RS_SIM_VEC4(int4, int, 16)
RS_SIM_VEC2(uint2, unsigned, 8) RS_SIM_VEC4(uint4, unsigned, 16)
RS_SIM_VEC2(longlong2, long long, 16) RS_SIM_VEC2(ulonglong2, unsigned long long, 16)
RS_SIM_VEC2(short2, short, 4) RS_SIM_VEC2(ushort2, unsigned short, 4)
RS_SIM_VEC4(char4, signed char, 4) RS_SIM_VEC4(uchar4, unsigned char, 4)
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
#undef RS_SIM_VEC2
#undef RS_SIM_VEC3
#undef RS_SIM_VEC4

// ---- math: CUDA's global overloads and intrinsics on the host's libm (g++ defines
// _GNU_SOURCE, so glibc already declares exp10f, sincosf and the like) ----
using std::abs;
template <class A, class B> inline typename std::common_type<A, B>::type min(A a, B b) { return b < a ? b : a; }
template <class A, class B> inline typename std::common_type<A, B>::type max(A a, B b) { return a < b ? b : a; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline double rcbrt(double x) { return 1.0 / cbrt(x); }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline float __frcp_rn(float a) { return 1.0f / a; }
inline float __fsqrt_rn(float a) { return sqrtf(a); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
inline unsigned __float_as_uint(float x) { unsigned r; memcpy(&r, &x, 4); return r; }
inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
inline float __uint_as_float(unsigned x) { float r; memcpy(&r, &x, 4); return r; }
inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline int __mul24(int a, int b) { return (int)((long long)((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
template <class T> inline T __ldg(const T *p) { return *p; }
template <class T> inline T __ldcg(const T *p) { return *p; }
template <class T> inline T __ldca(const T *p) { return *p; }
template <class T> inline T __ldcs(const T *p) { return *p; }
template <class T> inline T __ldlu(const T *p) { return *p; }
template <class T> inline T __ldcv(const T *p) { return *p; }
template <class T> inline void __stcg(T *p, T v) { *p = v; }
template <class T> inline void __stcs(T *p, T v) { *p = v; }
template <class T> inline void __stwb(T *p, T v) { *p = v; }
template <class T> inline void __stwt(T *p, T v) { *p = v; }

// ---- what the simulator cannot run: a compile error that names it ----
#define RS_SIM_UNSUPPORTED(name)                                                               \
  template <class... A> inline int name(A...) {                                                \
    static_assert(::rs_sim_rt::always_false<A...>::value,                                      \
                  #name " is not supported by the resident simulator");                       \
    return 0;                                                                                  \
  }
RS_SIM_UNSUPPORTED(__shfl) RS_SIM_UNSUPPORTED(__shfl_up) RS_SIM_UNSUPPORTED(__shfl_down)
RS_SIM_UNSUPPORTED(__shfl_xor) RS_SIM_UNSUPPORTED(__ballot) RS_SIM_UNSUPPORTED(__uni_sync)
RS_SIM_UNSUPPORTED(__any) RS_SIM_UNSUPPORTED(__all) RS_SIM_UNSUPPORTED(tex1Dfetch)
RS_SIM_UNSUPPORTED(tex1D) RS_SIM_UNSUPPORTED(tex2D) RS_SIM_UNSUPPORTED(tex3D)
RS_SIM_UNSUPPORTED(tex1DLayered) RS_SIM_UNSUPPORTED(tex2DLayered) RS_SIM_UNSUPPORTED(texCubemap)
RS_SIM_UNSUPPORTED(surf1Dread) RS_SIM_UNSUPPORTED(surf1Dwrite) RS_SIM_UNSUPPORTED(surf2Dread)
RS_SIM_UNSUPPORTED(surf2Dwrite) RS_SIM_UNSUPPORTED(surf3Dread) RS_SIM_UNSUPPORTED(surf3Dwrite)
RS_SIM_UNSUPPORTED(__prof_trigger) RS_SIM_UNSUPPORTED(__isShared) RS_SIM_UNSUPPORTED(__isGlobal)
RS_SIM_UNSUPPORTED(__cvta_generic_to_shared) RS_SIM_UNSUPPORTED(__pipeline_memcpy_async)
RS_SIM_UNSUPPORTED(__pipeline_commit) RS_SIM_UNSUPPORTED(__pipeline_wait_prior)
RS_SIM_UNSUPPORTED(__nv_atomic_fetch_add)
#undef RS_SIM_UNSUPPORTED

// ---- the debugger's checks: the compiler (-fsanitize=bounds,alignment,null) calls these on
// an index outside an array of known size (__shared__ and local arrays) and on a
// misaligned or NULL access; each stops the thread with a fault naming it and the line.
// The layouts are the compilers' (GCC's and clang's UBSan ABI); no sanitizer runtime runs.
extern "C" {
struct rs_ubsan_loc { const char *file; unsigned line, column; };
struct rs_ubsan_type { unsigned short kind, info; char name[1]; };
struct rs_ubsan_oob { rs_ubsan_loc loc; const rs_ubsan_type *array, *index; };
struct rs_ubsan_mismatch { rs_ubsan_loc loc; const rs_ubsan_type *type; unsigned char log_align, kind; };
}
namespace rs_sim_rt {
[[noreturn]] inline void out_of_bounds(const rs_ubsan_oob *d, uintptr_t index) {
  char what[240];
  unsigned bits = 1u << (d->index->info >> 1);
  if (d->index->kind == 0 && bits <= 64) {
    unsigned long long u = index;
    if (bits < 64) u &= (1ull << bits) - 1;
    long long v = (long long)u;
    if ((d->index->info & 1) && bits < 64 && (u >> (bits - 1)) & 1) v = (long long)(u | ~((1ull << bits) - 1));
    if (d->index->info & 1) snprintf(what, sizeof what, "an out-of-bounds index %lld into an array of type %s", v, d->array->name);
    else snprintf(what, sizeof what, "an out-of-bounds index %llu into an array of type %s", u, d->array->name);
  } else {
    snprintf(what, sizeof what, "an out-of-bounds index into an array of type %s", d->array->name);
  }
  rt->trap(what, d->loc.file, (int)d->loc.line);
  __builtin_unreachable();
}
[[noreturn]] inline void mismatch(const rs_ubsan_mismatch *d, uintptr_t p) {
  static const char *const kinds[] = {"a load of", "a store to", "a reference to", "a member access within",
                                      "a member call on", "a constructor call on"};
  const char *k = d->kind < 6 ? kinds[d->kind] : "an access to";
  char what[240];
  if (!p) snprintf(what, sizeof what, "%s a NULL pointer of type %s", k, d->type->name);
  else
    snprintf(what, sizeof what, "%s misaligned address %p of type %s, which needs %u-byte alignment (a GPU faults)", k,
             (void *)p, d->type->name, 1u << d->log_align);
  rt->trap(what, d->loc.file, (int)d->loc.line);
  __builtin_unreachable();
}
}  // namespace rs_sim_rt
extern "C" {
__attribute__((visibility("hidden"))) void __ubsan_handle_out_of_bounds(rs_ubsan_oob *d, uintptr_t i) {
  ::rs_sim_rt::out_of_bounds(d, i);
}
__attribute__((visibility("hidden"))) void __ubsan_handle_out_of_bounds_abort(rs_ubsan_oob *d, uintptr_t i) {
  ::rs_sim_rt::out_of_bounds(d, i);
}
__attribute__((visibility("hidden"))) void __ubsan_handle_type_mismatch_v1(rs_ubsan_mismatch *d, uintptr_t p) {
  ::rs_sim_rt::mismatch(d, p);
}
__attribute__((visibility("hidden"))) void __ubsan_handle_type_mismatch_v1_abort(rs_ubsan_mismatch *d, uintptr_t p) {
  ::rs_sim_rt::mismatch(d, p);
}
}
#endif
