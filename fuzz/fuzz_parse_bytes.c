/* rs_parse_bytes, the size parser of every size variable and of the command's options:
 * no crash on any text, a failure says why, and the canonical forms read exactly
 * ("4096", "12KiB", "3MB"), whatever else the parser may accept or refuse. */
#include <ctype.h>
#include "fuzz_util.h"

/* n and the unit's scale when text is digits (at most 9) followed by a known unit; else 0. */
static int canonical(const char *text, uint64_t *n, uint64_t *scale) {
  static const struct {
    const char *unit;
    uint64_t scale;
  } units[] = {{"", 1},          {"B", 1},           {"KB", 1000},       {"MB", 1000000},
               {"GB", 1000000000}, {"KiB", 1u << 10}, {"MiB", 1u << 20}, {"GiB", 1u << 30}};
  size_t d = 0;
  *n = 0;
  while (isdigit((unsigned char)text[d]) && d < 10) *n = *n * 10 + (uint64_t)(text[d++] - '0');
  if (d == 0 || d > 9) return 0;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (strcmp(text + d, units[i].unit) == 0) {
      *scale = units[i].scale;
      return 1;
    }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char text[128];
  rs_fz_text(data, size, text, sizeof text);
  size_t value = 12345;
  rs_clear_error();
  rs_status st = rs_parse_bytes(text, &value);
  uint64_t n = 0, scale = 0;
  if (canonical(text, &n, &scale)) {
    FZ_ASSERT(st == RS_OK, "'%s' refused: %s", text, rs_last_error());
    FZ_ASSERT(value == n * scale, "'%s' read as %zu, not %llu", text, value,
              (unsigned long long)(n * scale));
  }
  if (st != RS_OK) {
    FZ_FAILED_WITH_MESSAGE(st, text);
    FZ_ASSERT(value == 12345, "a failed parse of '%s' wrote %zu", text, value);
  } else {
    int digits = 0;
    for (const char *c = text; *c; c++) digits += isdigit((unsigned char)*c) != 0;
    FZ_ASSERT(digits > 0, "'%s' has no digit yet read as %zu", text, value);
  }
  FZ_FAILED_WITH_MESSAGE(rs_parse_bytes(text, NULL), "NULL out");
  return 0;
}
