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
 * Built-in kernels are part of the library and run on every backend. (User kernels in
 * CUDA C come with the kernel layer.)
 *
 * Thread safety: launches are thread-safe; concurrent launches on the same array race as
 * they would on a GPU.
 */
#ifndef RESIDENT_KERNEL_H
#define RESIDENT_KERNEL_H

#include "resident/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* x = x * a + c, elementwise, in x's own precision (float32 or float64; other dtypes are
 * RS_ERR_DTYPE). x must be contiguous (C or F): RS_ERR_NOT_CONTIGUOUS otherwise. The seed
 * pipeline's kernel: a[i] = a[i] * 1.0001f + 1. */
rs_status rs_launch_builtin_axpb(rs_array *x, double a, double c, rs_stream *stream);

/* Keep the stream busy for ms milliseconds of device time: a known delay for tests,
 * demos and timing checks. ms must be in [0, 60000]. */
rs_status rs_launch_builtin_sleep(rs_context *ctx, double ms, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
