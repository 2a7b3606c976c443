/* Where a command's results go: the text report on stdout, or --json (stdout or a file),
 * and the output paths (--json FILE, --plot) checked before any work is done. */
#ifndef RS_CLI_OUTPUT_H
#define RS_CLI_OUTPUT_H

#include <stdio.h>
#include "cli/json.h"

typedef struct rs_cli_output {
  const char *command;   /* "pipeline": names the command in messages */
  const char *json_path; /* NULL: no JSON; "-": stdout; else a file */
  FILE *text;            /* the human report: stdout, or a sink when JSON takes stdout */
  rs_json json;          /* .f is NULL without --json */
} rs_cli_output;

/* 1 if arg is "--json" (JSON on stdout) or "--json=FILE", setting o->json_path. */
int rs_cli_json_option(rs_cli_output *o, const char *arg);

/* 0 if path can be written (its folder exists and is writable, the file is writable if
 * it exists); else prints "resident <command>: cannot write <what> 'path': why" and
 * returns 2, the exit status of bad usage. */
int rs_cli_check_writable(const char *command, const char *what, const char *path);

/* Open what o names; 0, or 2 after a message (run it before any work). */
int rs_cli_output_open(rs_cli_output *o);

/* Flush and close; 1 if writing failed (a full disk), after a message. */
int rs_cli_output_close(rs_cli_output *o);

#endif
