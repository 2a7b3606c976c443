/* Status names and the thread-local error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"

#define RS_MESSAGE_CAPACITY 1024

static _Thread_local char rs_message[RS_MESSAGE_CAPACITY];

const char *rs_status_name(rs_status status) {
  switch (status) {
#define RS_STATUS_NAME_(name, value, text) \
  case name:                               \
    return #name;
    RS_STATUS_LIST(RS_STATUS_NAME_)
#undef RS_STATUS_NAME_
  }
  return "RS_UNKNOWN_STATUS";
}

const char *rs_status_str(rs_status status) {
  switch (status) {
#define RS_STATUS_TEXT_(name, value, text) \
  case name:                               \
    return text;
    RS_STATUS_LIST(RS_STATUS_TEXT_)
#undef RS_STATUS_TEXT_
  }
  return "unknown status";
}

const char *rs_last_error(void) { return rs_message; }

void rs_clear_error(void) { rs_message[0] = '\0'; }

rs_status rs_fail(rs_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rs_message, sizeof rs_message, fmt, ap);
  va_end(ap);
  return status;
}

rs_status rs_fail_prefix(rs_status status, const char *fmt, ...) {
  char prefix[256];
  char old[RS_MESSAGE_CAPACITY];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, rs_message, sizeof old);
  /* A failure that left no message (a user's callback returning a status, say) still
   * gets a reason: the status itself. */
  if (!old[0]) snprintf(old, sizeof old, "%s (%s; no message was set)", rs_status_str(status), rs_status_name(status));
  size_t n = strlen(prefix);
  if (n >= sizeof rs_message) n = sizeof rs_message - 1;
  memcpy(rs_message, prefix, n);
  size_t rest = strlen(old);
  if (rest > sizeof rs_message - 1 - n) rest = sizeof rs_message - 1 - n;
  memcpy(rs_message + n, old, rest);
  rs_message[n + rest] = '\0';
  return status;
}
