/* The simulator's collectives: descriptors exchanged and checked, then rounds of slots
 * (see sim_comm.h). Runs on the calling thread after the ranks' streams are drained, so
 * the call returns with the collective done. */
#include <stdio.h>
#include <string.h>
#include "backend/sim/sim.h"
#include "backend/sim/sim_comm.h"
#include "backend/sim/sim_internal.h"
#include "core/error.h"
#include "core/half.h"
#include "resident/collective.h"

static const char *const kind_names[] = {"rs_comm_all_reduce", "rs_comm_reduce_scatter", "rs_comm_all_gather",
                                         "rs_comm_broadcast", "rs_comm_send_recv"};

/* ---- reductions over the slots ------------------------------------------------------ */

/* Integers are added and multiplied in their unsigned type (U): they wrap, as on a GPU,
 * where signed overflow in C would be undefined. */
#define SIM_RED_LOOP(T, U)                                                              \
  do {                                                                                  \
    T *o = out;                                                                         \
    for (int64_t i = 0; i < n; i++) {                                                   \
      T acc = 0;                                                                        \
      for (int r = 0; r < nranks; r++) {                                                \
        T v = ((const T *)(slots + (size_t)r * chunk + offset))[i];                     \
        if (r == 0) acc = v;                                                            \
        else if (op == RS_REDUCE_PROD) acc = (T)((U)acc * (U)v);                        \
        else if (op == RS_REDUCE_MIN) acc = v < acc ? v : acc;                          \
        else if (op == RS_REDUCE_MAX) acc = v > acc ? v : acc;                          \
        else acc = (T)((U)acc + (U)v);                                                  \
      }                                                                                 \
      if (op == RS_REDUCE_MEAN) acc = (T)(acc / (T)nranks);                             \
      o[i] = acc;                                                                       \
    }                                                                                   \
  } while (0)


/* Float16 is reduced in float and rounded once per step, as a GPU adds halves. */
static void reduce_half(int op, const char *slots, size_t chunk, int nranks, size_t offset, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float acc = 0;
    for (int r = 0; r < nranks; r++) {
      float v = rs_half_to_float(((const uint16_t *)(slots + (size_t)r * chunk + offset))[i]);
      if (r == 0) acc = v;
      else if (op == RS_REDUCE_PROD) acc = rs_half_to_float(rs_float_to_half(acc * v));
      else if (op == RS_REDUCE_MIN) acc = v < acc ? v : acc;
      else if (op == RS_REDUCE_MAX) acc = v > acc ? v : acc;
      else acc = rs_half_to_float(rs_float_to_half(acc + v));
    }
    if (op == RS_REDUCE_MEAN) acc /= (float)nranks;
    out[i] = rs_float_to_half(acc);
  }
}

void sim_comm_reduce(rs_dtype dt, int op, const char *slots, size_t chunk, int nranks, size_t offset, void *out,
                     int64_t n) {
  switch (dt) {
    case RS_INT8: SIM_RED_LOOP(int8_t, uint8_t); break;
    case RS_UINT8: SIM_RED_LOOP(uint8_t, uint32_t); break;
    case RS_INT32: SIM_RED_LOOP(int32_t, uint32_t); break;
    case RS_UINT32: SIM_RED_LOOP(uint32_t, uint32_t); break;
    case RS_INT64: SIM_RED_LOOP(int64_t, uint64_t); break;
    case RS_UINT64: SIM_RED_LOOP(uint64_t, uint64_t); break;
    case RS_FLOAT32: SIM_RED_LOOP(float, float); break;
    case RS_FLOAT64: SIM_RED_LOOP(double, double); break;
    case RS_FLOAT16: reduce_half(op, slots, chunk, nranks, offset, out, n); break;
    default: break; /* refused above: collective.c takes NCCL's types only */
  }
}

/* ---- descriptors -------------------------------------------------------------------- */

static void write_descs(sim_comm *m, const rs_be_collective *c) {
  for (int i = 0; i < m->nlocal; i++) {
    sim_comm_desc *d = &m->ranks[m->first + i].desc;
    *d = (sim_comm_desc){(int32_t)c->kind, (int32_t)c->dtype, c->op, c->root, c->count, -1, -1, 0, 0, m->seq};
    if (c->kind == RS_COLL_SEND_RECV) {
      d->send_to = c->send_to[i];
      d->recv_from = c->recv_from[i];
      /* in bytes: ranks without traffic name no dtype, and the rounds must agree */
      size_t es = rs_dtype_size(c->dtype);
      d->send_count = c->send_to[i] >= 0 ? c->send_count[i] * (int64_t)es : 0;
      d->recv_count = c->recv_from[i] >= 0 ? c->recv_count[i] * (int64_t)es : 0;
    }
  }
}

/* Every rank runs the same check over the same descriptors, so all fail alike. */
static rs_status check_descs(sim_comm *m, const char *who) {
  const sim_comm_desc *d0 = &m->ranks[0].desc;
  for (int r = 0; r < m->nranks; r++) {
    const sim_comm_desc *d = &m->ranks[r].desc;
    if ((unsigned)d->kind > RS_COLL_SEND_RECV || (unsigned)d0->kind > RS_COLL_SEND_RECV)
      return rs_fail(RS_ERR_INTERNAL, "%s: rank %d's call is garbled (kind %d)", who, r, (int)d->kind);
    if (d->kind != d0->kind || d->seq != d0->seq)
      return rs_fail(RS_ERR_STATE, "%s: rank %d called %s (its call %llu) but rank 0 %s (its call %llu)", who, r,
                     kind_names[d->kind], (unsigned long long)d->seq, kind_names[d0->kind],
                     (unsigned long long)d0->seq);
    if (d->kind == RS_COLL_SEND_RECV) {
      if (d->send_to >= 0) {
        const sim_comm_desc *t = &m->ranks[d->send_to].desc;
        if (t->recv_from != r)
          return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d sends to rank %d, which does not receive from it", who,
                         r, d->send_to);
        if (t->recv_count != d->send_count || t->dtype != d->dtype)
          return rs_fail(RS_ERR_SHAPE, "%s: rank %d sends %lld bytes of %s to rank %d, which receives %lld of %s", who, r,
                         (long long)d->send_count, rs_dtype_name((rs_dtype)d->dtype), d->send_to,
                         (long long)t->recv_count, rs_dtype_name((rs_dtype)t->dtype));
      }
      if (d->recv_from >= 0 && m->ranks[d->recv_from].desc.send_to != r)
        return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d receives from rank %d, which does not send to it", who, r,
                       d->recv_from);
      continue;
    }
    if (d->dtype != d0->dtype)
      return rs_fail(RS_ERR_DTYPE, "%s: rank %d's arrays are %s but rank 0's %s", who, r,
                     rs_dtype_name((rs_dtype)d->dtype), rs_dtype_name((rs_dtype)d0->dtype));
    if (d->count != d0->count)
      return rs_fail(RS_ERR_SHAPE, "%s: rank %d has %lld elements per rank but rank 0 has %lld", who, r,
                     (long long)d->count, (long long)d0->count);
    if (d->op != d0->op || d->root != d0->root)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d asks for %s %d but rank 0 for %d", who, r,
                     d->kind == RS_COLL_BROADCAST ? "root" : "reduction", d->kind == RS_COLL_BROADCAST ? d->root : d->op,
                     d->kind == RS_COLL_BROADCAST ? d0->root : d0->op);
  }
  return RS_OK;
}

/* ---- rounds ------------------------------------------------------------------------- */

static char *slot(sim_comm *m, int rank) { return m->slots + (size_t)rank * m->chunk; }
static char *dev(const void *p) { return rs_sim_translate(p); }

/* One round: local rank i puts `put` bytes from src[i] into its slot; all meet; then
 * `take` is run for each local rank; all meet. */
typedef struct coll_round {
  sim_comm *m;
  const rs_be_collective *c;
  size_t es;       /* element size */
  int64_t off, n;  /* elements of this coll_round */
  int block;       /* reduce-scatter: the block being reduced */
} coll_round;

static rs_status meet(sim_comm *m, const char *who) { return sim_comm_barrier(m, who); }

static rs_status run_round(coll_round *r) {
  sim_comm *m = r->m;
  const rs_be_collective *c = r->c;
  size_t bytes = (size_t)r->n * r->es, at = (size_t)r->off * r->es;
  for (int i = 0; i < m->nlocal; i++) { /* put */
    int rank = m->first + i;
    const char *src = NULL;
    size_t put = bytes;
    switch (c->kind) {
      case RS_COLL_ALL_REDUCE: case RS_COLL_ALL_GATHER: src = dev(c->send[i]) + at; break;
      case RS_COLL_REDUCE_SCATTER: src = dev(c->send[i]) + (size_t)r->block * (size_t)c->count * r->es + at; break;
      case RS_COLL_BROADCAST: if (rank == c->root) src = dev(c->recv[i]) + at; break;
      case RS_COLL_SEND_RECV: { /* off and n in bytes (es 1) */
        int64_t have = m->ranks[rank].desc.send_count;
        if (c->send_to[i] >= 0 && r->off < have) {
          src = dev(c->send[i]) + at;
          if (r->off + r->n > have) put = (size_t)(have - r->off);
        }
        break;
      }
    }
    if (src) memcpy(slot(m, rank), src, put);
  }
  RS_TRY(meet(m, c->what));
  for (int i = 0; i < m->nlocal; i++) { /* take */
    int rank = m->first + i;
    switch (c->kind) {
      case RS_COLL_ALL_REDUCE:
        sim_comm_reduce(c->dtype, c->op, m->slots, m->chunk, m->nranks, 0, dev(c->recv[i]) + at, r->n);
        break;
      case RS_COLL_REDUCE_SCATTER:
        if (rank == r->block)
          sim_comm_reduce(c->dtype, c->op, m->slots, m->chunk, m->nranks, 0, dev(c->recv[i]) + at, r->n);
        break;
      case RS_COLL_ALL_GATHER:
        for (int q = 0; q < m->nranks; q++)
          memcpy(dev(c->recv[i]) + (size_t)q * (size_t)c->count * r->es + at, slot(m, q), bytes);
        break;
      case RS_COLL_BROADCAST:
        if (rank != c->root) memcpy(dev(c->recv[i]) + at, slot(m, c->root), bytes);
        break;
      case RS_COLL_SEND_RECV: {
        int64_t want = m->ranks[rank].desc.recv_count;
        if (c->recv_from[i] >= 0 && r->off < want)
          memcpy(dev(c->recv[i]) + at, slot(m, c->recv_from[i]), r->off + r->n > want ? (size_t)(want - r->off) : bytes);
        break;
      }
    }
  }
  return meet(m, c->what);
}

rs_status sim_comm_run(void *comm, const rs_be_collective *c) {
  sim_comm *m = comm;
  for (int i = 0; i < m->nlocal; i++) RS_TRY(sim_stream_synchronize(m->bes[i], c->streams[i]));
  m->seq++;
  write_descs(m, c);
  RS_TRY(meet(m, c->what));
  rs_status st = check_descs(m, c->what);
  /* Elements every coll_round covers, and how many rounds: the same on every rank, from the
   * descriptors all of them read. */
  size_t es = rs_dtype_size(c->dtype);
  int64_t total = m->ranks[0].desc.count;
  if (c->kind == RS_COLL_SEND_RECV) {
    es = 1;
    total = 0;
    for (int r = 0; r < m->nranks; r++)
      if (m->ranks[r].desc.send_count > total) total = m->ranks[r].desc.send_count;
  }
  RS_TRY(meet(m, c->what)); /* the descriptors are read: the next call may write them */
  if (st != RS_OK) return st;
  int64_t per = (int64_t)(m->chunk / es);
  int blocks = c->kind == RS_COLL_REDUCE_SCATTER ? m->nranks : 1;
  coll_round r = {m, c, es, 0, 0, 0};
  for (r.block = 0; r.block < blocks; r.block++)
    for (r.off = 0; r.off < total; r.off += per) {
      r.n = total - r.off < per ? total - r.off : per;
      RS_TRY(run_round(&r));
    }
  return RS_OK;
}
