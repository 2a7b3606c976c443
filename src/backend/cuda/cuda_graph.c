/* Graphs: CUDA stream capture, instantiated once, replayed with cudaGraphLaunch. The
 * capture mode is relaxed: the shared layer refuses, with a message naming the call,
 * what would break a capture (host waits, copies from pageable memory, implicit copies),
 * and relaxed mode lets the pool allocate during a capture. */
#include "backend/cuda/cuda_internal.h"

rs_status rs_cuda_graph_begin(rs_backend *b, void *stream) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaStreamBeginCapture((cudaStream_t)stream, cudaStreamCaptureModeRelaxed),
               "cudaStreamBeginCapture(stream %p)", stream);
  return RS_OK;
}

rs_status rs_cuda_graph_end(rs_backend *b, void *stream, void **graph) {
  RS_CUDA_ENTER(b);
  cudaGraph_t g = NULL;
  RS_CUDA_CALL(cudaStreamEndCapture((cudaStream_t)stream, &g), "cudaStreamEndCapture(stream %p)", stream);
  cudaGraphExec_t exec = NULL;
  cudaError_t err = cudaGraphInstantiate(&exec, g, 0);
  (void)cudaGraphDestroy(g); /* the executable graph keeps what it needs */
  if (err != cudaSuccess) return rs_cuda_fail(err, "cudaGraphInstantiate (captured on stream %p)", stream);
  /* Uploaded now, so the first launch costs what the others do. */
  (void)cudaGraphUpload(exec, (cudaStream_t)stream);
  *graph = (void *)exec;
  return RS_OK;
}

rs_status rs_cuda_graph_launch(rs_backend *b, void *graph, void *stream) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaGraphLaunch((cudaGraphExec_t)graph, (cudaStream_t)stream), "cudaGraphLaunch(stream %p)", stream);
  return RS_OK;
}

rs_status rs_cuda_graph_destroy(rs_backend *b, void *graph) {
  RS_CUDA_ENTER(b);
  /* Launches already queued complete: CUDA keeps the executable graph until they have. */
  RS_CUDA_CALL(cudaGraphExecDestroy((cudaGraphExec_t)graph), "cudaGraphExecDestroy(%p)", graph);
  return RS_OK;
}
