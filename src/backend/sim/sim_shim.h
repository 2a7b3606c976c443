// rs_sim_shim.h - CUDA C device code on the host CPU (resident simulator).
// Written as rs_sim_shim.h next to every user kernel the simulator compiles, and
// included before the kernel's source; the library holds its text through the build's
// embed step (cmake/embed_text.cmake). The entry stub that follows the source is
// sim_shim_entry.inc.
#ifndef RS_SIM_SHIM_H
#define RS_SIM_SHIM_H
#define RESIDENT_SIM 1
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
#define RS_SIM_ABI 1u
struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
extern "C" {
struct rs_sim_thread { uint3 thread_idx; uint3 block_idx; dim3 block_dim; dim3 grid_dim; };
struct rs_sim_runtime {
  unsigned abi, size;
  int (*barrier)(int op, int value, const char *file, int line);
  void *(*dynamic_shared)(void);
  void (*trap)(const char *what, const char *file, int line);
};
}
namespace rs_sim_rt {
extern const ::rs_sim_runtime *rt;
extern thread_local ::rs_sim_thread *current;
// The compiler must not keep shared memory in registers across a barrier.
inline int sync(int op, int value, const char *file, int line) {
  __asm__ __volatile__("" ::: "memory");
  int r = rt->barrier(op, value, file, line);
  __asm__ __volatile__("" ::: "memory");
  return r;
}
template <class... A> struct always_false { static constexpr bool value = false; };
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
#define __syncthreads() ((void)::rs_sim_rt::sync(0, 0, __FILE__, __LINE__))
#define __syncthreads_count(p) ::rs_sim_rt::sync(1, (p) ? 1 : 0, __FILE__, __LINE__)
#define __syncthreads_and(p) ::rs_sim_rt::sync(2, (p) ? 1 : 0, __FILE__, __LINE__)
#define __syncthreads_or(p) ::rs_sim_rt::sync(3, (p) ? 1 : 0, __FILE__, __LINE__)
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
RS_SIM_UNSUPPORTED(__shfl_sync) RS_SIM_UNSUPPORTED(__shfl_up_sync) RS_SIM_UNSUPPORTED(__shfl_down_sync)
RS_SIM_UNSUPPORTED(__shfl_xor_sync) RS_SIM_UNSUPPORTED(__shfl) RS_SIM_UNSUPPORTED(__shfl_up)
RS_SIM_UNSUPPORTED(__shfl_down) RS_SIM_UNSUPPORTED(__shfl_xor) RS_SIM_UNSUPPORTED(__ballot_sync)
RS_SIM_UNSUPPORTED(__ballot) RS_SIM_UNSUPPORTED(__any_sync) RS_SIM_UNSUPPORTED(__all_sync)
RS_SIM_UNSUPPORTED(__uni_sync) RS_SIM_UNSUPPORTED(__any) RS_SIM_UNSUPPORTED(__all)
RS_SIM_UNSUPPORTED(__activemask) RS_SIM_UNSUPPORTED(__syncwarp) RS_SIM_UNSUPPORTED(__match_any_sync)
RS_SIM_UNSUPPORTED(__match_all_sync) RS_SIM_UNSUPPORTED(__reduce_add_sync)
RS_SIM_UNSUPPORTED(__reduce_min_sync) RS_SIM_UNSUPPORTED(__reduce_max_sync)
RS_SIM_UNSUPPORTED(__reduce_and_sync) RS_SIM_UNSUPPORTED(__reduce_or_sync)
RS_SIM_UNSUPPORTED(__reduce_xor_sync) RS_SIM_UNSUPPORTED(__lanemask_lt) RS_SIM_UNSUPPORTED(tex1Dfetch)
RS_SIM_UNSUPPORTED(tex1D) RS_SIM_UNSUPPORTED(tex2D) RS_SIM_UNSUPPORTED(tex3D)
RS_SIM_UNSUPPORTED(tex1DLayered) RS_SIM_UNSUPPORTED(tex2DLayered) RS_SIM_UNSUPPORTED(texCubemap)
RS_SIM_UNSUPPORTED(surf1Dread) RS_SIM_UNSUPPORTED(surf1Dwrite) RS_SIM_UNSUPPORTED(surf2Dread)
RS_SIM_UNSUPPORTED(surf2Dwrite) RS_SIM_UNSUPPORTED(surf3Dread) RS_SIM_UNSUPPORTED(surf3Dwrite)
RS_SIM_UNSUPPORTED(__prof_trigger) RS_SIM_UNSUPPORTED(__isShared) RS_SIM_UNSUPPORTED(__isGlobal)
RS_SIM_UNSUPPORTED(__cvta_generic_to_shared) RS_SIM_UNSUPPORTED(__pipeline_memcpy_async)
RS_SIM_UNSUPPORTED(__pipeline_commit) RS_SIM_UNSUPPORTED(__pipeline_wait_prior)
RS_SIM_UNSUPPORTED(__nv_atomic_fetch_add)
#undef RS_SIM_UNSUPPORTED
#endif
