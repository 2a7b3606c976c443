/* The one strict parser of sizes, counts, decimals and fractions (grammar in parse.h).
 * Sizes are computed in integers, so "1.5" bytes is refused instead of rounded and the
 * limit of size_t is exact; no strtod/strtol, whose prefixes, signs, exponents, hex,
 * whitespace and locale are what let wrong values through. */
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include "core/error.h"
#include "core/parse.h"
#include "resident/context.h"

#define RS_SIZE_EXPECTED                                                                       \
  "expected a size: digits with an optional fraction and a unit B, KB, MB, GB, TB, KiB, MiB, " \
  "GiB or TiB (4096, 100MB, 1.5GiB)"
#define RS_FRACTION_EXPECTED "expected a fraction in (0, 1] (\"0.8\") or a percentage in (0, 100] (\"80%%\")"

/* A decimal at the start of a text: int digits, then fraction digits after a point. */
typedef struct {
  const char *int_digits;
  size_t int_len;
  const char *frac_digits;
  size_t frac_len;
  const char *end; /* the first character after it */
} rs_decimal;

static int rs_is_digit(char c) {
  return c >= '0' && c <= '9';
}

/* 1 if text starts with digits ["." digits] or "." digits. */
static int rs_scan_decimal(const char *text, rs_decimal *d) {
  const char *p = text;
  d->int_digits = p;
  while (rs_is_digit(*p)) p++;
  d->int_len = (size_t)(p - text);
  d->frac_digits = p;
  d->frac_len = 0;
  if (*p == '.') {
    d->frac_digits = ++p;
    while (rs_is_digit(*p)) p++;
    d->frac_len = (size_t)(p - d->frac_digits);
    if (d->frac_len == 0) return 0; /* "5." or "." */
  }
  d->end = p;
  return d->int_len + d->frac_len > 0;
}

/* digits as an unsigned integer; 0 on overflow of UINT64_MAX. */
static int rs_digits_u64(const char *digits, size_t len, uint64_t *out) {
  uint64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    uint64_t d = (uint64_t)(digits[i] - '0');
    if (v > (UINT64_MAX - d) / 10) return 0;
    v = v * 10 + d;
  }
  *out = v;
  return 1;
}

/* The decimal's value as a double: exact for the integers and fractions the settings use;
 * digits past the 18th of the fraction are below a double's precision and ignored. */
static double rs_decimal_value(const rs_decimal *d) {
  double v = 0;
  for (size_t i = 0; i < d->int_len; i++) v = v * 10 + (d->int_digits[i] - '0');
  uint64_t f = 0;
  double scale = 1;
  for (size_t i = 0; i < d->frac_len && i < 18; i++) {
    f = f * 10 + (uint64_t)(d->frac_digits[i] - '0');
    scale *= 10;
  }
  return v + (double)f / scale;
}

static const struct {
  const char *name;
  uint64_t scale;
} rs_units[] = {
    {"", 1},
    {"B", 1},
    {"KB", 1000ull},
    {"MB", 1000000ull},
    {"GB", 1000000000ull},
    {"TB", 1000000000000ull},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"K", 1ull << 10},
    {"M", 1ull << 20},
    {"G", 1ull << 30},
    {"T", 1ull << 40},
};

static rs_status rs_size_too_large(const char *text, size_t max) {
  return rs_fail(RS_ERR_PARSE, "'%s' is too large; expected a size of at most %zu bytes", text, max);
}

rs_status rs_parse_size(const char *text, size_t min, size_t max, size_t *out) {
  if (!text || !out) return rs_fail(RS_ERR_NULL_POINTER, "parse size: NULL argument");
  rs_decimal d;
  if (!rs_scan_decimal(text, &d)) return rs_fail(RS_ERR_PARSE, "'%s' is not a size; " RS_SIZE_EXPECTED, text);
  uint64_t scale = 0;
  for (size_t i = 0; i < sizeof rs_units / sizeof rs_units[0] && !scale; i++)
    if (strcasecmp(d.end, rs_units[i].name) == 0) scale = rs_units[i].scale;
  if (!scale) return rs_fail(RS_ERR_PARSE, "'%s': unknown unit '%s'; " RS_SIZE_EXPECTED, text, d.end);
  /* fraction times scale by long multiplication from the last digit: every digit of the
   * product below the point must be 0, and what carries over is its whole part (< scale) */
  uint64_t carry = 0;
  for (size_t j = d.frac_len; j-- > 0;) {
    uint64_t p = (uint64_t)(d.frac_digits[j] - '0') * scale + carry;
    if (p % 10 != 0)
      return rs_fail(RS_ERR_PARSE, "'%s' is not a whole number of bytes; " RS_SIZE_EXPECTED, text);
    carry = p / 10;
  }
  uint64_t whole = 0;
  if (!rs_digits_u64(d.int_digits, d.int_len, &whole) || whole > (UINT64_MAX - carry) / scale)
    return rs_size_too_large(text, max);
  uint64_t bytes = whole * scale + carry;
  if (bytes > (uint64_t)max) return rs_size_too_large(text, max);
  if (bytes < (uint64_t)min)
    return rs_fail(RS_ERR_PARSE, "'%s' is too small; expected a size of at least %zu byte%s", text, min,
                   min == 1 ? "" : "s");
  *out = (size_t)bytes;
  return RS_OK;
}

rs_status rs_parse_count(const char *text, int64_t min, int64_t max, int64_t *out) {
  if (!text || !out) return rs_fail(RS_ERR_NULL_POINTER, "parse count: NULL argument");
  size_t len = strlen(text);
  int digits = len > 0;
  for (size_t i = 0; i < len; i++) digits = digits && rs_is_digit(text[i]);
  if (!digits)
    return rs_fail(RS_ERR_PARSE, "'%s' is not a count; expected a whole number from %lld to %lld", text,
                   (long long)min, (long long)max);
  uint64_t v = 0;
  if (!rs_digits_u64(text, len, &v) || v > (uint64_t)max)
    return rs_fail(RS_ERR_PARSE, "'%s' is too large; expected a whole number from %lld to %lld", text,
                   (long long)min, (long long)max);
  if ((int64_t)v < min)
    return rs_fail(RS_ERR_PARSE, "'%s' is too small; expected a whole number from %lld to %lld", text,
                   (long long)min, (long long)max);
  *out = (int64_t)v;
  return RS_OK;
}

/* A full decimal, optionally followed by one '%' when percent is allowed. */
static int rs_full_decimal(const char *text, int percent_allowed, int *percent, double *value) {
  rs_decimal d;
  if (!rs_scan_decimal(text, &d)) return 0;
  *percent = percent_allowed && d.end[0] == '%' && d.end[1] == '\0';
  if (d.end[*percent] != '\0') return 0;
  *value = rs_decimal_value(&d);
  return 1;
}

rs_status rs_parse_decimal(const char *text, double above, double max, double *out) {
  if (!text || !out) return rs_fail(RS_ERR_NULL_POINTER, "parse number: NULL argument");
  int percent = 0;
  double v = 0;
  if (!rs_full_decimal(text, 0, &percent, &v) || !(v > above && v <= max))
    return rs_fail(RS_ERR_PARSE, "'%s': expected a decimal number above %g and at most %g", text, above, max);
  *out = v;
  return RS_OK;
}

rs_status rs_parse_fraction(const char *text, double *out) {
  if (!text || !out) return rs_fail(RS_ERR_NULL_POINTER, "parse fraction: NULL argument");
  int percent = 0;
  double v = 0;
  if (!rs_full_decimal(text, 1, &percent, &v))
    return rs_fail(RS_ERR_PARSE, "'%s' is not a fraction; " RS_FRACTION_EXPECTED, text);
  if (percent) v /= 100;
  if (!(v > 0 && v <= 1)) return rs_fail(RS_ERR_PARSE, "'%s' is out of range; " RS_FRACTION_EXPECTED, text);
  *out = v;
  return RS_OK;
}

int rs_parse_is_off(const char *text) {
  return text && (strcmp(text, "off") == 0 || strcmp(text, "none") == 0 || strcmp(text, "0") == 0);
}

int rs_parse_looks_fractional(const char *text) {
  int percent = 0;
  double v = 0;
  return text && strchr(text, '.') && rs_full_decimal(text, 0, &percent, &v);
}

rs_status rs_parse_bytes(const char *text, size_t *out) {
  return rs_parse_size(text, 0, SIZE_MAX, out);
}
