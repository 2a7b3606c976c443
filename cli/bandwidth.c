/* resident bandwidth: copy bandwidth by direction, host memory kind and size. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/measure.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/progress.h"

static void rs_bw_usage(FILE *f) {
  fprintf(f,
          "usage: resident bandwidth [options]\n"
          "  H2D and D2H from pageable and pinned host memory, and D2D, over a range of sizes (GB/s).\n"
          "  D2D counts the bytes copied once (the memory traffic is twice that).\n"
          "options:\n"
          "  --min S        smallest size (default 1MiB)\n"
          "  --max S        largest size (default 1GiB on a GPU, 256MiB on the simulator)\n"
          "  --repeat N     copies per measurement, the median is shown (default 10)\n"
          "  --backend B    auto | cuda | sim (default auto)\n"
          "  --json[=FILE]  the results as JSON (docs/cli-json.md), on stdout or into FILE\n");
}

static int rs_bw_bad(const char *msg, const char *value) {
  fprintf(stderr, "resident bandwidth: ");
  fprintf(stderr, msg, value);
  fprintf(stderr, "\n\n");
  rs_bw_usage(stderr);
  return 2;
}

int rs_cmd_bandwidth(int argc, char **argv) {
  size_t min = (size_t)1 << 20, max = 0;
  const char *max_text = NULL;
  long repeat = 10;
  rs_backend_kind backend = RS_BACKEND_AUTO;
  rs_cli_output out = {.command = "bandwidth"};
  for (int i = 1; i < argc; i++) {
    int missing = 0;
    const char *v;
    if (rs_cli_json_option(&out, argv[i])) {
      continue;
    } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      rs_bw_usage(stdout);
      return 0;
    } else if ((v = rs_opt_value(argc, argv, &i, "--min", &missing))) {
      if (rs_opt_size(&min, v, 1, SIZE_MAX)) return rs_bw_bad("--min: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--max", &missing))) {
      if (rs_opt_size(&max, v, 1, SIZE_MAX)) return rs_bw_bad("--max: %s", rs_last_error());
      max_text = v;
    } else if ((v = rs_opt_value(argc, argv, &i, "--repeat", &missing))) {
      if (rs_opt_int(&repeat, v, 1, 100000)) return rs_bw_bad("--repeat: %s", rs_last_error());
    } else if ((v = rs_opt_value(argc, argv, &i, "--backend", &missing))) {
      if (rs_backend_from_name(v, &backend) != RS_OK) return rs_bw_bad("--backend '%s': expected auto, cuda or sim", v);
    } else if (missing) {
      return rs_bw_bad("option %s needs a value", argv[i]);
    } else {
      return rs_bw_bad("unknown option '%s'", argv[i]);
    }
  }
  if (max != 0 && min > max) return rs_bw_bad("--min is above --max%s", "");
  int bad = rs_cli_output_open(&out);
  if (bad) return bad;
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, backend, 0) != RS_OK) {
    fprintf(stderr, "resident bandwidth: %s\n", rs_last_error());
    rs_cli_output_close(&out);
    return 1;
  }
  rs_device_props p;
  if (rs_context_get_props(ctx, &p) != RS_OK) {
    fprintf(stderr, "resident bandwidth: %s\n", rs_last_error());
    rs_context_destroy(ctx);
    rs_cli_output_close(&out);
    return 1;
  }
  if (max == 0) max = rs_context_backend(ctx) == RS_BACKEND_CUDA ? (size_t)1 << 30 : (size_t)256 << 20;
  /* a size the device cannot hold would fail half-way through the table */
  if (max_text && max > p.total_memory) {
    char msg[256];
    snprintf(msg, sizeof msg, "--max: '%s' is too large; the device has %zu bytes", max_text, p.total_memory);
    rs_context_destroy(ctx);
    rs_cli_output_close(&out);
    return rs_bw_bad("%s", msg);
  }
  if (min > max) {
    rs_context_destroy(ctx);
    rs_cli_output_close(&out);
    return rs_bw_bad("--min is above --max%s", "");
  }
  FILE *txt = out.text;
  rs_json *j = out.json.f ? &out.json : NULL;
  const char *bname = rs_backend_name(rs_context_backend(ctx));
  fprintf(txt, "backend %s, %s\n", bname, p.name);
  fprintf(txt, "%12s", "size");
  for (int k = 0; k < RS_BW_KINDS; k++) fprintf(txt, " %13s", rs_bw_kind_name((rs_bw_kind)k));
  fprintf(txt, "   (GB/s, median of %ld)\n", repeat);
  if (j) {
    rs_json_report(j, "resident.bandwidth/1", bname, p.name);
    rs_json_int(j, "repeat", repeat);
    rs_json_array(j, "kinds");
    for (int k = 0; k < RS_BW_KINDS; k++) rs_json_string(j, NULL, rs_bw_kind_name((rs_bw_kind)k));
    rs_json_end(j);
    rs_json_array(j, "rows");
  }
  rs_progress prog;
  rs_progress_begin(&prog);
  int code = 0;
  for (size_t size = min; size <= max && code == 0; size *= 4) {
    fprintf(txt, "%9.1f MiB", (double)size / 1048576.0);
    fflush(txt);
    if (j) rs_json_object(j, NULL), rs_json_int(j, "bytes", (long long)size), rs_json_object(j, "gbytes_per_s");
    for (int k = 0; k < RS_BW_KINDS; k++) {
      double gbs = 0;
      rs_progress_note(&prog, "%.1f MiB %s", (double)size / 1048576.0, rs_bw_kind_name((rs_bw_kind)k));
      if (rs_measure_bandwidth(&gbs, ctx, (rs_bw_kind)k, size, (int)repeat) != RS_OK) {
        rs_progress_end(&prog);
        fprintf(stderr, "resident bandwidth: %s: %s\n", rs_bw_kind_name((rs_bw_kind)k), rs_last_error());
        code = 1;
        break;
      }
      fprintf(txt, " %13.2f", gbs);
      fflush(txt);
      if (j) rs_json_number(j, rs_bw_kind_name((rs_bw_kind)k), gbs);
    }
    fprintf(txt, "\n");
    if (j) rs_json_end(j), rs_json_end(j);
    if (size > max / 4) break;
  }
  rs_progress_end(&prog);
  rs_context_destroy(ctx);
  if (rs_cli_output_close(&out)) code = 1;
  return code;
}
