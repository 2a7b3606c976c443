#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "cli/progress.h"

#define RS_PROGRESS_AFTER_S 1.0

static double rs_progress_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void rs_progress_begin(rs_progress *p) {
  p->tty = isatty(2);
  p->start_s = rs_progress_now();
  p->shown = 0;
}

void rs_progress_note(rs_progress *p, const char *fmt, ...) {
  if (!p->tty) return;
  double elapsed = rs_progress_now() - p->start_s;
  if (elapsed < RS_PROGRESS_AFTER_S) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "\r  [%.0f s] ", elapsed);
  vfprintf(stderr, fmt, ap);
  fputs("\033[K", stderr); /* erase what a longer previous line left */
  va_end(ap);
  fflush(stderr);
  p->shown = 1;
}

void rs_progress_end(rs_progress *p) {
  if (p->shown) fputs("\r\033[K", stderr);
  fflush(stderr);
  p->shown = 0;
}
