/* Internal to the simulator: collectives (resident/collective.h) over its devices in one
 * process and over processes on one machine.
 *
 * Every rank has a descriptor of the call it makes and a slot of `chunk` bytes in one
 * shared area (process memory for a comm of one process, a POSIX shared-memory object
 * named by the id otherwise). A call runs in rounds: each rank writes its part into its
 * slot, all meet at a barrier, each reads what it needs from the others' slots, all meet
 * again. The descriptors are exchanged first, so every rank checks every other's call
 * (kind, dtype, counts, root, peers) and all fail alike on a mismatch, never hang.
 * Barriers wait at most the comm's timeout and then break the comm for every rank. */
#ifndef RS_SIM_COMM_H
#define RS_SIM_COMM_H

#include <stdatomic.h>
#include <stdint.h>
#include "backend/backend.h"

typedef struct sim_comm_desc {
  int32_t kind, dtype, op, root;
  int64_t count;
  int32_t send_to, recv_from;
  int64_t send_count, recv_count;
  uint64_t seq; /* the call's number on its rank */
} sim_comm_desc;

typedef struct sim_comm_rank {
  _Atomic int32_t taken; /* 1 once a process joined as this rank */
  int32_t pid;
  sim_comm_desc desc;
  char pad[64];
} sim_comm_rank;

typedef struct sim_comm_shared {
  _Atomic int32_t nranks; /* set by the first to join; the others must agree */
  _Atomic int32_t joined;
  _Atomic uint32_t broken; /* a rank timed out: every wait fails at once */
  _Atomic uint32_t arrived;
  _Atomic uint32_t generation;
  uint32_t pad;
} sim_comm_shared;

typedef struct sim_comm {
  sim_comm_shared *sh;
  sim_comm_rank *ranks; /* nranks of them, after the header */
  char *slots;          /* nranks slots of chunk bytes, after the ranks */
  size_t map_bytes;     /* the shared mapping's length (0: process memory) */
  size_t chunk;         /* bytes of each slot */
  int nranks, first, nlocal;
  int64_t timeout_ms;
  uint64_t seq;
  int dead_rank; /* a rank whose process was found gone while waiting, else -1 */
  rs_backend *bes[64];
} sim_comm;

/* The area of nranks ranks: its size and the slot size. */
size_t sim_comm_area_bytes(int nranks, size_t *chunk);
/* Lay out c over an area of nranks ranks at base. */
void sim_comm_layout(sim_comm *c, void *base, int nranks);
/* All ranks meet (this process's nlocal count for all of its ranks). RS_ERR_NOT_READY
 * after the timeout, naming `during`; the comm is broken then for all. */
rs_status sim_comm_barrier(sim_comm *c, const char *during);

rs_status sim_comm_unique_id(unsigned char *id);
rs_status sim_comm_open(void **out, rs_backend *const *bes, int nlocal, int nranks, int first,
                        const unsigned char *id, int64_t timeout_ms);
void sim_comm_close(void *comm);
rs_status sim_comm_run(void *comm, const rs_be_collective *c);
/* Reduce n elements of the slots of nranks ranks (op of resident/collective.h) into out. */
void sim_comm_reduce(rs_dtype dt, int op, const char *slots, size_t chunk, int nranks, size_t offset, void *out,
                     int64_t n);

#endif
