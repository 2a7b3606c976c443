/* Internal: THE copy path. Every byte that moves between two arrays goes through
 * rs_copy_path, which asks the transfer guard, records the copy in the ledger and
 * then moves the data. */
#ifndef RS_TRANSFER_COPY_H
#define RS_TRANSFER_COPY_H

#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "memory/buffer.h"
#include "stream/stream.h"

/* Copy src into dst (same shape and dtype; contexts may differ: copy_across.h) on stream (NULL = legacy).
 * Checks everything before anything moves; on error dst is untouched. */
rs_status rs_copy_path(rs_array *dst, const rs_array *src, rs_stream *stream,
                       const rs_copy_cause *cause);

/* The parts (copy.c): the copy within one context, and the checks every copy makes first
 * (both valid arrays, same shape and dtype, no overlap within one buffer). */
rs_status rs_copy_within(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause);
rs_status rs_copy_check_pair(const rs_array *dst, const rs_array *src, const char *who);

/* 1 when a and b are both dense in the same order (C or F): one block copies one into the
 * other, element 0 at the lowest address of each. */
int rs_same_dense_layout(const rs_array *a, const rs_array *b);

/* Which side of the bus a kind lives on: 1 = device (device, managed), 0 = host. */
int rs_kind_on_device(rs_mem_kind kind);

#endif
