/* Per-context state of the CUDA backend and its vtable. */
#include <stdlib.h>
#include "backend/cuda/cuda_async_alloc.h"
#include "backend/cuda/cuda_internal.h"
#include "backend/cuda/cuda_ops.h"
#include "backend/cuda/cuda_ops_blas.h"

static rs_status cuda_device_count(const rs_config *cfg, int *out) {
  (void)cfg; /* a machine has the GPUs it has */
  return rs_cuda_device_count(out);
}

static rs_status cuda_open(rs_backend **out, int device, const rs_config *cfg) {
  (void)cfg; /* nothing in the configuration concerns the CUDA backend yet */
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return rs_cuda_fail(err, "open: cudaGetDeviceCount");
  if (device < 0 || device >= count)
    return rs_fail(count ? RS_ERR_INVALID_ARGUMENT : RS_ERR_NO_DEVICE,
                   "open: CUDA device %d does not exist (%d device%s)", device, count,
                   count == 1 ? "" : "s");
  /* Creating the primary context here makes a device that refuses contexts (exclusive
   * mode, broken driver) fail at open, not at the first allocation. */
  RS_CUDA_CALL(cudaSetDevice(device), "open: cudaSetDevice(%d)", device);
  RS_CUDA_CALL(cudaFree(NULL), "open: cudaFree(NULL) creating the context on device %d", device);
  RS_TRY(rs_cuda_check_arch(device));
  int sms = 0;
  RS_CUDA_CALL(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device),
               "open: cudaDeviceGetAttribute(multiprocessor count, device %d)", device);
  rs_backend *b = calloc(1, sizeof *b);
  if (!b) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "open: %zu bytes of backend state", sizeof *b);
  b->device = device;
  pthread_mutex_init(&b->ipc_lock, NULL);
  b->multiprocessors = sms > 0 ? sms : 1;
  rs_linalg_context_opened(device);
  *out = b;
  return RS_OK;
}

/* The primary context is shared with every other user of the device in the process
 * (other resident contexts, the application's own CUDA code): it is not reset here. */
static void cuda_close(rs_backend *b) {
  rs_linalg_context_closed(b->device);
  /* the ops' scratch pool outlives contexts (it serves them all): a closing context
   * gives back what it no longer uses, so a program that closed its contexts holds none */
  (void)rs_cuda_ops_scratch_release(b, 1);
  rs_cuda_ipc_drain(b);
  free(b->ipc_closing);
  pthread_mutex_destroy(&b->ipc_lock);
  free(b);
}

static rs_status cuda_mem_info(rs_backend *b, size_t *free_bytes, size_t *total_bytes) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo(device %d)", b->device);
  return RS_OK;
}

static rs_status cuda_synchronize(rs_backend *b) {
  RS_CUDA_ENTER(b);
  RS_CUDA_CALL(cudaDeviceSynchronize(), "cudaDeviceSynchronize(device %d)", b->device);
  return RS_OK;
}

const rs_backend_vtable rs_cuda_vtable = {
    .name = "cuda",
    .kind = RS_BACKEND_CUDA,
    .device_count = cuda_device_count,
    .device_props = rs_cuda_device_props,
    .version = rs_cuda_version,
    .open = cuda_open,
    .close = cuda_close,
    .mem_info = cuda_mem_info,
    .synchronize = cuda_synchronize,
    .device_alloc = rs_cuda_device_alloc,
    .device_free = rs_cuda_device_free,
    .host_alloc = rs_cuda_host_alloc,
    .host_free = rs_cuda_host_free,
    .host_register = rs_cuda_host_register,
    .host_unregister = rs_cuda_host_unregister,
    .host_device_pointer = rs_cuda_host_device_pointer,
    .managed_alloc = rs_cuda_managed_alloc,
    .managed_free = rs_cuda_managed_free,
    .copy_async = rs_cuda_copy_async,
    .copy_strided_async = rs_cuda_copy_strided_async,
    .memset_async = rs_cuda_memset_async,
    .copy_peer_async = rs_cuda_copy_peer_async,
    .stream_create = rs_cuda_stream_create,
    .stream_destroy = rs_cuda_stream_destroy,
    .stream_per_thread = rs_cuda_stream_per_thread,
    .stream_synchronize = rs_cuda_stream_synchronize,
    .stream_query = rs_cuda_stream_query,
    .stream_wait_event = rs_cuda_stream_wait_event,
    .stream_callback = rs_cuda_stream_callback,
    .event_create = rs_cuda_event_create,
    .event_destroy = rs_cuda_event_destroy,
    .event_record = rs_cuda_event_record,
    .event_synchronize = rs_cuda_event_synchronize,
    .event_query = rs_cuda_event_query,
    .event_elapsed_ms = rs_cuda_event_elapsed_ms,
    .device_alloc_async = rs_cuda_device_alloc_async,
    .device_free_async = rs_cuda_device_free_async,
    .device_async_trim = rs_cuda_device_async_trim,
    .device_async_usage = rs_cuda_device_async_usage,
    .ops_scratch_held = rs_cuda_ops_scratch_held,
    .ops_scratch_release = rs_cuda_ops_scratch_release,
    .managed_prefetch = rs_cuda_managed_prefetch,
    .managed_advise = rs_cuda_managed_advise,
    .ipc_mem_export = rs_cuda_ipc_mem_export,
    .ipc_mem_open = rs_cuda_ipc_mem_open,
    .ipc_mem_close = rs_cuda_ipc_mem_close,
    .ipc_event_export = rs_cuda_ipc_event_export,
    .ipc_event_open = rs_cuda_ipc_event_open,
    .graph_begin = rs_cuda_graph_begin,
    .graph_end = rs_cuda_graph_end,
    .graph_launch = rs_cuda_graph_launch,
    .graph_destroy = rs_cuda_graph_destroy,
#ifdef RS_HAVE_NVTX /* RESIDENT_NVTX=OFF leaves them NULL, as the simulator does */
    .range_push = rs_cuda_range_push,
    .range_pop = rs_cuda_range_pop,
    .range_start = rs_cuda_range_start,
    .range_end = rs_cuda_range_end,
#endif
    /* collectives (cuda_nccl.c) */
    .comm_unique_id = rs_cuda_comm_unique_id,
    .comm_open = rs_cuda_comm_open,
    .comm_close = rs_cuda_comm_close,
    .comm_run = rs_cuda_comm_run,
    .stage_pull = rs_cuda_stage_pull,
};
