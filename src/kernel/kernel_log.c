/* The compiler's log: the whole text kept per thread for rs_kernel_last_log, and its
 * start quoted in the status message of a failed compile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"

/* How much of the log a message quotes: rs_last_error holds 1 KiB, and the first errors
 * are the ones that matter. The note on where the rest is comes first, so it survives. */
#define RS_LOG_EXCERPT 640

/* A key rather than _Thread_local: the destructor frees the text when a thread exits. */
static pthread_key_t rs_log_key;
static pthread_once_t rs_log_once = PTHREAD_ONCE_INIT;

static void rs_log_key_init(void) { (void)pthread_key_create(&rs_log_key, free); }

void rs_klog_set(char *log) {
  pthread_once(&rs_log_once, rs_log_key_init);
  free(pthread_getspecific(rs_log_key));
  if (pthread_setspecific(rs_log_key, log) != 0) free(log);
}

const char *rs_kernel_last_log(void) {
  pthread_once(&rs_log_once, rs_log_key_init);
  const char *log = pthread_getspecific(rs_log_key);
  return log ? log : "";
}

rs_status rs_klog_fail(rs_status status, const char *prefix, const char *reason, const char *log) {
  size_t len = log ? strlen(log) : 0;
  while (len > 0 && (log[len - 1] == '\n' || log[len - 1] == ' ')) len--;
  if (len == 0) return rs_fail(status, "%s: %s", prefix, reason);
  if (len <= RS_LOG_EXCERPT) return rs_fail(status, "%s: %s\n%.*s", prefix, reason, (int)len, log);
  return rs_fail(status, "%s: %s (log of %zu bytes, first %d below; all of it: rs_kernel_last_log())\n%.*s ...",
                 prefix, reason, len, RS_LOG_EXCERPT, RS_LOG_EXCERPT, log);
}
