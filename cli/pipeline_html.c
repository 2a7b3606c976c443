/* resident pipeline --html: the page is written as the runs finish (the entries stream out
 * of the ledger one at a time); the script draws it in the browser. */
#include "cli/pipeline_html.h"

#include <errno.h>
#include <string.h>
#include "cli/output.h"

int rs_pipe_html_open(rs_pipe_html *h, const char *path) {
  h->f = NULL;
  int bad = rs_cli_check_writable("pipeline", "the --html page", path);
  if (bad) return bad;
  h->f = fopen(path, "w");
  if (!h->f) {
    fprintf(stderr, "resident pipeline: cannot write the --html page '%s': %s\n", path, strerror(errno));
    return 2;
  }
  return 0;
}

void rs_pipe_html_begin(rs_pipe_html *h, const char *backend, const char *device, long kernels, int64_t array_bytes,
                        const char *host_memory) {
  if (!h->f) return;
  fprintf(h->f,
          "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<title>resident pipeline: the copy counter</title>\n<style>\n%s</style>\n</head>\n<body>\n"
          "<h1>resident pipeline: the copy counter</h1>\n"
          "<div class=\"sub\">%ld kernel%s a[i] = a[i] * 1.0001 + 1 over %.1f MB of %s host memory, run twice: "
          "the host array passed to every launch (implicit copies) and the array moved once (explicit copies)."
          " Hover over an entry for its details.</div>\n"
          "<div class=\"legend\"><span><i style=\"background:#e53935\"></i>implicit copy</span>"
          "<span><i style=\"background:#2e7d32\"></i>explicit copy</span>"
          "<span><i style=\"background:#7e57c2\"></i>kernel</span>"
          "<span><i style=\"background:#fbc02d\"></i>host wait</span></div>\n"
          "<div class=\"layout\"><div class=\"runs\" id=\"runs\"></div>"
          "<div><table class=\"summary\" id=\"summary\"></table><div class=\"verdict\" id=\"verdict\"></div></div></div>\n"
          "<div id=\"tip\"></div>\n<script type=\"application/json\" id=\"rs-data\">\n",
          rs_timeline_css, kernels, kernels == 1 ? "" : "s", (double)array_bytes / 1e6, host_memory);
  rs_json_init(&h->j, h->f);
  rs_json_object(&h->j, NULL);
  rs_json_string(&h->j, "backend", backend);
  rs_json_string(&h->j, "device", device);
  rs_json_int(&h->j, "kernels", kernels);
  rs_json_int(&h->j, "array_bytes", (long long)array_bytes);
  rs_json_array(&h->j, "runs");
}

static void rs_pipe_html_entry(rs_json *j, const rs_ledger_entry *e) {
  static const char *kinds[3] = {"copy", "kernel", "wait"};
  int timed = e->device_start_ms >= 0 && e->device_ms >= 0;
  rs_json_object(j, NULL);
  rs_json_string(j, "kind", kinds[e->kind]);
  if (e->kind == RS_ENTRY_COPY) {
    rs_json_string(j, "dir", rs_direction_name(e->dir));
    rs_json_bool(j, "implicit", e->implicit);
    rs_json_int(j, "bytes", (long long)e->bytes);
    rs_json_string(j, "shape", e->shape);
  }
  rs_json_string(j, "cause", e->cause);
  rs_json_int(j, "arg", e->arg);
  char stream[32];
  snprintf(stream, sizeof stream, "%p", e->stream);
  rs_json_string(j, "stream", stream);
  rs_json_bool(j, "timed", timed);
  rs_json_number(j, "start", timed ? e->device_start_ms : e->host_start_ms);
  rs_json_number(j, "dur", timed ? e->device_ms : e->host_ms);
  rs_json_number(j, "host_ms", e->host_ms);
  rs_json_end(j);
}

rs_status rs_pipe_html_run(rs_pipe_html *h, rs_context *ctx, int64_t first, const char *mode,
                           const rs_ledger_stats *s, double wall_ms, int result_ok) {
  if (!h->f) return RS_OK;
  rs_json *j = &h->j;
  rs_json_object(j, NULL);
  rs_json_string(j, "mode", mode);
  rs_json_number(j, "wall_ms", wall_ms);
  rs_json_bool(j, "result_ok", result_ok);
  rs_json_int(j, "copies", rs_ledger_copies(s, -1));
  rs_json_int(j, "copies_implicit", rs_ledger_copies(s, 1));
  rs_json_int(j, "bytes", rs_ledger_bytes(s, -1));
  rs_json_number(j, "copy_ms", rs_ledger_copy_ms(s));
  rs_json_int(j, "kernels", s->kernels);
  rs_json_number(j, "kernel_ms", s->kernel_device_ms > 0 ? s->kernel_device_ms : s->kernel_host_ms);
  rs_json_number(j, "wait_ms", s->wait_ms);
  int64_t count = 0, dropped = 0;
  rs_status st = rs_ledger_count(ctx, &count, &dropped);
  rs_json_int(j, "entries_dropped", first < dropped ? dropped - first : 0);
  rs_json_array(j, "entries");
  for (int64_t i = first < dropped ? 0 : first - dropped; st == RS_OK && i < count; i++) {
    rs_ledger_entry e;
    st = rs_ledger_entry_at(ctx, i, &e);
    if (st == RS_OK) rs_pipe_html_entry(j, &e);
  }
  rs_json_end(j); /* entries */
  rs_json_end(j); /* run */
  return st;
}

int rs_pipe_html_close(rs_pipe_html *h) {
  if (!h->f) return 0;
  while (h->j.depth > 0) rs_json_end(&h->j);
  fprintf(h->f, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", rs_timeline_js);
  int bad = fflush(h->f) != 0 || ferror(h->f);
  if (fclose(h->f) != 0) bad = 1;
  h->f = NULL;
  if (bad) fprintf(stderr, "resident pipeline: writing the --html page failed\n");
  return bad;
}
