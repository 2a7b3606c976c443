/* resident bench: the seed workloads where the data is - host memory (C loops, NumPy's
 * role) and device memory - over sizes from 5 to 50 million elements; both times, the
 * speed-up, and the crossover size from which the device wins. A progress line runs on
 * standard error when it is a terminal; --plot FILE draws the sweep as an SVG.
 *
 * Each point is the median of repeated runs (after one warm-up run that pays for kernel
 * compilation and pool growth), timed by rs_benchmark with a synchronization at the end,
 * so asynchronous device work is counted in full. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/bench_work.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"

#define MAX_SIZES 64
#define RS_BENCH_MAX_SIZE 4000000000L /* elements */

typedef struct {
  int workload; /* index, or -1 for all */
  int64_t sizes[MAX_SIZES];
  int nsizes;
  rs_backend_kind backend;
  double budget_ms; /* time per point, repeats adjusted to it */
  const char *plot;
  int host, device;
  rs_cli_output out;
} bench_opts;

static void usage(FILE *f) {
  fprintf(f,
          "usage: resident bench [options]\n"
          "  Times the seed workloads with their data in host memory (the host path: this CPU's\n"
          "  threads, RESIDENT_HOST_THREADS, and its BLAS - NumPy's role) and in device memory,\n"
          "  over sizes, and reports the crossover size from which the device is faster.\n"
          "options:\n"
          "  --workload W   normalize | scale | sum | sort | all (default normalize: random numbers,\n"
          "                 sort, rows of 5, each row over its sum, check every row sums to 1)\n"
          "  --sizes LIST   comma-separated element counts (default 5,50,500,...,50000000)\n"
          "  --max N        the largest default size (default 50000000)\n"
          "  --only P       host | device: one side only\n"
          "  --budget MS    about how long each point is timed (default 300)\n"
          "  --backend B    auto | cuda | sim (default auto: the GPU if one answers)\n"
          "  --plot FILE    write the sweep as an SVG (one file per workload: FILE, FILE-scale.svg, ...)\n"
          "  --json[=FILE]  the results as JSON (docs/cli-json.md), on stdout or into FILE\n");
}

static int bad(const char *fmt, const char *v) {
  fprintf(stderr, "resident bench: ");
  fprintf(stderr, fmt, v);
  fprintf(stderr, "\n\n");
  usage(stderr);
  return 2;
}

static int parse(bench_opts *o, int argc, char **argv) {
  *o = (bench_opts){0, {0}, 0, RS_BACKEND_AUTO, 300, NULL, 1, 1, {.command = "bench"}};
  long max = 50000000;
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (rs_cli_json_option(&o->out, argv[i])) {
      continue;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return -1;
    } else if ((v = rs_opt_value(argc, argv, &i, "--workload", &missing))) {
      o->workload = -2;
      if (strcmp(v, "all") == 0) o->workload = -1;
      for (int w = 0; w < rs_bw_nworkloads; w++)
        if (strcmp(v, rs_bw_workloads[w].name) == 0) o->workload = w;
      if (o->workload == -2) return bad("--workload '%s': expected normalize, scale, sum, sort or all", v);
    } else if ((v = rs_opt_value(argc, argv, &i, "--sizes", &missing))) {
      if (rs_opt_counts(o->sizes, MAX_SIZES, &o->nsizes, v, 1, RS_BENCH_MAX_SIZE))
        return bad("--sizes: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--max", &missing))) {
      if (rs_opt_int(&max, v, 5, RS_BENCH_MAX_SIZE)) return bad("--max: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--only", &missing))) {
      if (strcmp(v, "host") == 0) o->device = 0;
      else if (strcmp(v, "device") == 0) o->host = 0;
      else return bad("--only '%s': expected host or device", v);
    } else if ((v = rs_opt_value(argc, argv, &i, "--budget", &missing))) {
      if (rs_opt_double(&o->budget_ms, v, 3600000)) return bad("--budget: %s (milliseconds)", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--backend", &missing))) {
      if (rs_backend_from_name(v, &o->backend) != RS_OK) return bad("--backend '%s': expected auto, cuda or sim", v);
    } else if ((v = rs_opt_value(argc, argv, &i, "--plot", &missing))) {
      o->plot = v;
    } else if (missing) {
      return bad("option %s needs a value", argv[i]);
    } else {
      return bad("unknown option '%s'", argv[i]);
    }
  }
  if (o->nsizes == 0)
    for (long n = 5; n <= max && o->nsizes < MAX_SIZES; n *= 10) o->sizes[o->nsizes++] = n;
  return 0;
}

/* Median ms of one workload at one size in one place; *ok whether its result checked. */
static rs_status time_point(double *ms, int *ok, rs_context *ctx, const rs_bw_workload *w, rs_mem_kind where, int64_t n,
                            double budget_ms) {
  rs_bw_state s = {ctx, where, n, NULL, NULL, NULL, {0, 0}, 0};
  rs_bench_result r = {0};
  rs_status st = w->setup(&s);
  /* a first timed run tells how many fit in the budget (it is also the warm-up) */
  rs_bench_options once = {1, 1, NULL};
  if (st == RS_OK) st = rs_benchmark(ctx, w->name, w->run, &s, &once, &r);
  if (st == RS_OK) {
    double first = r.host.median > 0 ? r.host.median : 1e-3;
    int repeat = (int)fmin(50, fmax(1, budget_ms / first));
    rs_bench_result_destroy(&r);
    rs_bench_options opts = {0, repeat, NULL};
    st = rs_benchmark(ctx, w->name, w->run, &s, &opts, &r);
  }
  if (st == RS_OK) {
    *ms = r.host.median;
    *ok = w->ok(&s);
  }
  rs_bench_result_destroy(&r);
  rs_bw_teardown(&s);
  return st;
}

static void plot_name(char *buf, size_t len, const char *plot, const char *workload, int first) {
  if (first) {
    snprintf(buf, len, "%s", plot);
    return;
  }
  const char *dot = strrchr(plot, '.');
  int stem = dot ? (int)(dot - plot) : (int)strlen(plot);
  snprintf(buf, len, "%.*s-%s.svg", stem, plot, workload);
}

/* One workload's sweep; a point not measured (--only, a failure) is null. */
static void bench_json_workload(rs_json *j, const rs_bw_workload *w, int n, const double *xs, const double *host,
                                const double *dev, const int *good, double crossover) {
  rs_json_object(j, NULL);
  rs_json_string(j, "name", w->name);
  rs_json_string(j, "what", w->what);
  rs_json_array(j, "points");
  for (int i = 0; i < n; i++) {
    rs_json_object(j, NULL);
    rs_json_int(j, "elements", (long long)xs[i]);
    rs_json_number(j, "host_ms", host[i] > 0 ? host[i] : NAN);
    rs_json_number(j, "device_ms", dev[i] > 0 ? dev[i] : NAN);
    rs_json_number(j, "speedup", host[i] > 0 && dev[i] > 0 ? host[i] / dev[i] : NAN);
    rs_json_bool(j, "result_ok", good[i]);
    rs_json_end(j);
  }
  rs_json_end(j);
  if (crossover > 0)
    rs_json_int(j, "crossover_elements", (long long)crossover);
  else
    rs_json_null(j, "crossover_elements");
  rs_json_end(j);
}

int rs_cmd_bench(int argc, char **argv) {
  bench_opts o;
  int parsed = parse(&o, argc, argv);
  if (parsed) return parsed < 0 ? 0 : parsed;
  /* output paths first: a sweep takes minutes, a typo in a folder name should not */
  int bad = o.plot ? rs_cli_check_writable("bench", "the --plot file", o.plot) : 0;
  if (!bad) bad = rs_cli_output_open(&o.out);
  if (bad) return bad;
  FILE *txt = o.out.text;
  rs_json *j = o.out.json.f ? &o.out.json : NULL;
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, o.backend, 0) != RS_OK) {
    fprintf(stderr, "resident bench: no context: %s\n", rs_last_error());
    rs_cli_output_close(&o.out);
    return 1;
  }
  rs_device_props props;
  if (rs_context_get_props(ctx, &props) != RS_OK) snprintf(props.name, sizeof props.name, "?");
  const char *bname = rs_backend_name(rs_context_backend(ctx));
  int code = 0, first_plot = 1;
  rs_progress prog;
  rs_progress_begin(&prog);
  int w0 = o.workload < 0 ? 0 : o.workload, w1 = o.workload < 0 ? rs_bw_nworkloads : o.workload + 1;
  int host_threads = rs_host_threads(), blas_threads = 1;
  fprintf(txt, "resident bench: host (this CPU, %d thread%s) vs device (%s backend, %s)\n", host_threads,
          host_threads == 1 ? "" : "s", bname, props.name);
  const char *blas = rs_linalg_host_library(&blas_threads);
  fprintf(txt, "host linear algebra: %s, %d thread%s\n", blas, blas_threads, blas_threads == 1 ? "" : "s");
  if (rs_context_backend(ctx) == RS_BACKEND_SIM)
    fprintf(txt, "note: the simulator's \"device\" is this CPU too (its threads); run on a GPU for the real crossover\n");
  if (j) {
    rs_json_report(j, "resident.bench/1", bname, props.name);
    rs_json_number(j, "budget_ms", o.budget_ms);
    rs_json_string(j, "host_blas", blas);
    rs_json_int(j, "host_blas_threads", blas_threads);
    rs_json_int(j, "host_threads", host_threads);
    rs_json_array(j, "workloads");
  }
  for (int wi = w0; wi < w1; wi++) {
    const rs_bw_workload *w = &rs_bw_workloads[wi];
    double xs[MAX_SIZES], host[MAX_SIZES], dev[MAX_SIZES];
    int good[MAX_SIZES];
    int total = o.nsizes * (o.host + o.device), k = 0;
    fprintf(txt, "\n== %s: %s ==\n", w->name, w->what);
    for (int i = 0; i < o.nsizes; i++) {
      int64_t n = o.sizes[i] / w->multiple * w->multiple;
      if (n < w->multiple) n = w->multiple;
      xs[i] = (double)n;
      host[i] = dev[i] = -1;
      good[i] = 1;
      for (int side = 0; side < 2; side++) {
        if ((side == 0 && !o.host) || (side == 1 && !o.device)) continue;
        double ms = -1;
        int ok = 0;
        rs_status st = time_point(&ms, &ok, ctx, w, side ? RS_MEM_DEVICE : RS_MEM_HOST, n, o.budget_ms);
        rs_progress_note(&prog, "[%d/%d] %s, %lld elements on the %s: %.3f ms", ++k, total, w->name, (long long)n,
                         side ? "device" : "host", ms);
        if (st != RS_OK) {
          rs_progress_end(&prog);
          fprintf(stderr, "resident bench: %s, %lld elements on the %s: %s: %s\n", w->name, (long long)n,
                  side ? "device" : "host", rs_status_name(st), rs_last_error());
          code = 1;
          continue;
        }
        if (!ok) {
          rs_progress_end(&prog);
          fprintf(stderr, "resident bench: %s, %lld elements on the %s: WRONG RESULT\n", w->name, (long long)n,
                  side ? "device" : "host");
          code = 1;
          good[i] = 0;
        }
        (side ? dev : host)[i] = ms;
      }
    }
    rs_progress_end(&prog);
    fprintf(txt, "  %12s %13s %13s %10s\n", "elements", "host ms", "device ms", "speed-up");
    double crossover = -1;
    for (int i = 0; i < o.nsizes; i++) {
      fprintf(txt, "  %12.0f", xs[i]);
      if (host[i] > 0) fprintf(txt, " %13.4f", host[i]); else fprintf(txt, " %13s", "-");
      if (dev[i] > 0) fprintf(txt, " %13.4f", dev[i]); else fprintf(txt, " %13s", "-");
      if (host[i] > 0 && dev[i] > 0) fprintf(txt, " %9.2fx", host[i] / dev[i]);
      fprintf(txt, "\n");
    }
    /* the smallest size from which the device stays ahead */
    for (int i = o.nsizes - 1; i >= 0; i--) {
      if (!(host[i] > 0 && dev[i] > 0 && dev[i] < host[i])) break;
      crossover = xs[i];
    }
    if (o.host && o.device) {
      if (crossover > 0)
        fprintf(txt, "  crossover: the device is faster from %.0f elements on\n", crossover);
      else
        fprintf(txt, "  crossover: the device is not faster at the largest size measured\n");
    }
    if (j) bench_json_workload(j, w, o.nsizes, xs, host, dev, good, crossover);
    if (o.plot) {
      char path[1100], title[400];
      plot_name(path, sizeof path, o.plot, w->name, first_plot);
      first_plot = 0;
      snprintf(title, sizeof title, "%s: host vs device (%s, %s)", w->name, bname, props.name);
      rs_bw_series series[2] = {{"host (C loops)", "#1f77b4", o.nsizes, xs, host},
                                {"device", "#ff7f0e", o.nsizes, xs, dev}};
      if (rs_bw_write_svg(path, title, 2, series, crossover) != 0) {
        fprintf(stderr, "resident bench: cannot write the plot %s\n", path);
        code = 1;
      } else {
        fprintf(txt, "  plot: %s\n", path);
      }
    }
  }
  rs_context_destroy(ctx);
  if (rs_cli_output_close(&o.out)) code = 1;
  return code;
}
