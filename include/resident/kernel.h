/* resident/kernel.h - launching kernels, and the implicit copies of host arrays.
 *
 * Launch model (Numba's, with its traps removed): a launch is asynchronous on a stream
 * (NULL = the context's default stream). An argument that is a DEVICE, MANAGED or MAPPED
 * array is passed as it is, with no copy. An argument that is a HOST or PINNED array is
 * copied to a device temporary before the launch and back after it, as Numba does with
 * NumPy arrays: each such copy is recorded by the ledger as IMPLICIT and is subject to the
 * transfer guard (RS_ERR_TRANSFER_REFUSED, nothing launched, nothing copied). Read-only
 * arguments are never copied back. A launch with implicit copies returns only after the
 * copy back, so the host array holds the result.
 *
 * Kernels are CUDA C source compiled at run time: see "USER KERNELS" below (the library's
 * own array operations are in resident/ops.h).
 *
 * Thread safety: launches are thread-safe; concurrent launches on the same array race as
 * they would on a GPU.
 */
#ifndef RESIDENT_KERNEL_H
#define RESIDENT_KERNEL_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
#include <initializer_list>
extern "C" {
#endif

/* ==== USER KERNELS ======================================================================
 *
 * Numba's `@cuda.jit` + `kernel[grid, block, stream, shared_bytes](args)` for C: a kernel
 * is CUDA C source (a string or a file) and the name of one __global__ function in it.
 *
 *   static const char *src =
 *       "extern \"C\" __global__ void add(const float *a, const float *b, float *c,\n"
 *       "                                 long long n) {\n"
 *       "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
 *       "  if (i < n) c[i] = a[i] + b[i];\n"
 *       "}\n";
 *   rs_kernel *k;
 *   CHECK(rs_kernel_create(&k, ctx, src, "add", NULL));
 *   rs_launch_config cfg = {.elements = n};   // grid and block computed: never a silent 1x1
 *   CHECK(rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(a), rs_arg_array(b),
 *                                           rs_arg_array(c), rs_arg_i64(n))));
 *   rs_kernel_destroy(k);
 *
 * COMPILING. On the CUDA backend the source goes through NVRTC for the device's own
 * architecture (sm_XY) and is loaded with the runtime's library API; on the simulator
 * it goes through the host C++ compiler (c++, g++ or clang++ on PATH) with a shim
 * header, so the same file runs without a GPU. Options are NVRTC's ("-DN=4",
 * "--use_fast_math", "-lineinfo", "-std=c++17"); the simulator honours -D, -U, -I and
 * -std and ignores the others. Include paths are searched for `#include "..."`;
 * `#include <resident_device.h>` always works (the descriptor struct and helper macros,
 * see resident_device.h). A kernel declared without extern "C" is found by its C++
 * name; a template kernel is named with its arguments ("scale<float>").
 *
 * One source serves both backends. NVRTC gets -default-device: a function without
 * __host__/__device__ (a helper, a host prototype from a header shared with host code)
 * is a device function, as on the simulator. The CUDA toolkit's headers (<cuda_fp16.h>,
 * <cooperative_groups.h>) are found after the user's include paths, in the toolkit of
 * the loaded libnvrtc, $CUDA_HOME, $CUDA_PATH or /usr/local/cuda. `__CUDA_ARCH__` is the
 * device's on CUDA and 900 on the simulator.
 *
 * Cooperative groups: `#include <cooperative_groups.h>` (and <cooperative_groups/reduce.h>)
 * works on both; on the simulator it is the library's own header, with
 * this_thread_block() (sync, thread_rank, size, num_threads, group_index, thread_index,
 * group_dim, dim_threads), tiled_partition<N>(group) and tiled_partition(group, n) for
 * tiles of 1 to 32 threads (sync, thread_rank, size, num_threads, meta_group_rank,
 * meta_group_size, shfl, shfl_up, shfl_down, shfl_xor, any, all, ballot, match_any,
 * match_all), coalesced_threads(), cg::sync(block) and cg::reduce with cg::plus, less,
 * greater, bit_and, bit_or and bit_xor. Anything else of the namespace (this_grid,
 * clusters, labeled_partition, ...) fails the simulator's compile with RS_ERR_COMPILE
 * naming it.
 *
 * CACHE. Compiled code is kept in memory (process-wide) and on disk under
 * RESIDENT_CACHE_DIR (default $XDG_CACHE_HOME/resident, else ~/.cache/resident; "off",
 * "none" or "0" disables it; a relative path is refused), keyed by the source, the
 * contents of the user headers it includes, the options, the function name, the device
 * architecture (or host compiler) and the library version. A second create of the same
 * kernel does not compile (rs_kernel_info.origin says where the code came from;
 * rs_kernel_cache_get_stats counts). A cache that cannot be read or written is skipped,
 * never an error. The directory stays under RESIDENT_CACHE_MAX (default 1 GiB; the array
 * operations' kernels go there too): a write that takes it past deletes the least
 * recently used kernels (a disk hit counts as a use) down to three quarters of the limit.
 *
 * What the disk cache trusts: code read from it is run, so only what this user alone
 * could have written. The directory (made with mode 0700 when missing) is used only when
 * it is owned by this user and not writable by group or others; otherwise kernels are
 * cached in memory only and the log says why, once. An entry is used only when it is a
 * regular file (not a link, FIFO or device) owned by this user and writable by nobody
 * else, its sizes match the file's and a digest over its key and image matches; anything
 * else is a miss, and a damaged entry is removed (each said in the log). The digest
 * catches damage and misplaced entries, not a forger: keeping others out is the
 * directory's ownership and mode. A cached image that does not load is a miss as well:
 * removed, compiled again and replaced; only images that loaded are kept in memory. The
 * simulator loads an image from a sealed memory file, so what runs is exactly what was
 * checked. The limit above counts and deletes only the cache's own files (named
 * <backend>-<32 hex digits>.rsk, and their temporaries), so a directory shared with other
 * files loses none of them. The source file and every user header a source includes
 * must be regular files of at most 16 MiB (RS_ERR_INVALID_ARGUMENT naming the file).
 *
 * ARGUMENTS are checked against the parameter list parsed from the source: their
 * number, and kind by kind -
 *   `T *p` (pointer)            rs_arg_array(a): the address of a's element 0. a must be
 *                               contiguous (C or F order); pass views as descriptors.
 *   `const T *p`                the same, and a is READ-ONLY: a host array behind it is
 *                               copied in but never copied back.
 *   `rs_array_desc d`           rs_arg_desc(a): pointer, ndim, shape and byte strides by
 *   `rs_array_const_desc d`     value (resident_device.h); the const one is read-only.
 *   any other type (scalar)     rs_arg_i32(n), rs_arg_f64(x), ... or rs_arg_scalar(dtype,
 *                               &value): a scalar of every dtype. The dtype must match a
 *                               known C type in size and family (int, unsigned, float,
 *                               complex, bool): `int n` takes int32 or uint32, not int64.
 * A mismatch is RS_ERR_LAUNCH naming the parameter, its declaration and what was passed.
 * Pointer parameters must be spelled with `*` (a typedef'd pointer reads as a scalar).
 * rs_arg_null() passes NULL to a pointer parameter (an optional output the kernel tests).
 * Default arguments: trailing parameters declared with a default (`float a = 2.5f`,
 * `int b = -3`, `bool f = false`, `const float *bias = nullptr`) may be left out of
 * nargs/args, as in a <<<>>> call; the default must be a literal the library reads itself
 * (an integer, a floating constant, true/false, or nullptr/NULL/0 for a pointer) - any
 * other default keeps the parameter required (RS_ERR_LAUNCH gives the count). Both backends.
 * CUDA vector types: a `V *` parameter (float2, float3, float4, double2..4, int2..4,
 * uint2..4, short2, ushort2, char4, uchar4, longlong2, ulonglong2) takes a C-contiguous
 * array of the lane's dtype whose last axis is the lane count - float4 * gets float32 of
 * shape (n, 4), double2 * float64 of shape (n, 2) - and float2 * / double2 * also take
 * complex64 / complex128 arrays; another last axis is RS_ERR_SHAPE, another dtype
 * RS_ERR_DTYPE. A kernel in a namespace is named with its qualified name
 * ("physics::energy"); the source is searched for its last component. `static
 * __constant__` and `static __device__` variables are found by rs_kernel_set_constant and
 * rs_kernel_get_constant like the others (the library drops the `static`, which within
 * the kernel's one translation unit changes nothing else).
 *
 * IMPLICIT COPIES (the launch model at the top of this header): DEVICE, MANAGED and
 * MAPPED arrays are passed as they are. HOST and PINNED arrays are copied to a device
 * temporary before the launch and back after it - each copy recorded as implicit by the
 * ledger and subject to the guard - except arrays bound to a `const T *` or
 * rs_array_const_desc parameter, which are never copied back. Such a launch returns
 * only after the copy back. Arguments over one host buffer (the same array twice, views
 * of one array) or over overlapping host memory share ONE temporary, copied in once and
 * back once, so the kernel sees the aliasing the host has; overlapping arrays whose
 * elements could not all be aligned in it are refused (RS_ERR_INVALID_ARGUMENT).
 *
 * LAUNCH CONFIGURATION. grid and block have 1 to 3 dimensions (unused ones 0 or 1).
 * block[0] = 0 takes the block size from the occupancy API (the largest block with the
 * best occupancy, smaller when that leaves multiprocessors without a block); grid[0] = 0
 * takes enough blocks of that size to cover cfg.elements, one element per thread (also
 * right for grid-stride loops). A launch whose threads would leave most of the device idle
 * over a large array (1 block of 1 thread over millions of elements) is reported once per
 * kernel through the log (rs_set_log_handler); the elements it checks are cfg.elements,
 * else the size of the largest array argument.
 *
 * MEMORY SPACES. `__shared__ float tile[256];` is static shared memory, one copy per
 * block. Dynamic shared memory (cfg.shared_bytes) is declared `extern __shared__`; EVERY
 * such declaration in a kernel names the SAME bytes - they alias one another - so carve
 * disjoint views out of one base yourself, keeping each view aligned for its type:
 *
 *   extern "C" __global__ void two_tiles(const float *x, const int *y, int n) {
 *     extern __shared__ unsigned char smem[];        // cfg.shared_bytes in all
 *     float *fs = (float *)smem;                      // bytes [0, 4n)
 *     int *is = (int *)(smem + ((n * sizeof(float) + 15) & ~(size_t)15)); // after it
 *     // NOT: extern __shared__ float fs[]; extern __shared__ int is[];  - same address
 *     ...
 *   }
 *   cfg.shared_bytes = ((n * 4 + 15) & ~15) + n * 4;
 *
 * Local arrays (`float acc[16];` inside the kernel) are per thread. `__constant__`
 * variables are filled from an array with rs_kernel_set_constant before the launch.
 *
 * SIMULATOR. One fiber per GPU thread; __syncthreads() is a barrier between the fibers
 * of a block; __shared__ storage is per block; blocks run in parallel on the host cores;
 * atomics (add, sub, min, max, exch, CAS, and, or, xor, inc, dec) are host atomics;
 * printf prints at once. A block whose threads do not all reach the same __syncthreads()
 * (a barrier inside a divergent if) stops with RS_ERR_KERNEL_FAULT naming the kernel, the
 * block and the threads; the context stays usable. Two barriers are told apart by the
 * call, not the line. `__CUDA_ARCH__` is 900: the simulator imitates an sm_90 device.
 *
 * Warps: a block's threads form warps of 32 lanes by linear thread index, as on a GPU,
 * and the warp intrinsics keep CUDA's semantics among them - __shfl_sync,
 * __shfl_up_sync, __shfl_down_sync and __shfl_xor_sync (with width; any type of at most
 * 8 bytes), __ballot_sync, __any_sync, __all_sync, __activemask, __syncwarp,
 * __match_any_sync, __match_all_sync, __reduce_{add,min,max,and,or,xor}_sync and
 * __lanemask_*. What a GPU hangs on or leaves undefined is a kernel fault
 * (RS_ERR_KERNEL_FAULT, the context stays usable) naming the thread, its lane and the
 * line: a lane named in the mask that exited or waits at another call, a mask without the
 * calling lane, a width that is not a power of two from 1 to 32, a shuffle that reads a
 * lane outside its mask. Lanes past the end of a block whose size is not a multiple of 32
 * do not exist: a full mask may name them, and a shuffle from one returns the caller's
 * own value. __activemask() returns the lanes of the warp that reach that same call
 * together (the threads that took the same branch). Textures and inline PTX are compile
 * errors naming them.
 *
 * Memory limits as CUDA's without an opt-in: static __shared__ variables are counted
 * (rs_kernel_info.static_shared_bytes; the simulator's count may include a few bytes of
 * padding) and share 48 KiB per block with the dynamic shared memory; more than 48 KiB of
 * static shared memory is RS_ERR_COMPILE. Each thread may have CUDA's 512 KiB of local
 * memory (local arrays; the simulator's fiber stacks are 1 MiB, committed only as used):
 * a function frame above 512 KiB is RS_ERR_COMPILE naming its size and line. A computed
 * block has 256 threads on the simulator.
 *
 * The simulator as a debugger. Always on (the checks cost a compare per array index and
 * pointer dereference of the simulated code): an index outside an array of known size -
 * __shared__ arrays and per-thread local arrays - and a dereference of a misaligned
 * pointer (a GPU faults where x86 would not) or of a NULL pointer stop the thread with
 * RS_ERR_KERNEL_FAULT naming the kernel, block, thread, line and what it did ("an
 * out-of-bounds index 32 into an array of type 'float [32]'"); the context stays usable.
 * On by default, off with RESIDENT_SIM_CHECKS=0 (resident.h), the memory checks of
 * compute-sanitizer's memcheck and racecheck, reported the same way:
 *   - an access through a pointer outside every live device allocation, in the
 *     simulator's backing of device memory (the red zones around each allocation, a
 *     pool segment's free space): "an out-of-bounds write of 4 bytes at device address
 *     0x...: 4 bytes after the end of a 4096-byte allocation at 0x..." - relative to the
 *     nearest allocation, as the pool hands them out (an array's own bytes, not the
 *     pool's rounded block); before the start too. What is live is what was at the
 *     launch (frees are stream-ordered). Addresses far from every device allocation, and
 *     mapped, managed and host memory, are not checked: a kernel may reach those;
 *   - a misaligned access of 2 to 8 bytes the compiler took for aligned;
 *   - dynamic shared memory past cfg.shared_bytes ("0 bytes after the end of the
 *     block's 256-byte dynamic shared memory");
 *   - a shared-memory race: a thread reads a shared byte another thread wrote, or writes
 *     one another thread read, between the same two barriers, with no warp collective
 *     (__syncwarp, a shuffle) ordering the two within a warp: "a shared-memory race:
 *     this write of 4 bytes at offset 4 of the block's static shared memory and a read
 *     by thread (0,0,0) at k.cu:8, with no barrier between them (racecheck:
 *     write-after-read hazard)". Atomics never race. Two writes of the same bytes by
 *     different threads race when their values differ, as racecheck has it: "... this
 *     write of 4 bytes at offset 0 of the block's static shared memory and a write of a
 *     different value by thread (0,0,0) at k.cu:4, with no barrier between them
 *     (racecheck: write-after-write hazard)", reported at the next barrier (or the
 *     block's end), when the values are known; every thread storing the same value (a
 *     flag) is benign and not reported. Each write's value is compared with the first
 *     one's when another thread next writes there, the last one's at the barrier; not
 *     seen: a different value that the same thread overwrites with the first one's
 *     before another thread writes there, and differences past a write's first 16 bytes.
 * The line comes from the kernel object's line table (addr2line of binutils; without it
 * the fault names an offset in the object). The cost, measured in bench/RESULTS.md
 * ("Simulator checks"): kernels run about 2-4x slower and compile about 1.2x slower while
 * the checks are on - set RESIDENT_SIM_CHECKS=0 for speed once a kernel is trusted. Not
 * caught: an access far past an allocation into unrelated host memory, pointers read
 * from device memory (arrays of pointers: not translated, they fault), races on global
 * memory, and races between blocks.
 *
 * ERRORS AND FAULTS. Launches are asynchronous. A bad configuration or argument fails
 * the launch call itself (RS_ERR_LAUNCH, nothing launched, nothing copied). A kernel that
 * faults reports RS_ERR_KERNEL_FAULT at the next synchronization: on CUDA from every
 * synchronizing call (rs_stream_synchronize, ...) and the message says the CUDA context
 * is no longer usable (the process must restart its GPU work); on the simulator from the
 * next rs_kernel_synchronize or launch of that kernel, and the context stays usable.
 * RS_LAUNCH_SYNC makes a launch wait and report its own fault (for debugging).
 *
 * Thread safety: create, destroy and every query are thread-safe for different kernels;
 * launches of one kernel from several threads are safe. Destroying a kernel while another
 * thread launches it, or while its launches still run, is undefined: synchronize first.
 */

typedef struct rs_kernel rs_kernel;

/* Flags of rs_kernel_options. */
#define RS_KERNEL_NO_CACHE 0x1u /* neither read nor write the memory and disk caches */

typedef struct rs_kernel_options {
  int noptions;
  const char *const *options;       /* compiler options, noptions of them */
  int ninclude_paths;
  const char *const *include_paths; /* directories for #include "...", in order */
  unsigned flags;                   /* RS_KERNEL_NO_CACHE */
} rs_kernel_options;

/* Compile (or fetch from the cache) `name` from `source` and load it for ctx's device.
 * opts may be NULL. Errors: RS_ERR_COMPILE with the start of the compiler's log in the
 * message (the whole log: rs_kernel_last_log), RS_ERR_NOT_FOUND if the source has no
 * __global__ function `name`, RS_ERR_UNSUPPORTED if no compiler is available. The caller
 * owns *out (rs_kernel_destroy). Thread-safe. */
RS_API rs_status rs_kernel_create(rs_kernel **out, rs_context *ctx, const char *source, const char *name,
                           const rs_kernel_options *opts);

/* The same from a file; its directory is searched first for #include "...", and messages
 * name the file. Thread-safe. */
RS_API rs_status rs_kernel_create_from_file(rs_kernel **out, rs_context *ctx, const char *path,
                                     const char *name, const rs_kernel_options *opts);

/* Unload and free. NULL is RS_OK. A destroyed handle reads as destroyed (calls, a second
 * destroy too, return RS_ERR_DESTROYED) until a later create reuses its slot.
 * Does not touch the context, so
 * it may also come after rs_context_destroy - the only call a kernel of a destroyed
 * context allows. Its launches must have finished (see thread safety above). */
RS_API rs_status rs_kernel_destroy(rs_kernel *k);

/* The whole compiler log of this thread's last rs_kernel_create* (errors and warnings;
 * "" if none). Valid until this thread's next create. Thread-safe. */
RS_API const char *rs_kernel_last_log(void);

/* The text of resident_device.h as the library gives it to the compilers (static
 * storage; to write it out for an offline nvcc build, say). Thread-safe. */
RS_API const char *rs_kernel_device_header(void);

/* ---- arguments ------------------------------------------------------------------------ */

typedef enum rs_arg_kind {
  RS_ARG_NONE = 0,  /* not a valid argument (rs_arg_scalar with a bad dtype) */
  RS_ARG_ARRAY = 1, /* a pointer to element 0 */
  RS_ARG_DESC = 2,  /* an rs_array_desc / rs_array_const_desc by value */
  RS_ARG_SCALAR = 3,
  RS_ARG_NULL = 4 /* a NULL pointer for a pointer parameter (rs_arg_null) */
} rs_arg_kind;

typedef struct rs_arg {
  rs_arg_kind kind;
  rs_dtype dtype;   /* scalars */
  rs_array *array;  /* arrays */
  union {
    signed char i8;
    short i16;
    int i32;
    long long i64;
    unsigned char u8;
    unsigned short u16;
    unsigned u32;
    unsigned long long u64;
    float f32;
    double f64;
    float c64[2];
    double c128[2];
    unsigned char bytes[16];
  } value;
} rs_arg;

static inline rs_arg rs_arg_array(rs_array *a) {
  rs_arg r = {RS_ARG_ARRAY, RS_DTYPE_COUNT, a, {0}};
  return r;
}
/* NULL for a pointer parameter (an optional output the kernel tests against NULL). */
static inline rs_arg rs_arg_null(void) {
  rs_arg r = {RS_ARG_NULL, RS_DTYPE_COUNT, 0, {0}};
  return r;
}
static inline rs_arg rs_arg_desc(rs_array *a) {
  rs_arg r = {RS_ARG_DESC, RS_DTYPE_COUNT, a, {0}};
  return r;
}
#define RS_ARG_SCALAR_FN_(fname, dt, ctype, field) \
  static inline rs_arg fname(ctype v) {            \
    rs_arg r = {RS_ARG_SCALAR, dt, 0, {0}};        \
    r.value.field = v;                             \
    return r;                                      \
  }
RS_ARG_SCALAR_FN_(rs_arg_bool, RS_BOOL, unsigned char, u8)
RS_ARG_SCALAR_FN_(rs_arg_i8, RS_INT8, signed char, i8)
RS_ARG_SCALAR_FN_(rs_arg_i16, RS_INT16, short, i16)
RS_ARG_SCALAR_FN_(rs_arg_i32, RS_INT32, int, i32)
RS_ARG_SCALAR_FN_(rs_arg_i64, RS_INT64, long long, i64)
RS_ARG_SCALAR_FN_(rs_arg_u8, RS_UINT8, unsigned char, u8)
RS_ARG_SCALAR_FN_(rs_arg_u16, RS_UINT16, unsigned short, u16)
RS_ARG_SCALAR_FN_(rs_arg_u32, RS_UINT32, unsigned, u32)
RS_ARG_SCALAR_FN_(rs_arg_u64, RS_UINT64, unsigned long long, u64)
RS_ARG_SCALAR_FN_(rs_arg_f16_bits, RS_FLOAT16, unsigned short, u16) /* IEEE half, as bits */
RS_ARG_SCALAR_FN_(rs_arg_f32, RS_FLOAT32, float, f32)
RS_ARG_SCALAR_FN_(rs_arg_f64, RS_FLOAT64, double, f64)
#undef RS_ARG_SCALAR_FN_
static inline rs_arg rs_arg_c64(float re, float im) {
  rs_arg r = {RS_ARG_SCALAR, RS_COMPLEX64, 0, {0}};
  r.value.c64[0] = re;
  r.value.c64[1] = im;
  return r;
}
static inline rs_arg rs_arg_c128(double re, double im) {
  rs_arg r = {RS_ARG_SCALAR, RS_COMPLEX128, 0, {0}};
  r.value.c128[0] = re;
  r.value.c128[1] = im;
  return r;
}
/* A scalar of any dtype from its bytes (rs_dtype_size(dtype) of them, copied). An invalid
 * dtype or a NULL value gives an argument the launch rejects. The rs_arg_* constructors
 * only fill a struct: they take no reference on an array, which the caller keeps alive
 * until the launch returns (and, for device arrays, until the kernel has run). */
RS_API rs_arg rs_arg_scalar(rs_dtype dtype, const void *value);

/* The count and the array of an argument list, for rs_kernel_launch's last two
 * parameters: rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(x), rs_arg_i32(n))). */
#ifdef __cplusplus
/* C++ has no compound literals: the array of an initializer_list lives to the end of the
 * full expression, which is the launch call. The count is an unevaluated sizeof, so each
 * argument is evaluated once, as in C. */
extern "C++" {
namespace rs_detail {
template <class... T> char (&rs_args_count(const T &...))[sizeof...(T)];
}
}
#define RS_ARGS(...) \
  (int)sizeof(::rs_detail::rs_args_count(__VA_ARGS__)), std::initializer_list<rs_arg>{__VA_ARGS__}.begin()
#else
#define RS_ARGS(...) \
  (int)(sizeof((rs_arg[]){__VA_ARGS__}) / sizeof(rs_arg)), (const rs_arg[]){__VA_ARGS__}
#endif

/* ---- launching ------------------------------------------------------------------------ */

/* Flags of rs_launch_config. */
#define RS_LAUNCH_SYNC 0x1u /* wait for the kernel and return its fault, if any */

typedef struct rs_launch_config {
  unsigned grid[3];    /* blocks per dimension; grid[0] = 0: cover `elements` */
  unsigned block[3];   /* threads per dimension; block[0] = 0: from occupancy */
  size_t shared_bytes; /* dynamic shared memory per block */
  rs_stream *stream;   /* NULL = the context's default stream */
  int64_t elements;    /* what the launch covers (sizes a computed grid; the idle check) */
  unsigned flags;      /* RS_LAUNCH_SYNC */
} rs_launch_config;

/* Launch k over cfg with nargs arguments (asynchronous, see the launch model). Errors
 * before anything is queued: RS_ERR_LAUNCH (argument mismatch, block over the kernel's
 * limit, shared memory over the device's, grid[0] = 0 with no elements),
 * RS_ERR_DESTROYED (a destroyed stream), RS_ERR_TRANSFER_REFUSED (the guard). A fault of
 * an earlier launch of k that was not yet reported is returned first (see above).
 * Thread-safe. */
RS_API rs_status rs_kernel_launch(rs_kernel *k, const rs_launch_config *cfg, int nargs, const rs_arg *args);

/* The grid and block a launch with cfg would use (zeros filled in), without launching.
 * Thread-safe. */
RS_API rs_status rs_kernel_resolve_config(const rs_kernel *k, const rs_launch_config *cfg,
                                   rs_launch_config *out);

/* Wait for the work queued on stream (NULL = default) and return the first fault of k's
 * launches, or the stream's own error. Thread-safe. */
RS_API rs_status rs_kernel_synchronize(rs_kernel *k, rs_stream *stream);

/* Fill the __constant__ (or __device__) variable `symbol` of k's module from src, a host
 * or device array with at most the variable's bytes (contiguous or not), as an EXPLICIT
 * copy on stream through the ledger and the guard. Launches queued after it on the same
 * stream see the new value. RS_ERR_NOT_FOUND for an unknown symbol, RS_ERR_SHAPE if src
 * is larger. Thread-safe; a launch that is still running may see the old or new value. */
RS_API rs_status rs_kernel_set_constant(rs_kernel *k, const char *symbol, const rs_array *src,
                                 rs_stream *stream);

/* The counterpart (cudaMemcpyFromSymbol): read the __device__ or __constant__ variable
 * `symbol` of k's module into dst, an array of at most the variable's bytes (its first
 * bytes are read), as an EXPLICIT copy on stream through the ledger and the guard. The
 * copy is ordered after the launches queued before it on that stream, so it sees what
 * they wrote; into pageable host memory the call returns when the bytes are there.
 * RS_ERR_NOT_FOUND for an unknown symbol, RS_ERR_SHAPE if dst is larger. Thread-safe. */
RS_API rs_status rs_kernel_get_constant(rs_kernel *k, const char *symbol, rs_array *dst, rs_stream *stream);

/* ---- introspection -------------------------------------------------------------------- */

typedef enum rs_kernel_origin {
  RS_KERNEL_COMPILED = 0,     /* compiled by this create */
  RS_KERNEL_MEMORY_CACHE = 1, /* found in this process's cache */
  RS_KERNEL_DISK_CACHE = 2    /* read from RESIDENT_CACHE_DIR */
} rs_kernel_origin;

typedef enum rs_param_kind {
  RS_PARAM_SCALAR = 0,
  RS_PARAM_POINTER = 1,
  RS_PARAM_DESCRIPTOR = 2
} rs_param_kind;

typedef struct rs_kernel_param {
  char name[64];   /* as declared ("" if unnamed) */
  char type[128];  /* the declaration without the name ("const float *") */
  rs_param_kind kind;
  int read_only;   /* const T * or rs_array_const_desc: never copied back */
  size_t size;     /* bytes in the compiled kernel's parameter list */
} rs_kernel_param;

typedef struct rs_kernel_info {
  char name[128];
  int nparams;
  int max_threads_per_block;      /* the kernel's own limit on this device */
  size_t static_shared_bytes;     /* __shared__ variables */
  size_t max_dynamic_shared_bytes; /* the most cfg.shared_bytes may be */
  int registers;                  /* per thread; 0 on the simulator */
  int uses_barrier;               /* the source calls __syncthreads(), a warp collective or cooperative groups */
  rs_kernel_origin origin;
  double create_ms;               /* time rs_kernel_create took */
  int64_t launches;               /* launches queued so far */
  int64_t idle_launches;          /* launches flagged as leaving the device idle */
} rs_kernel_info;

/* What k is (launches counted so far included). Thread-safe. */
RS_API rs_status rs_kernel_get_info(const rs_kernel *k, rs_kernel_info *out);
/* Parameter index as parsed and compiled; RS_ERR_INDEX past the last. Thread-safe. */
RS_API rs_status rs_kernel_get_param(const rs_kernel *k, int index, rs_kernel_param *out);

typedef struct rs_kernel_cache_stats {
  int64_t compiles;     /* kernels compiled */
  int64_t memory_hits;  /* creates served from the process's memory cache */
  int64_t disk_hits;    /* creates served from RESIDENT_CACHE_DIR */
  int64_t disk_writes;  /* compiled kernels written to RESIDENT_CACHE_DIR */
  int64_t disk_evictions; /* files deleted to keep the directory under RESIDENT_CACHE_MAX */
} rs_kernel_cache_stats;

/* Process-wide counters since the start. Thread-safe. */
RS_API rs_status rs_kernel_cache_get_stats(rs_kernel_cache_stats *out);

/* Forget the memory cache (the disk cache stays). Thread-safe. */
RS_API void rs_kernel_cache_clear(void);

#ifdef __cplusplus
}
#endif
#endif
