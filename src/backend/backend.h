/* Internal: the backend interface.
 *
 * A backend is a descriptor of function tables (the runtime table below, user kernels in
 * kernel_table.h, array operations in ops_table.h) plus private per-context state. Everything
 * device-specific lives behind it; everything else (array views, the copy path, the
 * ledger, streams' bookkeeping) is shared and written once above it.
 *
 * Conventions for implementers:
 * - Every function returns rs_status and on failure sets the message with rs_fail()
 *   naming the call and the backend's own error text.
 * - Stream and event handles are opaque void *. A NULL stream is the legacy default
 *   stream. Work on a stream runs in order; work on different streams may overlap.
 * - "device pointer" means an address that kernels of this backend can use. Host code
 *   never dereferences one. Mapped and managed memory are reachable from both sides.
 * - copy_async and the kernels may return before the work is done; the shared layer
 *   synchronizes where it must.
 * - Thread-safe: any function may be called from several threads at once.
 */
#ifndef RS_BACKEND_H
#define RS_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include "resident/context.h"
#include "resident/array.h"
#include "resident/stream.h"
#include "core/config.h"
#include "core/strided.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_backend rs_backend; /* private to each backend */
struct rs_be_collective; /* below */
struct rs_be_pull;       /* below */

typedef enum rs_copy_dir {
  RS_DIR_H2D = 0,
  RS_DIR_D2H = 1,
  RS_DIR_D2D = 2,
  RS_DIR_H2H = 3,
  RS_DIR_P2P = 4 /* between devices: copy_peer_async, never copy_async */
} rs_copy_dir;

/* Flags for host_alloc / host_register. */
#define RS_BE_HOST_MAPPED 0x1u
#define RS_BE_HOST_PORTABLE 0x2u
#define RS_BE_HOST_WRITE_COMBINED 0x4u

/* What a profiler range marks: the ledger's kinds of entry (and its scopes), a colour each. */
typedef enum rs_range_kind {
  RS_RANGE_H2D = 0, /* copies, by rs_copy_dir */
  RS_RANGE_D2H = 1,
  RS_RANGE_D2D = 2,
  RS_RANGE_H2H = 3,
  RS_RANGE_P2P = 4,
  RS_RANGE_KERNEL = 5,
  RS_RANGE_WAIT = 6,
  RS_RANGE_SCOPE = 7,
  RS_RANGE_PREFETCH = 8, /* managed memory moved (rs_array_prefetch) */
  RS_RANGE_GRAPH = 9,    /* a graph replay */
  RS_RANGE_COLLECTIVE = 10 /* a collective (resident/collective.h) */
} rs_range_kind;

typedef struct rs_backend_vtable {
  const char *name;
  rs_backend_kind kind;

  /* devices, without a context */
  /* 0 and RS_OK without GPU/driver; cfg: the settings (the simulator's device count) */
  rs_status (*device_count)(const rs_config *cfg, int *out);
  /* cfg: the settings a context on it would have (the simulator's memory and threads) */
  rs_status (*device_props)(int device, const rs_config *cfg, rs_device_props *out);
  /* what the backend runs on, for rs_backend_version; NULL: nothing beyond the library */
  rs_status (*version)(char *buf, size_t len);

  /* per-context state */
  rs_status (*open)(rs_backend **out, int device, const rs_config *cfg);
  void (*close)(rs_backend *b); /* called after all streams, events and memory are gone */
  rs_status (*mem_info)(rs_backend *b, size_t *free_bytes, size_t *total_bytes);
  rs_status (*synchronize)(rs_backend *b); /* wait for all streams */

  /* memory */
  rs_status (*device_alloc)(rs_backend *b, size_t bytes, void **out);
  rs_status (*device_free)(rs_backend *b, void *ptr);
  rs_status (*host_alloc)(rs_backend *b, size_t bytes, unsigned flags, void **out); /* page-locked */
  rs_status (*host_free)(rs_backend *b, void *ptr);
  rs_status (*host_register)(rs_backend *b, void *ptr, size_t bytes, unsigned flags);
  rs_status (*host_unregister)(rs_backend *b, void *ptr);
  rs_status (*host_device_pointer)(rs_backend *b, void *host_ptr, void **out); /* mapped alias */
  rs_status (*managed_alloc)(rs_backend *b, size_t bytes, int attach_host, void **out);
  rs_status (*managed_free)(rs_backend *b, void *ptr);

  /* data movement, ordered on stream */
  rs_status (*copy_async)(rs_backend *b, void *dst, const void *src, size_t bytes,
                          rs_copy_dir dir, void *stream);
  rs_status (*copy_strided_async)(rs_backend *b, const rs_strided_copy *c, void *stream);
  rs_status (*memset_async)(rs_backend *b, void *dst, int value, size_t bytes, void *stream);
  /* device memory of src_b (another context, maybe another device) into dst_b's, ordered
   * on dst_b's stream; peer access is enabled once per pair where the devices allow it,
   * and the driver stages through the host where they do not (*direct says which) */
  rs_status (*copy_peer_async)(rs_backend *dst_b, void *dst, rs_backend *src_b, const void *src, size_t bytes,
                               void *stream, int *direct);

  /* streams */
  rs_status (*stream_create)(rs_backend *b, unsigned flags, void **out); /* RS_STREAM_NON_BLOCKING */
  rs_status (*stream_destroy)(rs_backend *b, void *s); /* queued work still completes */
  void *(*stream_per_thread)(rs_backend *b);           /* the calling thread's default stream */
  rs_status (*stream_synchronize)(rs_backend *b, void *s);
  rs_status (*stream_query)(rs_backend *b, void *s, int *done);
  rs_status (*stream_wait_event)(rs_backend *b, void *s, void *ev);
  rs_status (*stream_callback)(rs_backend *b, void *s, rs_host_fn fn, void *user_data);
  /* RS_OK when s is a live stream of this context, without reading through s (a wrapped
   * handle may be any pointer); NULL where the backend cannot tell (CUDA). */
  rs_status (*stream_check)(rs_backend *b, void *s);

  /* events */
  rs_status (*event_create)(rs_backend *b, unsigned flags, void **out); /* RS_EVENT_DISABLE_TIMING */
  rs_status (*event_destroy)(rs_backend *b, void *ev);
  rs_status (*event_record)(rs_backend *b, void *ev, void *s);
  rs_status (*event_synchronize)(rs_backend *b, void *ev);
  rs_status (*event_query)(rs_backend *b, void *ev, int *done);
  /* RS_ERR_NOT_READY if not complete; RS_ERR_STATE if never recorded or timing disabled */
  rs_status (*event_elapsed_ms)(rs_backend *b, float *ms, void *start, void *end);

  /* stream-ordered allocation (the async allocator of src/memory) */
  /* memory usable by work queued on stream after this call (cudaMallocAsync) */
  rs_status (*device_alloc_async)(rs_backend *b, size_t bytes, void *stream, void **out);
  /* give ptr back once the work queued on stream so far is done (cudaFreeAsync) */
  rs_status (*device_free_async)(rs_backend *b, void *ptr, void *stream);
  /* return cached memory of the stream-ordered pool to the device, keeping at most
   * keep_bytes reserved (cudaMemPoolTrimTo) */
  rs_status (*device_async_trim)(rs_backend *b, size_t keep_bytes);
  /* bytes the stream-ordered pool holds from the device, and of those in use; may be
   * NULL where the backend keeps no such pool */
  rs_status (*device_async_usage)(rs_backend *b, size_t *reserved, size_t *used);

  /* the array operations' own scratch memory (sort buffers, library temporaries), kept by
   * the backend per device for every context on it; NULL where the backend keeps none */
  /* bytes held from the device now */
  rs_status (*ops_scratch_held)(rs_backend *b, size_t *bytes);
  /* give what is not in use back to the device; with wait, first wait for the device's
   * queued work, so scratch freed in stream order is given back too */
  rs_status (*ops_scratch_release)(rs_backend *b, int wait);

  /* ---- since version 2 ---- */
  /* managed memory: move [ptr, ptr+bytes) to the device (to_device 1) or to the host (0),
   * ordered on stream (cudaMemPrefetchAsync) */
  rs_status (*managed_prefetch)(rs_backend *b, const void *ptr, size_t bytes, int to_device, void *stream);
  /* advice (rs_mem_advice of resident/memory.h) about [ptr, ptr+bytes) for the device
   * (on_device 1) or the host (0) (cudaMemAdvise) */
  rs_status (*managed_advise)(rs_backend *b, const void *ptr, size_t bytes, int advice, int on_device);

  /* interprocess sharing of device memory (resident/ipc.h). export: a handle of
   * RS_BE_IPC_BYTES for the allocation holding ptr, ptr's offset in it and its size.
   * open: map an allocation another process exported (never this process's own); the
   * address is its base. close: unmap what open mapped; may run inside a stream callback,
   * so it makes no call into the driver there (CUDA closes later, at the next open or at
   * close). */
  rs_status (*ipc_mem_export)(rs_backend *b, void *ptr, unsigned char *handle, size_t *offset,
                              size_t *alloc_bytes);
  rs_status (*ipc_mem_open)(rs_backend *b, const unsigned char *handle, size_t alloc_bytes, void **base);
  rs_status (*ipc_mem_close)(rs_backend *b, void *base);
  /* events created with RS_EVENT_INTERPROCESS: a handle (RS_BE_IPC_BYTES), and an event of
   * this context over another process's (record, wait, query, synchronize, destroy) */
  rs_status (*ipc_event_export)(rs_backend *b, void *ev, unsigned char *handle);
  rs_status (*ipc_event_open)(rs_backend *b, const unsigned char *handle, void **ev);
  /* graphs (version 2): work queued on a stream between graph_begin and graph_end is
   * recorded into a graph instead of run; graph_launch replays it, in order, on any stream
   * of the context, as often as asked. The stream is never the legacy default stream (the
   * shared layer refuses it). */
  rs_status (*graph_begin)(rs_backend *b, void *stream);
  /* *graph: ready to launch; on failure the stream is back to normal and nothing is kept */
  rs_status (*graph_end)(rs_backend *b, void *stream, void **graph);
  rs_status (*graph_launch)(rs_backend *b, void *graph, void *stream);
  /* replays still queued complete first (or keep what they use alive) */
  rs_status (*graph_destroy)(rs_backend *b, void *graph);
  /* profiler annotations (NVTX on CUDA), called by the ledger around each entry; NULL
   * where the backend has none (the simulator). They must cost next to nothing when no
   * profiler listens: no formatting, no lock. what: the cause; arg: the kernel argument
   * of an implicit copy or -1. */
  void (*range_push)(rs_range_kind kind, int implicit, const char *what, int arg); /* this thread */
  void (*range_pop)(void);
  /* a range that may end on another thread (ledger scopes); 0 when none was opened */
  uint64_t (*range_start)(rs_range_kind kind, const char *what);
  void (*range_end)(uint64_t id);

  /* ---- collectives (resident/collective.h; appended, NULL where a backend has none) ---- */
  /* a fresh id of RS_BE_COMM_ID_BYTES for comm_open */
  rs_status (*comm_unique_id)(unsigned char *id);
  /* join a communicator of nranks as ranks first_rank .. first_rank+nlocal-1 on the
   * contexts bes[0..nlocal-1] (distinct devices); id NULL: every rank is local (one
   * process). Waits at most timeout_ms for the others. *out: the backend's comm. */
  rs_status (*comm_open)(void **out, rs_backend *const *bes, int nlocal, int nranks, int first_rank,
                         const unsigned char *id, int64_t timeout_ms);
  /* free it (abort where broken); queued work completes or is abandoned by the library */
  void (*comm_close)(void *comm);
  /* one collective, all local ranks (checked above: counts, dtypes, ranks) */
  rs_status (*comm_run)(void *comm, const struct rs_be_collective *c);

  /* ---- the simulator's memory checks (simdbg) ---- */
  /* a caching pool's note about the device memory it hands out (RS_BE_NOTE_*): a segment
   * it took from device_alloc, a block of one handed out (bytes: what was asked for) or
   * taken back; NULL where nothing listens (CUDA) */
  void (*device_note)(rs_backend *b, void *ptr, size_t bytes, int what);

  /* ---- since version 3 ---- */
  /* A pageable H2D's device side (transfer/staging_pull.c): queue on stream the work that
   * copies the job's slices from the mapped ring into dst as the host marks them ready
   * (the protocol at rs_be_pull). It starts while the host is still filling the ring, so
   * it must never wait for anything but the slices' flags; NULL where a backend has no
   * such work (the copy is then staged through DMAs alone). */
  rs_status (*stage_pull)(rs_backend *b, const struct rs_be_pull *job, void *stream);
} rs_backend_vtable;

/* Words between two flags of the pull ring: a flag a cache line (64 bytes), so that the
 * lanes storing neighbouring slices' flags do not share a line. */
#define RS_BE_PULL_FLAG_STRIDE 8

/* One pull job (stage_pull). Slice k (0 <= k < slices) is number g = first + k: it lives at
 * ring + (g % slots) * slice_bytes and holds the copy's bytes from k * slice_bytes, at
 * most slice_bytes of them (the last one fewer). The host stores g + 1 into
 * ready[(g % slots) * RS_BE_PULL_FLAG_STRIDE] (a release) once the slice's bytes are in the
 * ring; the device then copies them to dst + k * slice_bytes and, once it no longer reads
 * the slot, stores g + 1 into freed[(g % slots) * RS_BE_PULL_FLAG_STRIDE] (a release at
 * system scope, after its reads). A job has at most `slots` slices, so no two share a
 * slot. Pointers are the device's aliases of mapped pinned memory (host_device_pointer),
 * except dst (device memory). */
typedef struct rs_be_pull {
  void *dst;
  const char *ring;
  const uint64_t *ready;
  uint64_t *freed;
  uint64_t first;
  size_t slices, slice_bytes, bytes, slots;
} rs_be_pull;

/* 1 if a pull job breaks the rules above (what every backend's stage_pull refuses). */
static inline int rs_be_pull_malformed(const rs_be_pull *j) {
  return !j || !j->dst || !j->ring || !j->ready || !j->freed || j->slices == 0 || j->slices > j->slots ||
         j->slice_bytes % 64 != 0 || j->bytes > j->slices * j->slice_bytes;
}

#define RS_BE_COMM_ID_BYTES 256 /* = RS_COMM_ID_BYTES; each backend tags its own */

typedef enum rs_be_coll_kind {
  RS_COLL_ALL_REDUCE = 0,
  RS_COLL_REDUCE_SCATTER = 1,
  RS_COLL_ALL_GATHER = 2,
  RS_COLL_BROADCAST = 3,
  RS_COLL_SEND_RECV = 4
} rs_be_coll_kind;

/* One collective for comm_run. count: elements of send (all-reduce, all-gather,
 * broadcast) or of recv (reduce-scatter); send/recv: counts per local rank. Arrays hold
 * one entry per local rank: device pointers (NULL: nothing to send or receive), native
 * streams. op: rs_reduce_op. */
typedef struct rs_be_collective {
  rs_be_coll_kind kind;
  rs_dtype dtype;
  int op;
  int root;
  int64_t count;
  int nlocal;
  const void *const *send;
  void *const *recv;
  void *const *streams;
  const int *send_to, *recv_from;        /* send/recv: peer ranks, -1 none */
  const int64_t *send_count, *recv_count; /* send/recv: elements */
  const char *what;                       /* the public call, for messages */
} rs_be_collective;

/* device_note's what */
#define RS_BE_NOTE_SEGMENT 0
#define RS_BE_NOTE_LIVE 1
#define RS_BE_NOTE_DEAD 2

/* Bytes of a backend's interprocess memory handle (a cudaIpcMemHandle_t is 64). */
#define RS_BE_IPC_BYTES 64

/* ---- the descriptor: all a backend provides, found through the one registry ---------- */
typedef struct rs_kernel_table rs_kernel_table; /* user kernels: src/backend/kernel_table.h */
typedef struct rs_ops_table rs_ops_table;       /* array operations: src/backend/ops_table.h */

/* The shape and meaning of the descriptor and its three tables. Bump on any change: the
 * registry refuses a descriptor of another version rather than call through a table laid
 * out differently. */
#define RS_BACKEND_DESC_VERSION 3 /* 2: device_count takes the config; copy_peer_async; managed prefetch and advice; IPC; graphs; profiler ranges. 3: stage_pull */

typedef struct rs_backend_desc {
  int version; /* RS_BACKEND_DESC_VERSION when the backend was built */
  const char *name;
  rs_backend_kind kind;
  const rs_backend_vtable *runtime; /* devices, memory, copies, streams, events */
  const rs_kernel_table *kernels;   /* user kernels; NULL where the backend runs none */
  const rs_ops_table *ops;          /* array operations on its device; NULL where none */
} rs_backend_desc;

/* The backends this build may have (src/backend/<name>/). */
extern const rs_backend_desc rs_backend_sim;
#ifdef RS_HAVE_CUDA
extern const rs_backend_desc rs_backend_cuda;
#endif

/* The registry: the descriptor of a concrete kind, or NULL if this build has none (or
 * only one of another version). */
const rs_backend_desc *rs_backend_get(rs_backend_kind kind);

#ifdef __cplusplus
}
#endif
#endif
