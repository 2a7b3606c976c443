/* A streaming JSON writer for the commands' --json output (schemas: docs/cli-json.md).
 * Values are written as they are known, so a long run's finished parts are not held. */
#ifndef RS_CLI_JSON_H
#define RS_CLI_JSON_H

#include <stdio.h>

#define RS_JSON_MAX_DEPTH 16

typedef struct rs_json {
  FILE *f;
  int depth;
  int count[RS_JSON_MAX_DEPTH]; /* members written at each open level */
  char close[RS_JSON_MAX_DEPTH]; /* the bracket that closes it */
} rs_json;

void rs_json_init(rs_json *j, FILE *f);
/* Open an object or array: `key` inside an object, NULL inside an array or at the top. */
void rs_json_object(rs_json *j, const char *key);
void rs_json_array(rs_json *j, const char *key);
/* Close the innermost object or array. */
void rs_json_end(rs_json *j);
void rs_json_string(rs_json *j, const char *key, const char *value); /* NULL: null */
void rs_json_int(rs_json *j, const char *key, long long value);
void rs_json_number(rs_json *j, const char *key, double value); /* not finite: null */
void rs_json_bool(rs_json *j, const char *key, int value);
void rs_json_null(rs_json *j, const char *key);

/* Open a command's report: the top object with its "schema" and the library's "version";
 * "backend" and "device" too where they are given (info's come per backend). */
void rs_json_report(rs_json *j, const char *schema, const char *backend, const char *device);

#endif
