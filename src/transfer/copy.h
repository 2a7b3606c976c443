/* Internal: THE copy path. Every byte that moves between two arrays goes through
 * rs_copy_path, which asks the transfer guard, records the copy in the ledger and
 * then moves the data. */
#ifndef RS_TRANSFER_COPY_H
#define RS_TRANSFER_COPY_H

#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "memory/buffer.h"
#include "stream/stream.h"

/* Copy src into dst (same shape and dtype, same context) on stream (NULL = legacy).
 * Checks everything before anything moves; on error dst is untouched. */
rs_status rs_copy_path(rs_array *dst, const rs_array *src, rs_stream *stream,
                       const rs_copy_cause *cause);

/* Which side of the bus a kind lives on: 1 = device (device, managed), 0 = host. */
int rs_kind_on_device(rs_mem_kind kind);

#endif
