/* The one strict parser of numbers (src/core/parse.h) that the environment variables, the
 * public rs_parse_bytes and the `resident` tool share: every grammar, and the edges that
 * used to slip through strtod/strtol - empty text, whitespace, signs, -0, hex, exponents,
 * overflow at the limit of size_t, fractions of a byte, percentages, units. */
#include <stdint.h>
#include "core/parse.h"
#include "harness.h"

static void check_size_ok(const char *text, size_t want) {
  size_t got = 12345;
  rs_status st = rs_parse_bytes(text, &got);
  CHECK_MSG(st == RS_OK, "rs_parse_bytes('%s') = %s (%s)", text, rs_status_name(st), rs_last_error());
  CHECK_MSG(got == want, "rs_parse_bytes('%s') = %zu, expected %zu", text, got, want);
}

/* Fails with RS_ERR_PARSE, leaves *out alone, and the message quotes the text and says
 * `says` (NULL: no particular words). */
static void check_size_bad(const char *text, const char *says) {
  size_t got = 12345;
  rs_status st = rs_parse_bytes(text, &got);
  CHECK_MSG(st == RS_ERR_PARSE, "rs_parse_bytes('%s') = %s, expected RS_ERR_PARSE (value %zu)", text,
            rs_status_name(st), got);
  CHECK_MSG(got == 12345, "rs_parse_bytes('%s') wrote %zu after failing", text, got);
  char quoted[128];
  snprintf(quoted, sizeof quoted, "'%s'", text);
  CHECK_MSG(rs_t_contains_(rs_last_error(), quoted), "the message \"%s\" does not quote %s", rs_last_error(),
            quoted);
  if (says)
    CHECK_MSG(rs_t_contains_(rs_last_error(), says), "the message \"%s\" does not say '%s'", rs_last_error(),
              says);
}

static void test_sizes(rs_context *ctx) {
  (void)ctx;
  check_size_ok("0", 0);
  check_size_ok("4096", 4096);
  check_size_ok("007", 7);
  check_size_ok("1B", 1);
  check_size_ok("1KB", 1000);
  check_size_ok("100MB", 100000000);
  check_size_ok("2GB", 2000000000);
  check_size_ok("3TB", 3000000000000ull);
  check_size_ok("1KiB", 1024);
  check_size_ok("64MiB", (size_t)64 << 20);
  check_size_ok("1.5GiB", (size_t)3 << 29);
  check_size_ok("2TiB", (size_t)2 << 40);
  check_size_ok("1K", 1024); /* the one-letter binary units stay */
  check_size_ok("1G", (size_t)1 << 30);
  check_size_ok("1gib", (size_t)1 << 30); /* units in any case */
  check_size_ok("1mb", 1000000);
}

static void test_size_fractions(rs_context *ctx) {
  (void)ctx;
  check_size_ok("1.5KB", 1500);
  check_size_ok("1.50KB", 1500);
  check_size_ok("0.5KiB", 512);
  check_size_ok(".5KiB", 512);
  check_size_ok("0.0009765625KiB", 1);
  check_size_ok("0.001KB", 1);
  check_size_ok("0.0000000000009094947017729282379150390625TiB", 1); /* 2^-40 TiB, exactly */
  check_size_ok("2.000000000000000000000000000000", 2);
  /* not a whole number of bytes: refused, never truncated */
  check_size_bad("1.5", "whole number");
  check_size_bad("0.5", "whole number");
  check_size_bad("0.0001KB", "whole number");
  check_size_bad("0.3KiB", "whole number");
  check_size_bad("15.99999999999999999999GiB", "whole number");
  check_size_bad("0.00000000000090949470177292823791503906251TiB", "whole number");
}

static void test_size_limits(rs_context *ctx) {
  (void)ctx;
  check_size_ok("18446744073709551615", SIZE_MAX);
  check_size_ok("18446744073709551615B", SIZE_MAX);
  check_size_ok("18446744073709551.615KB", SIZE_MAX);
  check_size_ok("16777215TiB", SIZE_MAX - ((size_t)1 << 40) + 1);
  check_size_bad("18446744073709551616", "too large");
  check_size_bad("18446744073709551.616KB", "too large");
  check_size_bad("16777216TiB", "too large"); /* 2^64 exactly */
  check_size_bad("12345678901234567890123", "too large");
  check_size_bad("99999999999999999999999999999999999999999TB", "too large");
  /* rs_parse_size's own range */
  size_t got = 0;
  CHECK_OK(rs_parse_size("1MiB", 1, (size_t)1 << 20, &got));
  CHECK_EQ_I64((int64_t)got, 1 << 20);
  CHECK_STATUS(rs_parse_size("1.5MiB", 1, (size_t)1 << 20, &got), RS_ERR_PARSE);
  CHECK_ERRMSG("too large");
  CHECK_STATUS(rs_parse_size("0", 1, SIZE_MAX, &got), RS_ERR_PARSE);
  CHECK_ERRMSG("too small");
  CHECK_STATUS(rs_parse_size(NULL, 0, SIZE_MAX, &got), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_parse_bytes("1", NULL), RS_ERR_NULL_POINTER);
}

static void test_size_syntax(rs_context *ctx) {
  (void)ctx;
  static const char *const bad[] = {"",      " ",     " 4096", "4096 ",  "4 KB",  "4\tKB", "4KB ", "+1",
                                    "-1",    "-0",    "0x10",  "0X10",   "1e3",   "1E3",   "1e-1", "1.",
                                    ".",     "..5",   "1.2.3", "inf",    "nan",   "KB",    "12XB", "1KBB",
                                    "1,5KB", "1_000", "1 000", "4096\n", "1KiBs", "1Ki",   "-1KB", "1/2KB"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) check_size_bad(bad[i], "expected a size");
}

static void check_count(const char *text, int64_t min, int64_t max, rs_status want, int64_t value,
                        const char *says) {
  int64_t got = -7;
  rs_status st = rs_parse_count(text, min, max, &got);
  CHECK_MSG(st == want, "rs_parse_count('%s', %lld, %lld) = %s (%s)", text, (long long)min, (long long)max,
            rs_status_name(st), rs_last_error());
  if (want == RS_OK) {
    CHECK_MSG(got == value, "rs_parse_count('%s') = %lld, expected %lld", text, (long long)got,
              (long long)value);
  } else {
    CHECK_MSG(got == -7, "rs_parse_count('%s') wrote %lld after failing", text, (long long)got);
    CHECK_MSG(rs_t_contains_(rs_last_error(), text) && rs_t_contains_(rs_last_error(), says),
              "the message \"%s\" does not quote '%s' and say '%s'", rs_last_error(), text, says);
  }
}

static void test_counts(rs_context *ctx) {
  (void)ctx;
  check_count("0", 0, 1024, RS_OK, 0, NULL);
  check_count("1024", 0, 1024, RS_OK, 1024, NULL);
  check_count("0042", 0, 1024, RS_OK, 42, NULL);
  check_count("9223372036854775807", 1, INT64_MAX, RS_OK, INT64_MAX, NULL);
  check_count("1025", 0, 1024, RS_ERR_PARSE, 0, "from 0 to 1024");
  check_count("4096", 0, 1024, RS_ERR_PARSE, 0, "too large");
  check_count("0", 1, 10, RS_ERR_PARSE, 0, "too small");
  check_count("9223372036854775808", 1, INT64_MAX, RS_ERR_PARSE, 0, "too large");
  check_count("18446744073709551616", 1, INT64_MAX, RS_ERR_PARSE, 0, "too large");
  check_count("12345678901234567890123", 1, INT64_MAX, RS_ERR_PARSE, 0, "too large");
  static const char *const bad[] = {"",   " ",  " 1",  "1 ",   "+1",  "-1",  "-0",  "1.0",
                                    "1.", ".5", "1e3", "0x10", "1KB", "ten", "1,2", "nan"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    check_count(bad[i], 0, 1000000, RS_ERR_PARSE, 0, "not a count");
  int64_t v = 0;
  CHECK_STATUS(rs_parse_count(NULL, 0, 1, &v), RS_ERR_NULL_POINTER);
}

static void test_fractions(rs_context *ctx) {
  (void)ctx;
  static const struct {
    const char *text;
    double want;
  } good[] = {{"0.8", 0.8}, {".5", 0.5},   {"1", 1.0},      {"1.0", 1.0},     {"0.001", 0.001},
              {"80%", 0.8}, {"100%", 1.0}, {"0.5%", 0.005}, {"12.5%", 0.125}, {"1%", 0.01}};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    double got = -1;
    rs_status st = rs_parse_fraction(good[i].text, &got);
    CHECK_MSG(st == RS_OK, "rs_parse_fraction('%s') = %s (%s)", good[i].text, rs_status_name(st),
              rs_last_error());
    CHECK_MSG(got == good[i].want, "rs_parse_fraction('%s') = %.17g, expected %.17g", good[i].text, got,
              good[i].want);
  }
  static const char *const bad[] = {"0",      "0.0",  "0%",  "-0",  "-0.5", "1.5",  "1.0000001", "150%",
                                    "100.1%", "1e-1", "",    " .5", ".5 ",  "50 %", "%",         "50%%",
                                    "5%0",    "0x1",  "nan", "inf", "+0.5", "half", ".",         "5."};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    double got = -1;
    rs_status st = rs_parse_fraction(bad[i], &got);
    CHECK_MSG(st == RS_ERR_PARSE, "rs_parse_fraction('%s') = %s (value %g)", bad[i], rs_status_name(st), got);
    CHECK_MSG(got == -1, "rs_parse_fraction('%s') wrote %g after failing", bad[i], got);
    CHECK_MSG(rs_t_contains_(rs_last_error(), bad[i]) && rs_t_contains_(rs_last_error(), "(0, 1]"),
              "the message \"%s\" does not quote '%s' and give the range", rs_last_error(), bad[i]);
  }
}

static void test_decimals(rs_context *ctx) {
  (void)ctx;
  double got = -1;
  CHECK_OK(rs_parse_decimal("300", 0, 1e9, &got));
  CHECK(got == 300);
  CHECK_OK(rs_parse_decimal("12.25", 0, 1e9, &got));
  CHECK(got == 12.25);
  CHECK_OK(rs_parse_decimal("9", 0, 9, &got)); /* the maximum is included */
  CHECK(got == 9);
  static const char *const bad[] = {"0",  "0.0", "-3",  "1e3", "3%",        "",
                                    " 3", "inf", "nan", "0x3", "1000000001"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    got = -1;
    CHECK_MSG(rs_parse_decimal(bad[i], 0, 1e9, &got) == RS_ERR_PARSE && got == -1, "rs_parse_decimal('%s')",
              bad[i]);
    CHECK_MSG(rs_t_contains_(rs_last_error(), "above 0"), "the message \"%s\" gives no range",
              rs_last_error());
  }
}

static void test_off_words(rs_context *ctx) {
  (void)ctx;
  CHECK(rs_parse_is_off("off") && rs_parse_is_off("none") && rs_parse_is_off("0"));
  static const char *const not_off[] = {"", "OFF", "00", "0.0", "no", "off ", " none", "false", "-0"};
  for (size_t i = 0; i < sizeof not_off / sizeof not_off[0]; i++)
    CHECK_MSG(!rs_parse_is_off(not_off[i]), "'%s' read as off", not_off[i]);
  CHECK(!rs_parse_is_off(NULL));
  CHECK(rs_parse_looks_fractional("0.8") && rs_parse_looks_fractional(".5") &&
        rs_parse_looks_fractional("1.5"));
  CHECK(!rs_parse_looks_fractional("1") && !rs_parse_looks_fractional("1.5GiB") &&
        !rs_parse_looks_fractional("50%") && !rs_parse_looks_fractional("1e-1"));
}

static const rs_test_case tests[] = {
    RS_TEST(test_sizes),  RS_TEST(test_size_fractions), RS_TEST(test_size_limits), RS_TEST(test_size_syntax),
    RS_TEST(test_counts), RS_TEST(test_fractions),      RS_TEST(test_decimals),    RS_TEST(test_off_words),
};
RS_TEST_MAIN(tests)
