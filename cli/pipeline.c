/* resident pipeline: the copy counter. N real kernels over one array, passed as a host
 * array to every launch (implicit: 2N copies) or moved once (explicit: 2 copies); every
 * operation is printed as it happened, with the time split into copies, kernels and the
 * rest, and the result is checked against a CPU loop. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli/pipeline_html.h"
#include "cli/commands.h"
#include "cli/ledger_json.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/pipeline_devices.h"
#include "cli/pipeline_kernel.h"
#include "cli/progress.h"
#include "resident.h"

#define RS_PIPE_A 1.0001
#define RS_PIPE_C 1.0

typedef struct {
  long kernels;
  size_t bytes;
  rs_dtype dtype;
  int implicit, explicit_, streamed;
  int pinned;
  rs_backend_kind backend;
  double bandwidth; /* GB/s; < 0 = measure */
  long show;        /* operations shown before eliding */
  rs_cli_output out;
  long chunks, streams; /* streamed; RS_STREAMED_AUTO = chosen */
  const char *html;  /* --html page, or NULL */
  const char *trace; /* --trace file, or NULL */
  long devices;      /* --devices: 0 one device, -1 all, else how many (cli/pipeline_devices.c) */
} rs_pipe_opts;

static void rs_pipe_usage(FILE *f) {
  fprintf(f,
          "usage: resident pipeline [options]\n"
          "  Runs N kernels a[i] = a[i] * 1.0001 + 1 over one array in up to three styles and counts the copies:\n"
          "    implicit  the host array is passed to every launch: copied in and out each time (2N copies)\n"
          "    explicit  to_device once, N launches on the device array, copy_to_host once (2 copies)\n"
          "    streamed  rs_streamed_run: the array in chunks over several streams, the copies of one chunk\n"
          "              overlapping the kernels of another (2 copies per chunk)\n"
          "options:\n"
          "  --kernels N        kernels in the chain (default 3)\n"
          "  --size S           array size with units: 100MB, 1GiB, 4096 (default 100MB)\n"
          "  --dtype T          float32 | float64 (default float32)\n"
          "  --mode M           implicit | explicit | streamed | both (implicit and explicit) | all\n"
          "                     (default both)\n"
          "  --chunks N         streamed: chunks (default: chosen from a timed first chunk)\n"
          "  --streams N        streamed: streams (default: chosen, 4 at most)\n"
          "  --host H           pageable | pinned host memory (default pageable)\n"
          "  --backend B        auto | cuda | sim (default auto: the GPU if one answers)\n"
          "  --bandwidth X      GB/s for the PCIe estimate, or 'measure' (default 12, a teaching figure)\n"
          "  --show N           operations listed before the list is shortened (default 40)\n"
          "  --json[=FILE]      every ledger entry and the summary as JSON (docs/cli-json.md), on\n"
          "                     stdout or into FILE\n"
          "  --html FILE        the runs as timelines in one self-contained page (open it in a browser)\n"
          "  --trace FILE       the runs as a Trace Event Format file (ui.perfetto.dev, chrome://tracing)\n"
          "  --devices all|N    data parallel (the explicit style): the array split over all (or N) devices,\n"
          "                     each part copied in once, run there and copied back, the part sums all-reduced;\n"
          "                     the copies shown per device (the simulator has RESIDENT_SIM_DEVICES)\n");
}

static int rs_pipe_bad(const char *fmt, const char *value) {
  fprintf(stderr, "resident pipeline: ");
  fprintf(stderr, fmt, value);
  fprintf(stderr, "\n\n");
  rs_pipe_usage(stderr);
  return 2;
}

/* 0 on success, else the exit status. */
static int rs_pipe_parse(rs_pipe_opts *o, int argc, char **argv) {
  *o = (rs_pipe_opts){3, 100000000, RS_FLOAT32, 1, 1, 0, 0, RS_BACKEND_AUTO, RS_DEFAULT_PCIE_GBS, 40, {.command = "pipeline"},
                      RS_STREAMED_AUTO, RS_STREAMED_AUTO, NULL, NULL, 0};
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (rs_cli_json_option(&o->out, argv[i])) {
      continue;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      rs_pipe_usage(stdout);
      return -1;
    } else if ((v = rs_opt_value(argc, argv, &i, "--kernels", &missing))) {
      if (rs_opt_int(&o->kernels, v, 1, 100000)) return rs_pipe_bad("--kernels: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--size", &missing))) {
      if (rs_opt_size(&o->bytes, v, 1, SIZE_MAX)) return rs_pipe_bad("--size: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--dtype", &missing))) {
      if (rs_dtype_from_name(v, &o->dtype) != RS_OK || (o->dtype != RS_FLOAT32 && o->dtype != RS_FLOAT64))
        return rs_pipe_bad("--dtype '%s': expected float32 or float64", v);
    } else if ((v = rs_opt_value(argc, argv, &i, "--mode", &missing))) {
      int im = strcmp(v, "implicit") == 0, ex = strcmp(v, "explicit") == 0, sm = strcmp(v, "streamed") == 0;
      int both = strcmp(v, "both") == 0, all = strcmp(v, "all") == 0;
      if (!(im || ex || sm || both || all))
        return rs_pipe_bad("--mode '%s': expected implicit, explicit, streamed, both or all", v);
      o->implicit = im || both || all, o->explicit_ = ex || both || all, o->streamed = sm || all;
    } else if ((v = rs_opt_value(argc, argv, &i, "--chunks", &missing))) {
      if (rs_opt_int(&o->chunks, v, 1, 1000000)) return rs_pipe_bad("--chunks: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--streams", &missing))) {
      if (rs_opt_int(&o->streams, v, 1, RS_STREAMED_MAX_STREAMS)) return rs_pipe_bad("--streams: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--host", &missing))) {
      if (strcmp(v, "pageable") == 0) o->pinned = 0;
      else if (strcmp(v, "pinned") == 0) o->pinned = 1;
      else return rs_pipe_bad("--host '%s': expected pageable or pinned", v);
    } else if ((v = rs_opt_value(argc, argv, &i, "--backend", &missing))) {
      if (rs_backend_from_name(v, &o->backend) != RS_OK) return rs_pipe_bad("--backend '%s': expected auto, cuda or sim", v);
    } else if ((v = rs_opt_value(argc, argv, &i, "--bandwidth", &missing))) {
      if (strcmp(v, "measure") == 0) o->bandwidth = -1;
      else if (rs_opt_double(&o->bandwidth, v, 1e6))
        return rs_pipe_bad("--bandwidth: %s (GB/s), or 'measure'", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--html", &missing))) {
      o->html = v;
    } else if ((v = rs_opt_value(argc, argv, &i, "--trace", &missing))) {
      o->trace = v;
    } else if ((v = rs_opt_value(argc, argv, &i, "--devices", &missing))) {
      if (strcmp(v, "all") == 0) o->devices = -1;
      else if (rs_opt_int(&o->devices, v, 1, 64)) return rs_pipe_bad("--devices: %s, or 'all'", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--show", &missing))) {
      if (rs_opt_int(&o->show, v, 2, 1000000)) return rs_pipe_bad("--show: %s", rs_last_error());
    } else if (missing) {
      return rs_pipe_bad("option %s needs a value", argv[i]);
    } else {
      return rs_pipe_bad("unknown option '%s'", argv[i]);
    }
  }
  return 0;
}

/* The input is a pattern of 1024 values, so the CPU reference needs 1024 chains only. */
static double rs_pipe_input(int64_t i) { return (double)(i % 1024) / 1024.0; }

static void rs_pipe_fill(rs_array *a) {
  int64_t n = rs_array_size(a);
  if (rs_array_dtype(a) == RS_FLOAT32) {
    float *p = rs_array_host_data(a);
    for (int64_t i = 0; i < n; i++) p[i] = (float)rs_pipe_input(i);
  } else {
    double *p = rs_array_host_data(a);
    for (int64_t i = 0; i < n; i++) p[i] = rs_pipe_input(i);
  }
}

/* Worst relative error against the CPU loop, in the dtype's own precision. */
static double rs_pipe_check(const rs_array *a, long kernels) {
  double expect[1024];
  int f32 = rs_array_dtype(a) == RS_FLOAT32;
  for (int j = 0; j < 1024; j++) {
    float vf = (float)rs_pipe_input(j);
    double vd = rs_pipe_input(j);
    for (long k = 0; k < kernels; k++) {
      vf = vf * (float)RS_PIPE_A + (float)RS_PIPE_C;
      vd = vd * RS_PIPE_A + RS_PIPE_C;
    }
    expect[j] = f32 ? vf : vd;
  }
  int64_t n = rs_array_size(a);
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double got = f32 ? ((const float *)rs_array_host_data(a))[i] : ((const double *)rs_array_host_data(a))[i];
    double e = expect[i % 1024];
    double err = fabs(got - e) / fabs(e);
    if (!(err <= worst)) worst = err; /* NaN propagates as the worst */
  }
  return worst;
}

/* The entries from absolute index `first` (those recorded before the run) on. */
static void rs_pipe_print_sequence(FILE *out, rs_context *ctx, long show, int64_t first) {
  int64_t held = 0, dropped = 0;
  if (rs_ledger_count(ctx, &held, &dropped) != RS_OK) return;
  int64_t skip = first > dropped ? first - dropped : 0; /* entries of earlier runs */
  int64_t count = held - skip;
  dropped = first > dropped ? 0 : dropped - first;
  fprintf(out, "  %5s  %-6s %-4s %-9s %12s %11s %11s  %s\n", "#", "op", "dir", "kind", "bytes", "device ms", "host ms",
         "cause");
  for (int64_t i = 0; i < count; i++) {
    if (count > show && i == show / 2) {
      fprintf(out, "  %5s  ... %lld more operations ...\n", "", (long long)(count - show));
      i = count - show / 2;
    }
    rs_ledger_entry e;
    if (rs_ledger_entry_at(ctx, skip + i, &e) != RS_OK) return;
    const char *op = e.kind == RS_ENTRY_COPY       ? "copy"
                     : e.kind == RS_ENTRY_KERNEL   ? "kernel"
                     : e.kind == RS_ENTRY_WAIT     ? "wait"
                     : e.kind == RS_ENTRY_PREFETCH ? "prefetch"
                     : e.kind == RS_ENTRY_GRAPH    ? "graph"
                                                   : "collective";
    fprintf(out, "  %5lld  %-6s %-4s %-9s", (long long)(dropped + i + 1), op,
           e.kind == RS_ENTRY_COPY ? rs_direction_name(e.dir) : "", e.kind == RS_ENTRY_COPY ? (e.implicit ? "implicit" : "explicit") : "");
    if (e.kind == RS_ENTRY_COPY)
      fprintf(out, " %12zu", e.bytes);
    else
      fprintf(out, " %12s", "");
    if (e.device_ms >= 0)
      fprintf(out, " %11.3f", e.device_ms);
    else
      fprintf(out, " %11s", "-");
    fprintf(out, " %11.3f  %s", e.host_ms, e.cause);
    if (e.arg >= 0) fprintf(out, " (argument %d)", e.arg);
    fprintf(out, "\n");
  }
}

typedef struct {
  double wall_ms;
  rs_ledger_stats stats;
  double error;
  rs_streamed_report streamed;
  int64_t first; /* the ledger's absolute index of the run's first entry */
} rs_pipe_result;

/* Entries recorded so far, the forgotten ones included. */
static int64_t rs_pipe_recorded(rs_context *ctx) {
  int64_t held = 0, dropped = 0;
  if (rs_ledger_count(ctx, &held, &dropped) != RS_OK) return 0;
  return held + dropped;
}

enum { RS_PIPE_IMPLICIT, RS_PIPE_EXPLICIT, RS_PIPE_STREAMED, RS_PIPE_MODES };
static const char *const rs_pipe_names[RS_PIPE_MODES] = {"implicit", "explicit", "streamed"};

/* The streamed style: one call, the chain written once for a chunk. */
static rs_status rs_pipe_streamed(rs_pipe_result *r, const rs_pipe_kernel *pk, rs_array *host, const rs_pipe_opts *o) {
  rs_pipe_chain chain = {pk, o->kernels, RS_PIPE_A, RS_PIPE_C};
  rs_streamed_options so = RS_STREAMED_OPTIONS_AUTO;
  int64_t rows = rs_array_shape(host)[0];
  if (o->chunks != RS_STREAMED_AUTO) so.chunk_rows = (rows + o->chunks - 1) / o->chunks;
  if (so.chunk_rows > rows) so.chunk_rows = rows;
  so.streams = (int)o->streams;
  return rs_streamed_run(host, host, rs_pipe_chain_step, &chain, &so, &r->streamed);
}

/* One run of a style, in a ledger scope named after it: its totals are the scope's, and
 * the ledger keeps every run for the trace and the page. */
static rs_status rs_pipe_run(rs_pipe_result *r, rs_context *ctx, const rs_pipe_kernel *pk, rs_array *host,
                             const rs_pipe_opts *o, int mode, rs_progress *prog) {
  int implicit = mode == RS_PIPE_IMPLICIT;
  static const char *const scope[RS_PIPE_MODES] = {"implicit: the host array at every launch",
                                                   "explicit: to_device once, copy_to_host once",
                                                   "streamed: chunks over several streams"};
  rs_pipe_fill(host);
  r->first = rs_pipe_recorded(ctx);
  rs_status st = rs_ledger_begin_named(ctx, scope[mode]);
  if (st != RS_OK) return st;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (mode == RS_PIPE_STREAMED) {
    if (prog) rs_progress_note(prog, "streamed: %ld kernels per chunk", o->kernels);
    st = rs_pipe_streamed(r, pk, host, o);
  } else if (implicit) {
    for (long k = 0; st == RS_OK && k < o->kernels; k++) {
      if (prog) rs_progress_note(prog, "implicit: kernel %ld of %ld", k + 1, o->kernels);
      st = rs_pipe_kernel_launch(pk, host, RS_PIPE_A, RS_PIPE_C);
    }
  } else {
    rs_array *dev = NULL;
    st = rs_to_device(&dev, host, 0, NULL);
    for (long k = 0; st == RS_OK && k < o->kernels; k++) {
      if (prog) rs_progress_note(prog, "explicit: kernel %ld of %ld", k + 1, o->kernels);
      st = rs_pipe_kernel_launch(pk, dev, RS_PIPE_A, RS_PIPE_C);
    }
    if (prog) rs_progress_note(prog, "explicit: waiting for the device and the copy back");
    if (st == RS_OK) st = rs_copy_to_host_into(host, dev, NULL);
    if (st == RS_OK) st = rs_stream_synchronize(rs_stream_legacy(ctx));
    rs_array_release(dev);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  rs_status end = rs_ledger_end(ctx, &r->stats);
  if (prog) rs_progress_note(prog, "%s: checking the result", rs_pipe_names[mode]);
  if (st != RS_OK) return st;
  if (end != RS_OK) return end;
  r->wall_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  r->error = rs_pipe_check(host, o->kernels);
  return RS_OK;
}

static int rs_pipe_fail(const char *what) {
  fprintf(stderr, "resident pipeline: %s: %s\n", what, rs_last_error());
  return 1;
}

/* The closing lines of a run of both styles. Explicit is usually the faster, but not
 * always (a tiny array, or the simulator, where a "copy" costs what a kernel does): the
 * wording follows the numbers. */
static void rs_pipe_print_summary(FILE *out, const rs_pipe_result res[2]) {
  static const char *names[2] = {"implicit", "explicit"};
  fprintf(out, "\n== summary ==\n");
  for (int m = 0; m < 2; m++)
    fprintf(out, "  %-9s %4lld copies %10.1f MB moved %10.3f ms wall\n", names[m],
            (long long)rs_ledger_copies(&res[m].stats, -1), (double)rs_ledger_bytes(&res[m].stats, -1) / 1e6,
            res[m].wall_ms);
  long long saved = (long long)(rs_ledger_copies(&res[0].stats, -1) - rs_ledger_copies(&res[1].stats, -1));
  double imp = res[0].wall_ms, exp_ = res[1].wall_ms;
  fprintf(out, "  keeping the data on the device made %lld fewer cop%s", saved, saved == 1 ? "y" : "ies");
  if (exp_ <= imp)
    fprintf(out, " and took %.1f%% less time (%.2fx faster)\n", 100.0 * (1.0 - exp_ / imp), exp_ > 0 ? imp / exp_ : 0.0);
  else
    fprintf(out, ", but took %.1f%% MORE time here (%.2fx slower): the copies were not what cost the time\n",
            100.0 * (exp_ / imp - 1.0), imp > 0 ? exp_ / imp : 0.0);
}

/* What the streamed run did: its chunks and how much of the copy time the kernels hid. */
static void rs_pipe_print_streamed(FILE *out, const rs_streamed_report *r) {
  fprintf(out, "  streamed: %lld chunks of %lld elements over %d streams (%s), %lld copies (%.1f MB in, %.1f MB out)\n",
          (long long)r->chunks, (long long)r->chunk_rows, r->streams,
          r->probed ? "sizes chosen from a timed first chunk" : r->planned ? "sizes an earlier run chose" : "sizes given",
          (long long)r->copies, (double)r->bytes_h2d / 1e6, (double)r->bytes_d2h / 1e6);
  fprintf(out, "  device: copies %.3f ms + kernels %.3f ms one after the other; overlapped they took %.3f ms\n",
          r->copy_ms, r->step_ms, r->span_ms);
  fprintf(out, "  copy time hidden behind the kernels: %.3f ms of %.3f ms (%.0f%%)\n", r->hidden_ms, r->copy_ms,
          r->copy_ms > 0 ? 100.0 * r->hidden_ms / r->copy_ms : 0.0);
  if (r->staging_ms > 0)
    fprintf(out, "  host staging of pageable memory: %.3f ms (overlapped with the device)\n", r->staging_ms);
}

static void rs_pipe_json_streamed(rs_json *j, const rs_streamed_report *r) {
  rs_json_object(j, "streamed");
  rs_json_int(j, "chunks", r->chunks);
  rs_json_int(j, "chunk_elements", r->chunk_rows);
  rs_json_int(j, "streams", r->streams);
  rs_json_int(j, "copies", r->copies);
  rs_json_number(j, "copy_ms", r->copy_ms);
  rs_json_number(j, "kernel_ms", r->step_ms);
  rs_json_number(j, "span_ms", r->span_ms);
  rs_json_number(j, "hidden_ms", r->hidden_ms);
  rs_json_number(j, "staging_ms", r->staging_ms);
  rs_json_end(j);
}

static void rs_pipe_json_summary(rs_json *j, const rs_pipe_result res[2]) {
  static const char *names[2] = {"implicit", "explicit"};
  rs_json_object(j, "summary");
  for (int m = 0; m < 2; m++) {
    rs_json_object(j, names[m]);
    rs_json_int(j, "copies", rs_ledger_copies(&res[m].stats, -1));
    rs_json_int(j, "bytes", rs_ledger_bytes(&res[m].stats, -1));
    rs_json_number(j, "wall_ms", res[m].wall_ms);
    rs_json_end(j);
  }
  rs_json_int(j, "copies_saved", rs_ledger_copies(&res[0].stats, -1) - rs_ledger_copies(&res[1].stats, -1));
  rs_json_number(j, "speedup", res[1].wall_ms > 0 ? res[0].wall_ms / res[1].wall_ms : NAN);
  rs_json_bool(j, "explicit_faster", res[1].wall_ms < res[0].wall_ms);
  rs_json_end(j);
}

int rs_cmd_pipeline(int argc, char **argv) {
  rs_pipe_opts o;
  int parsed = rs_pipe_parse(&o, argc, argv);
  if (parsed) return parsed < 0 ? 0 : parsed;
  /* every output path is checked before any work */
  if (o.devices && (o.html || o.trace)) return rs_pipe_bad("%s: not with --devices (one timeline per device)", o.html ? "--html" : "--trace");
  if (o.trace && rs_cli_check_writable("pipeline", "the --trace file", o.trace)) return 2;
  rs_pipe_html page = {0};
  if (o.html && rs_pipe_html_open(&page, o.html)) return 2;
  int bad = rs_cli_output_open(&o.out);
  if (bad) {
    rs_pipe_html_close(&page);
    return bad;
  }
  if (o.devices) { /* data parallel over several devices: its own report */
    rs_pipe_dev_opts d = {o.backend, o.devices, o.kernels, o.bytes, o.dtype, o.pinned, o.bandwidth};
    int code = rs_pipe_devices(&d, &o.out);
    rs_pipe_html_close(&page);
    return rs_cli_output_close(&o.out) && code == 0 ? 1 : code;
  }
  FILE *out = o.out.text;
  rs_json *j = o.out.json.f ? &o.out.json : NULL;
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, o.backend, 0) != RS_OK) {
    rs_pipe_fail("no context");
    rs_cli_output_close(&o.out);
    return 1;
  }
  rs_ledger_set_timing(ctx, RS_TIME_ALL); /* the split into copies and kernels needs both timed */
  size_t item = rs_dtype_size(o.dtype);
  int64_t n = (int64_t)(o.bytes / item);
  int exit_code = 0;
  rs_device_props props;
  rs_array *host = NULL;
  rs_pipe_kernel pk = {0};
  rs_progress prog;
  rs_progress_begin(&prog);
  if (n == 0) {
    fprintf(stderr, "resident pipeline: --size %zu bytes holds no %s element\n", o.bytes, rs_dtype_name(o.dtype));
    exit_code = 2;
    goto done;
  }
  if (rs_context_get_props(ctx, &props) == RS_OK && (size_t)n * item > props.free_memory) {
    fprintf(stderr, "resident pipeline: --size %zu bytes does not fit in device memory (%zu bytes free on %s)\n",
            (size_t)n * item, props.free_memory, props.name);
    exit_code = 2;
    goto done;
  }
  rs_status st = o.pinned ? rs_pinned_array(&host, ctx, 1, &n, o.dtype, NULL, RS_ORDER_C, 0)
                          : rs_host_array(&host, ctx, 1, &n, o.dtype, NULL, RS_ORDER_C);
  if (st != RS_OK) {
    exit_code = rs_pipe_fail("host array");
    goto done;
  }
  if (o.bandwidth < 0) {
    double up = 0, down = 0;
    size_t probe = o.bytes < ((size_t)64 << 20) ? o.bytes : ((size_t)64 << 20);
    rs_progress_note(&prog, "measuring the bandwidth");
    if (rs_measure_bandwidth(&up, ctx, o.pinned ? RS_BW_H2D_PINNED : RS_BW_H2D_PAGEABLE, probe, 5) != RS_OK ||
        rs_measure_bandwidth(&down, ctx, o.pinned ? RS_BW_D2H_PINNED : RS_BW_D2H_PAGEABLE, probe, 5) != RS_OK) {
      rs_progress_end(&prog);
      exit_code = rs_pipe_fail("bandwidth measurement");
      goto done;
    }
    o.bandwidth = 0.5 * (up + down);
  }
  const char *bname = rs_backend_name(rs_context_backend(ctx));
  fprintf(out, "resident pipeline: %ld kernel%s a[i] = a[i] * 1.0001 + 1 over %lld %s (%.1f MB), %s host memory\n",
          o.kernels, o.kernels == 1 ? "" : "s", (long long)n, rs_dtype_name(o.dtype), (double)n * item / 1e6,
          o.pinned ? "pinned" : "pageable");
  fprintf(out, "backend: %s (%s)\n", bname, props.name);
  if (j) {
    rs_json_report(j, "resident.pipeline/1", bname, props.name);
    rs_json_int(j, "kernels", o.kernels);
    rs_json_int(j, "elements", n);
    rs_json_string(j, "dtype", rs_dtype_name(o.dtype));
    rs_json_int(j, "array_bytes", (long long)((size_t)n * item));
    rs_json_string(j, "host_memory", o.pinned ? "pinned" : "pageable");
    rs_json_number(j, "bandwidth_gbs", o.bandwidth);
    rs_json_array(j, "runs");
  }
  /* Compiled (or read from the kernel cache) once, before anything is timed; then a
   * warm-up, not shown: first-launch and first-allocation costs are not the pipeline's. */
  rs_progress_note(&prog, "compiling the kernel");
  if (rs_pipe_kernel_create(&pk, ctx, o.dtype) != RS_OK) {
    rs_progress_end(&prog);
    exit_code = rs_pipe_fail("the pipeline's kernel");
    goto done;
  }
  rs_pipe_result warm, res[RS_PIPE_MODES];
  memset(res, 0, sizeof res);
  rs_progress_note(&prog, "warm-up");
  rs_pipe_opts warm_o = o;
  warm_o.kernels = 1;
  /* The streamed warm-up runs the whole chain: its first run chooses the chunk size from
   * a timed first chunk, which later runs of the same chain reuse. */
  if (rs_pipe_run(&warm, ctx, &pk, host, &warm_o, RS_PIPE_EXPLICIT, NULL) != RS_OK ||
      (o.streamed && rs_pipe_run(&warm, ctx, &pk, host, &o, RS_PIPE_STREAMED, NULL) != RS_OK) ||
      rs_ledger_reset(ctx) != RS_OK) {
    rs_progress_end(&prog);
    exit_code = rs_pipe_fail("warm-up");
    goto done;
  }
  rs_pipe_html_begin(&page, bname, props.name, o.kernels, (int64_t)((size_t)n * item), o.pinned ? "pinned" : "pageable");
  int modes[RS_PIPE_MODES] = {o.implicit, o.explicit_, o.streamed};
  static const char *const what[RS_PIPE_MODES] = {
      "the host array is passed to every launch", "to_device once, launches on the device array, copy_to_host once",
      "rs_streamed_run: chunks over several streams, copies overlapping the kernels"};
  for (int m = 0; m < RS_PIPE_MODES; m++) {
    if (!modes[m]) continue;
    fprintf(out, "\n== %s: %s ==\n", rs_pipe_names[m], what[m]);
    if (rs_pipe_run(&res[m], ctx, &pk, host, &o, m, &prog) != RS_OK) {
      rs_progress_end(&prog);
      exit_code = rs_pipe_fail(rs_pipe_names[m]);
      goto done;
    }
    rs_progress_end(&prog);
    rs_pipe_print_sequence(out, ctx, o.show, res[m].first);
    fprintf(out, "\n");
    rs_ledger_print(&res[m].stats, res[m].wall_ms, o.bandwidth, out);
    if (m == RS_PIPE_STREAMED) rs_pipe_print_streamed(out, &res[m].streamed);
    double tol = (o.dtype == RS_FLOAT32 ? 2e-7 : 1e-15) * (double)(o.kernels + 1) * 4;
    int ok = res[m].error <= tol;
    fprintf(out, "  result vs CPU loop: %s (worst relative error %.3g, tolerance %.3g)\n", ok ? "OK" : "WRONG",
            res[m].error, tol);
    if (!ok) exit_code = 1;
    if (j) {
      rs_json_object(j, NULL);
      rs_json_string(j, "mode", rs_pipe_names[m]);
      rs_json_number(j, "wall_ms", res[m].wall_ms);
      rs_json_bool(j, "result_ok", ok);
      rs_json_number(j, "max_relative_error", res[m].error);
      rs_json_number(j, "tolerance", tol);
      if (m == RS_PIPE_STREAMED) rs_pipe_json_streamed(j, &res[m].streamed);
      rs_json_ledger_stats(j, &res[m].stats);
      if (rs_json_ledger_entries(j, ctx, res[m].first) != RS_OK) exit_code = rs_pipe_fail("ledger entries");
      rs_json_end(j);
    }
    if (rs_pipe_html_run(&page, ctx, res[m].first, rs_pipe_names[m], &res[m].stats, res[m].wall_ms, ok) != RS_OK)
      exit_code = rs_pipe_fail("the --html page");
  }
  if (j) rs_json_end(j); /* runs */
  if (o.implicit && o.explicit_) {
    rs_pipe_print_summary(out, res);
    if (j) rs_pipe_json_summary(j, res);
  } else if (j) {
    rs_json_null(j, "summary");
  }
  if (o.trace && rs_trace_write(ctx, o.trace) != RS_OK) exit_code = rs_pipe_fail("--trace");
done:
  rs_progress_end(&prog);
  rs_pipe_kernel_destroy(&pk);
  rs_array_release(host);
  rs_context_destroy(ctx);
  if (rs_pipe_html_close(&page) && exit_code == 0) exit_code = 1;
  if (rs_cli_output_close(&o.out) && exit_code == 0) exit_code = 1;
  return exit_code;
}
