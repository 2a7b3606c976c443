/* resident/random.h - random numbers from a seed, into new or existing arrays.
 *
 * A generator is a plain value: a seed and a position in its stream of numbers. Every
 * call draws the next rs_array_size() numbers and advances the position, so a sequence
 * of calls is reproducible from the seed, and an array can be refilled in place with
 * new numbers (no allocation: the `_into` forms). Element i (in C order) of a call takes
 * counter block `offset + i` of a counter-based generator (Philox4x32-10: cuRAND's on the
 * GPU, the library's own on the host and the simulator), so the numbers do not depend
 * on the launch configuration or the number of threads. Results are reproducible for a
 * seed: the GPU (cuRAND's Philox core) and the host use the same counter layout and the
 * same conversions, so uniform and integer numbers are the same bits on both, normal
 * ones the same to the last place or so (the device's log and sin/cos).
 *
 * Where: the creation forms take `where` as resident/ops.h; the `_into` forms fill the
 * array where it lives (host arrays on the calling thread, device arrays on `stream`).
 * Dtypes: uniform and normal take float16/32/64 (complex: both parts); integers takes
 * integer dtypes (and bool). Bad bounds (low >= high, a NaN, stddev < 0) are
 * RS_ERR_INVALID_ARGUMENT.
 *
 * Thread safety: as every op; one rs_rng must not be used by two threads at once.
 */
#ifndef RESIDENT_RANDOM_H
#define RESIDENT_RANDOM_H

#include "resident/export.h"

#include <stdint.h>
#include "resident/array.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_rng {
  uint64_t seed;
  uint64_t offset; /* counter blocks used so far */
} rs_rng;

static inline rs_rng rs_rng_seed(uint64_t seed) {
  rs_rng r = {seed, 0};
  return r;
}

/* Uniform in [low, high). */
RS_API rs_status rs_random_uniform(rs_array **out, rs_rng *rng, rs_context *ctx, rs_mem_kind where,
                            int ndim, const int64_t *shape, rs_dtype dtype, double low,
                            double high, rs_stream *stream);
RS_API rs_status rs_random_uniform_into(rs_array *dst, rs_rng *rng, double low, double high,
                                 rs_stream *stream);

/* Normal with mean and standard deviation stddev (Box-Muller). */
RS_API rs_status rs_random_normal(rs_array **out, rs_rng *rng, rs_context *ctx, rs_mem_kind where,
                           int ndim, const int64_t *shape, rs_dtype dtype, double mean,
                           double stddev, rs_stream *stream);
RS_API rs_status rs_random_normal_into(rs_array *dst, rs_rng *rng, double mean, double stddev,
                                rs_stream *stream);

/* Integers uniform in [low, high). */
RS_API rs_status rs_random_integers(rs_array **out, rs_rng *rng, rs_context *ctx, rs_mem_kind where,
                             int ndim, const int64_t *shape, rs_dtype dtype, int64_t low,
                             int64_t high, rs_stream *stream);
RS_API rs_status rs_random_integers_into(rs_array *dst, rs_rng *rng, int64_t low, int64_t high,
                                  rs_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
