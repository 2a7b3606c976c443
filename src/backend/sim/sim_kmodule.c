/* A loaded simulator module's lifetime and faults: launches hold a reference, so an
 * unload waits for the launches queued before it; a launch's fault is kept for the
 * kernel layer to take. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "backend/sim/sim_kernel.h"
#include "core/error.h"

void sim_kmodule_retain(sim_kmodule *m) { atomic_fetch_add(&m->refs, 1); }

void sim_kmodule_release(sim_kmodule *m) {
  if (atomic_fetch_sub(&m->refs, 1) != 1) return;
  dlclose(m->dl);
  if (m->fd >= 0) close(m->fd);
  pthread_mutex_destroy(&m->fault_lock);
  free(m);
}

void sim_kernel_unload(void *module) {
  if (module) sim_kmodule_release(module);
}

void sim_kmodule_fault(sim_kmodule *m, rs_status st, const char *message) {
  pthread_mutex_lock(&m->fault_lock);
  if (m->fault == RS_OK) {
    m->fault = st;
    snprintf(m->fault_message, sizeof m->fault_message, "%s", message);
  }
  pthread_mutex_unlock(&m->fault_lock);
}

rs_status sim_kernel_take_fault(void *module) {
  sim_kmodule *m = module;
  pthread_mutex_lock(&m->fault_lock);
  rs_status st = m->fault;
  if (st != RS_OK) {
    rs_fail(st, "%s", m->fault_message);
    m->fault = RS_OK;
  }
  pthread_mutex_unlock(&m->fault_lock);
  return st;
}
