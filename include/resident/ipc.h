/* resident/ipc.h - sharing a device array with another process (CUDA IPC).
 *
 * rs_ipc_export writes a fixed-size, plain-bytes handle (send it through a pipe, a file, a
 * socket); another process opens it with rs_ipc_open and gets an array over the same
 * device memory - no copy. Writes on either side are seen by the other once ordered (a
 * synchronize of the writer's stream and a message, or the reader's own synchronization).
 *
 * What a handle holds: the backend and device, the allocation's own IPC handle, the array's
 * offset inside that allocation (arrays of the caching pool are blocks inside larger
 * segments: the segment is shared and the offset picks the block), shape, byte strides,
 * dtype, the exporting process, and a magic, a version and a checksum, so a garbled or
 * truncated handle is refused rather than mapped.
 *
 * Which memory: device arrays (RS_MEM_DEVICE) with non-negative strides. On CUDA, memory
 * of cudaMalloc - the default pool and the direct allocator; the async allocator
 * (cudaMallocAsync) is refused, its pools not being created shareable. On the simulator,
 * device allocations of 1 MiB or more, which every pool segment is: they are backed by
 * shared memory (a memfd) that another process on the machine maps.
 *
 * Lifetime: the exporter keeps the array alive while others use it (the handle holds no
 * reference); a handle of freed memory or of a process that has exited is stale and is
 * refused at open (RS_ERR_DESTROYED on the simulator, the driver's error on CUDA). The
 * opened array's release closes the mapping after the work queued on it (the stream order
 * of foreign memory, resident/array.h); on CUDA the close itself happens at the next
 * rs_ipc_open or when the context is destroyed, as it may make no CUDA call where the
 * release runs. A handle is opened in another process only, and once per process (as
 * cudaIpcOpenMemHandle requires).
 */
#ifndef RESIDENT_IPC_H
#define RESIDENT_IPC_H

#include "resident/export.h"
#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RS_IPC_HANDLE_BYTES 768

/* Opaque bytes; copy them as they are. */
typedef struct rs_ipc_handle {
  unsigned char bytes[RS_IPC_HANDLE_BYTES];
} rs_ipc_handle;

/* Fill *out for a. Errors: NULL arguments, a released array, memory of another kind
 * (RS_ERR_MEMORY_KIND), a negative stride (RS_ERR_INVALID_ARGUMENT), memory the backend
 * cannot share (RS_ERR_UNSUPPORTED: the async allocator; a small heap allocation of the
 * simulator). *out is zeroed on failure. Thread-safe. */
RS_API rs_status rs_ipc_export(rs_ipc_handle *out, const rs_array *a);

/* Open a handle another process exported: *out is a device array of ctx over that memory
 * (one reference). Refused with a message, changing nothing: a garbled handle (magic,
 * version or checksum), one of another backend or device than ctx's, one exported by this
 * very process, a stale one (see above). Thread-safe. */
RS_API rs_status rs_ipc_open(rs_array **out, rs_context *ctx, const rs_ipc_handle *h);

/* ---- events, shared the same way, to order work across the processes ----------------
 * Create the event with RS_EVENT_INTERPROCESS | RS_EVENT_DISABLE_TIMING (resident/stream.h),
 * export it once, and open the handle in the other process: both sides then have an
 * rs_event for the same event - rs_event_record in one, rs_stream_wait_event (the device
 * waits, not the host), rs_event_synchronize or rs_event_query in the other. A wait is for
 * the record that was the latest when the wait was queued. Destroy each side's handle with
 * rs_event_destroy. On the simulator the event lives in shared memory and a waiting
 * stream polls it. */

/* Fill *out for ev. Errors: NULL arguments, a destroyed event, an event created without
 * RS_EVENT_INTERPROCESS or itself opened from a handle (RS_ERR_INVALID_ARGUMENT). *out is
 * zeroed on failure. Thread-safe. */
RS_API rs_status rs_ipc_event_export(rs_ipc_handle *out, const rs_event *ev);

/* Open an event handle another process exported, as a new event of ctx (the caller
 * destroys it). Refused like rs_ipc_open: garbled, another backend or device, this
 * process's own, stale (the exporter destroyed the event or exited), or a memory handle.
 * Thread-safe. */
RS_API rs_status rs_ipc_event_open(rs_event **out, rs_context *ctx, const rs_ipc_handle *h);

#ifdef __cplusplus
}
#endif
#endif
