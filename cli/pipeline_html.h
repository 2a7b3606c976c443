/* resident pipeline --html: one self-contained page with the runs as timelines on one time
 * axis (cli/timeline/timeline.css and timeline.js, embedded at build time, around the runs'
 * data as JSON). */
#ifndef RS_CLI_PIPELINE_HTML_H
#define RS_CLI_PIPELINE_HTML_H

#include <stdint.h>
#include <stdio.h>
#include "cli/json.h"
#include "resident.h"

/* The page's style and script (generated from cli/timeline/). */
extern const char rs_timeline_css[];
extern const char rs_timeline_js[];

typedef struct rs_pipe_html {
  FILE *f;
  rs_json j;
} rs_pipe_html;

/* Check that path can be written and open it (before any work): 0, or 2 after a message. */
int rs_pipe_html_open(rs_pipe_html *h, const char *path);

/* The page's head and the data's opening. */
void rs_pipe_html_begin(rs_pipe_html *h, const char *backend, const char *device, long kernels, int64_t array_bytes,
                        const char *host_memory);

/* One run: its totals and the ledger's entries from absolute index `first` (count of
 * entries recorded before the run) to the last. */
rs_status rs_pipe_html_run(rs_pipe_html *h, rs_context *ctx, int64_t first, const char *mode,
                           const rs_ledger_stats *s, double wall_ms, int result_ok);

/* The data's end, the script, the page's end; closes the file. 1 if writing failed (after
 * a message), else 0. Safe to call on an unopened page. */
int rs_pipe_html_close(rs_pipe_html *h);

#endif
