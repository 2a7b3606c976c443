/* Collectives on arrays (resident/collective.h): the communicator handle, the checks every
 * call makes before a backend sees it, and the ledger entries. The backend (NCCL on CUDA,
 * shared memory on the simulator) moves the bytes through its comm_* entries. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "backend/backend.h"
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "memory/allocator.h"
#include "memory/buffer.h"
#include "ops/collective_internal.h"
#include "resident/collective.h"
#include "stream/stream.h"

#define RS_COMM_MAX_RANKS 4096

struct rs_comm {
  rs_handle_header header;
  int nranks, first, nlocal;
  int broken; /* a wait timed out: only destroy is left */
  void *native;
  const rs_backend_vtable *vt;
  rs_context *ctxs[RS_COMM_MAX_LOCAL];
};

static rs_slab rs_comm_slab;
static pthread_once_t rs_comm_slab_once = PTHREAD_ONCE_INIT;
static void rs_comm_slab_init(void) { rs_slab_init(&rs_comm_slab, sizeof(rs_comm)); }

/* The backend's comm over ctxs[0..n) as ranks first.., wrapped in a handle. */
static rs_status comm_open(rs_comm **out, rs_context *const *ctxs, int n, int nranks, int first,
                           const unsigned char *id, const char *who) {
  const rs_backend_vtable *vt = ctxs[0]->vt;
  if (!vt->comm_open)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend has no collectives", who, vt->name);
  rs_backend *bes[RS_COMM_MAX_LOCAL];
  for (int i = 0; i < n; i++) bes[i] = ctxs[i]->be;
  void *native = NULL;
  RS_TRY(vt->comm_open(&native, bes, n, nranks, first, id, (int64_t)ctxs[0]->cfg.comm_timeout_s * 1000));
  pthread_once(&rs_comm_slab_once, rs_comm_slab_init);
  rs_comm *c = rs_slab_alloc(&rs_comm_slab, RS_MAGIC_COMM);
  if (!c) {
    vt->comm_close(native);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", who);
  }
  c->nranks = nranks;
  c->first = first;
  c->nlocal = n;
  c->native = native;
  c->vt = vt;
  for (int i = 0; i < n; i++) c->ctxs[i] = ctxs[i];
  *out = c;
  return RS_OK;
}

rs_status rs_comm_create(rs_comm **out, rs_context *const *ctxs, int n) {
  static const char *who = "rs_comm_create";
  if (!out || !ctxs) return rs_fail(RS_ERR_NULL_POINTER, "%s: %s is NULL", who, out ? "ctxs" : "out");
  *out = NULL;
  if (n < 1 || n > RS_COMM_MAX_LOCAL)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d contexts; a communicator of one process has 1 to %d", who, n,
                   RS_COMM_MAX_LOCAL);
  for (int i = 0; i < n; i++) {
    if (!ctxs[i]) return rs_fail(RS_ERR_NULL_POINTER, "%s: ctxs[%d] is NULL", who, i);
    if (ctxs[i]->kind != ctxs[0]->kind)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: ctxs[0] is on the %s backend but ctxs[%d] on %s: one backend per comm",
                     who, rs_backend_name(ctxs[0]->kind), i, rs_backend_name(ctxs[i]->kind));
    for (int j = 0; j < i; j++)
      if (ctxs[j]->device == ctxs[i]->device)
        return rs_fail(RS_ERR_INVALID_ARGUMENT,
                       "%s: ctxs[%d] and ctxs[%d] are both on device %d: each rank needs a device of its own", who, j,
                       i, ctxs[i]->device);
  }
  return comm_open(out, ctxs, n, n, 0, NULL, who);
}

rs_status rs_comm_unique_id(rs_backend_kind kind, rs_comm_id *out) {
  static const char *who = "rs_comm_unique_id";
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "%s: out is NULL", who);
  memset(out, 0, sizeof *out);
  if (kind == RS_BACKEND_AUTO)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: name the backend of the contexts that will join (rs_context_backend(ctx)), not auto", who);
  if (kind != RS_BACKEND_CUDA && kind != RS_BACKEND_SIM)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: unknown backend kind %d", who, (int)kind);
  const rs_backend_desc *d = rs_backend_get(kind);
  if (!d) return rs_fail(RS_ERR_NO_DEVICE, "%s: the %s backend is not built into this library", who, rs_backend_name(kind));
  if (!d->runtime->comm_unique_id)
    return rs_fail(RS_ERR_UNSUPPORTED, "%s: the %s backend has no collectives", who, d->name);
  rs_status st = d->runtime->comm_unique_id(out->bytes);
  if (st != RS_OK) memset(out, 0, sizeof *out);
  return st;
}

rs_status rs_comm_init_rank(rs_comm **out, rs_context *ctx, int nranks, int rank, const rs_comm_id *id) {
  static const char *who = "rs_comm_init_rank";
  if (!out || !ctx || !id)
    return rs_fail(RS_ERR_NULL_POINTER, "%s: %s is NULL", who, !out ? "out" : !ctx ? "ctx" : "id");
  *out = NULL;
  if (nranks < 1 || nranks > RS_COMM_MAX_RANKS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d ranks; a communicator has 1 to %d", who, nranks,
                   RS_COMM_MAX_RANKS);
  if (rank < 0 || rank >= nranks)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d is out of range: a comm of %d ranks has ranks 0 to %d", who,
                   rank, nranks, nranks - 1);
  return comm_open(out, &ctx, 1, nranks, rank, id->bytes, who);
}

rs_status rs_comm_destroy(rs_comm *comm) {
  if (!comm) return RS_OK;
  RS_TRY(rs_handle_claim(comm, RS_MAGIC_COMM, "rs_comm_destroy"));
  comm->vt->comm_close(comm->native);
  rs_slab_free(&rs_comm_slab, comm);
  return RS_OK;
}

rs_status rs_comm_get_info(const rs_comm *comm, int *nranks, int *first_rank, int *local_ranks) {
  RS_TRY(rs_handle_check(comm, RS_MAGIC_COMM, "rs_comm_get_info"));
  if (nranks) *nranks = comm->nranks;
  if (first_rank) *first_rank = comm->first;
  if (local_ranks) *local_ranks = comm->nlocal;
  return RS_OK;
}

/* ---- the calls ---------------------------------------------------------------------- */

rs_status rs_coll_begin(rs_coll_call *k, rs_comm *comm, rs_be_coll_kind kind, rs_stream *const *streams,
                        const char *who) {
  memset(k, 0, sizeof *k);
  RS_TRY(rs_handle_check(comm, RS_MAGIC_COMM, who));
  if (comm->broken)
    return rs_fail(RS_ERR_STATE, "%s: the communicator timed out or failed in an earlier call: destroy it", who);
  k->comm = comm;
  k->who = who;
  k->dtype = (rs_dtype)-1;
  k->be.kind = kind;
  k->be.nlocal = comm->nlocal;
  k->be.send = k->send;
  k->be.recv = k->recv;
  k->be.streams = k->streams;
  k->be.send_to = k->send_to;
  k->be.recv_from = k->recv_from;
  k->be.send_count = k->send_count;
  k->be.recv_count = k->recv_count;
  k->be.what = who;
  for (int i = 0; i < comm->nlocal; i++) {
    k->send_to[i] = k->recv_from[i] = -1;
    RS_TRY(rs_stream_resolve(comm->ctxs[i], streams ? streams[i] : NULL, &k->streams[i], who));
    /* the ledger records a collective as done, and the simulator runs it at once: neither
     * fits a graph, so a capture is refused rather than broken */
    if (rs_capture_of(comm->ctxs[i], k->streams[i], 1))
      return rs_fail(RS_ERR_STATE, "%s: local rank %d's stream is being captured into a graph; collectives are not "
                     "captured (end the capture first)", who, i);
  }
  return RS_OK;
}

int rs_coll_nranks(const rs_coll_call *k) { return k->comm->nranks; }
int rs_coll_first(const rs_coll_call *k) { return k->comm->first; }

static int coll_dtype_ok(rs_dtype d) {
  switch (d) {
    case RS_INT8: case RS_UINT8: case RS_INT32: case RS_UINT32: case RS_INT64: case RS_UINT64:
    case RS_FLOAT16: case RS_FLOAT32: case RS_FLOAT64:
      return 1;
    default:
      return 0;
  }
}

rs_status rs_coll_array(rs_coll_call *k, int i, const rs_array *a, const char *role, int64_t *count) {
  const char *who = k->who;
  char name[32];
  snprintf(name, sizeof name, "%s[%d]", role, i);
  if (!a) return rs_fail(RS_ERR_NULL_POINTER, "%s: %s is NULL", who, name);
  RS_TRY(rs_array_check(a, who));
  rs_context *mine = k->comm->ctxs[i];
  if (a->ctx != mine)
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: %s is an array of device %d, but local rank %d (rank %d) is on device %d: an array of a "
                   "call belongs to its rank's context",
                   who, name, a->ctx->device, i, k->comm->first + i, mine->device);
  if (rs_array_kind(a) != RS_MEM_DEVICE)
    return rs_fail(RS_ERR_MEMORY_KIND, "%s: %s is %s memory; collectives take device arrays", who, name,
                   rs_mem_kind_name(rs_array_kind(a)));
  if (!rs_array_is_c_contiguous(a))
    return rs_fail(RS_ERR_NOT_CONTIGUOUS, "%s: %s is not C-contiguous (make a contiguous copy first)", who, name);
  if (!coll_dtype_ok(a->dtype))
    return rs_fail(RS_ERR_DTYPE,
                   "%s: %s is %s; collectives take int8, uint8, int32, uint32, int64, uint64, float16, float32 "
                   "or float64",
                   who, name, rs_dtype_name(a->dtype));
  if ((int)k->dtype == -1) {
    k->dtype = a->dtype;
    snprintf(k->dtype_from, sizeof k->dtype_from, "%s", name);
  } else if (a->dtype != k->dtype) {
    return rs_fail(RS_ERR_DTYPE, "%s: %s is %s but %s is %s: one dtype per call", who, k->dtype_from,
                   rs_dtype_name(k->dtype), name, rs_dtype_name(a->dtype));
  }
  *count = rs_array_size(a);
  return RS_OK;
}

rs_status rs_coll_count(rs_coll_call *k, int64_t want, int64_t have, const char *what) {
  if (want == have) return RS_OK;
  return rs_fail(RS_ERR_SHAPE, "%s: %s has %lld elements but %lld are needed", k->who, what, (long long)have,
                 (long long)want);
}

rs_status rs_coll_rank(rs_coll_call *k, int rank, const char *what) {
  if (rank >= 0 && rank < k->comm->nranks) return RS_OK;
  return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %s is rank %d, out of range: the comm has ranks 0 to %d", k->who, what,
                 rank, k->comm->nranks - 1);
}

void rs_coll_set(rs_coll_call *k, int i, const rs_array *send, rs_array *recv, size_t sent_bytes) {
  k->send_arr[i] = send;
  k->recv_arr[i] = recv;
  k->send[i] = send ? rs_array_device_ptr(send) : NULL;
  k->recv[i] = recv ? rs_array_device_ptr(recv) : NULL;
  k->sent_bytes[i] = sent_bytes;
}

/* Order the buffers on each rank's stream, run, note the uses, record the entries. */
rs_status rs_coll_run(rs_coll_call *k) {
  rs_comm *c = k->comm;
  k->be.dtype = k->dtype;
  rs_status st = RS_OK;
  for (int i = 0; i < c->nlocal && st == RS_OK; i++) {
    if (k->send_arr[i]) st = rs_memory_prepare_use(k->send_arr[i]->buf, k->streams[i]);
    if (st == RS_OK && k->recv_arr[i]) st = rs_memory_prepare_use(k->recv_arr[i]->buf, k->streams[i]);
  }
  if (st != RS_OK) return st;
  rs_ledger_token tokens[RS_COMM_MAX_LOCAL];
  for (int i = 0; i < c->nlocal; i++) tokens[i] = rs_ledger_collective_begin(c->ctxs[i], k->who, k->streams[i]);
  st = c->vt->comm_run(c->native, &k->be);
  for (int i = c->nlocal - 1; i >= 0; i--) { /* profiler ranges close in the reverse order */
    if (st != RS_OK) {
      rs_ledger_token_drop(c->ctxs[i], tokens[i]);
      continue;
    }
    if (k->send_arr[i]) rs_memory_note_use(k->send_arr[i]->buf, k->streams[i]);
    if (k->recv_arr[i]) rs_memory_note_use(k->recv_arr[i]->buf, k->streams[i]);
    rs_ledger_collective_end(c->ctxs[i], tokens[i], k->who, k->sent_bytes[i], k->streams[i]);
  }
  if (st == RS_ERR_NOT_READY || st == RS_ERR_DEVICE) c->broken = 1;
  return st;
}
