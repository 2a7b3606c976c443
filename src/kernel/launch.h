/* Internal: the launch path shared by built-in and user kernels - argument staging with
 * implicit copies (guarded and recorded), the launch itself, and the copy back. */
#ifndef RS_KERNEL_LAUNCH_H
#define RS_KERNEL_LAUNCH_H

#include "core/objects.h"
#include "memory/buffer.h"
#include "stream/stream.h"

#define RS_MAX_KERNEL_ARRAYS 64

typedef struct rs_launch_args {
  const char *kernel;                       /* name, for the ledger and messages */
  int count;
  rs_array *given[RS_MAX_KERNEL_ARRAYS];    /* as passed by the caller */
  int read_only[RS_MAX_KERNEL_ARRAYS];      /* never copied back */
  int write_only[RS_MAX_KERNEL_ARRAYS];     /* written entirely, never read: not copied in */
  rs_array *staged[RS_MAX_KERNEL_ARRAYS];   /* device temporaries for host arrays, else NULL */
  /* Set by rs_launch_stage_in. lead[i]: the first argument of i's group - those over one
   * host buffer or overlapping host memory (i itself if none before) - or -1 when i is not
   * staged. At a lead whose group holds different views: span_host is a byte array over
   * the host span they cover, span_dev its device temporary (the staged arguments are
   * views into it). */
  int lead[RS_MAX_KERNEL_ARRAYS];
  rs_array *span_host[RS_MAX_KERNEL_ARRAYS];
  rs_array *span_dev[RS_MAX_KERNEL_ARRAYS];
  void *stream;                             /* resolved backend stream */
  rs_stream *stream_handle;
  rs_context *ctx;
  const int *arg_index; /* the kernel parameter of each array, for messages and the
                           ledger; NULL when array i is parameter i */
} rs_launch_args;

/* Check the arrays and copy host arrays in (implicit copies): one device temporary per
 * host buffer, so arguments over one buffer see each other's writes as on the host and
 * their copies back cannot overwrite each other (launch.c says what is copied). On
 * failure nothing was copied that is not undone and no temporary is left. */
rs_status rs_launch_stage_in(rs_launch_args *la);

/* The device-usable address of argument i (its temporary if it was staged). */
void *rs_launch_arg_ptr(const rs_launch_args *la, int i);

/* Copy writable staged arguments back (implicit copies) and free the temporaries. The
 * status of the kernel is passed in: when it failed, nothing is copied back. */
rs_status rs_launch_stage_out(rs_launch_args *la, rs_status kernel_status);

#endif
