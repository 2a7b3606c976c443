/* The five collectives of resident/collective.h: each checks its arrays against the comm's
 * local ranks (collective.c) and the counts against each other, then runs. */
#include <stdio.h>
#include "core/error.h"
#include "ops/collective_internal.h"

static rs_status check_op(rs_coll_call *k, rs_reduce_op op) {
  if (op != RS_REDUCE_SUM && op != RS_REDUCE_PROD && op != RS_REDUCE_MIN && op != RS_REDUCE_MAX &&
      op != RS_REDUCE_MEAN)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: reduction %s (%d) is not one of a collective's: sum, prod, min, max, mean",
                   k->who, rs_reduce_op_name(op), (int)op);
  k->be.op = (int)op;
  return RS_OK;
}

static rs_status need_arrays(rs_coll_call *k, const void *a, const void *b) {
  if (!a || !b) return rs_fail(RS_ERR_NULL_POINTER, "%s: %s is NULL", k->who, a ? "recv" : "send");
  return RS_OK;
}

/* send and recv of every local rank; the element count of local rank 0's send is the
 * call's, and every other rank's must match (factor: recv = factor * send, or send =
 * factor * recv when recv_is_part). */
static rs_status pairs(rs_coll_call *k, const rs_array *const *send, rs_array *const *recv, int64_t factor,
                       int recv_is_part) {
  RS_TRY(need_arrays(k, send, recv));
  int64_t first = -1;
  for (int i = 0; i < k->be.nlocal; i++) {
    int64_t ns = 0, nr = 0;
    char what[48];
    RS_TRY(rs_coll_array(k, i, send[i], "send", &ns));
    RS_TRY(rs_coll_array(k, i, recv[i], "recv", &nr));
    if (first < 0) first = ns;
    snprintf(what, sizeof what, "send[%d] (send[0] has %lld)", i, (long long)first);
    RS_TRY(rs_coll_count(k, first, ns, what));
    snprintf(what, sizeof what, "recv[%d]", i);
    if (recv_is_part && ns % factor != 0)
      return rs_fail(RS_ERR_SHAPE, "%s: send[%d] has %lld elements, not a multiple of the %lld ranks", k->who, i,
                     (long long)ns, (long long)factor);
    RS_TRY(rs_coll_count(k, recv_is_part ? ns / factor : ns * factor, nr, what));
    rs_coll_set(k, i, send[i], recv[i], rs_array_nbytes(send[i]));
  }
  return RS_OK;
}

rs_status rs_comm_all_reduce(rs_comm *comm, const rs_array *const *send, rs_array *const *recv, rs_reduce_op op,
                             rs_stream *const *streams) {
  rs_coll_call k;
  RS_TRY(rs_coll_begin(&k, comm, RS_COLL_ALL_REDUCE, streams, "rs_comm_all_reduce"));
  RS_TRY(check_op(&k, op));
  RS_TRY(pairs(&k, send, recv, 1, 0));
  k.be.count = rs_array_size(send[0]);
  return rs_coll_run(&k);
}

rs_status rs_comm_reduce_scatter(rs_comm *comm, const rs_array *const *send, rs_array *const *recv, rs_reduce_op op,
                                 rs_stream *const *streams) {
  rs_coll_call k;
  RS_TRY(rs_coll_begin(&k, comm, RS_COLL_REDUCE_SCATTER, streams, "rs_comm_reduce_scatter"));
  RS_TRY(check_op(&k, op));
  int64_t n = rs_coll_nranks(&k);
  RS_TRY(pairs(&k, send, recv, n, 1));
  k.be.count = rs_array_size(recv[0]);
  return rs_coll_run(&k);
}

rs_status rs_comm_all_gather(rs_comm *comm, const rs_array *const *send, rs_array *const *recv,
                             rs_stream *const *streams) {
  rs_coll_call k;
  RS_TRY(rs_coll_begin(&k, comm, RS_COLL_ALL_GATHER, streams, "rs_comm_all_gather"));
  RS_TRY(pairs(&k, send, recv, rs_coll_nranks(&k), 0));
  k.be.count = rs_array_size(send[0]);
  return rs_coll_run(&k);
}

rs_status rs_comm_broadcast(rs_comm *comm, rs_array *const *arrays, int root, rs_stream *const *streams) {
  rs_coll_call k;
  RS_TRY(rs_coll_begin(&k, comm, RS_COLL_BROADCAST, streams, "rs_comm_broadcast"));
  if (!arrays) return rs_fail(RS_ERR_NULL_POINTER, "%s: arrays is NULL", k.who);
  RS_TRY(rs_coll_rank(&k, root, "the root"));
  int64_t first = -1;
  for (int i = 0; i < k.be.nlocal; i++) {
    int64_t n = 0;
    char what[48];
    RS_TRY(rs_coll_array(&k, i, arrays[i], "arrays", &n));
    if (first < 0) first = n;
    snprintf(what, sizeof what, "arrays[%d] (arrays[0] has %lld)", i, (long long)first);
    RS_TRY(rs_coll_count(&k, first, n, what));
    int is_root = rs_coll_first(&k) + i == root;
    rs_coll_set(&k, i, arrays[i], arrays[i], is_root ? rs_array_nbytes(arrays[i]) : 0);
  }
  k.be.root = root;
  k.be.count = first;
  return rs_coll_run(&k);
}

rs_status rs_comm_send_recv(rs_comm *comm, const rs_array *const *send, const int *send_to, rs_array *const *recv,
                            const int *recv_from, rs_stream *const *streams) {
  rs_coll_call k;
  RS_TRY(rs_coll_begin(&k, comm, RS_COLL_SEND_RECV, streams, "rs_comm_send_recv"));
  for (int i = 0; i < k.be.nlocal; i++) {
    const rs_array *s = send ? send[i] : NULL;
    rs_array *r = recv ? recv[i] : NULL;
    char what[32];
    if (s) {
      if (!send_to) return rs_fail(RS_ERR_NULL_POINTER, "%s: send[%d] is given but send_to is NULL", k.who, i);
      snprintf(what, sizeof what, "send_to[%d]", i);
      RS_TRY(rs_coll_rank(&k, send_to[i], what));
      RS_TRY(rs_coll_array(&k, i, s, "send", &k.send_count[i]));
      k.send_to[i] = send_to[i];
    }
    if (r) {
      if (!recv_from) return rs_fail(RS_ERR_NULL_POINTER, "%s: recv[%d] is given but recv_from is NULL", k.who, i);
      snprintf(what, sizeof what, "recv_from[%d]", i);
      RS_TRY(rs_coll_rank(&k, recv_from[i], what));
      RS_TRY(rs_coll_array(&k, i, r, "recv", &k.recv_count[i]));
      k.recv_from[i] = recv_from[i];
    }
    rs_coll_set(&k, i, s, r, s ? rs_array_nbytes(s) : 0);
  }
  /* Pairs between local ranks are checked here; those with other processes by the backend. */
  int first = rs_coll_first(&k), n = k.be.nlocal;
  for (int i = 0; i < n; i++) {
    int to = k.send_to[i] - first;
    if (k.send_to[i] < 0 || to < 0 || to >= n) continue;
    if (k.recv_from[to] != first + i) {
      char from[32] = "nobody";
      if (k.recv_from[to] >= 0) snprintf(from, sizeof from, "rank %d", k.recv_from[to]);
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d sends to rank %d, which receives from %s", k.who,
                     first + i, k.send_to[i], from);
    }
    if (k.send_count[i] != k.recv_count[to])
      return rs_fail(RS_ERR_SHAPE, "%s: rank %d sends %lld elements to rank %d, which receives %lld", k.who, first + i,
                     (long long)k.send_count[i], k.send_to[i], (long long)k.recv_count[to]);
  }
  for (int i = 0; i < n; i++) {
    int from = k.recv_from[i] - first;
    if (k.recv_from[i] >= 0 && from >= 0 && from < n && k.send_to[from] != first + i)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d receives from rank %d, which does not send to it", k.who,
                     first + i, k.recv_from[i]);
  }
  if ((int)k.dtype == -1) k.dtype = RS_FLOAT32; /* nothing moves: any type will do */
  return rs_coll_run(&k);
}
