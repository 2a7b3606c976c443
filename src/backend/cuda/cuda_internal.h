/* Private to the CUDA backend: per-context state and the error helpers.
 * Included by the .c files and by the .cu kernels, so it stays C and C++ clean. */
#ifndef RS_BACKEND_CUDA_INTERNAL_H
#define RS_BACKEND_CUDA_INTERNAL_H

#include <pthread.h>
#include <cuda_runtime_api.h>
#include "backend/backend.h"
#include "core/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rs_backend {
  int device;
  int multiprocessors; /* sizes the grids of library kernels */
  /* IPC mappings whose close was asked for where no CUDA call may be made (a stream
   * callback): closed at the next open and at close (cuda_ipc.c) */
  pthread_mutex_t ipc_lock;
  void **ipc_closing;
  size_t ipc_nclosing, ipc_cap;
};

/* The rs_status a CUDA error stands for. */
rs_status rs_cuda_status(cudaError_t err);

/* 1 for the errors after which the CUDA context is corrupt and every later call fails. */
int rs_cuda_is_sticky(cudaError_t err);

/* Set the message "<call>: <cudaGetErrorName>: <cudaGetErrorString>" (call formatted from
 * fmt) and return the mapped status. Clears the thread's pending non-sticky CUDA error, so
 * an error reported once is not picked up again by a later cudaGetLastError. */
rs_status rs_cuda_fail(cudaError_t err, const char *fmt, ...) RS_PRINTF(2, 3);

/* Make b's device current on this thread: contexts of several devices may share a thread
 * and one context may be used from several threads, so it is done on every entry. */
rs_status rs_cuda_enter(const rs_backend *b);

/* The tables of the CUDA backend's descriptor (cuda_desc.c). */
extern const rs_backend_vtable rs_cuda_vtable;
extern const rs_kernel_table rs_cuda_kernels;
extern const rs_ops_table rs_cuda_ops;

/* RS_ERR_UNSUPPORTED with a message when the library's kernels have no image the
 * device can run (built for newer architectures only); call with the device current. */
rs_status rs_cuda_check_arch(int device);

/* The vtable's entries, one file per concern. */
rs_status rs_cuda_device_count(int *out);
rs_status rs_cuda_copy_peer_async(rs_backend *dst_b, void *dst, rs_backend *src_b, const void *src, size_t bytes,
                                  void *stream, int *direct);
rs_status rs_cuda_device_props(int device, const rs_config *cfg, rs_device_props *out);
/* collectives through NCCL, loaded at run time (cuda_nccl.c) */
rs_status rs_cuda_comm_unique_id(unsigned char *id);
rs_status rs_cuda_comm_open(void **out, rs_backend *const *bes, int nlocal, int nranks, int first,
                            const unsigned char *id, int64_t timeout_ms);
void rs_cuda_comm_close(void *comm);
rs_status rs_cuda_comm_run(void *comm, const rs_be_collective *c);
rs_status rs_cuda_version(char *buf, size_t len);

rs_status rs_cuda_device_alloc(rs_backend *b, size_t bytes, void **out);
rs_status rs_cuda_device_free(rs_backend *b, void *ptr);
rs_status rs_cuda_host_alloc(rs_backend *b, size_t bytes, unsigned flags, void **out);
rs_status rs_cuda_host_free(rs_backend *b, void *ptr);
rs_status rs_cuda_host_register(rs_backend *b, void *ptr, size_t bytes, unsigned flags);
rs_status rs_cuda_host_unregister(rs_backend *b, void *ptr);
rs_status rs_cuda_host_device_pointer(rs_backend *b, void *host_ptr, void **out);
rs_status rs_cuda_managed_alloc(rs_backend *b, size_t bytes, int attach_host, void **out);
rs_status rs_cuda_managed_free(rs_backend *b, void *ptr);

rs_status rs_cuda_copy_async(rs_backend *b, void *dst, const void *src, size_t bytes,
                             rs_copy_dir dir, void *stream);
rs_status rs_cuda_copy_strided_async(rs_backend *b, const rs_strided_copy *c, void *stream);
rs_status rs_cuda_memset_async(rs_backend *b, void *dst, int value, size_t bytes, void *stream);

rs_status rs_cuda_stream_create(rs_backend *b, unsigned flags, void **out);
rs_status rs_cuda_stream_destroy(rs_backend *b, void *s);
void *rs_cuda_stream_per_thread(rs_backend *b);
rs_status rs_cuda_stream_synchronize(rs_backend *b, void *s);
rs_status rs_cuda_stream_query(rs_backend *b, void *s, int *done);
rs_status rs_cuda_stream_wait_event(rs_backend *b, void *s, void *ev);
rs_status rs_cuda_stream_callback(rs_backend *b, void *s, rs_host_fn fn, void *user_data);
rs_status rs_cuda_graph_begin(rs_backend *b, void *stream);
rs_status rs_cuda_graph_end(rs_backend *b, void *stream, void **graph);
rs_status rs_cuda_graph_launch(rs_backend *b, void *graph, void *stream);
rs_status rs_cuda_graph_destroy(rs_backend *b, void *graph);
rs_status rs_cuda_stage_pull(rs_backend *b, const rs_be_pull *job, void *stream); /* cuda_stage_pull.cu */

rs_status rs_cuda_event_create(rs_backend *b, unsigned flags, void **out);
rs_status rs_cuda_event_destroy(rs_backend *b, void *ev);
rs_status rs_cuda_event_record(rs_backend *b, void *ev, void *s);
rs_status rs_cuda_event_synchronize(rs_backend *b, void *ev);
rs_status rs_cuda_event_query(rs_backend *b, void *ev, int *done);
rs_status rs_cuda_event_elapsed_ms(rs_backend *b, float *ms, void *start, void *end);

rs_status rs_cuda_ipc_mem_export(rs_backend *b, void *ptr, unsigned char *handle, size_t *offset,
                                 size_t *alloc_bytes);
rs_status rs_cuda_ipc_mem_open(rs_backend *b, const unsigned char *handle, size_t alloc_bytes, void **base);
rs_status rs_cuda_ipc_mem_close(rs_backend *b, void *base);
/* Close the mappings whose close was deferred (call where CUDA calls are allowed). */
void rs_cuda_ipc_drain(rs_backend *b);
rs_status rs_cuda_ipc_event_export(rs_backend *b, void *ev, unsigned char *handle);
rs_status rs_cuda_ipc_event_open(rs_backend *b, const unsigned char *handle, void **ev);
rs_status rs_cuda_managed_prefetch(rs_backend *b, const void *ptr, size_t bytes, int to_device, void *stream);
rs_status rs_cuda_managed_advise(rs_backend *b, const void *ptr, size_t bytes, int advice, int on_device);
/* NVTX ranges (cuda_nvtx.c): the ledger's entries and scopes, in the domain "resident". */
void rs_cuda_range_push(rs_range_kind kind, int implicit, const char *what, int arg);
void rs_cuda_range_pop(void);
uint64_t rs_cuda_range_start(rs_range_kind kind, const char *what);
void rs_cuda_range_end(uint64_t id);


#ifdef __cplusplus
}
#endif

/* Return rs_cuda_fail(...) from the enclosing function when expr is not cudaSuccess.
 * The variable arguments are the printf format and arguments naming the call. */
#define RS_CUDA_CALL(expr, ...)                                        \
  do {                                                                 \
    cudaError_t rs_cuda_err_ = (expr);                                 \
    if (rs_cuda_err_ != cudaSuccess) return rs_cuda_fail(rs_cuda_err_, __VA_ARGS__); \
  } while (0)

#define RS_CUDA_ENTER(b) RS_TRY(rs_cuda_enter(b))

#endif
