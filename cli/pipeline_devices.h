/* resident pipeline --devices: the explicit style split over several devices, the copies
 * counted per device, a result all-reduced across them (issue 19, item 4). */
#ifndef RS_CLI_PIPELINE_DEVICES_H
#define RS_CLI_PIPELINE_DEVICES_H

#include <stddef.h>
#include "cli/output.h"
#include "resident.h"

typedef struct rs_pipe_dev_opts {
  rs_backend_kind backend;
  long devices; /* -1: all of the backend's */
  long kernels;
  size_t bytes;
  rs_dtype dtype;
  int pinned;
  double bandwidth; /* GB/s of the estimate; < 0: the teaching default */
} rs_pipe_dev_opts;

/* The exit status of the run (0 ok, 1 failed or wrong, 2 bad request). */
int rs_pipe_devices(const rs_pipe_dev_opts *o, rs_cli_output *out);

#endif
