/* Private to src/backend/sim: the simulator's state and the pieces its files share.
 *
 * Locking: b->lock guards every stream, event and signal field (one lock, so the
 * sequence numbers captured at enqueue time form a single global order and waits can
 * never form a cycle). b->mem_lock guards the memory maps. The pool has its own lock.
 * No code holds two of them at once.
 */
#ifndef RS_SIM_INTERNAL_H
#define RS_SIM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "backend/backend.h"
#include "backend/sim/sim.h"
#include "core/thread_pool.h"

/* ---- pointer maps: sorted by address, so interior pointers can be looked up ---------- */

typedef struct sim_range {
  uintptr_t addr;
  size_t size;
  unsigned flags; /* of the device map: SIM_RANGE_* below */
  int shm;        /* device map: 1 + the memfd that backs it (shareable, sim_ipc.c), 0 none */
  size_t pad;     /* device map: red-zone bytes on each side of a heap allocation (sim_check.h) */
} sim_range;

#define SIM_RANGE_IPC_OPENED 0x1u /* another process's allocation, mapped by ipc_mem_open */
#define SIM_RANGE_POOL 0x2u       /* a pool's segment: live only in its noted blocks (sim_check.h) */

typedef struct sim_ptrmap {
  sim_range *items;
  size_t count, cap;
} sim_ptrmap;

int sim_ptrmap_insert(sim_ptrmap *m, uintptr_t addr, size_t size, unsigned flags); /* 0 or -1 (no memory) */
int sim_ptrmap_remove(sim_ptrmap *m, uintptr_t addr, sim_range *out);             /* 1 if it was there */
/* The range holding addr: addr in [start, start + size), or addr == start for size 0. */
const sim_range *sim_ptrmap_containing(const sim_ptrmap *m, uintptr_t addr);
int sim_ptrmap_overlaps(const sim_ptrmap *m, uintptr_t addr, size_t size);
void sim_ptrmap_release(sim_ptrmap *m);

/* ---- streams, events and the signals they wait on ------------------------------------- */

/* A monotonic counter others wait on. A stream's counts its completed tasks. Signals
 * are reference-counted apart from their owner so that a dependency or an event can
 * outlive the stream that will satisfy it. */
typedef struct sim_signal {
  uint64_t value;
  pthread_cond_t cv;
  int refs;
} sim_signal;

typedef struct sim_dep {
  sim_signal *sig;
  uint64_t target; /* satisfied once sig->value >= target */
} sim_dep;

typedef struct sim_task {
  struct sim_task *next;
  void (*run)(void *arg);
  void *arg;
  void (*cleanup)(void *arg);
  uint64_t ticket; /* position in the backend-wide enqueue order */
  int ndeps;
  sim_dep deps[];
} sim_task;

#define SIM_STREAM_MAGIC 0x73696d7374726d31ull /* "simstrm1" */
#define SIM_EVENT_MAGIC 0x73696d6576656e31ull  /* "simeven1" */

typedef struct sim_stream {
  uint64_t magic;
  rs_backend *b;
  unsigned flags;
  int blocking; /* synchronizes with the legacy stream */
  int builtin;  /* legacy or per-thread: owned by the backend */
  sim_signal *done;
  uint64_t enqueued;
  sim_task *head, *tail;
  pthread_cond_t work_cv;
  int stopping;
  pthread_t thread;
  struct sim_stream *prev, *next;
  struct sim_graph *recording; /* between graph_begin and graph_end: work goes here, not run */
} sim_stream;

typedef struct sim_event {
  uint64_t magic;
  rs_backend *b;
  unsigned flags;
  int refs; /* the owner's plus one per pending record */
  int destroyed;
  uint64_t gen;    /* records so far */
  sim_signal *sig; /* the latest record completes at sig >= seq; NULL if never recorded */
  uint64_t seq;
  uint64_t ts_gen; /* the record whose timestamp ts holds */
  int64_t ts_ns;
  /* interprocess events (RS_EVENT_INTERPROCESS): every process that has the event records
   * and waits through these counters in shared memory, not through sig */
  struct sim_ipc_page *ipc;
  int ipc_fd; /* the memfd of a created one; -1 for one opened from a handle */
  struct sim_event *prev, *next;
} sim_event;

typedef struct sim_ipc_page {
  _Atomic uint64_t recorded;  /* records so far, in any process */
  _Atomic uint64_t completed; /* the latest record that has completed */
} sim_ipc_page;

typedef struct sim_thread_stream {
  pthread_t tid;
  sim_stream *s;
  struct sim_thread_stream *next;
} sim_thread_stream;

struct rs_backend {
  size_t mem_total;

  pthread_mutex_t mem_lock;
  size_t mem_used;
  sim_ptrmap device, host, registered, managed;

  pthread_mutex_t lock;
  uint64_t ticket; /* tasks ever enqueued, on any stream */
  sim_stream *legacy;
  sim_stream *streams; /* every live stream, the legacy one included */
  sim_event *events;   /* every event not yet freed */
  sim_thread_stream *per_thread;

  rs_thread_pool pool;

  /* the debugger's memory checks (sim_check.h), under mem_lock: on or off for the
   * context's life, the pools' live blocks in device memory, and the newest snapshot of
   * what is live (rebuilt when map_gen has moved) */
  int checks;
  sim_ptrmap blocks;
  uint64_t map_gen;
  struct sim_check_snap *snap;
};

/* ---- the parallel-for pool: the core's (src/core/thread_pool.h) ---- */

/* Split [0, n) into chunks and run body(begin, end, arg) on them with the context's
 * sim_threads host threads (the caller is one of them); returns when every chunk has
 * finished. Callable from stream work and from several threads at once; nested calls
 * are allowed. body must not fail: it reports errors through arg. */
static inline void rs_sim_parallel_for(rs_backend *b, int64_t n, void (*body)(int64_t begin, int64_t end, void *arg),
                                       void *arg) {
  rs_thread_pool_run(&b->pool, n, body, arg);
}

/* The number of host threads rs_sim_parallel_for uses (>= 1). */
static inline int rs_sim_thread_count(const rs_backend *b) { return rs_thread_pool_threads(&b->pool); }

/* Streams (sim_stream.c). */
rs_status sim_stream_new(rs_backend *b, unsigned flags, int builtin, sim_stream **out);
/* Drain, join, unlist and free. RS_ERR_DESTROYED if another thread is already at it. */
rs_status sim_stream_shutdown(sim_stream *s);
rs_status sim_resolve_stream(rs_backend *b, void *handle, const char *what, sim_stream **out);
/* Queue a task with b->lock held; extra dependencies are added to the ordering ones.
 * *seq_out (may be NULL) is the value s->done reaches when the task has finished. */
rs_status sim_enqueue_locked(rs_backend *b, sim_stream *s, void (*run)(void *), void *arg,
                             void (*cleanup)(void *), const sim_dep *extra, int nextra,
                             uint64_t *seq_out);
/* Resolve, queue and, if wait_done, block until that task has finished (not from a
 * worker of b: there it only queues). On failure arg is still the caller's. */
rs_status sim_submit(rs_backend *b, void *stream, const char *what, void (*run)(void *),
                     void *arg, void (*cleanup)(void *), int wait_done);
void sim_signal_unref_locked(sim_signal *sig);
/* Wait with b->lock held; the signal must stay referenced across the wait. */
void sim_signal_wait_locked(rs_backend *b, sim_signal *sig, uint64_t target);
int sim_on_worker_of(const rs_backend *b); /* is the caller a stream worker of b */

/* Events (sim_event.c). */
void sim_event_free_all_locked(rs_backend *b);

/* Shareable device memory and interprocess handles (sim_ipc.c). Device allocations of
 * SIM_SHARE_MIN bytes or more (every pool segment) are backed by a memfd mapped shared,
 * so another process can map them; smaller ones stay on the heap at their exact size. */
#define SIM_SHARE_MIN ((size_t)1 << 20)
/* A shared mapping of bytes (NULL when the host cannot make one: the caller falls back to
 * the heap); *fd is its memfd, kept open while the allocation lives. */
void *sim_shm_map(size_t bytes, int *fd);
/* The inaccessible address space sim_shm_map leaves on each side of its mapping. */
#define SIM_SHM_GUARD ((size_t)64 * 1024)
/* The device address of host storage (the inverse of rs_sim_translate). */
void *sim_device_tag(void *host_ptr);
/* The length of the mapping of bytes (whole pages). */
size_t sim_shm_len(size_t bytes);
/* Undo sim_shm_map, or a mapping opened from another process (fd < 0). */
void sim_shm_unmap(void *p, size_t bytes, int fd);
/* Describe the memfd fd in a handle another process opens with sim_shm_open, which maps
 * at least bytes of it (RS_ERR_DESTROYED for a stale handle). */
rs_status sim_shm_handle(int fd, unsigned char *handle, const char *who);
rs_status sim_shm_open(const unsigned char *handle, size_t bytes, void **out, const char *who);
rs_status sim_ipc_mem_export(rs_backend *b, void *ptr, unsigned char *handle, size_t *offset, size_t *alloc_bytes);
rs_status sim_ipc_mem_open(rs_backend *b, const unsigned char *handle, size_t alloc_bytes, void **base);
rs_status sim_ipc_mem_close(rs_backend *b, void *base);
rs_status sim_managed_prefetch(rs_backend *b, const void *ptr, size_t bytes, int to_device, void *stream);
rs_status sim_managed_advise(rs_backend *b, const void *ptr, size_t bytes, int advice, int on_device);

/* The vtable's functions, by file. */
rs_status sim_device_alloc(rs_backend *b, size_t bytes, void **out);
rs_status sim_device_free(rs_backend *b, void *ptr);
rs_status sim_host_alloc(rs_backend *b, size_t bytes, unsigned flags, void **out);
rs_status sim_host_free(rs_backend *b, void *ptr);
rs_status sim_host_register(rs_backend *b, void *ptr, size_t bytes, unsigned flags);
rs_status sim_host_unregister(rs_backend *b, void *ptr);
rs_status sim_host_device_pointer(rs_backend *b, void *host_ptr, void **out);
rs_status sim_managed_alloc(rs_backend *b, size_t bytes, int attach_host, void **out);
rs_status sim_managed_free(rs_backend *b, void *ptr);
void sim_memory_release_all(rs_backend *b);
/* 1 if p is plain pageable host memory: untagged and not pinned, registered or managed. */
int sim_is_pageable(rs_backend *b, const void *p);
/* RS_OK if [p+lo, p+hi) stays inside one live device allocation, or p is untagged. */
rs_status sim_check_device_range(rs_backend *b, const void *p, int64_t lo, int64_t hi,
                                 const char *what);

rs_status sim_copy_async(rs_backend *b, void *dst, const void *src, size_t bytes,
                         rs_copy_dir dir, void *stream);
rs_status sim_copy_strided_async(rs_backend *b, const rs_strided_copy *c, void *stream);
rs_status sim_memset_async(rs_backend *b, void *dst, int value, size_t bytes, void *stream);
rs_status sim_copy_peer_async(rs_backend *dst_b, void *dst, rs_backend *src_b, const void *src, size_t bytes,
                              void *stream, int *direct);

rs_status sim_stream_create(rs_backend *b, unsigned flags, void **out);
rs_status sim_stream_destroy(rs_backend *b, void *s);
void *sim_stream_per_thread(rs_backend *b);
rs_status sim_stream_synchronize(rs_backend *b, void *s);
rs_status sim_stream_query(rs_backend *b, void *s, int *done);
rs_status sim_stream_check(rs_backend *b, void *s);
/* Graphs: a stream's recorded work items (kept by sim_stream.c), begun, ended and replayed
 * by sim_graph.c. */
#define SIM_GRAPH_MAGIC 0x53494D47u /* "SIMG" */
typedef struct sim_graph_item {
  void (*run)(void *);
  void *arg;
  void (*cleanup)(void *);
} sim_graph_item;
typedef struct sim_graph {
  uint32_t magic;
  rs_backend *b;
  sim_graph_item *items;
  size_t n, cap;
} sim_graph;
rs_status sim_graph_record_locked(struct sim_graph *g, void (*run)(void *), void *arg, void (*cleanup)(void *));
rs_status sim_graph_begin(rs_backend *b, void *stream);
void sim_graph_discard(struct sim_graph *g); /* frees the items' arguments and g */
rs_status sim_graph_end(rs_backend *b, void *stream, void **graph);
rs_status sim_graph_launch(rs_backend *b, void *graph, void *stream);
rs_status sim_graph_destroy(rs_backend *b, void *graph);
rs_status sim_stage_pull(rs_backend *b, const rs_be_pull *job, void *stream); /* sim_stage_pull.c */
rs_status sim_stream_wait_event(rs_backend *b, void *s, void *ev);
rs_status sim_stream_callback(rs_backend *b, void *s, rs_host_fn fn, void *user_data);
rs_status sim_synchronize_all(rs_backend *b);

rs_status sim_event_create(rs_backend *b, unsigned flags, void **out);
rs_status sim_event_destroy(rs_backend *b, void *ev);
rs_status sim_event_record(rs_backend *b, void *ev, void *s);
rs_status sim_event_synchronize(rs_backend *b, void *ev);
rs_status sim_event_query(rs_backend *b, void *ev, int *done);
rs_status sim_event_elapsed_ms(rs_backend *b, float *ms, void *start, void *end);
rs_status sim_ipc_event_export(rs_backend *b, void *ev, unsigned char *handle);
rs_status sim_ipc_event_open(rs_backend *b, const unsigned char *handle, void **ev);

/* An errno's text without strerror's shared buffer. GNU strerror_r may return a static
 * string instead of filling buf. */
static inline const char *sim_errno_text(int err, char *buf, size_t len) { return strerror_r(err, buf, len); }

/* The tables of the simulator's descriptor (sim_desc.c). */
extern const rs_backend_vtable rs_sim_vtable;
extern const rs_kernel_table rs_sim_kernels;
extern const rs_ops_table rs_sim_ops;

#endif
