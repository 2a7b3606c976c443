/* resident/bench.h - an honest benchmark helper (like cupyx.profiler.benchmark).
 *
 * rs_benchmark runs fn n_warmup times unrecorded, then n_repeat times, and records per
 * repeat:
 *   - host_ms: wall time of the call INCLUDING a synchronization of the stream at the
 *     end (a stopwatch without it measures only the queueing of asynchronous work);
 *   - device_ms: time between two events recorded on the stream around the call;
 *   - the copies inside (count, bytes, time) from a ledger scope around the call.
 * Warm-up never counts (first-call compilation, pool growth, lazy initialisation).
 *
 * Thread safety: one benchmark per context at a time (it opens ledger scopes).
 */
#ifndef RESIDENT_BENCH_H
#define RESIDENT_BENCH_H

#include "resident/export.h"

#include <stdint.h>
#include <stdio.h>
#include "resident/ledger.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The work to time. A non-RS_OK status stops the benchmark and is returned. */
typedef rs_status (*rs_bench_fn)(void *user_data);

typedef struct rs_bench_options {
  int n_warmup;       /* unrecorded calls first; >= 0 */
  int n_repeat;       /* >= 1 */
  rs_stream *stream;  /* where events are recorded and what is synchronized; NULL = legacy */
} rs_bench_options;

/* n_warmup = 10, n_repeat = 100, legacy stream. */
RS_API rs_bench_options rs_bench_defaults(void);

typedef struct rs_bench_summary {
  double mean, stddev, median, min, max;
} rs_bench_summary;

#define RS_BENCH_NAME 64
typedef struct rs_bench_result {
  char name[RS_BENCH_NAME];
  int n_repeat;
  double *host_ms;   /* n_repeat samples, owned by the result */
  double *device_ms; /* n_repeat samples */
  rs_bench_summary host, device;
  int64_t copies;    /* per repeat (the same in every repeat, else the mean rounded) */
  int64_t bytes;     /* per repeat */
  double copy_ms;    /* mean per repeat: device time of the copies where timed */
  rs_ledger_stats copies_total; /* all repeats together */
} rs_bench_result;

/* Run the benchmark. On failure the result holds no memory. */
RS_API rs_status rs_benchmark(rs_context *ctx, const char *name, rs_bench_fn fn, void *user_data,
                       const rs_bench_options *options, rs_bench_result *out);

/* Free the samples. NULL, a zeroed and an already destroyed result are RS_OK. */
RS_API rs_status rs_bench_result_destroy(rs_bench_result *r);

/* Mean, standard deviation (sample), median, min and max of n values (all 0 for n <= 0,
 * and for NULL values, which rs_last_error() then names). */
RS_API rs_bench_summary rs_bench_summarize(const double *values, int n);

/* One line of timings, then the copies on a line of their own:
 *   name      host   1.234 ms +/- 0.010 (median 1.230, min 1.220)  device 1.100 ms ...
 *             copies 2 per run, 200.00 MB, 8.100 ms                              */
RS_API rs_status rs_bench_print(const rs_bench_result *r, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
