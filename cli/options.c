#include <stdlib.h>
#include <string.h>
#include "cli/options.h"
#include "src/core/error.h"
#include "src/core/parse.h"

const char *rs_opt_value(int argc, char **argv, int *i, const char *name, int *missing) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return NULL;
  if (arg[n] == '=') return arg + n + 1;
  if (arg[n] != '\0') return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

int rs_opt_int(long *out, const char *text, long min, long max) {
  int64_t v = 0;
  if (rs_parse_count(text, min, max, &v) != RS_OK) return -1;
  *out = (long)v;
  return 0;
}

int rs_opt_size(size_t *out, const char *text, size_t min, size_t max) {
  return rs_parse_size(text, min, max, out) == RS_OK ? 0 : -1;
}

int rs_opt_double(double *out, const char *text, double max) {
  return rs_parse_decimal(text, 0, max, out) == RS_OK ? 0 : -1;
}

int rs_opt_counts(int64_t *out, int cap, int *n, const char *text, int64_t min, int64_t max) {
  *n = 0;
  if (!*text) {
    rs_fail(RS_ERR_PARSE, "'' is empty; expected counts from %lld to %lld separated by commas",
            (long long)min, (long long)max);
    return -1;
  }
  char *copy = strdup(text);
  if (!copy) {
    rs_fail(RS_ERR_OUT_OF_MEMORY, "out of memory");
    return -1;
  }
  int bad = 0, count = 0;
  for (char *item = copy; item && !bad; count++) {
    char *comma = strchr(item, ',');
    if (comma) *comma = '\0';
    int64_t v = 0;
    if (count == cap) {
      rs_fail(RS_ERR_PARSE, "'%s' has more than %d counts", text, cap);
      bad = 1;
    } else if (rs_parse_count(item, min, max, &v) != RS_OK) {
      rs_fail_prefix(RS_ERR_PARSE, "'%s': ", text);
      bad = 1;
    } else {
      out[count] = v;
    }
    item = comma ? comma + 1 : NULL;
  }
  free(copy);
  if (bad) return -1;
  *n = count;
  return 0;
}
