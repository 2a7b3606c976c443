/* resident/transfer.h - explicit copies between host and device.
 *
 * Every byte that moves between memories goes through one internal copy path, which
 * the ledger records (resident/ledger.h) and the transfer guard may refuse.
 *
 * Streams: a NULL stream means the context's default stream. With a stream given, the
 * copy is ordered on that stream and the call returns without waiting - EXCEPT when a
 * side of the copy is pageable host memory (RS_MEM_HOST): then the call returns only
 * when the host memory may be reused (H2D) or read (D2H). The device cannot reach
 * pageable memory asynchronously, so such a copy never pretends to be asynchronous;
 * use pinned memory for copies that overlap other work.
 * Non-contiguous arrays on either side are handled: they are gathered or scattered
 * through a contiguous temporary on the side that is non-contiguous, and the copy
 * then completes before the call returns.
 *
 * Ownership: returned arrays carry one reference. Thread-safe (copies into the same
 * destination from several threads at once race as they would on any memory).
 */
#ifndef RESIDENT_TRANSFER_H
#define RESIDENT_TRANSFER_H

#include "resident/export.h"

#include "resident/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags for rs_to_device. */
#define RS_COPY_NONE 0x1u /* allocate the device array only, copy nothing (Numba's copy=False) */

/* A new device array with src's shape and dtype (C or F order as src when src is
 * contiguous, else C), filled from src (any host-visible kind, or device). */
RS_API rs_status rs_to_device(rs_array **out, const rs_array *src, unsigned flags, rs_stream *stream);

/* asarray (CuPy's asarray, Numba's to_device of a device array): a with memory of kind
 * `where`. When a already is of that kind (the kind it was allocated or wrapped as), *out
 * is a new handle over the SAME memory, with the same layout - no copy, no allocation, no
 * ledger entry; release both handles. Otherwise *out is a new array of that kind (a's
 * shape, dtype and order when a is contiguous, else C order) filled by one explicit copy
 * through the copy path (recorded by the ledger, subject to the transfer guard), ordered
 * on stream as the other copies of this header are. */
RS_API rs_status rs_asarray(rs_array **out, const rs_array *a, rs_mem_kind where, rs_stream *stream);

/* Copy src into an existing device array of the same shape and dtype. */
RS_API rs_status rs_to_device_into(rs_array *dst, const rs_array *src, rs_stream *stream);

/* A new pageable host array (same shape and dtype) filled from src. */
RS_API rs_status rs_copy_to_host(rs_array **out, const rs_array *src, rs_stream *stream);

/* Copy src into an existing host-visible array (host, pinned, mapped or managed) of the
 * same shape and dtype. */
RS_API rs_status rs_copy_to_host_into(rs_array *dst, const rs_array *src, rs_stream *stream);

/* The general copy: any kind to any kind (device-to-device, host-to-host too), same
 * shape and dtype. A shape or dtype mismatch is an error and nothing is written.
 *
 * dst and src may belong to two contexts (two devices, or two contexts on one):
 * - device to device: a peer copy, recorded as RS_P2P in dst's ledger; direct where the
 *   devices allow it (peer access is enabled once per pair), staged through the host by
 *   the driver otherwise. It runs on stream, which must be NULL or one of dst's context.
 * - a host side: the copy runs in the device side's context (dst's when both are host)
 *   and is recorded there as the H2D, D2H or H2H it is; a host view must be of a layout
 *   rs_host_array_wrap accepts (no negative strides).
 * The host first waits for the other context's queued work (a recorded wait there), and
 * the call returns with the copy finished: a use of memory by another context's queue
 * cannot be tracked, so none is left pending. */
RS_API rs_status rs_array_copy(rs_array *dst, const rs_array *src, rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
