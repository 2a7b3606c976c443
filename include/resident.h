/* resident.h - n-dimensional arrays that live on the GPU, with every copy counted.
 *
 * OVERVIEW
 *
 *   Data stays on the device until you ask for it back, and every copy between host and
 *   device is explicit, counted and timed. One rule, one copy path, one ledger.
 *
 *   - A context (resident/context.h) binds a backend - CUDA, or the CPU simulator that
 *     runs the same programs copy for copy on a machine without a GPU - and a device.
 *   - An array (resident/array.h) is a view (shape, byte strides, offset, dtype) over a
 *     reference-counted buffer of one memory kind: device, pageable host, pinned, mapped
 *     or managed (resident/memory.h; managed arrays are prefetched and advised with
 *     rs_array_prefetch / rs_array_advise, prefetches recorded by the ledger). Views
 *     never copy.
 *   - Device and pinned memory come from a caching pool by default; the direct (Numba's
 *     deferred frees) and async (cudaMallocAsync) allocators or your own can replace it,
 *     with limits, statistics and clear out-of-memory reports (resident/allocator.h,
 *     docs/memory.md).
 *   - Copies (resident/transfer.h) are explicit: rs_to_device, rs_copy_to_host,
 *     rs_array_copy, rs_asarray (which copies only when the array is of another kind).
 *     Each is recorded by the ledger and may be refused by the transfer guard
 *     (resident/ledger.h).
 *   - Memory of other libraries is wrapped without a copy (rs_device_array_wrap, DLPack
 *     import and export in resident/dlpack.h, the legacy unversioned form accepted on
 *     import, with the array API's stream handshake: rs_array_to_dlpack_on); it goes back
 *     to its owner only after the work queued on it has finished. Device arrays are shared
 *     with other processes through CUDA IPC handles (resident/ipc.h; the simulator does
 *     the same over shared memory).
 *   - Streams and events (resident/stream.h) order and time device work.
 *   - Kernels (resident/kernel.h) run on device arrays; a host array passed to a launch is
 *     copied in and out IMPLICITLY - recorded as such, and refusable by the guard.
 *   - Streamed execution (resident/streamed.h): rs_streamed_run pushes a host array
 *     through the device in chunks over several streams, so that the copies of one chunk
 *     overlap the kernels of another; the step is written once for a chunk.
 *   - Graphs (resident/graph.h): rs_graph_begin_capture / rs_graph_end_capture record the
 *     launches, ops and copies queued on a stream; rs_graph_launch replays them for about
 *     the cost of one launch. Whatever would break a capture is refused by name.
 *   - The ledger is also a timeline: rs_trace_write (resident/trace.h) writes it as Trace
 *     Event Format JSON for Perfetto and chrome://tracing (RESIDENT_TRACE writes one per
 *     context when it is destroyed), ledger scopes are named with rs_ledger_begin_named,
 *     and on CUDA every copy, kernel, wait and scope is an NVTX range in the domain
 *     "resident", so Nsight Systems shows resident's names (nothing is done when no
 *     profiler is attached).
 *   - Collectives (resident/collective.h): a communicator (rs_comm) over the contexts of
 *     several devices in one process (rs_comm_create) or over processes, one device each,
 *     joined by an id the caller hands round (rs_comm_unique_id, rs_comm_init_rank);
 *     rs_comm_all_reduce (sum, prod, min, max, mean), rs_comm_reduce_scatter,
 *     rs_comm_all_gather, rs_comm_broadcast and rs_comm_send_recv on arrays, one per local
 *     rank, through NCCL on CUDA (loaded at run time) and shared memory on the simulator;
 *     each is a collective entry in the ledger; rs_comm_get_info and rs_comm_destroy.
 *   - rs_benchmark (resident/bench.h) times a function honestly: warm-up excluded, host
 *     time with synchronization, device time from events, and the copies inside.
 *   - Array operations (resident/ops.h, reduce.h, sort.h, random.h, linalg.h) are
 *     NumPy's - creation, elementwise math with broadcasting and fusion, reductions,
 *     sort, random numbers, matmul/SVD/solve - run where their data is: device arrays on
 *     the device, host arrays on the host (C loops, NumPy's role). Results stay there;
 *     every op returns a new array or, in its `_into` form, writes into an existing one.
 *   - Manipulation and more creation to the array API standard (resident/manip.h): views
 *     (rs_array_expand_dims_axes, rs_array_squeeze_axes, rs_array_permute_dims,
 *     rs_array_moveaxis, rs_array_broadcast_to, rs_array_broadcast_arrays,
 *     rs_array_unstack) and copies with `_into` forms (rs_concat, rs_stack, rs_flip,
 *     rs_roll, rs_repeat, rs_tile, rs_meshgrid, rs_tril, rs_triu), and rs_astype_copy
 *     (astype's copy=False). The elementwise list (ops.h) has the standard's
 *     bitwise_left_shift, bitwise_right_shift, logaddexp, nextafter, signbit and round.
 *   - Indexing, searching and sets (resident/indexing.h, sets.h): rs_take,
 *     rs_take_along_axis, rs_put (integer-array reads and writes), boolean masks
 *     (rs_mask_get, rs_mask_set, rs_mask_set_scalar), rs_nonzero, rs_count_nonzero,
 *     rs_searchsorted and rs_unique_values / _counts / _inverse / _all, as NumPy 2. A
 *     result whose length depends on the data (masked reads, nonzero, unique) reads its
 *     count back: one 8-byte device-to-host copy that the ledger records as implicit,
 *     with the op as its cause; integer indices are checked the same way (their min and
 *     max) before anything is written.
 *     Statistics (resident/stats.h): var and std with correction over several axes,
 *     cumulative_sum / cumulative_prod (CUB scans on the GPU), clip and diff; sort and
 *     argsort along any axis, descending too (rs_sort_axis, rs_argsort_axis in sort.h).
 *     linalg.h also has the array API's linalg extension: rs_cholesky, rs_qr, rs_eigh,
 *     rs_eigvalsh, rs_det, rs_slogdet, rs_inv (cuSOLVER on the GPU, LAPACKE on the host),
 *     and, composed from the ops above, rs_diagonal, rs_trace, rs_outer, rs_vecdot,
 *     rs_tensordot, rs_matrix_power, rs_vector_norm, rs_matrix_norm, rs_svdvals,
 *     rs_matrix_rank, rs_pinv and NumPy's rs_lstsq.
 *
 * WORKED EXAMPLE (error handling shortened to CHECK)
 *
 *   #include <resident.h>
 *   #define CHECK(x) do { rs_status s_ = (x); if (s_) { \
 *       fprintf(stderr, "%s: %s\n", rs_status_name(s_), rs_last_error()); exit(1); } } while (0)
 *
 *   rs_context *ctx;
 *   CHECK(rs_context_create(&ctx, RS_BACKEND_AUTO, 0));   // GPU if one answers, else sim
 *   float data[1000];
 *   for (int i = 0; i < 1000; i++) data[i] = (float)i;
 *   int64_t n = 1000;
 *   rs_array *host, *dev, *y, *back;
 *   CHECK(rs_host_array_wrap(&host, ctx, data, 1, &n, RS_FLOAT32, NULL));  // no copy
 *   CHECK(rs_to_device(&dev, host, 0, NULL));                       // 1 explicit H2D copy
 *   CHECK(rs_multiply_scalar(&y, dev, rs_scalar_float(2), NULL));  // y = 2*dev, a new device array
 *   CHECK(rs_add_scalar_into(y, y, rs_scalar_float(1), NULL));     // y += 1, in place on the device
 *   CHECK(rs_copy_to_host(&back, y, NULL));                         // 1 explicit D2H copy
 *   const float *r = rs_array_host_data(back);              // r[3] == 7
 *   rs_ledger_stats st;
 *   CHECK(rs_ledger_get_stats(ctx, &st));                   // 2 copies, 8000 bytes
 *   rs_ledger_print(&st, 0, RS_DEFAULT_PCIE_GBS, stdout);
 *   rs_array_release(back); rs_array_release(y); rs_array_release(dev); rs_array_release(host);
 *   rs_context_destroy(ctx);
 *
 * CONVENTIONS (every header follows them)
 *
 *   - Names read rs_<object>_<verb>; Numba/CuPy names are kept where they exist.
 *   - Every fallible call returns rs_status (0 = RS_OK, negative = error).
 *     rs_last_error() says what exactly went wrong. A failed call changes nothing and
 *     leaks nothing. The library never aborts and prints only when asked (the guard's
 *     "log" mode, rs_ledger_print).
 *   - Argument order. A call that makes a new handle (a constructor, a view, an op that
 *     returns a new array) takes the pointer that receives it FIRST:
 *     rs_stream_create(&s, ctx, 0), rs_add(&y, a, b, stream). Every other call takes its
 *     object first, then its inputs, then the out-parameters it fills, and the stream
 *     last: rs_ledger_get_stats(ctx, &stats), rs_memory_get_stats(ctx, space, &stats),
 *     rs_array_item_double(a, index, &value, stream).
 *   - Out-parameters are write-only: `rs_array **out` (and every `T **out`) receives a
 *     NEW handle, and its previous value is never read - `rs_array *y;` uninitialised is
 *     fine, and calling rs_add(&y, ...) twice makes two arrays (release both). After a
 *     failure there is nothing to release.
 *   - A destination is an explicit argument, in one form: the `_into` variant, whose
 *     FIRST parameter is the existing array written into. Every op that makes an array
 *     has one (rs_add_into(dst, a, b, stream), rs_sum_into, rs_sort_into,
 *     rs_matmul_into, rs_expr_eval_into, ...), and so do creation (rs_zeros_into(dst,
 *     stream), rs_full_into, rs_arange_into, ...), random numbers
 *     (rs_random_uniform_into(dst, &rng, ...)) and copies (rs_to_device_into(dst, src,
 *     stream), rs_copy_to_host_into, rs_array_copy(dst, src, stream)). dst may be an
 *     input (in place) or any view; its shape, dtype and context are checked.
 *   - Every destroy and release has one signature, rs_status rs_<object>_destroy(x) or
 *     rs_<object>_release(x): NULL is RS_OK and does nothing; a handle destroyed or
 *     released already is an error (RS_ERR_DESTROYED / RS_ERR_RELEASED) with a message.
 *   - NULL means the default stream in every call that takes a stream (resident/stream.h
 *     says which one for the calls that name no context).
 *   - Enum-typed parameters are typed as their enum (rs_direction, rs_mem_kind, ...);
 *     flags are `unsigned`.
 *   - Strides are in bytes. Shapes and strides are int64_t.
 *   - Ownership: a function that returns a handle through an out-parameter gives the
 *     caller one reference (release / destroy it). Thread safety is stated per header.
 *
 * ENVIRONMENT (read once, when a context is created)
 *
 *   Each variable once, with what it takes. Unset or empty = the default. A value that
 *   does not match makes rs_context_create fail with RS_ERR_PARSE and a message naming
 *   the variable, the value and what it takes: nothing is clamped, rounded or ignored.
 *   One grammar for every number (the `resident` tool's options take the same):
 *     size      digits, optionally "." digits, then optionally a unit (any case): B;
 *               KB MB GB TB = powers of 1000; KiB MiB GiB TiB (and K M G T) = powers of
 *               1024. It must come to a whole number of bytes: "1.5GiB" yes, "1.5" no.
 *     count     digits only, in the range given
 *     fraction  a decimal in (0, 1] ("0.8", ".5") or a percentage in (0, 100] ("80%")
 *     off       off, none or 0: each "off" below takes all three
 *   No whitespace, signs, hex ("0x10"), exponents ("1e3"), inf or nan anywhere.
 *
 *   RESIDENT_BACKEND          auto | cuda | sim            backend for RS_BACKEND_AUTO
 *   RESIDENT_SIM_DEVICE_MEMORY size >= 1 byte ("1GiB")     simulated device memory
 *                                                           (default min(8 GiB, RAM/2))
 *   RESIDENT_SIM_DEVICES      count 1 to 64                devices the simulator has, each
 *                                                           with its own memory and streams
 *                                                           (default 1)
 *   RESIDENT_SIM_THREADS      count 0 to 1024              host threads of simulator kernels
 *                                                           (default 0 = one per core)
 *   RESIDENT_HOST_THREADS     count 0 to 1024              threads of host-path ops and the
 *                                                           host BLAS (default 0 = one per
 *                                                           online CPU); the process's first
 *                                                           context sets it (rs_host_threads)
 *   RESIDENT_TRANSFER_GUARD   allow | log | disallow | disallow_explicit, or per
 *                             direction "h2d=disallow,d2h=log"
 *   RESIDENT_LEDGER_TIMING    copies | kernels | all (1)   device timing (default copies)
 *                             | off
 *   RESIDENT_LEDGER_ENTRIES   count 1 to 67108864          entries kept in the ledger log
 *                             (default 65536)
 *   RESIDENT_CACHE_DIR        absolute directory |         compiled user kernels (default
 *                             off | none | 0               $XDG_CACHE_HOME/resident or
 *                                                           ~/.cache/resident); a relative
 *                                                           path fails rs_context_create
 *                                                           (RS_ERR_PARSE). Used only when
 *                                                           it is this user's and nobody
 *                                                           else can write it (else memory
 *                                                           only, said once in the log);
 *                                                           see resident/kernel.h, CACHE
 *   RESIDENT_CACHE_MAX        size >= 1 byte ("256MiB")    what that directory may hold
 *                             | off (no limit)             (default 1GiB): past it, the
 *                                                           least recently used kernels go
 *   RESIDENT_ALLOCATOR        pool | direct | async        device allocator (default pool;
 *                                                           resident/allocator.h)
 *   RESIDENT_POOL_LIMIT       size >= 1 byte ("12GiB"),    cap on the device memory the
 *                             a fraction ("0.8", "80%")    allocator holds (default off).
 *                             of device memory, or off     A number with a point and no
 *                                                           unit is a fraction: "1.5" fails
 *   RESIDENT_MAX_PENDING_DEALLOCS_COUNT count 1 to 2^63-1  direct allocator: flush the
 *                                                           queue above this many frees (10)
 *   RESIDENT_MAX_PENDING_DEALLOCS_RATIO fraction           ... or above this share of the
 *                                                           device memory (0.2)
 *   RESIDENT_PAGEABLE_STAGING auto | on | off              copies from pageable host memory
 *                                                           of 1 MiB and more through a
 *                                                           32 MiB pinned arena, in pieces
 *                                                           (an H2D up to 8 MiB: slices that
 *                                                           a kernel reads as they are
 *                                                           filled; default auto: on for
 *                                                           CUDA)
 *   RESIDENT_STAGING_THREADS  count 0 to 32                host threads that fill and empty
 *                                                           those pieces together
 *                                                           (default 0 = min(cores, 8))
 *   RESIDENT_COMM_TIMEOUT     count 1 to 86400             seconds a collective or a new
 *                                                           communicator waits for the other
 *                                                           ranks before failing with
 *                                                           RS_ERR_NOT_READY (default 300;
 *                                                           resident/collective.h)
 *   RESIDENT_TRACE            a path of printable          each context writes its trace
 *                             characters under 1024        there when destroyed
 *                             bytes; %p = process id,      (resident/trace.h); the path is
 *                             %n = context number,         created at rs_context_create,
 *                             %% = %; any other % fails    an unwritable one fails it with
 *                                                           RS_ERR_IO
 *   RESIDENT_SIM_CHECKS       count 0 to 1                 the simulator's memory and race
 *                                                           checks of user kernels (default
 *                                                           1 = on; resident/kernel.h, "The
 *                                                           simulator as a debugger")
 */
#ifndef RESIDENT_H
#define RESIDENT_H

#include "resident/version.h"
#include "resident/status.h"
#include "resident/dtype.h"
#include "resident/context.h"
#include "resident/array.h"
#include "resident/memory.h"
#include "resident/transfer.h"
#include "resident/stream.h"
#include "resident/ledger.h"
#include "resident/kernel.h"
#include "resident/bench.h"
#include "resident/allocator.h"
#include "resident/ops.h"
#include "resident/reduce.h"
#include "resident/sort.h"
#include "resident/random.h"
#include "resident/linalg.h"
#include "resident/dlpack.h"
#include "resident/ipc.h"
#include "resident/streamed.h"
#include "resident/graph.h"
#include "resident/trace.h"
#include "resident/manip.h"
#include "resident/collective.h" /* collectives over devices (issue 19) */
/* indexing, searching, sets */
#include "resident/indexing.h"
#include "resident/sets.h"
/* stats */
#include "resident/stats.h"

#endif
