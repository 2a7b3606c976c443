/* The simulator as a backend: its one device, context state, and the vtable. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/sim/sim_comm.h"
#include "backend/sim/sim_async_alloc.h"
#include "backend/sim/sim_check.h"
#include "backend/sim/sim_internal.h"
#include "core/error.h"

#define SIM_MAX_DEFAULT_MEMORY ((size_t)8 << 30)

static size_t default_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return (size_t)1 << 30; /* unknown RAM: stay modest */
  size_t half = (size_t)pages / 2 * (size_t)page;
  return half < SIM_MAX_DEFAULT_MEMORY ? half : SIM_MAX_DEFAULT_MEMORY;
}

/* The cores this process may run on, which under taskset or a container can be fewer
 * than the machine has. */
static int default_threads(void) {
  cpu_set_t set;
  int n = 0;
  if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
  if (n <= 0) {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    n = online > 0 ? (int)online : 1;
  }
  return n < RS_SIM_MAX_THREADS ? n : RS_SIM_MAX_THREADS;
}

static rs_status settings(const rs_config *cfg, const char *what, size_t *mem, int *threads) {
  if (cfg && (cfg->sim_threads < 0 || cfg->sim_threads > RS_SIM_MAX_THREADS))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: sim_threads = %d is not in [0, %d]", what,
                   cfg->sim_threads, RS_SIM_MAX_THREADS);
  *mem = cfg && cfg->sim_device_memory ? cfg->sim_device_memory : default_memory();
  *threads = cfg && cfg->sim_threads ? cfg->sim_threads : default_threads();
  return RS_OK;
}

/* RESIDENT_SIM_DEVICES: each device is a heap and streams of its own (every context opens
 * its own anyway); the number only says which device indices exist, so multi-device code
 * runs here as it would on a machine with that many GPUs. */
static int sim_devices(const rs_config *cfg) { return cfg && cfg->sim_devices > 0 ? cfg->sim_devices : 1; }

static rs_status sim_device_count(const rs_config *cfg, int *out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim device_count: out is NULL");
  *out = sim_devices(cfg);
  return RS_OK;
}

static void fill_props(rs_device_props *out, int device, size_t total, size_t free_bytes, int threads) {
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "resident simulator %d (%d host thread%s)", device, threads,
           threads == 1 ? "" : "s");
  out->total_memory = total;
  out->free_memory = free_bytes;
  out->multiprocessors = threads;
  out->compute_major = 0;
  out->compute_minor = 0;
  out->max_threads_per_block = 1024;
  out->shared_memory_per_block = 48 * 1024;
  out->warp_size = 32;
  out->can_map_host_memory = 1;
  out->managed_memory = 1;
  out->pci_domain = out->pci_bus = out->pci_device = -1;
  out->pcie_generation = 0;
  out->pcie_width = 0;
  out->pcie_gbytes_per_s = 0.0;
}

/* No context here: the caller passes the settings a context would have; with no
 * allocations to count, all of it is free. */
static rs_status sim_device_props(int device, const rs_config *cfg, rs_device_props *out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim device_props: out is NULL");
  if (device < 0 || device >= sim_devices(cfg))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim device_props: device %d out of range (%d device%s; RESIDENT_SIM_DEVICES)",
                   device, sim_devices(cfg), sim_devices(cfg) == 1 ? "" : "s");
  size_t mem = 0;
  int threads = 1;
  RS_TRY(settings(cfg, "sim device_props", &mem, &threads));
  fill_props(out, device, mem, mem, threads);
  return RS_OK;
}

static void sim_close(rs_backend *b) {
  if (!b) return;
  /* Nothing else may use b now, but workers still run: lock for each step anyway. */
  for (;;) {
    pthread_mutex_lock(&b->lock);
    sim_stream *s = b->streams;
    pthread_mutex_unlock(&b->lock);
    if (!s) break;
    (void)sim_stream_shutdown(s);
  }
  pthread_mutex_lock(&b->lock);
  while (b->per_thread) {
    sim_thread_stream *e = b->per_thread;
    b->per_thread = e->next;
    free(e);
  }
  b->legacy = NULL;
  sim_event_free_all_locked(b);
  pthread_mutex_unlock(&b->lock);
  /* After the streams: their last tasks may still have used the pool. */
  rs_thread_pool_stop(&b->pool);
  sim_memory_release_all(b);
  sim_check_snap_release(b->snap);
  sim_ptrmap_release(&b->blocks);
  pthread_mutex_destroy(&b->lock);
  pthread_mutex_destroy(&b->mem_lock);
  free(b);
}

static rs_status sim_open(rs_backend **out, int device, const rs_config *cfg) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "sim open: out is NULL");
  if (device < 0 || device >= sim_devices(cfg))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim open: device %d out of range (%d device%s; RESIDENT_SIM_DEVICES)",
                   device, sim_devices(cfg), sim_devices(cfg) == 1 ? "" : "s");
  size_t mem = 0;
  int threads = 1;
  RS_TRY(settings(cfg, "sim open", &mem, &threads));
  rs_backend *b = calloc(1, sizeof *b);
  if (!b) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim open: out of host memory");
  b->mem_total = mem;
  b->checks = !(cfg && cfg->sim_checks_off);
  if (pthread_mutex_init(&b->lock, NULL) != 0) {
    free(b);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim open: cannot create a mutex");
  }
  if (pthread_mutex_init(&b->mem_lock, NULL) != 0) {
    pthread_mutex_destroy(&b->lock);
    free(b);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim open: cannot create a mutex");
  }
  rs_status st = rs_thread_pool_start(&b->pool, threads, "sim open");
  if (st != RS_OK) {
    pthread_mutex_destroy(&b->mem_lock);
    pthread_mutex_destroy(&b->lock);
    free(b);
    return st;
  }
  /* The legacy stream is not "blocking" itself: that flag marks the streams it orders
   * against. */
  sim_stream *legacy = NULL;
  st = sim_stream_new(b, RS_STREAM_NON_BLOCKING, 1, &legacy);
  if (st != RS_OK) {
    sim_close(b);
    return st;
  }
  pthread_mutex_lock(&b->lock);
  b->legacy = legacy;
  pthread_mutex_unlock(&b->lock);
  *out = b;
  return RS_OK;
}

static rs_status sim_mem_info(rs_backend *b, size_t *free_bytes, size_t *total_bytes) {
  pthread_mutex_lock(&b->mem_lock);
  if (free_bytes) *free_bytes = b->mem_total - b->mem_used;
  if (total_bytes) *total_bytes = b->mem_total;
  pthread_mutex_unlock(&b->mem_lock);
  return RS_OK;
}

const rs_backend_vtable rs_sim_vtable = {
    .name = "sim",
    .kind = RS_BACKEND_SIM,
    .device_count = sim_device_count,
    .device_props = sim_device_props,
    .open = sim_open,
    .close = sim_close,
    .mem_info = sim_mem_info,
    .synchronize = sim_synchronize_all,
    .device_alloc = sim_device_alloc,
    .device_free = sim_device_free,
    .host_alloc = sim_host_alloc,
    .host_free = sim_host_free,
    .host_register = sim_host_register,
    .host_unregister = sim_host_unregister,
    .host_device_pointer = sim_host_device_pointer,
    .managed_alloc = sim_managed_alloc,
    .managed_free = sim_managed_free,
    .copy_async = sim_copy_async,
    .copy_strided_async = sim_copy_strided_async,
    .memset_async = sim_memset_async,
    .copy_peer_async = sim_copy_peer_async,
    .stream_create = sim_stream_create,
    .stream_destroy = sim_stream_destroy,
    .stream_per_thread = sim_stream_per_thread,
    .stream_synchronize = sim_stream_synchronize,
    .stream_query = sim_stream_query,
    .stream_wait_event = sim_stream_wait_event,
    .stream_callback = sim_stream_callback,
    .stream_check = sim_stream_check,
    .event_create = sim_event_create,
    .event_destroy = sim_event_destroy,
    .event_record = sim_event_record,
    .event_synchronize = sim_event_synchronize,
    .event_query = sim_event_query,
    .event_elapsed_ms = sim_event_elapsed_ms,
    .device_alloc_async = sim_device_alloc_async,
    .device_free_async = sim_device_free_async,
    .device_async_trim = sim_device_async_trim,
    .device_async_usage = sim_device_async_usage,
    .managed_prefetch = sim_managed_prefetch,
    .managed_advise = sim_managed_advise,
    .ipc_mem_export = sim_ipc_mem_export,
    .ipc_mem_open = sim_ipc_mem_open,
    .ipc_mem_close = sim_ipc_mem_close,
    .ipc_event_export = sim_ipc_event_export,
    .ipc_event_open = sim_ipc_event_open,
    .graph_begin = sim_graph_begin,
    .graph_end = sim_graph_end,
    .graph_launch = sim_graph_launch,
    .graph_destroy = sim_graph_destroy,
    /* collectives (sim_comm.c, sim_comm_run.c) */
    .comm_unique_id = sim_comm_unique_id,
    .comm_open = sim_comm_open,
    .comm_close = sim_comm_close,
    .comm_run = sim_comm_run,
    /* the memory checks (simdbg) */
    .device_note = sim_device_note,
    .stage_pull = sim_stage_pull,
};
