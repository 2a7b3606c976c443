#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/options.h"

const char *rs_opt_value(int argc, char **argv, int *i, const char *name, int *missing) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  *missing = 0;
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
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || errno != 0 || v < min || v > max) return -1;
  *out = v;
  return 0;
}

int rs_opt_double(double *out, const char *text) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !isfinite(v)) return -1;
  *out = v;
  return 0;
}
