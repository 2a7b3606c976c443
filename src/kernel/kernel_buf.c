/* A growable byte buffer for cache keys and generated text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"

static rs_status rs_kbuf_reserve(rs_kbuf *b, size_t more) {
  if (b->len + more + 1 <= b->cap) return RS_OK;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + more + 1) {
    if (cap > SIZE_MAX / 2) return rs_fail(RS_ERR_OVERFLOW, "kernel: text of %zu bytes is too large", b->len);
    cap *= 2;
  }
  char *grown = realloc(b->data, cap);
  if (!grown) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel: out of host memory for %zu bytes of text", cap);
  b->data = grown;
  b->cap = cap;
  return RS_OK;
}

rs_status rs_kbuf_add(rs_kbuf *b, const void *data, size_t len) {
  RS_TRY(rs_kbuf_reserve(b, len));
  if (len) memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return RS_OK;
}

rs_status rs_kbuf_addf(rs_kbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return rs_fail(RS_ERR_INTERNAL, "kernel: text formatting failed");
  RS_TRY(rs_kbuf_reserve(b, (size_t)n));
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return RS_OK;
}

void rs_kbuf_free(rs_kbuf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}
