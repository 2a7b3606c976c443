/* fuzz/fuzz_util.h - what the libFuzzer harnesses share: a failed property aborts with
 * a message (libFuzzer keeps the input), input bytes are read as a stream of small
 * numbers, and RS_FUZZ_KNOWN=1 lets a harness also reach the defects of issue 11 that
 * are known and being fixed elsewhere (off by default so CI stays green until then). */
#ifndef RS_FUZZ_UTIL_H
#define RS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resident.h"

#define FZ_ASSERT(cond, ...)                                                   \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "FUZZ PROPERTY FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* A failed call must say why. */
#define FZ_FAILED_WITH_MESSAGE(st, what)                                                  \
  FZ_ASSERT((st) < 0 && rs_last_error() && rs_last_error()[0], "%s: status %d, message '%s'", \
            (what), (int)(st), rs_last_error() ? rs_last_error() : "(NULL)")

static inline int rs_fz_known(void) {
  const char *v = getenv("RS_FUZZ_KNOWN");
  return v && v[0] == '1';
}

/* The input as a NUL-terminated string (cut at the first NUL or at cap - 1 bytes). */
static inline void rs_fz_text(const uint8_t *data, size_t size, char *out, size_t cap) {
  size_t n = size < cap - 1 ? size : cap - 1;
  memcpy(out, data, n);
  out[n] = '\0';
}

/* A byte stream read as small numbers: past its end every read is 0. */
typedef struct rs_fz_reader {
  const uint8_t *p;
  size_t n;
} rs_fz_reader;

static inline unsigned rs_fz_u8(rs_fz_reader *r) {
  if (r->n == 0) return 0;
  r->n--;
  return *r->p++;
}

/* A number in [0, n) (n <= 65536). */
static inline unsigned rs_fz_below(rs_fz_reader *r, unsigned n) {
  unsigned v = rs_fz_u8(r);
  if (n > 256) v = (v << 8) | rs_fz_u8(r);
  return n ? v % n : 0;
}

static inline int64_t rs_fz_i64(rs_fz_reader *r) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | rs_fz_u8(r);
  return (int64_t)v;
}

#endif
