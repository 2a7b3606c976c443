/* Internal to src/transfer: what the staging's files share (staging.c, staging_host_copy.c). */
#ifndef RS_TRANSFER_STAGING_SHARED_H
#define RS_TRANSFER_STAGING_SHARED_H

#include <stddef.h>
#include "transfer/staging.h"

/* Lock held. The lanes' threads, started once. */
rs_status rs_staging_threads(rs_staging *s);

/* Bytes a lane claims at a time of a span of `span` bytes (staging.c). */
size_t rs_staging_slice_bytes(size_t span, int lanes);

/* n bytes into pinned memory that a DMA reads next, part of a block of `block` bytes:
 * streaming stores, plain ones for the largest blocks (staging.c). */
void rs_staging_copy_into_pinned(void *dst, const void *src, size_t n, size_t block);

#endif
