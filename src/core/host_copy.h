/* Internal: host copies of large buffers that nobody reads soon (host_copy.c). */
#ifndef RS_CORE_HOST_COPY_H
#define RS_CORE_HOST_COPY_H

#include <stddef.h>

/* memcpy with non-temporal stores where the CPU has them (x86-64), plain memcpy elsewhere.
 * Meant for staging: a pinned buffer that a DMA reads next, or a user's pageable array
 * filled from one. An ordinary store first reads the destination's cache line
 * (read-for-ownership), so a copy moves three bytes through memory for each one copied;
 * streaming stores skip that read and leave the caches to the data still in use. glibc
 * switches to them itself only above a size tied to the cache, larger than a staging
 * piece. The stores are fenced before return: the bytes are visible to other threads and
 * to a DMA started after the call. */
void rs_host_copy_streaming(void *dst, const void *src, size_t bytes);

#endif
