/* Internal: pageable H2D copies that the device pulls from the staging arena as the host
 * fills it (staging_pull.c), for copies up to RS_PULL_MAX_BYTES on backends that have
 * stage_pull; larger ones, D2H and other backends go by DMA pieces (staging.c). All
 * functions: the staging lock held, the arena and crew ready. */
#ifndef RS_TRANSFER_STAGING_PULL_H
#define RS_TRANSFER_STAGING_PULL_H

#include "backend/backend.h"

struct rs_context;

/* Slices: a lane's claim and the device's unit. 32 and 64 KiB measured the same on the
 * H200; the smaller lets the device start sooner. */
#define RS_PULL_SLICE ((size_t)32 << 10)
/* The largest copy pulled. On the H200 (2026-12-02, bench/pageable's last column, DMA
 * pieces alone, in the same run), pulled against DMA pieces: 21.4 against 18.8 GB/s at
 * 1 MiB, 29.4 / 25.2 at 2 MiB, 33.3 / 29.6 at 4 MiB, 35.0 / 34.7 at 8 MiB; in an earlier
 * call 37.1 / 38.4 at 16 MiB, and a throwaway program's pull reached 32-34 at 64 MiB where
 * the DMA pieces reach 41-45. Where they tie the DMAs are kept: they leave the
 * multiprocessors to the kernels. At most the arena. */
#define RS_PULL_MAX_BYTES ((size_t)8 << 20)

/* 1 if a staged copy of this size and direction is pulled. */
int rs_pull_applies(const struct rs_context *ctx, size_t bytes, rs_copy_dir dir);

/* The flags and the device's aliases of them and of the arena (after the arena exists). */
rs_status rs_pull_prepare(struct rs_context *ctx);
void rs_pull_release(struct rs_context *ctx);

/* Until the device has freed every slice of earlier pulls: before anything else writes
 * the arena. Asks the device after 2 ms, and fails if it never will. */
rs_status rs_pull_drain(struct rs_context *ctx);

/* The copy, once the arena is quiet (rs_pull_drain and no DMA of an earlier copy left);
 * returns once every byte of src is in the arena and the device's side is queued on
 * stream (it may still be reading: the copy path synchronizes). */
rs_status rs_pull_copy(struct rs_context *ctx, void *dst, const void *src, size_t bytes, void *stream);

#endif
