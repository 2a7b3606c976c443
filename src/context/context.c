/* Contexts: backend selection, device queries, lifetime and live counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/backend.h"
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "ledger/state.h"
#include "memory/buffer.h"
#include "native/native.h"
#include "stream/default_streams.h"
#include "stream/stream.h"
#include "transfer/staging.h"

/* A context and the state of the layers that live as long as it, in one allocation:
 * each layer owns its struct and its init/destroy, this is only where they are kept. */
typedef struct rs_context_store {
  struct rs_context ctx;
  rs_ledger ledger;
  rs_guard guard;
  rs_staging staging;
} rs_context_store;

/* AUTO: the environment first, then a GPU if one answers, else the simulator. */
static rs_status rs_resolve_backend(rs_backend_kind *kind, const rs_config *cfg) {
  if (*kind == RS_BACKEND_AUTO) *kind = cfg->backend;
  if (*kind != RS_BACKEND_AUTO) return RS_OK;
  const rs_backend_desc *cuda = rs_backend_get(RS_BACKEND_CUDA);
  int count = 0;
  if (cuda && cuda->runtime->device_count(cfg, &count) == RS_OK && count > 0)
    *kind = RS_BACKEND_CUDA;
  else
    *kind = RS_BACKEND_SIM;
  return RS_OK;
}

static rs_status rs_backend_checked(const rs_backend_vtable **vt, rs_backend_kind *kind,
                                    const char *who) {
  if ((int)*kind < RS_BACKEND_AUTO || (int)*kind > RS_BACKEND_SIM)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: backend value %d is not a backend", who,
                   (int)*kind);
  rs_config cfg;
  RS_TRY(rs_config_from_env(&cfg));
  RS_TRY(rs_resolve_backend(kind, &cfg));
  const rs_backend_desc *desc = rs_backend_get(*kind);
  *vt = desc ? desc->runtime : NULL;
  if (!*vt)
    return rs_fail(RS_ERR_NO_DEVICE, "%s: the %s backend is not built into this library", who,
                   rs_backend_name(*kind));
  return RS_OK;
}

rs_status rs_backend_version(rs_backend_kind kind, char *buf, size_t len) {
  if (!buf || len == 0) return rs_fail(RS_ERR_NULL_POINTER, "rs_backend_version: buf is NULL or empty");
  buf[0] = '\0';
  if (kind != RS_BACKEND_CUDA && kind != RS_BACKEND_SIM)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_backend_version: backend value %d is not cuda or sim", (int)kind);
  const rs_backend_desc *desc = rs_backend_get(kind);
  if (!desc || !desc->runtime)
    return rs_fail(RS_ERR_NO_DEVICE, "rs_backend_version: the %s backend is not built into this library",
                   rs_backend_name(kind));
  if (!desc->runtime->version) {
    snprintf(buf, len, "built into the library");
    return RS_OK;
  }
  return desc->runtime->version(buf, len);
}

rs_status rs_device_count(rs_backend_kind kind, int *out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_device_count: out is NULL");
  const rs_backend_vtable *vt = NULL;
  if ((int)kind == RS_BACKEND_CUDA && !rs_backend_get(RS_BACKEND_CUDA)) {
    *out = 0;
    return RS_OK;
  }
  RS_TRY(rs_backend_checked(&vt, &kind, "rs_device_count"));
  rs_config cfg;
  RS_TRY(rs_config_from_env(&cfg));
  return vt->device_count(&cfg, out);
}

rs_status rs_device_get_props(rs_backend_kind kind, int device, rs_device_props *out) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_device_get_props: out is NULL");
  const rs_backend_vtable *vt = NULL;
  RS_TRY(rs_backend_checked(&vt, &kind, "rs_device_get_props"));
  rs_config cfg;
  RS_TRY(rs_config_from_env(&cfg));
  int count = 0;
  RS_TRY(vt->device_count(&cfg, &count));
  if (device < 0 || device >= count)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_device_get_props: device %d of %d on %s", device,
                   count, rs_backend_name(kind));
  return vt->device_props(device, &cfg, out);
}

static void rs_context_teardown(rs_context *ctx);

rs_status rs_context_create(rs_context **out, rs_backend_kind kind, int device) {
  if (!out) return rs_fail(RS_ERR_NULL_POINTER, "rs_context_create: out is NULL");
  *out = NULL;
  rs_config cfg;
  RS_TRY(rs_config_from_env(&cfg));
  const rs_backend_vtable *vt = NULL;
  RS_TRY(rs_backend_checked(&vt, &kind, "rs_context_create"));
  rs_native_host_threads_request(cfg.host_threads);
  int count = 0;
  RS_TRY(vt->device_count(&cfg, &count));
  if (count == 0)
    return rs_fail(RS_ERR_NO_DEVICE, "rs_context_create: no %s device answers",
                   rs_backend_name(kind));
  if (device < 0 || device >= count)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_context_create: device %d does not exist: %s has %d device%s%s",
                   device, rs_backend_name(kind), count, count == 1 ? "" : "s",
                   kind == RS_BACKEND_SIM ? " (RESIDENT_SIM_DEVICES sets how many)" : "");
  rs_context_store *store = calloc(1, sizeof *store);
  if (!store) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_context_create: out of host memory");
  rs_context *ctx = &store->ctx;
  ctx->ledger = &store->ledger;
  ctx->guard = &store->guard;
  ctx->staging = &store->staging;
  ctx->vt = vt;
  ctx->kind = kind;
  ctx->device = device;
  ctx->cfg = cfg;
  rs_status st = vt->open(&ctx->be, device, &cfg);
  if (st != RS_OK) {
    free(store);
    return rs_fail_prefix(st, "rs_context_create(%s, %d): ", rs_backend_name(kind), device);
  }
  st = rs_memory_init(ctx);
  if (st != RS_OK) {
    vt->close(ctx->be);
    free(store);
    return rs_fail_prefix(st, "rs_context_create(%s, %d): ", rs_backend_name(kind), device);
  }
  rs_slab_init(&ctx->arrays, sizeof(struct rs_array));
  rs_slab_init(&ctx->streams, sizeof(struct rs_stream));
  rs_slab_init(&ctx->events, sizeof(struct rs_event));
  rs_slab_init(&ctx->graphs, sizeof(struct rs_graph));
  rs_handle_init_static(&ctx->legacy.header, RS_MAGIC_STREAM);
  ctx->legacy.ctx = ctx;
  ctx->legacy.role = RS_STREAM_ROLE_LEGACY;
  rs_handle_init_static(&ctx->per_thread.header, RS_MAGIC_STREAM);
  ctx->per_thread.ctx = ctx;
  ctx->per_thread.role = RS_STREAM_ROLE_PER_THREAD;
  rs_guard_init(ctx);
  rs_staging_init(ctx);
  st = rs_ledger_init(ctx);
  if (st != RS_OK) {
    rs_staging_destroy(ctx);
    rs_guard_destroy(ctx);
    rs_slab_destroy(&ctx->arrays);
    rs_slab_destroy(&ctx->streams);
    rs_slab_destroy(&ctx->events);
    rs_slab_destroy(&ctx->graphs);
    rs_memory_destroy(ctx);
    vt->close(ctx->be);
    free(store);
    return st;
  }
  rs_memory_observe_pools(ctx, rs_ledger_pool_sample, ctx);
  st = rs_trace_prepare(ctx);
  if (st == RS_OK) st = rs_default_streams_add(ctx);
  if (st != RS_OK) {
    rs_context_teardown(ctx);
    return st;
  }
  *out = ctx;
  return RS_OK;
}

static void rs_free_live_array(void *object, void *arg) {
  (void)arg;
  struct rs_array *a = object;
  rs_buffer_release(a->buf);
}

static void rs_free_live_stream(void *object, void *arg) {
  struct rs_stream *s = object;
  rs_context *ctx = arg;
  if (s->role == RS_STREAM_ROLE_USER) ctx->vt->stream_destroy(ctx->be, s->native);
}

static void rs_free_live_event(void *object, void *arg) {
  struct rs_event *ev = object;
  rs_context *ctx = arg;
  ctx->vt->event_destroy(ctx->be, ev->native);
}

static void rs_free_live_graph(void *object, void *arg) {
  struct rs_graph *g = object;
  rs_context *ctx = arg;
  ctx->vt->graph_destroy(ctx->be, g->native);
}

static void rs_context_teardown(rs_context *ctx) {
  rs_context_store *store = (rs_context_store *)ctx; /* ctx is its first member */
  ctx->vt->synchronize(ctx->be);
  rs_trace_at_exit(ctx); /* RESIDENT_TRACE: what the ledger holds, before teardown adds to it */
  /* Handles the user forgot: free what they hold so the process leaks nothing. */
  rs_slab_each_live(&ctx->arrays, rs_free_live_array, ctx);
  rs_slab_each_live(&ctx->streams, rs_free_live_stream, ctx);
  rs_slab_each_live(&ctx->events, rs_free_live_event, ctx);
  rs_slab_each_live(&ctx->graphs, rs_free_live_graph, ctx);
  /* After the last buffer: the caches go back to the device before the backend closes. */
  rs_memory_destroy(ctx);
  rs_stream_spares_destroy(ctx);
  rs_staging_destroy(ctx);
  rs_ledger_destroy(ctx);
  rs_guard_destroy(ctx);
  ctx->vt->close(ctx->be);
  rs_slab_destroy(&ctx->arrays);
  rs_slab_destroy(&ctx->streams);
  rs_slab_destroy(&ctx->events);
  rs_slab_destroy(&ctx->graphs);
  free(store);
}

rs_status rs_context_destroy(rs_context *ctx) {
  if (!ctx) return RS_OK;
  if (!rs_default_streams_remove(ctx))
    return rs_fail(RS_ERR_DESTROYED, "rs_context_destroy: not a live context (destroyed already?)");
  rs_context_teardown(ctx);
  return RS_OK;
}

rs_backend_kind rs_context_backend(const rs_context *ctx) { return ctx ? ctx->kind : RS_BACKEND_AUTO; }

int rs_context_device(const rs_context *ctx) { return ctx ? ctx->device : -1; }

rs_status rs_context_get_props(const rs_context *ctx, rs_device_props *out) {
  if (!ctx || !out) return rs_fail(RS_ERR_NULL_POINTER, "rs_context_get_props: NULL argument");
  RS_TRY(ctx->vt->device_props(ctx->device, &ctx->cfg, out));
  /* The context knows its own memory better than a context-free query. */
  size_t free_bytes = 0, total_bytes = 0;
  if (ctx->vt->mem_info(ctx->be, &free_bytes, &total_bytes) == RS_OK) {
    out->free_memory = free_bytes;
    out->total_memory = total_bytes;
  }
  return RS_OK;
}

rs_status rs_context_synchronize(rs_context *ctx) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_context_synchronize: ctx is NULL");
  return rs_ledger_timed_wait(ctx, RS_WAIT_DEVICE, NULL, "rs_context_synchronize");
}

rs_status rs_context_get_live_stats(const rs_context *ctx, rs_live_stats *out) {
  if (!ctx || !out) return rs_fail(RS_ERR_NULL_POINTER, "rs_context_get_live_stats: NULL argument");
  rs_context *c = (rs_context *)(uintptr_t)ctx;
  out->arrays = rs_slab_live(&c->arrays);
  out->buffers = atomic_load(&c->buffers);
  out->device_bytes = atomic_load(&c->device_bytes);
  out->host_bytes = atomic_load(&c->host_bytes);
  out->streams = rs_slab_live(&c->streams);
  out->events = rs_slab_live(&c->events);
  return RS_OK;
}
