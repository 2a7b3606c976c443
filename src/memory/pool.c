/* The caching pool: segments from a source, cut into blocks by best fit, merged back
 * when freed, and given back to the source only when a whole segment is free and
 * someone asks (release, a limit, out of memory). */
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "backend/backend.h"
#include "memory/buffer.h"
#include "memory/pool.h"
#include "memory/state.h"

static size_t round_up(size_t n, size_t unit) { return (n + unit - 1) / unit * unit; }

/* The segment to ask the source for, for a request of rsize bytes (already rounded).
 * Memory goes back to the source only as whole segments, so a free block in a segment
 * another block still uses is cached for good. Under a cap that matters: requests that
 * fit under it must not fail because the cache is stuck in shared segments (16 arrays
 * of 4 MiB in 20 MiB segments at a 64 MiB cap, every other one freed: 32 MiB cached
 * that could never go back for a 24 MiB request; the same with 1 MiB blocks in 2 MiB
 * segments). So under a cap every request gets a segment of its own size, which the
 * out-of-memory recovery can give back as soon as its block is free. */
static size_t segment_size(const rs_pool *p, size_t rsize) {
  if (p->limit) return rsize;
  if (rsize <= RS_POOL_SMALL_MAX) return RS_POOL_SMALL_SEGMENT;
  if (rsize <= RS_POOL_MEDIUM_MAX) return RS_POOL_MEDIUM_SEGMENT;
  return round_up(rsize, RS_POOL_LARGE_ROUND);
}

/* A large block keeps a remainder of up to 1 MiB rather than leave slivers in the large
 * index; small blocks split down to the 512-byte unit. */
static size_t split_minimum(int large) { return large ? RS_POOL_SMALL_MAX + 1 : RS_POOL_ROUND; }

static rs_pool_tree *tree_of(rs_pool *p, const rs_pool_segment *seg) {
  return seg->large ? &p->large : &p->small;
}

static rs_pool_block *block_new(rs_pool *p) {
  rs_pool_block *b = p->spare;
  if (b) {
    p->spare = b->wnext;
  } else {
    b = malloc(sizeof *b);
    if (!b) return NULL;
  }
  memset(b, 0, sizeof *b);
  return b;
}

static void block_recycle(rs_pool *p, rs_pool_block *b) {
  b->wnext = p->spare;
  p->spare = b;
}

static void note_peaks(rs_pool *p) {
  if (p->in_use > p->peak_in_use) p->peak_in_use = p->in_use;
  if (p->reserved > p->peak_reserved) p->peak_reserved = p->reserved;
}

rs_status rs_pool_init(rs_pool *p, rs_mem_source *src, const char *what) {
  memset(p, 0, sizeof *p);
  if (pthread_mutex_init(&p->lock, NULL) != 0)
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s pool: cannot create a mutex", what);
  p->src = src;
  p->what = what;
  rs_addrmap_init(&p->blocks);
  return RS_OK;
}

/* Of two ready events of one segment (one stream), the later one covers both. */
static rs_mem_event *later_event(rs_pool *p, rs_mem_event *a, rs_mem_event *b) {
  if (!a) return b;
  if (!b) return a;
  rs_context *ctx = p->src->ctx;
  if (a->seq >= b->seq) {
    rs_mem_event_unref(ctx, b);
    return a;
  }
  rs_mem_event_unref(ctx, a);
  return b;
}

/* Put a block that nobody uses any more into the free index, merged with free
 * neighbours (waiting neighbours stay apart until their events complete). */
static void make_free(rs_pool *p, rs_pool_block *b) {
  rs_pool_tree *tree = tree_of(p, b->seg);
  rs_pool_block *prev = b->prev, *next = b->next;
  if (prev && prev->state == RS_BLOCK_FREE) {
    rs_pool_tree_remove(tree, prev);
    rs_addrmap_remove(&p->blocks, b->addr, NULL);
    prev->ready = later_event(p, prev->ready, b->ready);
    prev->dirty |= b->dirty;
    b->ready = NULL;
    prev->size += b->size;
    prev->next = next;
    if (next) next->prev = prev;
    block_recycle(p, b);
    b = prev;
  }
  if (next && next->state == RS_BLOCK_FREE) {
    rs_pool_tree_remove(tree, next);
    rs_addrmap_remove(&p->blocks, next->addr, NULL);
    b->ready = later_event(p, b->ready, next->ready);
    b->dirty |= next->dirty;
    next->ready = NULL;
    b->size += next->size;
    b->next = next->next;
    if (next->next) next->next->prev = b;
    block_recycle(p, next);
  }
  b->state = RS_BLOCK_FREE;
  b->requested = 0;
  rs_pool_tree_insert(tree, b);
}

void rs_pool_collect_waiting(rs_pool *p, int wait) {
  rs_context *ctx = p->src->ctx;
  rs_pool_block **link = &p->waiting;
  while (*link) {
    rs_pool_block *b = *link;
    int done = wait ? rs_uses_wait(ctx, b->uses) == RS_OK : rs_uses_done(ctx, b->uses);
    if (!done) {
      link = &b->wnext;
      continue;
    }
    *link = b->wnext;
    b->wnext = NULL;
    rs_uses_free(ctx, b->uses);
    b->uses = NULL;
    p->waiting_bytes -= b->size;
    p->nwaiting--;
    make_free(p, b);
  }
}

/* Tell a checking backend (the simulator's memory checks) what of its device memory is live. */
static void note(const rs_pool *p, uintptr_t addr, size_t bytes, int what) {
  const rs_context *ctx = p->src->ctx;
  if (!p->src->pinned && !p->src->user && ctx->vt->device_note) ctx->vt->device_note(ctx->be, (void *)addr, bytes, what);
}

/* Hand out rsize bytes of free block b (taken out of the index here), splitting off the
 * rest when it is worth keeping apart. */
static void *take_block(rs_pool *p, rs_pool_block *b, size_t rsize, size_t bytes) {
  rs_pool_tree *tree = tree_of(p, b->seg);
  if (b->state == RS_BLOCK_FREE) rs_pool_tree_remove(tree, b);
  size_t rest = b->size - rsize;
  if (rest >= split_minimum(b->seg->large) && rs_addrmap_reserve(&p->blocks, 1) == 0) {
    rs_pool_block *nb = block_new(p);
    if (nb) {
      nb->addr = b->addr + rsize;
      nb->size = rest;
      nb->ready = b->ready; /* the same earlier work may touch the rest */
      rs_mem_event_ref(nb->ready);
      nb->dirty = b->dirty;
      nb->seg = b->seg;
      nb->prev = b;
      nb->next = b->next;
      if (b->next) b->next->prev = nb;
      b->next = nb;
      b->size = rsize;
      rs_addrmap_put(&p->blocks, nb->addr, nb, 0); /* room reserved above */
      nb->state = RS_BLOCK_FREE;
      rs_pool_tree_insert(tree, nb);
    }
  }
  b->state = RS_BLOCK_USED;
  b->requested = bytes;
  p->in_use += b->size;
  p->requested += bytes;
  p->used_blocks++;
  p->allocations++;
  note_peaks(p);
  note(p, b->addr, bytes, RS_BE_NOTE_LIVE);
  return (void *)b->addr;
}

/* Ask the source for a segment; called and returns with the lock held, drops it around
 * the source call. On success the segment is listed and its one block is free. */
static rs_status new_segment(rs_pool *p, size_t rsize, void *stream, rs_pool_block **out) {
  size_t want = segment_size(p, rsize);
  size_t held = p->reserved + p->reserving;
  if (p->limit && held + want > p->limit) {
    /* The shared segment does not fit under the cap; one just big enough may. */
    if (held + rsize > p->limit) {
      char a[32], b[32], c[32];
      return rs_fail(
          RS_ERR_OUT_OF_MEMORY, "%s pool: %s more would exceed the limit of %s (%s held)", p->what,
          rs_fmt_bytes(a, sizeof a, (double)rsize), rs_fmt_bytes(b, sizeof b, (double)p->limit),
          rs_fmt_bytes(c, sizeof c, (double)held));
    }
    want = rsize;
  }
  p->reserving += want;
  pthread_mutex_unlock(&p->lock);
  void *mem = NULL;
  rs_status st = rs_source_alloc(p->src, want, stream, &mem);
  size_t got = want;
  if (st == RS_ERR_OUT_OF_MEMORY && want > rsize) {
    /* A shared segment is a convenience; the request itself may still fit. */
    got = rsize;
    st = rs_source_alloc(p->src, got, stream, &mem);
  }
  pthread_mutex_lock(&p->lock);
  p->reserving -= want;
  if (st != RS_OK) return st;

  rs_pool_segment *seg = calloc(1, sizeof *seg);
  rs_pool_block *b = block_new(p);
  if (!seg || !b || rs_addrmap_put(&p->blocks, (uintptr_t)mem, b, 0) != 0) {
    free(seg);
    if (b) block_recycle(p, b);
    rs_source_free(p->src, mem, got, stream);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "%s pool: no host memory to track a segment",
                   p->what);
  }
  seg->addr = (uintptr_t)mem;
  seg->size = got;
  seg->stream = stream;
  seg->large = rsize > RS_POOL_SMALL_MAX;
  seg->first = b;
  seg->next = p->segments;
  if (p->segments) p->segments->prev = seg;
  p->segments = seg;
  b->addr = seg->addr;
  b->size = got;
  b->seg = seg;
  b->state = RS_BLOCK_FREE;
  rs_pool_tree_insert(tree_of(p, seg), b);
  note(p, seg->addr, got, RS_BE_NOTE_SEGMENT);
  p->reserved += got;
  p->nsegments++;
  note_peaks(p);
  *out = b;
  return RS_OK;
}

static rs_status trim_locked(rs_pool *p, int wait);

static void observed(rs_pool *p) {
  if (p->observe) p->observe(p->observe_arg, p->src->pinned, p->in_use, p->reserved);
}

static int fits_under_cap(const rs_pool *p, size_t rsize) {
  return p->reserved + p->reserving + rsize <= p->limit;
}

/* Under a cap, the best fit b for rsize bytes, or NULL for a segment of its own. Cutting
 * a block in two leaves the rest cached in a segment the other part pins, where no
 * recovery can give it back; so a segment of the request's own size is preferred when it
 * fits under the cap - after giving free segments back, if need be - and the block is cut
 * only when it does not. Lock held. */
static rs_pool_block *best_fit_under_cap(rs_pool *p, rs_pool_tree *tree, void *stream, size_t rsize) {
  rs_pool_block *b = rs_pool_tree_best_fit(tree, stream, rsize);
  if (!b || !p->limit || b->size - rsize < split_minimum(b->seg->large)) return b;
  if (fits_under_cap(p, rsize)) return NULL;
  (void)trim_locked(p, 0); /* b may be gone now */
  return fits_under_cap(p, rsize) ? NULL : rs_pool_tree_best_fit(tree, stream, rsize);
}

rs_status rs_pool_alloc(rs_pool *p, size_t bytes, void *stream, void **out, rs_mem_event **ready) {
  *out = NULL;
  if (ready) *ready = NULL;
  if (bytes == 0) return RS_OK;
  if (bytes > SIZE_MAX / 2)
    return rs_fail(RS_ERR_OUT_OF_MEMORY, "%s pool: %zu bytes cannot be allocated", p->what, bytes);
  size_t rsize = round_up(bytes, RS_POOL_ROUND);
  rs_pool_tree *tree = rsize <= RS_POOL_SMALL_MAX ? &p->small : &p->large;
  pthread_mutex_lock(&p->lock);
  if (p->waiting) rs_pool_collect_waiting(p, 0);
  rs_pool_block *b = best_fit_under_cap(p, tree, stream, rsize);
  if (b) {
    p->hits++;
  } else {
    rs_status st = new_segment(p, rsize, stream, &b);
    if (st != RS_OK) {
      pthread_mutex_unlock(&p->lock);
      return st;
    }
    p->misses++;
  }
  *out = take_block(p, b, rsize, bytes);
  if (ready && b->dirty) {
    /* Its last owner's work is somewhere on the stream: all of it so far, then. */
    rs_context *ctx = p->src->ctx;
    rs_mem_event *e = rs_mem_event_record(ctx, b->seg->stream);
    if (!e) (void)ctx->vt->stream_synchronize(ctx->be, b->seg->stream);
    rs_mem_event_unref(ctx, b->ready);
    b->ready = e;
    b->dirty = 0;
  }
  if (ready && b->ready) {
    rs_mem_event_ref(b->ready);
    *ready = b->ready;
  }
  observed(p);
  pthread_mutex_unlock(&p->lock);
  return RS_OK;
}

/* Why ptr is not a live block: freed already (it lies in free or waiting space), an
 * interior pointer, or nothing of this pool. Lock held. */
static rs_status not_live(rs_pool *p, void *ptr) {
  uintptr_t a = (uintptr_t)ptr;
  rs_addrmap_entry *e = rs_addrmap_get(&p->blocks, a);
  if (e && ((rs_pool_block *)e->value)->state != RS_BLOCK_USED)
    return rs_fail(RS_ERR_DOUBLE_FREE, "%s pool: %p was freed already", p->what, ptr);
  for (rs_pool_segment *s = p->segments; s; s = s->next) {
    if (a < s->addr || a >= s->addr + s->size) continue;
    for (rs_pool_block *b = s->first; b; b = b->next) {
      if (a < b->addr || a >= b->addr + b->size) continue;
      if (b->state != RS_BLOCK_USED)
        return rs_fail(RS_ERR_DOUBLE_FREE,
                       "%s pool: %p lies in memory freed already (freed twice?)", p->what, ptr);
      return rs_fail(RS_ERR_FOREIGN_MEMORY,
                     "%s pool: %p points %zu bytes into a block allocated at %p; free the "
                     "address the allocation returned",
                     p->what, ptr, (size_t)(a - b->addr), (void *)b->addr);
    }
  }
  return rs_fail(RS_ERR_FOREIGN_MEMORY,
                 "%s pool: %p was not allocated by this context's pool (another context's "
                 "memory, or never allocated)",
                 p->what, ptr);
}

rs_status rs_pool_free(rs_pool *p, void *ptr, size_t bytes, void *use_stream, rs_mem_uses *uses,
                       rs_pool_used used) {
  rs_context *ctx = p->src->ctx;
  pthread_mutex_lock(&p->lock);
  rs_addrmap_entry *e = rs_addrmap_get(&p->blocks, (uintptr_t)ptr);
  rs_pool_block *b = e ? e->value : NULL;
  if (!b || b->state != RS_BLOCK_USED) {
    rs_status st = not_live(p, ptr);
    pthread_mutex_unlock(&p->lock);
    rs_uses_free(ctx, uses);
    return st;
  }
  if (bytes && bytes != b->requested) {
    size_t req = b->requested;
    pthread_mutex_unlock(&p->lock);
    rs_uses_free(ctx, uses);
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s pool: free(%p, %zu bytes), but %zu were allocated",
                   p->what, ptr, bytes, req);
  }
  /* Pinned blocks are read and written by the host, outside any stream: every stream
   * they were used on counts, the allocation's own included. */
  int pinned = p->src->pinned;
  if (pinned ? use_stream != NULL : use_stream != b->seg->stream)
    rs_uses_add(ctx, &uses, use_stream);
  if (uses && uses->sync_all) {
    /* Rare: the events could not be had. Wait for everything instead (no lock held: the
     * block is still in use, nobody else touches it). */
    pthread_mutex_unlock(&p->lock);
    (void)ctx->vt->synchronize(ctx->be);
    rs_uses_free(ctx, uses);
    uses = NULL;
    pthread_mutex_lock(&p->lock);
  }
  if (used == RS_POOL_USED && !pinned) {
    /* The next owner may be another stream, which the segment's stream's queued work does
     * not wait for: remember where that work ends. */
    rs_mem_event *e = rs_mem_event_record(ctx, b->seg->stream);
    if (!e) (void)ctx->vt->stream_synchronize(ctx->be, b->seg->stream); /* nothing pending then */
    rs_mem_event_unref(ctx, b->ready);
    b->ready = e;
    b->dirty = 0;
  } else if (used == RS_POOL_UNKNOWN && !pinned) {
    b->dirty = 1;
  }
  p->in_use -= b->size;
  p->requested -= b->requested;
  p->used_blocks--;
  p->frees++;
  note(p, b->addr, b->requested, RS_BE_NOTE_DEAD);
  if (uses && uses->count > 0) {
    b->state = RS_BLOCK_WAITING;
    b->uses = uses;
    b->wnext = p->waiting;
    p->waiting = b;
    p->waiting_bytes += b->size;
    p->nwaiting++;
    uses = NULL;
  } else {
    make_free(p, b);
  }
  observed(p);
  pthread_mutex_unlock(&p->lock);
  rs_uses_free(ctx, uses);
  return RS_OK;
}

static int segment_unused(const rs_pool_segment *s) {
  return s->first->state == RS_BLOCK_FREE && s->first->size == s->size;
}

static void unlink_segment(rs_pool *p, rs_pool_segment *s) {
  if (s->prev)
    s->prev->next = s->next;
  else
    p->segments = s->next;
  if (s->next) s->next->prev = s->prev;
}

/* Free segments go back while the lock is held, so nobody can see the bytes as gone
 * before the source has them back. */
static rs_status trim_locked(rs_pool *p, int wait) {
  rs_status first = RS_OK;
  if (p->waiting) rs_pool_collect_waiting(p, wait);
  rs_pool_segment *s = p->segments;
  while (s) {
    rs_pool_segment *next = s->next;
    if (segment_unused(s)) {
      rs_pool_block *b = s->first;
      rs_pool_tree_remove(tree_of(p, s), b);
      rs_addrmap_remove(&p->blocks, b->addr, NULL);
      unlink_segment(p, s);
      p->reserved -= s->size;
      p->nsegments--;
      rs_status st = rs_source_free(p->src, (void *)s->addr, s->size, s->stream);
      if (st != RS_OK && first == RS_OK) first = st;
      rs_mem_event_unref(p->src->ctx, b->ready);
      b->ready = NULL;
      block_recycle(p, b);
      free(s);
    }
    s = next;
  }
  return first;
}

rs_status rs_pool_trim(rs_pool *p, int wait) {
  pthread_mutex_lock(&p->lock);
  rs_status st = trim_locked(p, wait);
  observed(p);
  pthread_mutex_unlock(&p->lock);
  return st;
}

size_t rs_pool_in_use(rs_pool *p) {
  pthread_mutex_lock(&p->lock);
  size_t n = p->in_use;
  pthread_mutex_unlock(&p->lock);
  return n;
}

rs_status rs_pool_set_limit(rs_pool *p, size_t limit) {
  pthread_mutex_lock(&p->lock);
  if (limit && limit < p->in_use) {
    char a[32], b[32];
    size_t in_use = p->in_use;
    pthread_mutex_unlock(&p->lock);
    return rs_fail(RS_ERR_LIMIT, "%s pool: a limit of %s is below the %s in use", p->what,
                   rs_fmt_bytes(a, sizeof a, (double)limit),
                   rs_fmt_bytes(b, sizeof b, (double)in_use));
  }
  p->limit = limit;
  int over = limit && p->reserved > limit;
  pthread_mutex_unlock(&p->lock);
  /* Best effort: segments with something in use cannot go. */
  if (over) (void)rs_pool_trim(p, 0);
  return RS_OK;
}

void rs_pool_destroy(rs_pool *p) {
  rs_context *ctx = p->src->ctx;
  while (p->waiting) {
    rs_pool_block *b = p->waiting;
    p->waiting = b->wnext;
    rs_uses_free(ctx, b->uses);
  }
  rs_pool_segment *s = p->segments;
  while (s) {
    rs_pool_segment *next = s->next;
    (void)rs_source_free(p->src, (void *)s->addr, s->size, s->stream);
    rs_pool_block *b = s->first;
    while (b) {
      rs_pool_block *bn = b->next;
      rs_mem_event_unref(ctx, b->ready);
      free(b);
      b = bn;
    }
    free(s);
    s = next;
  }
  while (p->spare) {
    rs_pool_block *b = p->spare;
    p->spare = b->wnext;
    free(b);
  }
  rs_addrmap_release(&p->blocks);
  pthread_mutex_destroy(&p->lock);
  p->segments = NULL;
}
