/* The pipeline's kernel, a[i] = a[i] * a + c for float32 / float64, as a user kernel:
 * compiled once (rs_pipe_kernel_create, before anything is timed), then launched as any
 * user kernel - a host array passed to it is copied in and back implicitly. Shared by
 * `resident pipeline` and bench/pipeline. */
#ifndef RS_CLI_PIPELINE_KERNEL_H
#define RS_CLI_PIPELINE_KERNEL_H

#include <resident.h>

#ifdef __cplusplus
extern "C" { /* bench/streamed.cu uses it too */
#endif

typedef struct rs_pipe_kernel {
  rs_kernel *k;
  rs_dtype dtype;
  unsigned max_blocks; /* a grid-stride loop: enough blocks to fill the device, no more */
} rs_pipe_kernel;

rs_status rs_pipe_kernel_create(rs_pipe_kernel *pk, rs_context *ctx, rs_dtype dtype);
/* x (pk's dtype, C-contiguous) = x * a + c on the default stream. */
rs_status rs_pipe_kernel_launch(const rs_pipe_kernel *pk, rs_array *x, double a, double c);
/* The same on stream (NULL = default). */
rs_status rs_pipe_kernel_launch_on(const rs_pipe_kernel *pk, rs_array *x, double a, double c, rs_stream *stream);
/* The whole chain of `kernels` launches over one chunk of a streamed run (resident/streamed.h):
 * user is the rs_pipe_chain. */
typedef struct rs_pipe_chain {
  const rs_pipe_kernel *pk;
  long kernels;
  double a, c;
} rs_pipe_chain;
rs_status rs_pipe_chain_step(rs_array *in, rs_array *out, rs_stream *s, void *user);
rs_status rs_pipe_kernel_destroy(rs_pipe_kernel *pk);

#ifdef __cplusplus
}
#endif

#endif
