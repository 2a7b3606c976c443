/* Streams and events: opaque void * handles are cudaStream_t / cudaEvent_t. */
#include "backend/cuda/cuda_internal.h"

rs_status rs_cuda_stream_create(rs_backend *b, unsigned flags, void **out) {
  RS_CUDA_ENTER(b);
  if (flags & ~RS_STREAM_NON_BLOCKING)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "stream_create: unknown flags 0x%x", flags);
  unsigned cf = (flags & RS_STREAM_NON_BLOCKING) ? cudaStreamNonBlocking : cudaStreamDefault;
  cudaStream_t s = NULL;
  RS_CUDA_CALL(cudaStreamCreateWithFlags(&s, cf), "cudaStreamCreateWithFlags(flags 0x%x)", cf);
  *out = (void *)s;
  return RS_OK;
}

rs_status rs_cuda_stream_destroy(rs_backend *b, void *s) {
  RS_CUDA_ENTER(b);
  /* CUDA lets queued work finish after the handle is destroyed, as the contract wants. */
  RS_CUDA_CALL(cudaStreamDestroy((cudaStream_t)s), "cudaStreamDestroy(%p)", s);
  return RS_OK;
}

/* No cudaSetDevice here: the handle is a constant that CUDA resolves against the current
 * device when it is used, and every function that uses it sets the device first. */
void *rs_cuda_stream_per_thread(rs_backend *b) {
  (void)b;
  return (void *)cudaStreamPerThread;
}

rs_status rs_cuda_stream_synchronize(rs_backend *b, void *s) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaStreamSynchronize((cudaStream_t)s), "cudaStreamSynchronize(%p)", s);
  return RS_OK;
}

rs_status rs_cuda_stream_query(rs_backend *b, void *s, int *done) {
  RS_CUDA_ENTER(b);
  cudaError_t err = cudaStreamQuery((cudaStream_t)s);
  if (err == cudaErrorNotReady) {
    *done = 0;
    return RS_OK;
  }
  if (err != cudaSuccess) return rs_cuda_fail(err, "cudaStreamQuery(%p)", s);
  *done = 1;
  return RS_OK;
}

rs_status rs_cuda_stream_wait_event(rs_backend *b, void *s, void *ev) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)ev, 0),
               "cudaStreamWaitEvent(stream %p, event %p)", s, ev);
  return RS_OK;
}

rs_status rs_cuda_stream_callback(rs_backend *b, void *s, rs_host_fn fn, void *user_data) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaLaunchHostFunc((cudaStream_t)s, fn, user_data), "cudaLaunchHostFunc(stream %p)", s);
  return RS_OK;
}

rs_status rs_cuda_event_create(rs_backend *b, unsigned flags, void **out) {
  RS_CUDA_ENTER(b);
  if (flags & ~(RS_EVENT_DISABLE_TIMING | RS_EVENT_INTERPROCESS))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "event_create: unknown flags 0x%x", flags);
  unsigned cf = (flags & RS_EVENT_DISABLE_TIMING) ? cudaEventDisableTiming : cudaEventDefault;
  if (flags & RS_EVENT_INTERPROCESS) cf |= cudaEventInterprocess;
  cudaEvent_t ev = NULL;
  RS_CUDA_CALL(cudaEventCreateWithFlags(&ev, cf), "cudaEventCreateWithFlags(flags 0x%x)", cf);
  *out = (void *)ev;
  return RS_OK;
}

rs_status rs_cuda_event_destroy(rs_backend *b, void *ev) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaEventDestroy((cudaEvent_t)ev), "cudaEventDestroy(%p)", ev);
  return RS_OK;
}

rs_status rs_cuda_event_record(rs_backend *b, void *ev, void *s) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaEventRecord((cudaEvent_t)ev, (cudaStream_t)s), "cudaEventRecord(event %p, stream %p)",
               ev, s);
  return RS_OK;
}

rs_status rs_cuda_event_synchronize(rs_backend *b, void *ev) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaEventSynchronize((cudaEvent_t)ev), "cudaEventSynchronize(%p)", ev);
  return RS_OK;
}

rs_status rs_cuda_event_query(rs_backend *b, void *ev, int *done) {
  RS_CUDA_ENTER(b);
  cudaError_t err = cudaEventQuery((cudaEvent_t)ev);
  if (err == cudaErrorNotReady) {
    *done = 0;
    return RS_OK;
  }
  if (err != cudaSuccess) return rs_cuda_fail(err, "cudaEventQuery(%p)", ev);
  *done = 1;
  return RS_OK;
}

rs_status rs_cuda_event_elapsed_ms(rs_backend *b, float *ms, void *start, void *end) {
  RS_CUDA_ENTER(b);
  cudaError_t err = cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end);
  if (err == cudaErrorInvalidResourceHandle)
    return rs_cuda_fail(err, "cudaEventElapsedTime(%p, %p) (an event was never recorded or was "
                             "created with timing disabled)",
                        start, end);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cudaEventElapsedTime(%p, %p)", start, end);
  return RS_OK;
}
