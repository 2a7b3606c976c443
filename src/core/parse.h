/* Internal: the one grammar of numbers that the environment variables (src/context/
 * config.c), rs_parse_bytes and the `resident` tool take. Strict: the whole text must
 * match, with no whitespace, no sign, no hex, no exponent, no "inf"/"nan"; a value out of
 * its range is an error, never clamped.
 *
 *   decimal    digits, optionally "." digits; or "." digits          0, 12, 0.75, .5
 *   count      digits only, within [min, max]                        4, 1024
 *   size       decimal, then optionally a unit (case-insensitive):    4096, 100MB, 1.5GiB
 *              B; KB MB GB TB (powers of 1000); KiB MiB GiB TiB and K M G T (powers of
 *              1024). The result must be a whole number of bytes within [min, max].
 *   fraction   decimal in (0, 1], or a percentage: decimal then "%" in (0, 100]
 *   off        "off", "none" or "0": a setting turned off
 *
 * Every failure is RS_ERR_PARSE with a message that quotes the text and says what was
 * expected; callers prefix the name of what they parsed ("RESIDENT_POOL_LIMIT=", "--max "). */
#ifndef RS_CORE_PARSE_H
#define RS_CORE_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include "resident/status.h"

/* A size in bytes within [min, max]. */
rs_status rs_parse_size(const char *text, size_t min, size_t max, size_t *out);

/* A count within [min, max] (min >= 0). */
rs_status rs_parse_count(const char *text, int64_t min, int64_t max, int64_t *out);

/* A decimal number in (above, max]: above is excluded, max included. */
rs_status rs_parse_decimal(const char *text, double above, double max, double *out);

/* A fraction in (0, 1]: a decimal ("0.8") or a percentage ("80%" = 0.8). */
rs_status rs_parse_fraction(const char *text, double *out);

/* 1 when text is one of the words that turn a setting off ("off", "none", "0"). */
int rs_parse_is_off(const char *text);

/* 1 when text has the shape of a plain decimal with a point ("0.8", ".5", "1.5"): no
 * unit, no percent sign. Lets a setting that takes a size or a fraction tell them apart. */
int rs_parse_looks_fractional(const char *text);

#endif
