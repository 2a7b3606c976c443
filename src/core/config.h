/* Internal: the settings read from the environment, once, at context creation.
 * The table of variables is in include/resident.h. The struct is plain data every layer
 * reads from its context; it is filled only by src/context/config.c, the one code that
 * calls getenv(). */
#ifndef RS_CORE_CONFIG_H
#define RS_CORE_CONFIG_H

#include <stddef.h>
#include "resident/context.h"
#include "resident/allocator.h"
#include "resident/ledger.h"

/* The most host threads the simulator runs kernels on (RESIDENT_SIM_THREADS at most). */
#define RS_SIM_MAX_THREADS 1024
#define RS_SIM_MAX_DEVICES 64

/* The most host threads of staged pageable copies (RESIDENT_STAGING_THREADS at most). */
#define RS_STAGING_MAX_THREADS 32
/* The most threads the host path's ops run on (RESIDENT_HOST_THREADS at most). */
#define RS_HOST_MAX_THREADS 1024

typedef enum rs_staging_mode { RS_STAGING_AUTO = 0, RS_STAGING_ON, RS_STAGING_OFF } rs_staging_mode;

typedef struct rs_config {
  rs_backend_kind backend;     /* RESIDENT_BACKEND: auto|cuda|sim */
  size_t sim_device_memory;    /* RESIDENT_SIM_DEVICE_MEMORY: bytes of simulated device memory */
  int sim_devices;             /* RESIDENT_SIM_DEVICES: how many devices the simulator has (1..RS_SIM_MAX_DEVICES) */
  int sim_threads;             /* RESIDENT_SIM_THREADS: host threads for simulator kernels (0 = all cores) */
  int host_threads;            /* RESIDENT_HOST_THREADS: threads of host-path ops (0 = one per online CPU) */
  rs_guard_mode guard[RS_DIRECTIONS]; /* RESIDENT_TRANSFER_GUARD */
  unsigned ledger_timing;      /* RESIDENT_LEDGER_TIMING: RS_TIME_* (default copies) */
  int64_t ledger_entries;      /* RESIDENT_LEDGER_ENTRIES: entries kept in the log (default 65536) */
  char cache_dir[1024];        /* RESIDENT_CACHE_DIR: compiled kernels ("" = no disk cache) */
  size_t cache_max;            /* RESIDENT_CACHE_MAX: bytes the disk cache may hold (default 1 GiB, 0 = no limit) */
  rs_allocator_kind allocator; /* RESIDENT_ALLOCATOR: pool|direct|async (default pool) */
  size_t pool_limit;           /* RESIDENT_POOL_LIMIT in bytes (0 = none, or see the fraction) */
  double pool_limit_fraction;  /* RESIDENT_POOL_LIMIT as a fraction of device memory (0 = not) */
  int64_t max_pending_count;   /* RESIDENT_MAX_PENDING_DEALLOCS_COUNT (default 10, >= 1) */
  double max_pending_ratio;    /* RESIDENT_MAX_PENDING_DEALLOCS_RATIO (default 0.2, in (0, 1]) */
  rs_staging_mode pageable_staging; /* RESIDENT_PAGEABLE_STAGING: auto|on|off */
  int staging_threads;         /* RESIDENT_STAGING_THREADS: host threads of staged copies (0 = chosen) */
  char trace_path[1024];       /* RESIDENT_TRACE: where a context writes its trace when destroyed
                                  ("" = nowhere); %p and %n not yet replaced */
  int comm_timeout_s;           /* RESIDENT_COMM_TIMEOUT: seconds a collective waits for the other ranks (300) */
  int sim_checks_off;          /* RESIDENT_SIM_CHECKS=0: the simulator's memory and race checks off */
} rs_config;

/* Fill cfg from the environment (src/context/config.c). An unparsable value is an error naming the variable
 * (a context is never created on settings the user did not mean). */
rs_status rs_config_from_env(rs_config *cfg);

#endif
