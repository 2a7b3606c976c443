/* resident/collective.h - collectives over several devices: all-reduce, reduce-scatter,
 * all-gather, broadcast, send/receive.
 *
 * A communicator (rs_comm) joins ranks, one device each. It is made in one of two ways:
 * - one process driving several devices: rs_comm_create over an array of contexts, one per
 *   device (rank i is ctxs[i]);
 * - several processes, one device each: one of them calls rs_comm_unique_id and hands the
 *   id to the others (a pipe, a file, MPI - the caller's choice); each then calls
 *   rs_comm_init_rank with its own context, the number of ranks and its rank.
 * Both may be mixed only in the sense that each process's ranks are consecutive; a call
 * takes one array per LOCAL rank (the comm's contexts in order; one array for a comm of
 * rs_comm_init_rank).
 *
 * On CUDA the collectives are NCCL's, loaded at run time (dlopen "libnccl.so.2", then
 * "libnccl.so"); where it cannot be loaded, making a communicator fails with
 * RS_ERR_UNSUPPORTED naming the library and the dlopen error. They are queued on the
 * streams given (NULL: each context's default stream) and return without waiting. On the
 * simulator the same calls run over its devices (RESIDENT_SIM_DEVICES) in one process and
 * over processes on one machine (shared memory, named by the id); there a call first waits
 * for the streams' queued work and returns with the collective finished.
 *
 * Arrays: device arrays (RS_MEM_DEVICE), C-contiguous, every array of the call of one
 * dtype among int8, uint8, int32, uint32, int64, uint64, float16, float32, float64 (NCCL's
 * types). Array i belongs to the comm's local context i. Only element counts matter, not
 * shapes. A send and a receive array do not overlap, except where said (in place).
 * Element counts and dtypes are checked against every rank's: the local ones by the call,
 * the other processes' by the backend where it can (the simulator always; NCCL cannot
 * and hangs or corrupts on a mismatch, which is why the timeout below exists).
 *
 * Timeouts: a rank that does not arrive (a process that died, a call another rank never
 * makes) does not hang the others forever. Making a communicator and each collective wait
 * at most RESIDENT_COMM_TIMEOUT seconds (default 300; resident.h, ENVIRONMENT) of the
 * first local context, then fail with RS_ERR_NOT_READY ("timed out") and leave the
 * communicator broken (NCCL's is aborted): destroy it. On the simulator a rank whose
 * process has exited is noticed within a few milliseconds, and the others fail then,
 * naming it. On CUDA the wait is bounded for
 * making the comm and for queueing (NCCL's non-blocking mode); work already on the GPU is
 * NCCL's.
 *
 * Ledger: each collective is one RS_ENTRY_COLLECTIVE entry in the ledger of every local
 * context (cause: the call's name; bytes: what that rank sends), with host time and, where
 * copies are timed, device time; totals in rs_ledger_stats.collectives; traces show it.
 *
 * Lifetime: destroy the comm before its contexts. Thread safety: a comm is used by one
 * thread at a time (collectives are ordered, and every rank must call them in the same
 * order); different comms may be used from different threads.
 */
#ifndef RESIDENT_COLLECTIVE_H
#define RESIDENT_COLLECTIVE_H

#include "resident/export.h"
#include "resident/array.h"
#include "resident/context.h"
#include "resident/reduce.h"
#include "resident/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_comm rs_comm;

/* Reductions are rs_reduce_op's (resident/reduce.h): RS_REDUCE_SUM, RS_REDUCE_PROD,
 * RS_REDUCE_MIN, RS_REDUCE_MAX and RS_REDUCE_MEAN (the sum divided by the number of ranks,
 * NCCL's ncclAvg; integer division for integers). The others are refused. */

#define RS_COMM_ID_BYTES 256

/* Opaque bytes; copy them as they are to the other processes. */
typedef struct rs_comm_id {
  unsigned char bytes[RS_COMM_ID_BYTES];
} rs_comm_id;

/* A communicator of n ranks in this process, rank i on ctxs[i]. The contexts are of one
 * backend and on n different devices (RS_ERR_INVALID_ARGUMENT naming the two that share
 * one); 1 <= n <= 64. The caller destroys it with rs_comm_destroy. Errors: NULL
 * arguments, destroyed contexts, NCCL missing (RS_ERR_UNSUPPORTED), a timeout
 * (RS_ERR_NOT_READY). Thread-safe. */
RS_API rs_status rs_comm_create(rs_comm **out, rs_context *const *ctxs, int n);

/* A new id for rs_comm_init_rank on backend kind, the backend of the contexts that will
 * join (rs_context_backend(ctx); AUTO is refused): NCCL's unique id on CUDA, a fresh
 * shared-memory name on the simulator. *out is zeroed on failure. Thread-safe. */
RS_API rs_status rs_comm_unique_id(rs_backend_kind kind, rs_comm_id *out);

/* Join the communicator named by id as rank `rank` of nranks (0 <= rank < nranks <= 4096),
 * on ctx's device. Every rank calls it; it returns when all have joined, or fails after
 * the timeout. Errors: a rank out of range (RS_ERR_INVALID_ARGUMENT naming it and the
 * range), an id of another backend or garbled (RS_ERR_INVALID_ARGUMENT), NCCL missing,
 * a timeout; on the simulator also a rank another process took already, or a count that
 * differs from the others'. Thread-safe. */
RS_API rs_status rs_comm_init_rank(rs_comm **out, rs_context *ctx, int nranks, int rank, const rs_comm_id *id);

/* Destroy a communicator (NULL is RS_OK). Work queued on CUDA completes first. A comm
 * destroyed already is RS_ERR_DESTROYED. Not thread-safe with calls on the same comm. */
RS_API rs_status rs_comm_destroy(rs_comm *comm);

/* The number of ranks, the rank of the first local context, and how many are local. Any
 * pointer may be NULL. Thread-safe. */
RS_API rs_status rs_comm_get_info(const rs_comm *comm, int *nranks, int *first_rank, int *local_ranks);

/* recv[i] = op over all ranks of send (sum, prod, min, max or mean) (same element count on every rank). send[i] ==
 * recv[i] is in place. streams: NULL, or one stream (or NULL) per local rank, each of its
 * rank's context. */
RS_API rs_status rs_comm_all_reduce(rs_comm *comm, const rs_array *const *send, rs_array *const *recv,
                                    rs_reduce_op op, rs_stream *const *streams);

/* send holds nranks blocks of recv's element count; rank r's recv = op over all ranks of
 * their block r. */
RS_API rs_status rs_comm_reduce_scatter(rs_comm *comm, const rs_array *const *send, rs_array *const *recv,
                                        rs_reduce_op op, rs_stream *const *streams);

/* recv (nranks times send's element count) = every rank's send, in rank order. */
RS_API rs_status rs_comm_all_gather(rs_comm *comm, const rs_array *const *send, rs_array *const *recv,
                                    rs_stream *const *streams);

/* In place: every rank's arrays[i] = rank root's (0 <= root < nranks). */
RS_API rs_status rs_comm_broadcast(rs_comm *comm, rs_array *const *arrays, int root, rs_stream *const *streams);

/* Point to point, all local ranks in one step (so one process driving several devices
 * cannot deadlock on itself): local rank i sends send[i] to rank send_to[i] and receives
 * recv[i] from rank recv_from[i]. A NULL send[i] (or a NULL send) sends nothing, a NULL
 * recv[i] receives nothing; send_to / recv_from may then be NULL or hold -1. A send and
 * the receive it meets have the same element count and dtype; a rank may send to itself.
 * Every rank of the comm calls it (those without traffic with NULLs). */
RS_API rs_status rs_comm_send_recv(rs_comm *comm, const rs_array *const *send, const int *send_to,
                                   rs_array *const *recv, const int *recv_from, rs_stream *const *streams);

#ifdef __cplusplus
}
#endif
#endif
