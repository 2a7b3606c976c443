/* Collectives through NCCL (resident/collective.h), loaded at run time like cuBLAS: the
 * library links against no NCCL, so it loads and runs where NCCL is absent and says so
 * when a communicator is asked for. Types and constants come from the toolkit's nccl.h
 * (NCCL's documented ABI); where the build has no nccl.h the backend reports that.
 *
 * Nothing waits forever: communicators are made non-blocking (ncclConfig_t.blocking = 0),
 * and every wait for NCCL (initialisation, the queueing of a group) polls
 * ncclCommGetAsyncError until the comm's timeout, then aborts the comm (ncclCommAbort). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "backend/cuda/cuda_internal.h"
#include "core/error.h"
#include "resident/collective.h"

#define RS_NCCL_TAG "resident-cuda-nccl" /* the id's first bytes; NCCL's id follows */
#define RS_NCCL_ID_AT 32
#define RS_NCCL_LOCAL 64

#if __has_include(<nccl.h>)
#include <nccl.h>
#define RS_HAVE_NCCL_H 1
_Static_assert(RS_NCCL_ID_AT + sizeof(ncclUniqueId) <= RS_BE_COMM_ID_BYTES, "NCCL's id fits in resident's");

typedef struct rs_nccl_api {
  ncclResult_t (*get_version)(int *);
  ncclResult_t (*get_unique_id)(ncclUniqueId *);
  ncclResult_t (*init_rank_config)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *);
  ncclResult_t (*group_start)(void);
  ncclResult_t (*group_end)(void);
  ncclResult_t (*async_error)(ncclComm_t, ncclResult_t *);
  ncclResult_t (*abort)(ncclComm_t);
  ncclResult_t (*finalize)(ncclComm_t);
  ncclResult_t (*destroy)(ncclComm_t);
  ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*reduce_scatter)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                 cudaStream_t);
  ncclResult_t (*all_gather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
  ncclResult_t (*broadcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  const char *(*error_string)(ncclResult_t);
  const char *(*last_error)(ncclComm_t);
} rs_nccl_api;

static rs_nccl_api rs_nccl;
static int rs_nccl_ok;
static char rs_nccl_error[640];
static pthread_once_t rs_nccl_once = PTHREAD_ONCE_INIT;

static void load_nccl(void) {
  static const char *const names[] = {"libnccl.so.2", "libnccl.so"};
  void *lib = NULL;
  char first[256] = "";
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++) {
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!lib && i == 0) snprintf(first, sizeof first, "%s", dlerror());
  }
  if (!lib) {
    snprintf(rs_nccl_error, sizeof rs_nccl_error,
             "NCCL is not available: dlopen(\"libnccl.so.2\") and dlopen(\"libnccl.so\") failed (%s); install NCCL "
             "(libnccl2) or add its directory to LD_LIBRARY_PATH",
             first);
    return;
  }
  int ok = 1;
#define RS_NCCL_SYM(field, name)                                                                      \
  do {                                                                                                \
    if (ok && !(*(void **)&rs_nccl.field = dlsym(lib, name))) {                                       \
      snprintf(rs_nccl_error, sizeof rs_nccl_error, "NCCL (libnccl.so.2) lacks the symbol %s", name); \
      ok = 0;                                                                                         \
    }                                                                                                 \
  } while (0)
  RS_NCCL_SYM(get_version, "ncclGetVersion");
  RS_NCCL_SYM(get_unique_id, "ncclGetUniqueId");
  RS_NCCL_SYM(init_rank_config, "ncclCommInitRankConfig");
  RS_NCCL_SYM(group_start, "ncclGroupStart");
  RS_NCCL_SYM(group_end, "ncclGroupEnd");
  RS_NCCL_SYM(async_error, "ncclCommGetAsyncError");
  RS_NCCL_SYM(abort, "ncclCommAbort");
  RS_NCCL_SYM(finalize, "ncclCommFinalize");
  RS_NCCL_SYM(destroy, "ncclCommDestroy");
  RS_NCCL_SYM(all_reduce, "ncclAllReduce");
  RS_NCCL_SYM(reduce_scatter, "ncclReduceScatter");
  RS_NCCL_SYM(all_gather, "ncclAllGather");
  RS_NCCL_SYM(broadcast, "ncclBroadcast");
  RS_NCCL_SYM(send, "ncclSend");
  RS_NCCL_SYM(recv, "ncclRecv");
  RS_NCCL_SYM(error_string, "ncclGetErrorString");
  RS_NCCL_SYM(last_error, "ncclGetLastError");
#undef RS_NCCL_SYM
  int version = 0;
  if (ok && rs_nccl.get_version(&version) == ncclSuccess && version < 21400) {
    snprintf(rs_nccl_error, sizeof rs_nccl_error, "NCCL %d is too old: non-blocking communicators need 2.14 or later",
             version);
    ok = 0;
  }
  rs_nccl_ok = ok;
}

static rs_status need_nccl(const char *who) {
  pthread_once(&rs_nccl_once, load_nccl);
  if (rs_nccl_ok) return RS_OK;
  return rs_fail(RS_ERR_UNSUPPORTED, "%s: %s", who, rs_nccl_error);
}

static rs_status nccl_fail(ncclResult_t r, ncclComm_t comm, const char *what) {
  const char *detail = comm && rs_nccl.last_error ? rs_nccl.last_error(comm) : "";
  return rs_fail(r == ncclInvalidArgument || r == ncclInvalidUsage ? RS_ERR_INVALID_ARGUMENT : RS_ERR_DEVICE,
                 "%s: NCCL error %d: %s%s%s", what, (int)r, rs_nccl.error_string(r), detail && *detail ? ": " : "",
                 detail ? detail : "");
}

typedef struct rs_nccl_comm {
  int nlocal;
  int64_t timeout_ms;
  ncclComm_t comms[RS_NCCL_LOCAL];
  rs_backend *bes[RS_NCCL_LOCAL];
} rs_nccl_comm;

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Wait until no local comm is in progress; past the timeout abort them all. */
static rs_status settle(rs_nccl_comm *c, const char *what) {
  double deadline = now_ms() + (double)c->timeout_ms;
  for (int i = 0; i < c->nlocal; i++) {
    if (!c->comms[i]) continue;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      ncclResult_t r = rs_nccl.async_error(c->comms[i], &state);
      if (r != ncclSuccess) return nccl_fail(r, c->comms[i], what);
      if (state == ncclSuccess) break;
      if (state != ncclInProgress) return nccl_fail(state, c->comms[i], what);
      if (now_ms() > deadline) {
        for (int k = 0; k < c->nlocal; k++)
          if (c->comms[k]) rs_nccl.abort(c->comms[k]);
        memset(c->comms, 0, sizeof c->comms);
        return rs_fail(RS_ERR_NOT_READY,
                       "%s: timed out after %lld ms waiting for NCCL (the other ranks; RESIDENT_COMM_TIMEOUT); the "
                       "communicator was aborted",
                       what, (long long)c->timeout_ms);
      }
      struct timespec ts = {0, 100000};
      nanosleep(&ts, NULL);
    }
  }
  return RS_OK;
}

rs_status rs_cuda_comm_unique_id(unsigned char *id) {
  RS_TRY(need_nccl("rs_comm_unique_id"));
  ncclUniqueId u;
  ncclResult_t r = rs_nccl.get_unique_id(&u);
  if (r != ncclSuccess) return nccl_fail(r, NULL, "ncclGetUniqueId");
  memset(id, 0, RS_BE_COMM_ID_BYTES);
  memcpy(id, RS_NCCL_TAG, sizeof RS_NCCL_TAG);
  memcpy(id + RS_NCCL_ID_AT, &u, sizeof u);
  return RS_OK;
}

/* A non-blocking comm is finalized (its queued work flushed) and waited for, within the
 * timeout, before it is destroyed; one that does not settle is aborted instead. */
void rs_cuda_comm_close(void *comm) {
  rs_nccl_comm *c = comm;
  if (!c) return;
  int finalized = 1;
  for (int i = 0; i < c->nlocal; i++)
    if (c->comms[i]) {
      rs_cuda_enter(c->bes[i]);
      ncclResult_t r = rs_nccl.finalize(c->comms[i]);
      if (r != ncclSuccess && r != ncclInProgress) finalized = 0;
    }
  if (finalized && settle(c, "ncclCommFinalize") != RS_OK) finalized = 0; /* settle aborted them */
  rs_clear_error();
  for (int i = 0; i < c->nlocal; i++)
    if (c->comms[i]) {
      rs_cuda_enter(c->bes[i]);
      if (finalized) rs_nccl.destroy(c->comms[i]);
      else rs_nccl.abort(c->comms[i]);
    }
  rs_clear_error(); /* a destroy reports nothing: the comm is gone either way */
  free(c);
}

rs_status rs_cuda_comm_open(void **out, rs_backend *const *bes, int nlocal, int nranks, int first,
                            const unsigned char *id, int64_t timeout_ms) {
  static const char *who = "cuda comm_open";
  RS_TRY(need_nccl(who));
  if (nlocal > RS_NCCL_LOCAL) return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: %d local ranks (at most %d)", who, nlocal, RS_NCCL_LOCAL);
  ncclUniqueId u;
  if (id) {
    if (memcmp(id, RS_NCCL_TAG, sizeof RS_NCCL_TAG) != 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "%s: not a CUDA (NCCL) communicator id (garbled, or made by rs_comm_unique_id for the simulator)",
                     who);
    memcpy(&u, id + RS_NCCL_ID_AT, sizeof u);
  } else {
    ncclResult_t r = rs_nccl.get_unique_id(&u);
    if (r != ncclSuccess) return nccl_fail(r, NULL, "ncclGetUniqueId");
  }
  rs_nccl_comm *c = calloc(1, sizeof *c);
  if (!c) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", who);
  c->nlocal = nlocal;
  c->timeout_ms = timeout_ms;
  rs_status st = RS_OK;
  ncclResult_t r = rs_nccl.group_start();
  /* a non-blocking call may answer ncclInProgress: that is no failure, the settle waits */
  for (int i = 0; i < nlocal && (r == ncclSuccess || r == ncclInProgress) && st == RS_OK; i++) {
    c->bes[i] = bes[i];
    st = rs_cuda_enter(bes[i]);
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0; /* so that a missing rank is a timeout, not a hang */
    if (st == RS_OK) r = rs_nccl.init_rank_config(&c->comms[i], nranks, u, first + i, &cfg);
  }
  ncclResult_t end = rs_nccl.group_end();
  if (r == ncclSuccess || r == ncclInProgress) r = end;
  if (st == RS_OK && r != ncclSuccess && r != ncclInProgress) st = nccl_fail(r, NULL, "ncclCommInitRankConfig");
  if (st == RS_OK) st = settle(c, "ncclCommInitRankConfig");
  if (st != RS_OK) {
    for (int i = 0; i < nlocal; i++)
      if (c->comms[i]) rs_nccl.abort(c->comms[i]);
    free(c);
    return st;
  }
  *out = c;
  return RS_OK;
}

static ncclDataType_t nccl_type(rs_dtype d) {
  switch (d) {
    case RS_INT8: return ncclInt8;
    case RS_UINT8: return ncclUint8;
    case RS_INT32: return ncclInt32;
    case RS_UINT32: return ncclUint32;
    case RS_INT64: return ncclInt64;
    case RS_UINT64: return ncclUint64;
    case RS_FLOAT16: return ncclFloat16;
    case RS_FLOAT64: return ncclFloat64;
    default: return ncclFloat32;
  }
}

static ncclRedOp_t nccl_op(int op) {
  switch (op) {
    case RS_REDUCE_PROD: return ncclProd;
    case RS_REDUCE_MIN: return ncclMin;
    case RS_REDUCE_MAX: return ncclMax;
    case RS_REDUCE_MEAN: return ncclAvg;
    default: return ncclSum;
  }
}

/* One local rank's part of the group. */
static ncclResult_t queue_one(const rs_be_collective *k, int i, ncclComm_t comm) {
  ncclDataType_t t = nccl_type(k->dtype);
  cudaStream_t s = (cudaStream_t)k->streams[i];
  size_t n = (size_t)k->count;
  switch (k->kind) {
    case RS_COLL_ALL_REDUCE: return rs_nccl.all_reduce(k->send[i], k->recv[i], n, t, nccl_op(k->op), comm, s);
    case RS_COLL_REDUCE_SCATTER:
      return rs_nccl.reduce_scatter(k->send[i], k->recv[i], n, t, nccl_op(k->op), comm, s);
    case RS_COLL_ALL_GATHER: return rs_nccl.all_gather(k->send[i], k->recv[i], n, t, comm, s);
    case RS_COLL_BROADCAST: return rs_nccl.broadcast(k->recv[i], k->recv[i], n, t, k->root, comm, s);
    case RS_COLL_SEND_RECV: {
      ncclResult_t r = ncclSuccess;
      if (k->send_to[i] >= 0) r = rs_nccl.send(k->send[i], (size_t)k->send_count[i], t, k->send_to[i], comm, s);
      if ((r == ncclSuccess || r == ncclInProgress) && k->recv_from[i] >= 0)
        r = rs_nccl.recv(k->recv[i], (size_t)k->recv_count[i], t, k->recv_from[i], comm, s);
      return r;
    }
  }
  return ncclInvalidArgument;
}

rs_status rs_cuda_comm_run(void *comm, const rs_be_collective *k) {
  rs_nccl_comm *c = comm;
  for (int i = 0; i < c->nlocal; i++)
    if (!c->comms[i]) return rs_fail(RS_ERR_STATE, "%s: the communicator was aborted: destroy it", k->what);
  rs_status st = RS_OK;
  ncclResult_t r = rs_nccl.group_start();
  int bad = -1;
  for (int i = 0; i < c->nlocal && (r == ncclSuccess || r == ncclInProgress) && st == RS_OK; i++) {
    st = rs_cuda_enter(c->bes[i]);
    if (st == RS_OK) r = queue_one(k, i, c->comms[i]);
    if (r != ncclSuccess && r != ncclInProgress) bad = i;
  }
  ncclResult_t end = rs_nccl.group_end();
  if (st != RS_OK) return st;
  if (r == ncclSuccess || r == ncclInProgress) r = end;
  if (r != ncclSuccess && r != ncclInProgress) return nccl_fail(r, c->comms[bad >= 0 ? bad : 0], k->what);
  return settle(c, k->what);
}

#else /* the build had no nccl.h */

static rs_status no_nccl(void) {
  return rs_fail(RS_ERR_UNSUPPORTED,
                 "collectives: this library was built without NCCL's header (nccl.h), so it cannot call "
                 "libnccl.so.2; rebuild with the NCCL development files installed");
}
rs_status rs_cuda_comm_unique_id(unsigned char *id) {
  (void)id;
  return no_nccl();
}
rs_status rs_cuda_comm_open(void **out, rs_backend *const *bes, int nlocal, int nranks, int first,
                            const unsigned char *id, int64_t timeout_ms) {
  (void)out, (void)bes, (void)nlocal, (void)nranks, (void)first, (void)id, (void)timeout_ms;
  return no_nccl();
}
void rs_cuda_comm_close(void *comm) { (void)comm; }
rs_status rs_cuda_comm_run(void *comm, const rs_be_collective *k) {
  (void)comm, (void)k;
  return no_nccl();
}
#endif
