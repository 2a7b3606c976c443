/* Internal: the trace's file, written so that it stays a valid document when the disk
 * fills up midway (src/ledger/trace_file.c). */
#ifndef RS_LEDGER_TRACE_FILE_H
#define RS_LEDGER_TRACE_FILE_H

#include <stddef.h>
#include <sys/types.h>
#include "resident/status.h"

#define RS_TRACE_CHUNK 65536

/* After every chunk that reached the file, `tail` is written behind it (a marker event
 * and the closing brackets), so the file always ends validly; the next chunk overwrites
 * the tail. When a chunk cannot be written, the tail is written again where it was
 * (space the file already has) and the file cut behind it: a truncated but valid trace.
 * Pipes and devices, where a position cannot be rewritten, are written straight. */
typedef struct rs_trace_file {
  int fd;
  int seekable;
  int failed;    /* errno of the first failed write, 0 if none */
  off_t good;    /* bytes in the file that hold complete events */
  size_t len;    /* bytes waiting in buf */
  const char *tail;
  char buf[RS_TRACE_CHUNK];
} rs_trace_file;

/* Open (create or truncate) path for writing; RS_ERR_IO with a message naming who and
 * the path, before anything else is done. */
rs_status rs_trace_file_open(rs_trace_file *f, const char *path, const char *who);

/* Whether path can be written, found by opening it for writing (created if missing, an
 * existing file left as it is): RS_ERR_IO with a message naming who and the path. */
rs_status rs_trace_file_check(const char *path, const char *who);

/* Append one complete piece (an event); pieces are never split across chunks. Once a
 * write failed, further pieces are dropped. */
void rs_trace_file_put(rs_trace_file *f, const char *text, size_t n);

/* The first piece, written at once, before the tail exists (the document's opening):
 * RS_ERR_IO when it cannot be written. */
rs_status rs_trace_file_begin(rs_trace_file *f, const char *text, size_t n, const char *tail, const char *who,
                              const char *path);

/* Write what waits, end the document with `close` instead of the tail, close the file.
 * RS_ERR_IO (message naming who and path) if any write failed: the file then ends with
 * the tail. */
rs_status rs_trace_file_close(rs_trace_file *f, const char *close, const char *who, const char *path);

#endif
