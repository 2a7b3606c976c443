/* The growable text buffer (src/core/textbuf.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/textbuf.h"

static rs_status rs_textbuf_reserve(rs_textbuf *b, size_t more) {
  if (b->failed != RS_OK) return b->failed;
  if (b->len + more + 1 <= b->cap) return RS_OK;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1) {
    if (cap > SIZE_MAX / 2) return b->failed = rs_fail(RS_ERR_OVERFLOW, "text of %zu bytes is too large", b->len);
    cap *= 2;
  }
  char *grown = realloc(b->data, cap);
  if (!grown)
    return b->failed = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "out of host memory for %zu bytes of text", cap);
  b->data = grown;
  b->cap = cap;
  return RS_OK;
}

rs_status rs_textbuf_add(rs_textbuf *b, const void *data, size_t len) {
  RS_TRY(rs_textbuf_reserve(b, len));
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return RS_OK;
}

rs_status rs_textbuf_addf(rs_textbuf *b, const char *fmt, ...) {
  if (b->failed != RS_OK) return b->failed;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return b->failed = rs_fail(RS_ERR_INTERNAL, "text formatting failed");
  RS_TRY(rs_textbuf_reserve(b, (size_t)n));
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return RS_OK;
}

rs_status rs_textbuf_take(rs_textbuf *b, char **out) {
  *out = NULL;
  rs_status st = rs_textbuf_add(b, "", 0); /* the text exists, even when empty */
  if (st != RS_OK) {
    rs_textbuf_free(b);
    return st;
  }
  *out = b->data;
  *b = (rs_textbuf){0};
  return RS_OK;
}

void rs_textbuf_free(rs_textbuf *b) {
  free(b->data);
  *b = (rs_textbuf){0};
}
