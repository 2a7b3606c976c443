/* The simulator's communicators: the shared area, joining it, the barrier (see sim_comm.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "backend/sim/sim_comm.h"
#include "backend/sim/sim_internal.h"
#include "core/error.h"

#define SIM_COMM_TAG "resident-sim-comm" /* the id's first bytes: a simulator id */
#define SIM_COMM_NAME_AT 32              /* where the shared-memory name starts in the id */

static size_t align64(size_t n) { return (n + 63) & ~(size_t)63; }

size_t sim_comm_area_bytes(int nranks, size_t *chunk) {
  /* About 32 MiB of slots in all, each between 4 KiB and 1 MiB: a multiple of every
   * element size, so no element straddles two rounds. */
  size_t c = ((size_t)32 << 20) / (size_t)nranks;
  if (c > ((size_t)1 << 20)) c = (size_t)1 << 20;
  if (c < 4096) c = 4096;
  c &= ~(size_t)63;
  *chunk = c;
  return align64(sizeof(sim_comm_shared)) + align64(sizeof(sim_comm_rank) * (size_t)nranks) + c * (size_t)nranks;
}

void sim_comm_layout(sim_comm *c, void *base, int nranks) {
  c->sh = base;
  c->ranks = (sim_comm_rank *)((char *)base + align64(sizeof(sim_comm_shared)));
  c->slots = (char *)c->ranks + align64(sizeof(sim_comm_rank) * (size_t)nranks);
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A rank whose process has exited (another process's rank that joined), else -1: waiting
 * for it would only end at the timeout. */
static int process_gone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  /* exited but not yet reaped by its parent (a zombie) counts as gone too */
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *paren = strrchr(buf, ')'); /* the state follows the command name */
  return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

static int gone_rank(sim_comm *c) {
  for (int r = 0; r < c->nranks; r++) {
    pid_t pid = (pid_t)c->ranks[r].pid;
    if (pid > 0 && pid != getpid() && process_gone(pid)) return r;
  }
  return -1;
}

/* Wait until *word differs from seen (or the deadline passes, or the comm breaks, or a
 * rank's process is gone): spin a little, then sleep in short steps, since the other side
 * may be another process. */
static int wait_change(sim_comm *c, _Atomic uint32_t *word, uint32_t seen, double deadline) {
  for (unsigned spins = 0;; spins++) {
    if (atomic_load_explicit(word, memory_order_acquire) != seen) return 1;
    if (atomic_load(&c->sh->broken)) return 0;
    if (spins < 2000) continue;
    if (now_ms() > deadline) return 0;
    if (spins % 512 == 0 && c->map_bytes && (c->dead_rank = gone_rank(c)) >= 0) return 0;
    struct timespec ts = {0, spins < 20000 ? 20000 : 200000};
    nanosleep(&ts, NULL);
  }
}

rs_status sim_comm_barrier(sim_comm *c, const char *during) {
  sim_comm_shared *sh = c->sh;
  uint32_t gen = atomic_load_explicit(&sh->generation, memory_order_acquire);
  uint32_t before = atomic_fetch_add(&sh->arrived, (uint32_t)c->nlocal);
  if (before + (uint32_t)c->nlocal == (uint32_t)c->nranks) {
    atomic_store(&sh->arrived, 0);
    atomic_fetch_add_explicit(&sh->generation, 1, memory_order_release);
    return RS_OK;
  }
  if (wait_change(c, &sh->generation, gen, now_ms() + (double)c->timeout_ms)) return RS_OK;
  int was_broken = atomic_exchange(&sh->broken, 1);
  if (c->dead_rank >= 0)
    return rs_fail(RS_ERR_NOT_READY, "%s: rank %d (process %d) has exited; the communicator is broken: destroy it",
                   during, c->dead_rank, (int)c->ranks[c->dead_rank].pid);
  if (was_broken)
    return rs_fail(RS_ERR_NOT_READY, "%s: another rank of the communicator timed out or failed: destroy it", during);
  return rs_fail(RS_ERR_NOT_READY,
                 "%s: timed out after %lld ms waiting for the other ranks (%u of %d arrived; RESIDENT_COMM_TIMEOUT)",
                 during, (long long)c->timeout_ms, before + (uint32_t)c->nlocal, c->nranks);
}

rs_status sim_comm_unique_id(unsigned char *id) {
  static _Atomic unsigned counter = 0;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  memset(id, 0, RS_BE_COMM_ID_BYTES);
  memcpy(id, SIM_COMM_TAG, sizeof SIM_COMM_TAG);
  snprintf((char *)id + SIM_COMM_NAME_AT, RS_BE_COMM_ID_BYTES - SIM_COMM_NAME_AT, "/resident-comm-%ld-%u-%lx-%lx",
           (long)getpid(), atomic_fetch_add(&counter, 1), (unsigned long)ts.tv_sec, (unsigned long)ts.tv_nsec);
  return RS_OK;
}

/* Claim the rank and check the count in an area others may have set up already. */
static rs_status join(sim_comm *c, const char *who) {
  int32_t expect = 0;
  if (!atomic_compare_exchange_strong(&c->sh->nranks, &expect, c->nranks) && expect != c->nranks)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d says the communicator has %d ranks, but another rank said %d",
                   who, c->first, c->nranks, expect);
  for (int i = 0; i < c->nlocal; i++) {
    int32_t free_rank = 0;
    sim_comm_rank *r = &c->ranks[c->first + i];
    if (!atomic_compare_exchange_strong(&r->taken, &free_rank, 1))
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: rank %d of the communicator is taken already (process %d)", who,
                     c->first + i, (int)r->pid);
    r->pid = (int32_t)getpid();
  }
  atomic_fetch_add(&c->sh->joined, c->nlocal);
  double deadline = now_ms() + (double)c->timeout_ms;
  for (;;) {
    int32_t j = atomic_load(&c->sh->joined);
    if (j >= c->nranks) return RS_OK;
    if (wait_change(c, (_Atomic uint32_t *)&c->sh->joined, (uint32_t)j, deadline)) continue;
    atomic_store(&c->sh->broken, 1);
    if (c->dead_rank >= 0)
      return rs_fail(RS_ERR_NOT_READY, "%s: rank %d (process %d) exited before the others joined", who, c->dead_rank,
                     (int)c->ranks[c->dead_rank].pid);
    return rs_fail(RS_ERR_NOT_READY,
                   "%s: timed out after %lld ms waiting for the other ranks to join (%d of %d joined; "
                   "RESIDENT_COMM_TIMEOUT)",
                   who, (long long)c->timeout_ms, (int)atomic_load(&c->sh->joined), c->nranks);
  }
}

/* The shared area named in id, created by whichever rank comes first. */
static rs_status map_named(sim_comm *c, const unsigned char *id, const char *who) {
  if (memcmp(id, SIM_COMM_TAG, sizeof SIM_COMM_TAG) != 0 || id[RS_BE_COMM_ID_BYTES - 1] != 0 ||
      id[SIM_COMM_NAME_AT] != '/')
    return rs_fail(RS_ERR_INVALID_ARGUMENT,
                   "%s: not a simulator communicator id (garbled, or made by rs_comm_unique_id for another backend)",
                   who);
  const char *name = (const char *)id + SIM_COMM_NAME_AT;
  size_t chunk = 0, bytes = sim_comm_area_bytes(c->nranks, &chunk);
  int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
  char e[128];
  if (fd < 0) return rs_fail(RS_ERR_IO, "%s: shm_open %s: %s", who, name, sim_errno_text(errno, e, sizeof e));
  struct stat stt;
  /* grow only: shrinking would cut a mapping another rank uses (its count is checked next) */
  if (fstat(fd, &stt) != 0 || ((size_t)stt.st_size < bytes && ftruncate(fd, (off_t)bytes) != 0)) {
    rs_status st = rs_fail(RS_ERR_IO, "%s: sizing %s: %s", who, name, sim_errno_text(errno, e, sizeof e));
    close(fd);
    return st;
  }
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) return rs_fail(RS_ERR_IO, "%s: mmap %s: %s", who, name, sim_errno_text(errno, e, sizeof e));
  c->map_bytes = bytes;
  c->chunk = chunk; /* the same for every rank that agrees on the count */
  sim_comm_layout(c, p, c->nranks);
  rs_status st = join(c, who);
  shm_unlink(name); /* every rank has it mapped now (or gave up): the name is not needed */
  return st;
}

rs_status sim_comm_open(void **out, rs_backend *const *bes, int nlocal, int nranks, int first,
                        const unsigned char *id, int64_t timeout_ms) {
  static const char *who = "sim comm_open";
  sim_comm *c = calloc(1, sizeof *c);
  if (!c) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", who);
  c->nranks = nranks;
  c->first = first;
  c->nlocal = nlocal;
  c->timeout_ms = timeout_ms;
  c->dead_rank = -1;
  for (int i = 0; i < nlocal && i < 64; i++) c->bes[i] = bes[i];
  rs_status st = RS_OK;
  if (id) {
    st = map_named(c, id, who);
  } else { /* every rank is here: process memory, the barrier never waits */
    size_t chunk = 0;
    void *p = calloc(1, sim_comm_area_bytes(nranks, &chunk));
    if (!p) st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s: out of host memory", who);
    if (p) {
      sim_comm_layout(c, p, nranks);
      c->chunk = chunk;
      c->sh->nranks = nranks;
    }
  }
  if (st != RS_OK) {
    sim_comm_close(c);
    return st;
  }
  *out = c;
  return RS_OK;
}

void sim_comm_close(void *comm) {
  sim_comm *c = comm;
  if (!c) return;
  if (c->sh && c->map_bytes) munmap(c->sh, c->map_bytes);
  else free(c->sh);
  free(c);
}
