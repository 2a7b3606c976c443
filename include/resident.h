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
 *     or managed (resident/memory.h). Views never copy.
 *   - Device and pinned memory come from a caching pool by default; the direct (Numba's
 *     deferred frees) and async (cudaMallocAsync) allocators or your own can replace it,
 *     with limits, statistics and clear out-of-memory reports (resident/allocator.h,
 *     docs/memory.md).
 *   - Copies (resident/transfer.h) are explicit: rs_to_device, rs_copy_to_host,
 *     rs_array_copy. Each is recorded by the ledger and may be refused by the transfer
 *     guard (resident/ledger.h).
 *   - Streams and events (resident/stream.h) order and time device work.
 *   - Kernels (resident/kernel.h) run on device arrays; a host array passed to a launch is
 *     copied in and out IMPLICITLY - recorded as such, and refusable by the guard.
 *   - rs_benchmark (resident/bench.h) times a function honestly: warm-up excluded, host
 *     time with synchronization, device time from events, and the copies inside.
 *   - Array operations (resident/ops.h, reduce.h, sort.h, random.h, linalg.h) are
 *     NumPy's - creation, elementwise math with broadcasting and fusion, reductions,
 *     sort, random numbers, matmul/SVD/solve - run where their data is: device arrays on
 *     the device, host arrays on the host (C loops, NumPy's role). Results stay there;
 *     every op can write into an existing `out`.
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
 *   rs_array *host, *dev, *back;
 *   CHECK(rs_host_array_wrap(&host, ctx, data, 1, &n, RS_FLOAT32, NULL));  // no copy
 *   CHECK(rs_to_device(&dev, host, NULL, 0));              // 1 explicit H2D copy
 *   CHECK(rs_launch_builtin_axpb(dev, 2.0, 1.0, NULL));    // dev = 2*dev + 1, on the device
 *   CHECK(rs_copy_to_host(&back, dev, NULL));              // 1 explicit D2H copy
 *   const float *r = rs_array_host_data(back);              // r[3] == 7
 *   rs_ledger_stats st;
 *   CHECK(rs_ledger_get(ctx, &st));                         // 2 copies, 8000 bytes
 *   rs_ledger_print(stdout, &st, 0, RS_DEFAULT_PCIE_GBS);
 *   rs_array_release(back); rs_array_release(dev); rs_array_release(host);
 *   rs_context_destroy(ctx);
 *
 * CONVENTIONS
 *
 *   - Names read rs_<object>_<verb>; Numba/CuPy names are kept where they exist.
 *   - Every fallible call returns rs_status (0 = RS_OK, negative = error); out-parameters
 *     come first. rs_last_error() says what exactly went wrong. A failed call changes
 *     nothing and leaks nothing. The library never aborts and prints only when asked
 *     (the guard's "log" mode, rs_ledger_print).
 *   - Strides are in bytes. Shapes and strides are int64_t.
 *   - Ownership: a function that returns a handle through an out-parameter gives the
 *     caller one reference (release / destroy it). Thread safety is stated per header.
 *
 * ENVIRONMENT (read once, when a context is created)
 *
 *   RESIDENT_BACKEND          auto | cuda | sim            backend for RS_BACKEND_AUTO
 *   RESIDENT_SIM_DEVICE_MEMORY bytes ("1GiB", "512MB")     simulated device memory
 *                                                           (default min(8 GiB, RAM/2))
 *   RESIDENT_SIM_THREADS      count (0 = all cores)        host threads of simulator kernels
 *   RESIDENT_TRANSFER_GUARD   allow | log | disallow | disallow_explicit, or per
 *                             direction "h2d=disallow,d2h=log"
 *   RESIDENT_LEDGER_TIMING    copies | kernels | all | none device timing (default copies)
 *   RESIDENT_LEDGER_ENTRIES   count (default 65536)        entries kept in the ledger log
 *   RESIDENT_CACHE_DIR        absolute directory |         compiled user kernels (default
 *                             off | none | 0               $XDG_CACHE_HOME/resident or
 *                                                           ~/.cache/resident); a relative
 *                                                           path fails rs_context_create
 *                                                           (RS_ERR_PARSE). Used only when
 *                                                           it is this user's and nobody
 *                                                           else can write it (else memory
 *                                                           only, said once in the log);
 *                                                           see resident/kernel.h, CACHE
 *   RESIDENT_CACHE_MAX        bytes ("256MiB") | none      what that directory may hold
 *                                                           (default 1GiB): past it, the
 *                                                           least recently used kernels go
 *   RESIDENT_ALLOCATOR        pool | direct | async        device allocator (default pool;
 *                                                           resident/allocator.h)
 *   RESIDENT_POOL_LIMIT       bytes ("12GiB"), a fraction  cap on the device memory the
 *                             ("0.8") or a percentage      allocator holds (default none;
 *                             ("80%") of device memory     "0" = none)
 *   RESIDENT_MAX_PENDING_DEALLOCS_COUNT count >= 1         direct allocator: flush the
 *                                                           queue above this many frees (10)
 *   RESIDENT_MAX_PENDING_DEALLOCS_RATIO fraction in (0, 1] ... or above this share of the
 *                                                           device memory (0.2)
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

#endif
