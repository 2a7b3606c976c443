/* The trace's file: chunks of whole events, each followed by a closing tail, so a full
 * disk leaves a valid, truncated document (see trace_file.h). */
#include "ledger/trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "core/error.h"

/* Write all of text at off (or at the end for a stream); 0 or the errno. */
static int write_at(rs_trace_file *f, const char *text, size_t n, off_t off) {
  while (n > 0) {
    ssize_t w = f->seekable ? pwrite(f->fd, text, n, off) : write(f->fd, text, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : ENOSPC;
    text += w;
    n -= (size_t)w;
    off += w;
  }
  return 0;
}

rs_status rs_trace_file_open(rs_trace_file *f, const char *path, const char *who) {
  f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (f->fd < 0) return rs_fail(RS_ERR_IO, "%s: cannot write '%s': %s", who, path, strerror(errno));
  f->seekable = lseek(f->fd, 0, SEEK_CUR) >= 0;
  f->failed = 0;
  f->good = 0;
  f->len = 0;
  f->tail = NULL;
  return RS_OK;
}

rs_status rs_trace_file_check(const char *path, const char *who) {
  int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return rs_fail(RS_ERR_IO, "%s: cannot write '%s': %s", who, path, strerror(errno));
  close(fd);
  return RS_OK;
}

/* One chunk, then the tail behind it. On failure: the tail back where it was, the file
 * cut behind it. */
static void flush_chunk(rs_trace_file *f) {
  if (f->failed || f->len == 0) return;
  size_t tail = f->tail ? strlen(f->tail) : 0;
  int err = write_at(f, f->buf, f->len, f->good);
  if (!err && f->seekable && tail) err = write_at(f, f->tail, tail, f->good + (off_t)f->len);
  if (err) {
    f->failed = err;
    if (f->seekable && tail && f->good > 0) {
      /* Best effort to leave a well-formed file behind; the first error is the one reported. */
      if (write_at(f, f->tail, tail, f->good) == 0 && ftruncate(f->fd, f->good + (off_t)tail) != 0) f->good = 0;
    }
  } else {
    f->good += (off_t)f->len;
  }
  f->len = 0;
}

void rs_trace_file_put(rs_trace_file *f, const char *text, size_t n) {
  if (f->failed) return;
  if (f->len + n > sizeof f->buf) flush_chunk(f);
  if (f->failed) return;
  if (n > sizeof f->buf) n = sizeof f->buf; /* never: events are short */
  memcpy(f->buf + f->len, text, n);
  f->len += n;
}

rs_status rs_trace_file_begin(rs_trace_file *f, const char *text, size_t n, const char *tail, const char *who,
                              const char *path) {
  int err = write_at(f, text, n, 0);
  if (!err && f->seekable) err = write_at(f, tail, strlen(tail), (off_t)n);
  if (err) {
    f->failed = err;
    return rs_fail(RS_ERR_IO, "%s: cannot write '%s': %s", who, path, strerror(err));
  }
  f->good = (off_t)n;
  f->tail = tail;
  return RS_OK;
}

rs_status rs_trace_file_close(rs_trace_file *f, const char *close_text, const char *who, const char *path) {
  flush_chunk(f);
  if (!f->failed) {
    int err = write_at(f, close_text, strlen(close_text), f->good);
    if (err)
      f->failed = err;
    else if (f->seekable && ftruncate(f->fd, f->good + (off_t)strlen(close_text)) != 0)
      f->failed = errno;
  }
  if (close(f->fd) != 0 && !f->failed) f->failed = errno;
  f->fd = -1;
  if (f->failed)
    return rs_fail(RS_ERR_IO, "%s: writing '%s' failed (%s): %s", who, path, strerror(f->failed),
                   f->seekable ? "the file holds the events written before, closed by a 'trace truncated' event"
                               : "the stream is cut where the write failed");
  return RS_OK;
}
