/* Copies and memsets: checked and planned on the calling thread (so a bad call fails
 * at once with a message, as cudaMemcpyAsync does), executed on the stream's worker.
 *
 * A copy whose host side is pageable memory completes before the call returns: CUDA
 * stages or waits on such copies, so code written for it may reuse the buffer right
 * away. Pinned, mapped and managed memory give truly asynchronous copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/sim/sim_internal.h"
#include "core/checked.h"
#include "core/error.h"
#include "core/layout.h"
#include "core/strided.h"

/* Below these sizes spreading over threads costs more than it saves. */
#define SIM_PAR_CONTIG_BYTES ((size_t)4 << 20)
#define SIM_PAR_STRIDED_BYTES ((size_t)1 << 20)
#define SIM_PAR_BLOCK ((size_t)64 << 10)

static const char *const dir_names[] = {"H2D", "D2H", "D2D", "H2H"};

/* ---- contiguous ---------------------------------------------------------------------- */

typedef struct flat_copy {
  rs_backend *b;
  char *dst;
  const char *src;
  size_t bytes;
} flat_copy;

static void copy_blocks(int64_t begin, int64_t end, void *arg) {
  flat_copy *c = arg;
  size_t lo = (size_t)begin * SIM_PAR_BLOCK;
  size_t hi = (size_t)end * SIM_PAR_BLOCK;
  if (hi > c->bytes) hi = c->bytes;
  memcpy(c->dst + lo, c->src + lo, hi - lo);
}

static void run_flat_copy(void *arg) {
  flat_copy *c = arg;
  int overlap = c->dst < c->src + c->bytes && c->src < c->dst + c->bytes;
  if (overlap || c->bytes < SIM_PAR_CONTIG_BYTES || rs_sim_thread_count(c->b) == 1) {
    memmove(c->dst, c->src, c->bytes);
    return;
  }
  int64_t blocks = (int64_t)((c->bytes + SIM_PAR_BLOCK - 1) / SIM_PAR_BLOCK);
  rs_sim_parallel_for(c->b, blocks, copy_blocks, c);
}

/* Queue a checked flat copy on stream (wait: the call returns once it is done). */
static rs_status submit_flat_copy(rs_backend *b, void *dst, const void *src, size_t bytes, void *stream,
                                  const char *what, int wait) {
  flat_copy *c = malloc(sizeof *c);
  if (!c) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", what);
  *c = (flat_copy){b, rs_sim_translate(dst), rs_sim_translate(src), bytes};
  rs_status st = sim_submit(b, stream, what, run_flat_copy, c, free, wait);
  if (st != RS_OK) free(c);
  return st;
}

rs_status sim_copy_async(rs_backend *b, void *dst, const void *src, size_t bytes,
                         rs_copy_dir dir, void *stream) {
  if ((unsigned)dir > RS_DIR_H2H)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim copy_async: unknown direction %d", (int)dir);
  const char *dn = dir_names[dir];
  if (bytes == 0) return RS_OK;
  if (!dst || !src)
    return rs_fail(RS_ERR_NULL_POINTER, "sim copy_async %s(%p <- %p, %zu bytes): NULL pointer", dn,
                   dst, src, bytes);
  if ((dir == RS_DIR_H2D || dir == RS_DIR_H2H) && rs_sim_is_device_ptr(src))
    return rs_fail(RS_ERR_MEMORY_KIND, "sim copy_async %s: source %p is device memory, not host",
                   dn, src);
  if ((dir == RS_DIR_D2H || dir == RS_DIR_H2H) && rs_sim_is_device_ptr(dst))
    return rs_fail(RS_ERR_MEMORY_KIND,
                   "sim copy_async %s: destination %p is device memory, not host", dn, dst);
  char what[64];
  snprintf(what, sizeof what, "sim copy_async %s (destination)", dn);
  RS_TRY(sim_check_device_range(b, dst, 0, (int64_t)bytes, what));
  snprintf(what, sizeof what, "sim copy_async %s (source)", dn);
  RS_TRY(sim_check_device_range(b, src, 0, (int64_t)bytes, what));

  int wait = dir == RS_DIR_H2H || (dir == RS_DIR_H2D && sim_is_pageable(b, src)) ||
             (dir == RS_DIR_D2H && sim_is_pageable(b, dst));
  snprintf(what, sizeof what, "sim copy_async %s", dn);
  return submit_flat_copy(b, dst, src, bytes, stream, what, wait);
}

/* Between two simulated devices: each range is checked against its own device's heap, the
 * bytes move on the destination's stream. The devices share the host's memory, so the
 * access is always direct. */
rs_status sim_copy_peer_async(rs_backend *dst_b, void *dst, rs_backend *src_b, const void *src, size_t bytes,
                              void *stream, int *direct) {
  if (direct) *direct = 1;
  if (bytes == 0) return RS_OK;
  if (!dst || !src)
    return rs_fail(RS_ERR_NULL_POINTER, "sim copy_peer_async(%p <- %p, %zu bytes): NULL pointer", dst, src, bytes);
  if (!rs_sim_is_device_ptr(dst) || !rs_sim_is_device_ptr(src))
    return rs_fail(RS_ERR_MEMORY_KIND, "sim copy_peer_async: %s %p is not device memory",
                   rs_sim_is_device_ptr(dst) ? "source" : "destination", rs_sim_is_device_ptr(dst) ? src : dst);
  RS_TRY(sim_check_device_range(dst_b, dst, 0, (int64_t)bytes, "sim copy_peer_async (destination)"));
  RS_TRY(sim_check_device_range(src_b, src, 0, (int64_t)bytes, "sim copy_peer_async (source)"));
  return submit_flat_copy(dst_b, dst, src, bytes, stream, "sim copy_peer_async", 0);
}

typedef struct fill {
  void *dst;
  int value;
  size_t bytes;
} fill;

static void run_fill(void *arg) {
  fill *f = arg;
  memset(f->dst, f->value, f->bytes);
}

rs_status sim_memset_async(rs_backend *b, void *dst, int value, size_t bytes, void *stream) {
  if (bytes == 0) return RS_OK;
  if (!dst) return rs_fail(RS_ERR_NULL_POINTER, "sim memset_async(NULL, %zu bytes)", bytes);
  RS_TRY(sim_check_device_range(b, dst, 0, (int64_t)bytes, "sim memset_async"));
  fill *f = malloc(sizeof *f);
  if (!f) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim memset_async: out of host memory");
  *f = (fill){rs_sim_translate(dst), value, bytes};
  rs_status st = sim_submit(b, stream, "sim memset_async", run_fill, f, free, 0);
  if (st != RS_OK) free(f);
  return st;
}

/* ---- strided --------------------------------------------------------------------------- */

/* The plan and the loops are the core's (src/core/strided.c); the simulator only spreads
 * a plan's ranges over its threads. */
typedef struct sim_strided {
  rs_backend *b;
  rs_strided_plan plan;
} sim_strided;

static void run_strided(void *arg) {
  sim_strided *t = arg;
  if ((size_t)t->plan.total * t->plan.itemsize >= SIM_PAR_STRIDED_BYTES)
    rs_sim_parallel_for(t->b, t->plan.total, rs_strided_copy_range, &t->plan);
  else
    rs_strided_copy_range(0, t->plan.total, &t->plan);
}

rs_status sim_copy_strided_async(rs_backend *b, const rs_strided_copy *c, void *stream) {
  if (!c) return rs_fail(RS_ERR_NULL_POINTER, "sim copy_strided_async: descriptor is NULL");
  if (c->ndim < 0 || c->ndim > RS_MAX_DIMS)
    return rs_fail(c->ndim < 0 ? RS_ERR_INVALID_ARGUMENT : RS_ERR_TOO_MANY_DIMS,
                   "sim copy_strided_async: ndim %d outside 0..%d", c->ndim, RS_MAX_DIMS);
  size_t is = c->itemsize;
  if (is != 1 && is != 2 && is != 4 && is != 8 && is != 16)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "sim copy_strided_async: itemsize %zu is not 1, 2, 4, 8 or 16", is);
  int64_t total = 1;
  for (int d = 0; d < c->ndim; d++) {
    if (c->shape[d] < 0)
      return rs_fail(RS_ERR_SHAPE, "sim copy_strided_async: shape[%d] = %lld is negative", d,
                     (long long)c->shape[d]);
    if (rs_mul_i64(total, c->shape[d], &total))
      return rs_fail(RS_ERR_OVERFLOW, "sim copy_strided_async: element count overflows");
  }
  if (total == 0) return RS_OK;
  for (int d = 0; d < c->ndim; d++)
    if (c->dst_strides[d] == 0 && c->shape[d] > 1)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "sim copy_strided_async: destination stride %d is 0 over %lld elements "
                     "(elements would overwrite each other)",
                     d, (long long)c->shape[d]);
  if (!c->dst || !c->src)
    return rs_fail(RS_ERR_NULL_POINTER, "sim copy_strided_async(%p <- %p): NULL pointer", c->dst,
                   c->src);
  int64_t dlo, dhi, slo, shi;
  int empty = 0;
  if (rs_layout_extent(&dlo, &dhi, &empty, c->ndim, c->shape, c->dst_strides, is) ||
      rs_layout_extent(&slo, &shi, &empty, c->ndim, c->shape, c->src_strides, is))
    return rs_fail(RS_ERR_OVERFLOW, "sim copy_strided_async: the strides reach beyond int64 bytes");
  RS_TRY(sim_check_device_range(b, c->dst, dlo, dhi, "sim copy_strided_async (destination)"));
  RS_TRY(sim_check_device_range(b, c->src, slo, shi, "sim copy_strided_async (source)"));

  sim_strided *t = malloc(sizeof *t);
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim copy_strided_async: out of host memory");
  t->b = b;
  rs_strided_plan_make(&t->plan, c, rs_sim_translate(c->dst), rs_sim_translate(c->src));
  rs_status st = sim_submit(b, stream, "sim copy_strided_async", run_strided, t, free, 0);
  if (st != RS_OK) free(t);
  return st;
}
