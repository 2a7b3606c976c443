/* `resident bench`: the workloads it times and the SVG it draws. */
#ifndef RS_CLI_BENCH_WORK_H
#define RS_CLI_BENCH_WORK_H

#include "resident.h"

/* One workload at one size, where its data lives (host or device). */
typedef struct rs_bw_state {
  rs_context *ctx;
  rs_mem_kind where;
  int64_t n;
  rs_array *x, *y, *z;
  rs_rng rng;
  double check; /* a value the run computed, checked after timing */
} rs_bw_state;

typedef struct rs_bw_workload {
  const char *name;
  const char *what;
  int64_t multiple; /* sizes are rounded down to a multiple of this */
  rs_status (*setup)(rs_bw_state *s);
  rs_status (*run)(void *state); /* an rs_bench_fn */
  int (*ok)(const rs_bw_state *s); /* the result is right */
} rs_bw_workload;

extern const rs_bw_workload rs_bw_workloads[];
extern const int rs_bw_nworkloads;

void rs_bw_teardown(rs_bw_state *s);

/* One line of the plot. */
typedef struct rs_bw_series {
  const char *label;
  const char *color;
  int n;
  const double *x, *y; /* elements, milliseconds (<= 0: no point) */
} rs_bw_series;

/* An SVG of time against size, both axes logarithmic; crossover (> 0) drawn as a line. */
int rs_bw_write_svg(const char *path, const char *title, int nseries, const rs_bw_series *series, double crossover);

#endif
