/* A progress line on stderr for runs long enough to need one: shown only when stderr is
 * a terminal and the run has gone on for about a second, rewritten in place, erased at
 * the end (a log or a pipe gets nothing). */
#ifndef RS_CLI_PROGRESS_H
#define RS_CLI_PROGRESS_H

typedef struct rs_progress {
  int tty;
  double start_s;
  int shown;
} rs_progress;

void rs_progress_begin(rs_progress *p);
void rs_progress_note(rs_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rs_progress_end(rs_progress *p);

#endif
