/* Small helpers shared by the commands' option parsers. */
#ifndef RS_CLI_OPTIONS_H
#define RS_CLI_OPTIONS_H

#include <stddef.h>

/* The value of "--name value" or "--name=value" at argv[*i] (advancing *i), or NULL if
 * argv[*i] is not that option. *missing is set when the option has no value. */
const char *rs_opt_value(int argc, char **argv, int *i, const char *name, int *missing);

/* Parse a positive integer; 0 on success. */
int rs_opt_int(long *out, const char *text, long min, long max);

/* Parse a positive finite number; 0 on success. */
int rs_opt_double(double *out, const char *text);

#endif
