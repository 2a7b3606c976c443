/* resident/memory.h - host memory kinds: pinned, mapped, managed, and page-locking or
 * mapping existing host memory for a scope.
 *
 * Which to use (docs/memory.md has the measured figures):
 * - pinned: the source or destination of frequent copies; copies from it are truly
 *   asynchronous and run at full link speed.
 * - mapped: small data the device reads once or writes rarely (zero copy, every access
 *   crosses the link).
 * - managed: data touched from both sides in irregular patterns; pages migrate.
 *
 * Ownership: returned arrays carry one reference (rs_array_release). Thread-safe.
 */
#ifndef RESIDENT_MEMORY_H
#define RESIDENT_MEMORY_H

#include "resident/export.h"

#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags for mapped and pinned host memory. */
#define RS_HOST_PORTABLE 0x1u      /* usable by every context, not only this one */
#define RS_HOST_WRITE_COMBINED 0x2u /* fast for the device to read, very slow for the host to read */

/* Page-locked host array. flags: RS_HOST_PORTABLE. Without flags the memory comes from
 * the context's pinned pool (resident/allocator.h), so pinning is paid once; a pooled
 * block used by an asynchronous copy is reused only after that copy has finished. */
RS_API rs_status rs_pinned_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                          rs_dtype dtype, const int64_t *strides, rs_order order,
                          unsigned flags);
RS_API rs_status rs_pinned_array_like(rs_array **out, const rs_array *like);

/* Mapped host array: host-visible, and rs_array_device_data() gives the address kernels
 * use. flags: RS_HOST_PORTABLE | RS_HOST_WRITE_COMBINED. */
RS_API rs_status rs_mapped_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                          rs_dtype dtype, const int64_t *strides, rs_order order,
                          unsigned flags);
RS_API rs_status rs_mapped_array_like(rs_array **out, const rs_array *like);

/* Managed (unified) array. attach: RS_ATTACH_GLOBAL (any stream may touch it) or
 * RS_ATTACH_HOST (the host owns it until a stream attaches it). */
typedef enum rs_attach { RS_ATTACH_GLOBAL = 0, RS_ATTACH_HOST = 1 } rs_attach;
RS_API rs_status rs_managed_array(rs_array **out, rs_context *ctx, int ndim, const int64_t *shape,
                           rs_dtype dtype, const int64_t *strides, rs_order order,
                           rs_attach attach);

/* Prefetch the pages of a managed array to where (RS_MEM_DEVICE: the context's device;
 * RS_MEM_HOST: host memory), ordered on stream (NULL: the legacy default stream) like a
 * copy: work queued after it on that stream finds the pages there, without faulting them
 * in one by one (cudaMemPrefetchAsync). The pages of every element of the view move (a
 * strided view: the span from its lowest to its highest byte). The ledger records it as
 * an entry of its own kind, RS_ENTRY_PREFETCH (resident/ledger.h) - counted and timed,
 * but not a copy. On the simulator nothing migrates (one address space): the prefetch is
 * queued, costs what moving those bytes would, and is recorded the same way. An empty
 * array prefetches nothing and records nothing. Errors: NULL or released a, an array that
 * is not managed (RS_ERR_MEMORY_KIND: device and pinned memory do not move; copy them),
 * where other than DEVICE or HOST (RS_ERR_INVALID_ARGUMENT), a stream of another context.
 * Thread-safe. */
RS_API rs_status rs_array_prefetch(const rs_array *a, rs_mem_kind where, rs_stream *stream);

/* Advice about how a managed array will be used (cudaMemAdvise), for the pages of the
 * array's span. where names the processor the advice is about: RS_MEM_DEVICE (the
 * context's device) or RS_MEM_HOST (ignored by the read-mostly pair).
 *   READ_MOSTLY            each processor that reads keeps a read-only copy; a write
 *                          anywhere invalidates the others
 *   PREFERRED_LOCATION     the pages' home is `where`; others map them rather than
 *                          migrate them when they can
 *   ACCESSED_BY            `where` keeps a mapping to the pages wherever they are, so its
 *                          accesses do not fault
 * and the UNSET_ form of each undoes it. The simulator checks and keeps the advice (there is
 * nothing to migrate). Errors: as rs_array_prefetch, and an advice outside the enum
 * (RS_ERR_INVALID_ARGUMENT). Thread-safe; takes effect for work queued afterwards. */
typedef enum rs_mem_advice {
  RS_ADVISE_READ_MOSTLY = 1,
  RS_ADVISE_UNSET_READ_MOSTLY = 2,
  RS_ADVISE_PREFERRED_LOCATION = 3,
  RS_ADVISE_UNSET_PREFERRED_LOCATION = 4,
  RS_ADVISE_ACCESSED_BY = 5,
  RS_ADVISE_UNSET_ACCESSED_BY = 6
} rs_mem_advice;
RS_API rs_status rs_array_advise(const rs_array *a, rs_mem_advice advice, rs_mem_kind where);

/* Page-lock the memory of an existing pageable host array for a scope (Numba's
 * `with cuda.pinned(arr)`). While the scope is open the array's copies run as pinned
 * copies and rs_array_kind() reports RS_MEM_PINNED. Scopes on one buffer do not nest:
 * a second begin is RS_ERR_STATE. end without begin is RS_ERR_STATE. end waits for
 * nothing: the caller must have synchronized copies that use the memory. */
RS_API rs_status rs_pinned_begin(rs_array *host_array);
RS_API rs_status rs_pinned_end(rs_array *host_array);

/* Map an existing pageable host array into the device address space for a scope
 * (Numba's `with cuda.mapped(arr) as d`). *device_view is a new array of kind
 * RS_MEM_MAPPED over the same bytes, usable by kernels; release it and then call
 * rs_mapped_end. end while a device view still lives is RS_ERR_STATE. */
RS_API rs_status rs_mapped_begin(rs_array **device_view, rs_array *host_array);
RS_API rs_status rs_mapped_end(rs_array *host_array);

#ifdef __cplusplus
}
#endif
#endif
