#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/output.h"

int rs_cli_json_option(rs_cli_output *o, const char *arg) {
  if (strcmp(arg, "--json") == 0) {
    o->json_path = "-";
    return 1;
  }
  if (strncmp(arg, "--json=", 7) == 0) {
    o->json_path = arg + 7;
    return 1;
  }
  return 0;
}

int rs_cli_check_writable(const char *command, const char *what, const char *path) {
  const char *why = NULL;
  if (!path || !*path) {
    why = "empty path";
  } else if (access(path, F_OK) == 0) {
    if (access(path, W_OK) != 0) why = strerror(errno);
  } else {
    /* a new file: its folder must exist and take files */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (!slash)
      strcpy(dir, ".");
    else if (slash == path)
      strcpy(dir, "/");
    else
      snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (access(dir, W_OK) != 0) why = errno == ENOENT ? "no such folder" : strerror(errno);
  }
  if (!why) return 0;
  fprintf(stderr, "resident %s: cannot write %s '%s': %s\n", command, what, path ? path : "", why);
  return 2;
}

int rs_cli_output_open(rs_cli_output *o) {
  o->text = stdout;
  o->json.f = NULL;
  if (!o->json_path) return 0;
  FILE *f = stdout;
  if (strcmp(o->json_path, "-") == 0) {
    /* stdout carries the JSON alone, so a parser reads it whole; the report is dropped */
    o->text = fopen("/dev/null", "w");
    if (!o->text) {
      fprintf(stderr, "resident %s: cannot open /dev/null: %s\n", o->command, strerror(errno));
      return 2;
    }
  } else {
    int bad = rs_cli_check_writable(o->command, "the --json file", o->json_path);
    if (bad) return bad;
    f = fopen(o->json_path, "w");
    if (!f) {
      fprintf(stderr, "resident %s: cannot write the --json file '%s': %s\n", o->command, o->json_path,
              strerror(errno));
      return 2;
    }
  }
  rs_json_init(&o->json, f);
  return 0;
}

int rs_cli_output_close(rs_cli_output *o) {
  int bad = 0;
  if (o->json.f) {
    while (o->json.depth > 0) rs_json_end(&o->json); /* a failed run still leaves valid JSON */
    bad = fflush(o->json.f) != 0 || ferror(o->json.f);
    if (o->json.f != stdout && fclose(o->json.f) != 0) bad = 1;
    if (bad) fprintf(stderr, "resident %s: writing the JSON failed\n", o->command);
    o->json.f = NULL;
  }
  if (o->text && o->text != stdout) fclose(o->text);
  o->text = stdout;
  return bad;
}
