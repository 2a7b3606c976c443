/* Internal to src/ops: one collective call being checked and assembled (collective.c has
 * the comm and the run; collective_ops.c the five public calls). */
#ifndef RS_OPS_COLLECTIVE_INTERNAL_H
#define RS_OPS_COLLECTIVE_INTERNAL_H

#include "backend/backend.h"
#include "resident/collective.h"

#define RS_COMM_MAX_LOCAL 64 /* contexts of one process in a comm (the simulator's devices at most) */

typedef struct rs_coll_call {
  rs_comm *comm;
  const char *who;
  rs_dtype dtype;     /* -1 until the first array */
  char dtype_from[32]; /* the array that set it, for messages */
  rs_be_collective be;
  const void *send[RS_COMM_MAX_LOCAL];
  void *recv[RS_COMM_MAX_LOCAL];
  void *streams[RS_COMM_MAX_LOCAL];
  int send_to[RS_COMM_MAX_LOCAL], recv_from[RS_COMM_MAX_LOCAL];
  int64_t send_count[RS_COMM_MAX_LOCAL], recv_count[RS_COMM_MAX_LOCAL];
  const rs_array *send_arr[RS_COMM_MAX_LOCAL];
  rs_array *recv_arr[RS_COMM_MAX_LOCAL];
  size_t sent_bytes[RS_COMM_MAX_LOCAL];
} rs_coll_call;

/* Check the comm and resolve the streams (one per local rank, NULL entries or array = defaults). */
rs_status rs_coll_begin(rs_coll_call *k, rs_comm *comm, rs_be_coll_kind kind, rs_stream *const *streams,
                        const char *who);
int rs_coll_nranks(const rs_coll_call *k);
/* The rank of local rank 0 (local rank i is rank first + i). */
int rs_coll_first(const rs_coll_call *k);
/* Check role[i] (a device array of local rank i's context, C-contiguous, a supported dtype
 * equal to the call's) and give its element count. */
rs_status rs_coll_array(rs_coll_call *k, int i, const rs_array *a, const char *role, int64_t *count);
/* RS_ERR_SHAPE naming what when have != want. */
rs_status rs_coll_count(rs_coll_call *k, int64_t want, int64_t have, const char *what);
/* RS_ERR_INVALID_ARGUMENT naming what when rank is not one of the comm's. */
rs_status rs_coll_rank(rs_coll_call *k, int rank, const char *what);
/* Local rank i's arrays and the bytes it sends (its ledger entry). */
void rs_coll_set(rs_coll_call *k, int i, const rs_array *send, rs_array *recv, size_t sent_bytes);
rs_status rs_coll_run(rs_coll_call *k);

#endif
