/* Small helpers shared by the commands' option parsers. Values are read with the
 * library's one strict parser of numbers (src/core/parse.h, the grammar of the manual's
 * ENVIRONMENT section), so an option and an environment variable take the same text.
 * On failure each returns nonzero and rs_last_error() quotes the value and says what is
 * expected; the command prefixes the option's name. */
#ifndef RS_CLI_OPTIONS_H
#define RS_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

/* The value of "--name value" or "--name=value" at argv[*i] (advancing *i), or NULL if
 * argv[*i] is not that option. *missing is set (never cleared, so one flag can follow a
 * chain of calls) when argv[*i] is the option with no value after it. */
const char *rs_opt_value(int argc, char **argv, int *i, const char *name, int *missing);

/* A count in [min, max]. */
int rs_opt_int(long *out, const char *text, long min, long max);

/* A size in bytes in [min, max]. */
int rs_opt_size(size_t *out, const char *text, size_t min, size_t max);

/* A decimal number above 0 and at most max. */
int rs_opt_double(double *out, const char *text, double max);

/* A comma-separated list of counts in [min, max], at least one and at most cap; *n
 * receives how many. */
int rs_opt_counts(int64_t *out, int cap, int *n, const char *text, int64_t min, int64_t max);

#endif
