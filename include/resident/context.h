/* resident/context.h - backends, devices and contexts.
 *
 * A context binds one backend (CUDA or the CPU simulator) and one device. Every array,
 * stream and event belongs to exactly one context. Environment variables are read once,
 * when a context is created (see the table in resident.h).
 *
 * Several devices: one context per device (rs_context_create(&c, kind, i) for i below
 * rs_device_count; the simulator has RESIDENT_SIM_DEVICES of them). Arrays of two contexts
 * copy into each other with rs_array_copy (resident/transfer.h); an operation takes the
 * arrays of one context only.
 */
#ifndef RESIDENT_CONTEXT_H
#define RESIDENT_CONTEXT_H

#include "resident/export.h"

#include <stddef.h>
#include <stdint.h>
#include "resident/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum rs_backend_kind {
  RS_BACKEND_AUTO = 0, /* RESIDENT_BACKEND if set, else cuda if a device answers, else sim */
  RS_BACKEND_CUDA = 1,
  RS_BACKEND_SIM = 2
} rs_backend_kind;

typedef struct rs_context rs_context;

typedef struct rs_device_props {
  char name[256];
  size_t total_memory;           /* bytes */
  size_t free_memory;            /* bytes, at the time of the query */
  int multiprocessors;
  int compute_major, compute_minor; /* 0.0 on the simulator */
  int max_threads_per_block;
  size_t shared_memory_per_block; /* bytes */
  int warp_size;
  int can_map_host_memory;       /* 1 if mapped host memory is usable from kernels */
  int managed_memory;            /* 1 if managed memory is supported */
  int pci_domain, pci_bus, pci_device; /* -1 where unknown */
  int pcie_generation;           /* 0 where the backend does not know the link */
  int pcie_width;                /* lanes, 0 where unknown */
  double pcie_gbytes_per_s;      /* theoretical one-way link bandwidth, 0 where unknown */
} rs_device_props;

/* "auto", "cuda" or "sim". Thread-safe. */
RS_API const char *rs_backend_name(rs_backend_kind kind);

/* What a backend runs on, as text into buf (len bytes, always terminated): for cuda the
 * CUDA runtime's version, the one the library was built against and the driver's
 * ("CUDA runtime 13.0 (built with 13.0), driver 13.0"; "driver: none" without one); for
 * sim "built into the library". RS_ERR_NO_DEVICE if the backend is not built into this
 * library, RS_ERR_INVALID_ARGUMENT for AUTO or a bad kind. Thread-safe. */
RS_API rs_status rs_backend_version(rs_backend_kind kind, char *buf, size_t len);

/* Parse "auto", "cuda" or "sim". RS_ERR_PARSE otherwise. Thread-safe. */
RS_API rs_status rs_backend_from_name(const char *name, rs_backend_kind *out);

/* Number of devices on a backend (AUTO resolves as rs_context_create does). A backend
 * without devices (no GPU, no driver) reports 0 and RS_OK. Thread-safe. */
RS_API rs_status rs_device_count(rs_backend_kind kind, int *out);

/* Properties of one device. RS_ERR_INVALID_ARGUMENT for an index out of range.
 * Thread-safe. */
RS_API rs_status rs_device_get_props(rs_backend_kind kind, int device, rs_device_props *out);

/* Create a context on a backend and device. With RS_BACKEND_AUTO the environment
 * variable RESIDENT_BACKEND (auto|cuda|sim) decides, then the presence of a GPU.
 * Asking for cuda where no device answers fails with RS_ERR_NO_DEVICE.
 * The caller owns the context and destroys it with rs_context_destroy. Thread-safe. */
RS_API rs_status rs_context_create(rs_context **out, rs_backend_kind kind, int device);

/* Destroy a context: waits for its streams, then frees every array, stream and event
 * that still belongs to it (those handles become invalid). NULL is RS_OK; a context
 * destroyed already is RS_ERR_DESTROYED (until a new context reuses its address). Not
 * thread-safe with other calls on the same context. */
RS_API rs_status rs_context_destroy(rs_context *ctx);

/* The backend this context runs on (never AUTO). Thread-safe. */
RS_API rs_backend_kind rs_context_backend(const rs_context *ctx);

/* The device index of this context. Thread-safe. */
RS_API int rs_context_device(const rs_context *ctx);

/* Properties of this context's device (free memory read now). Thread-safe. */
RS_API rs_status rs_context_get_props(const rs_context *ctx, rs_device_props *out);

/* Wait for all work of this context on every stream. Thread-safe. */
RS_API rs_status rs_context_synchronize(rs_context *ctx);

/* Parse a size as the environment variables and the tool take it (the grammar is in
 * resident.h, ENVIRONMENT): "4096", "100MB", "1.5GiB" (KB/MB/GB/TB = powers of 1000,
 * KiB/MiB/GiB/TiB and K/M/G/T = powers of 1024). Strict: the whole text, no whitespace,
 * sign, hex or exponent, and a whole number of bytes within size_t ("1.5" and
 * "18446744073709551616" fail). RS_ERR_PARSE quoting the text and saying what is
 * expected otherwise; *out is then unchanged. Thread-safe. */
RS_API rs_status rs_parse_bytes(const char *text, size_t *out);

/* What still lives in a context: a test ends with all zero. Thread-safe. */
typedef struct rs_live_stats {
  int64_t arrays;        /* array handles not yet released */
  int64_t buffers;       /* memory blocks still referenced */
  int64_t device_bytes;  /* bytes of device and managed memory referenced */
  int64_t host_bytes;    /* bytes of host memory (pageable, pinned, mapped) it owns */
  int64_t streams;       /* streams created and not destroyed */
  int64_t events;        /* events created and not destroyed */
} rs_live_stats;
RS_API rs_status rs_context_get_live_stats(const rs_context *ctx, rs_live_stats *out);

#ifdef __cplusplus
}
#endif
#endif
