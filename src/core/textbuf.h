/* Internal: a growable, always NUL-terminated text buffer (cache keys, generated source).
 *
 * A failure is sticky: once an append fails, every later one appends nothing and returns
 * the same status, so a generator that writes many pieces may check once at the end
 * (rs_textbuf_take) instead of after every piece. Start from {0}. */
#ifndef RS_CORE_TEXTBUF_H
#define RS_CORE_TEXTBUF_H

#include <stddef.h>
#include "core/error.h"

typedef struct rs_textbuf {
  char *data; /* NULL until something is appended */
  size_t len, cap;
  rs_status failed; /* RS_OK, or the first failure */
} rs_textbuf;

rs_status rs_textbuf_add(rs_textbuf *b, const void *data, size_t len);
rs_status rs_textbuf_addf(rs_textbuf *b, const char *fmt, ...) RS_PRINTF(2, 3);

/* Hand the text over (*out malloc'ed, the caller frees it; "" if nothing was appended) and
 * leave b empty; after a failure, free it and return the failure. */
rs_status rs_textbuf_take(rs_textbuf *b, char **out);

void rs_textbuf_free(rs_textbuf *b);

#endif
