#include <math.h>
#include "cli/json.h"
#include "resident/version.h"

void rs_json_init(rs_json *j, FILE *f) {
  j->f = f;
  j->depth = 0;
  j->count[0] = 0;
}

static void rs_json_text(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p == '\n')
      fputs("\\n", f);
    else if (*p < 0x20 || *p == '<') /* '<': the text may sit inside an HTML <script> */
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

/* The separator, the indentation and the key before a member. */
static void rs_json_member(rs_json *j, const char *key) {
  if (j->depth > 0) {
    fputs(j->count[j->depth - 1]++ ? ",\n" : "\n", j->f);
    fprintf(j->f, "%*s", 2 * j->depth, "");
  }
  if (key) {
    rs_json_text(j->f, key);
    fputs(": ", j->f);
  }
}

static void rs_json_open(rs_json *j, const char *key, char bracket) {
  rs_json_member(j, key);
  fputc(bracket, j->f);
  /* the schemas nest 4 deep; a deeper writer is a bug, kept in bounds */
  if (j->depth >= RS_JSON_MAX_DEPTH) return;
  j->count[j->depth] = 0;
  j->close[j->depth] = bracket == '{' ? '}' : ']';
  j->depth++;
}

void rs_json_object(rs_json *j, const char *key) { rs_json_open(j, key, '{'); }
void rs_json_array(rs_json *j, const char *key) { rs_json_open(j, key, '['); }

void rs_json_end(rs_json *j) {
  if (j->depth == 0) return;
  j->depth--;
  if (j->count[j->depth]) fprintf(j->f, "\n%*s", 2 * j->depth, "");
  fputc(j->close[j->depth], j->f);
  if (j->depth == 0) fputc('\n', j->f);
}

void rs_json_string(rs_json *j, const char *key, const char *value) {
  rs_json_member(j, key);
  if (value)
    rs_json_text(j->f, value);
  else
    fputs("null", j->f);
}

void rs_json_int(rs_json *j, const char *key, long long value) {
  rs_json_member(j, key);
  fprintf(j->f, "%lld", value);
}

void rs_json_number(rs_json *j, const char *key, double value) {
  rs_json_member(j, key);
  if (isfinite(value))
    fprintf(j->f, "%.10g", value);
  else
    fputs("null", j->f);
}

void rs_json_bool(rs_json *j, const char *key, int value) {
  rs_json_member(j, key);
  fputs(value ? "true" : "false", j->f);
}

void rs_json_null(rs_json *j, const char *key) {
  rs_json_member(j, key);
  fputs("null", j->f);
}

void rs_json_report(rs_json *j, const char *schema, const char *backend, const char *device) {
  rs_json_object(j, NULL);
  rs_json_string(j, "schema", schema);
  rs_json_string(j, "version", rs_version());
  if (backend) rs_json_string(j, "backend", backend);
  if (device) rs_json_string(j, "device", device);
}
