/* The direct allocator: a device allocation per request, and Numba's pending-deallocation
 * queue in front of the frees. A device free synchronizes the device (cudaFree does), so
 * freeing each array as it dies would serialize a program that is otherwise
 * asynchronous; the queue frees in batches instead, when it holds more than max_count
 * entries or more than max_ratio of the device memory, when an allocation does not fit,
 * or on request. defer_cleanup scopes hold the batches back altogether.
 *
 * A flush takes the whole queue out under the lock and frees it without the lock, so
 * other threads keep allocating. If one free fails, the device state is not trusted any
 * more: the entries after it are cancelled (dropped, not freed) and the error returned,
 * as Numba does. */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/state.h"

rs_status rs_deferred_init(rs_deferred *d, int64_t max_count, double max_ratio, size_t total) {
  RS_TRY(rs_tracked_init(&d->live));
  d->items = NULL;
  d->count = d->cap = 0;
  d->bytes = 0;
  d->max_count = max_count;
  d->max_ratio = max_ratio;
  d->total = total;
  d->flushes = d->flush_errors = d->cancelled = 0;
  d->peak_reserved = 0;
  return RS_OK;
}

static int over_thresholds(const rs_deferred *d) {
  return (int64_t)d->count > d->max_count || (double)d->bytes > d->max_ratio * (double)d->total;
}

static void note_reserved(rs_deferred *d) {
  size_t r = d->live.in_use + d->bytes;
  if (r > d->peak_reserved) d->peak_reserved = r;
}

/* The whole queue, for the caller to free. Lock held. */
static rs_pending_free *take_queue(rs_deferred *d, size_t *n) {
  rs_pending_free *items = d->items;
  *n = d->count;
  d->items = NULL;
  d->count = d->cap = 0;
  d->bytes = 0;
  d->flushes++;
  return items;
}

/* A user allocator need not synchronize in its free: wait for other streams' uses
 * first. The device's own free synchronizes by itself. */
static rs_status free_one(rs_memory *m, const rs_pending_free *e) {
  if (e->uses && m->device_src.user) RS_TRY(rs_uses_wait(m->ctx, e->uses));
  return rs_source_free(&m->device_src, e->ptr, e->bytes, e->stream);
}

static rs_status free_items(rs_memory *m, rs_pending_free *items, size_t n) {
  rs_context *ctx = m->ctx;
  rs_status st = RS_OK;
  size_t i = 0;
  for (; i < n; i++) {
    st = free_one(m, &items[i]);
    rs_uses_free(ctx, items[i].uses);
    if (st != RS_OK) break;
  }
  if (st != RS_OK) {
    size_t cancelled = n - i - 1, cancelled_bytes = 0;
    for (size_t j = i + 1; j < n; j++) {
      cancelled_bytes += items[j].bytes;
      rs_uses_free(ctx, items[j].uses);
    }
    rs_deferred *d = &m->direct;
    pthread_mutex_lock(&d->live.lock);
    d->flush_errors++;
    d->cancelled += (int64_t)cancelled;
    pthread_mutex_unlock(&d->live.lock);
    char b[32];
    st = rs_fail_prefix(st,
                        "flushing %zu pending deallocations: freeing entry %zu (%p, %zu bytes) "
                        "failed; the %zu entries after it (%s) were cancelled, not freed: ",
                        n, i + 1, items[i].ptr, items[i].bytes, cancelled,
                        rs_fmt_bytes(b, sizeof b, (double)cancelled_bytes));
  }
  free(items);
  return st;
}

rs_status rs_deferred_flush(rs_memory *m, int force, int only_if_over) {
  rs_deferred *d = &m->direct;
  pthread_mutex_lock(&d->live.lock);
  int suspended = !force && atomic_load(&m->defer_depth) > 0;
  if (d->count == 0 || suspended || (only_if_over && !over_thresholds(d))) {
    pthread_mutex_unlock(&d->live.lock);
    return RS_OK;
  }
  size_t n = 0;
  rs_pending_free *items = take_queue(d, &n);
  pthread_mutex_unlock(&d->live.lock);
  return free_items(m, items, n);
}

rs_status rs_direct_alloc(rs_memory *m, size_t bytes, void *stream, void **out) {
  rs_deferred *d = &m->direct;
  /* Queued frees still hold device memory: they count against the limit. */
  rs_status st = rs_tracked_alloc(&d->live, bytes, &d->bytes, "direct", rs_source_obtain, &m->device_src, stream, out);
  if (st == RS_OK) {
    pthread_mutex_lock(&d->live.lock);
    note_reserved(d);
    pthread_mutex_unlock(&d->live.lock);
  }
  return st;
}

rs_status rs_direct_free(rs_memory *m, void *ptr, size_t bytes, void *stream, rs_mem_uses *uses) {
  rs_context *ctx = m->ctx;
  rs_deferred *d = &m->direct;
  rs_tracked *t = &d->live;
  size_t size = 0;
  void *astream = NULL;
  pthread_mutex_lock(&t->lock);
  rs_status st = rs_tracked_remove_locked(t, ptr, bytes, &size, &astream, "direct");
  if (st != RS_OK) {
    pthread_mutex_unlock(&t->lock);
    rs_uses_free(ctx, uses);
    return st;
  }
  if (stream != astream && m->device_src.user) rs_uses_add(ctx, &uses, stream);
  if (d->count == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 16;
    rs_pending_free *items = realloc(d->items, cap * sizeof *items);
    if (!items) {
      /* No room to defer it: free it now, as if the queue were flushed for it alone. */
      pthread_mutex_unlock(&t->lock);
      rs_pending_free e = {ptr, size, astream, uses};
      st = free_one(m, &e);
      rs_uses_free(ctx, uses);
      return st;
    }
    d->items = items;
    d->cap = cap;
  }
  d->items[d->count++] = (rs_pending_free){ptr, size, astream, uses};
  d->bytes += size;
  note_reserved(d);
  if (atomic_load(&m->defer_depth) > 0 || !over_thresholds(d)) {
    pthread_mutex_unlock(&t->lock);
    return RS_OK;
  }
  size_t n = 0;
  rs_pending_free *items = take_queue(d, &n);
  pthread_mutex_unlock(&t->lock);
  return free_items(m, items, n);
}

void rs_deferred_stats(rs_memory *m, rs_memory_stats *out) {
  rs_deferred *d = &m->direct;
  rs_tracked_stats(&d->live, out);
  pthread_mutex_lock(&d->live.lock);
  out->pending_frees = (int64_t)d->count;
  out->pending_bytes = (int64_t)d->bytes;
  out->cached_bytes = (int64_t)d->bytes;
  out->reserved_bytes = (int64_t)(d->live.in_use + d->bytes);
  out->peak_reserved_bytes = (int64_t)d->peak_reserved;
  out->flushes = d->flushes;
  out->flush_errors = d->flush_errors;
  out->cancelled_frees = d->cancelled;
  pthread_mutex_unlock(&d->live.lock);
}

void rs_deferred_reset(rs_memory *m) {
  rs_deferred *d = &m->direct;
  rs_tracked_reset(&d->live);
  pthread_mutex_lock(&d->live.lock);
  d->peak_reserved = d->live.in_use + d->bytes;
  d->flushes = d->flush_errors = d->cancelled = 0;
  pthread_mutex_unlock(&d->live.lock);
}

void rs_deferred_report(rs_memory *m, FILE *out) {
  rs_deferred *d = &m->direct;
  char a[32], b[32];
  pthread_mutex_lock(&d->live.lock);
  fprintf(out, "  pending-deallocation queue: %zu entr%s, %s (flush above %lld entries or %s)\n",
          d->count, d->count == 1 ? "y" : "ies", rs_fmt_bytes(a, sizeof a, (double)d->bytes),
          (long long)d->max_count, rs_fmt_bytes(b, sizeof b, d->max_ratio * (double)d->total));
  for (size_t i = 0; i < d->count && i < 32; i++)
    fprintf(out, "    %p %s\n", d->items[i].ptr,
            rs_fmt_bytes(a, sizeof a, (double)d->items[i].bytes));
  if (d->count > 32) fprintf(out, "    ... %zu more\n", d->count - 32);
  pthread_mutex_unlock(&d->live.lock);
}

void rs_deferred_destroy(rs_memory *m) {
  (void)rs_deferred_flush(m, 1, 0);
  rs_tracked_destroy(&m->direct.live);
  free(m->direct.items);
  m->direct.items = NULL;
}
