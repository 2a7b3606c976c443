/* What the pool holds: statistics, the block map (for out-of-memory messages and
 * rs_memory_report), and byte formatting for both. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "memory/pool.h"

const char *rs_fmt_bytes(char *buf, size_t len, double bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) {
    bytes /= 1024.0;
    u++;
  }
  if (u == 0)
    snprintf(buf, len, "%.0f B", bytes);
  else
    snprintf(buf, len, u >= 3 ? "%.2f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

void rs_pool_stats(rs_pool *p, rs_memory_stats *out) {
  pthread_mutex_lock(&p->lock);
  out->in_use_bytes = (int64_t)p->in_use;
  out->requested_bytes = (int64_t)p->requested;
  out->reserved_bytes = (int64_t)p->reserved;
  out->cached_bytes = (int64_t)(p->reserved - p->in_use);
  out->peak_in_use_bytes = (int64_t)p->peak_in_use;
  out->peak_reserved_bytes = (int64_t)p->peak_reserved;
  out->allocations = p->allocations;
  out->frees = p->frees;
  out->hits = p->hits;
  out->misses = p->misses;
  size_t ls = rs_pool_tree_largest(&p->small), ll = rs_pool_tree_largest(&p->large);
  out->largest_free_block = (int64_t)(ls > ll ? ls : ll);
  out->segments = p->nsegments;
  out->waiting_blocks = p->nwaiting;
  out->waiting_bytes = (int64_t)p->waiting_bytes;
  out->limit_bytes = (int64_t)p->limit;
  pthread_mutex_unlock(&p->lock);
}

void rs_pool_reset_stats(rs_pool *p) {
  pthread_mutex_lock(&p->lock);
  p->peak_in_use = p->in_use;
  p->peak_reserved = p->reserved;
  p->allocations = p->frees = p->hits = p->misses = 0;
  pthread_mutex_unlock(&p->lock);
}

/* A bounded string builder that ends in "..." once it runs out of room. */
typedef struct rs_sbuf {
  char *buf;
  size_t len, used;
  int full;
} rs_sbuf;

static void sb_add(rs_sbuf *s, const char *fmt, ...) {
  if (s->full) return;
  char piece[160];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(piece, sizeof piece, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  size_t need = strlen(piece);
  if (s->used + need + 4 >= s->len) {
    /* Keep room for the ellipsis so a cut map says it was cut. */
    if (s->used + 4 <= s->len) snprintf(s->buf + s->used, s->len - s->used, "...");
    s->full = 1;
    return;
  }
  memcpy(s->buf + s->used, piece, need + 1);
  s->used += need;
}

static char state_letter(rs_block_state st) {
  return st == RS_BLOCK_USED ? 'U' : st == RS_BLOCK_FREE ? 'F' : 'W';
}

/* Segments: "[2.0 MiB: U 4.0 KiB, F 2.0 MiB]"; U in use, F free, W waiting for another
 * stream. Lock held. */
static void map_locked(rs_pool *p, rs_sbuf *s) {
  char a[32], b[32];
  if (!p->segments) sb_add(s, "(no segments)");
  for (rs_pool_segment *seg = p->segments; seg && !s->full; seg = seg->next) {
    sb_add(s, "[%s:", rs_fmt_bytes(a, sizeof a, (double)seg->size));
    int k = 0;
    for (rs_pool_block *blk = seg->first; blk && !s->full; blk = blk->next, k++)
      sb_add(s, "%s %c %s", k ? "," : "", state_letter(blk->state),
             rs_fmt_bytes(b, sizeof b, (double)blk->size));
    sb_add(s, "] ");
  }
}

void rs_pool_map_str(rs_pool *p, char *buf, size_t len) {
  if (len == 0) return;
  buf[0] = '\0';
  rs_sbuf s = {buf, len, 0, 0};
  pthread_mutex_lock(&p->lock);
  map_locked(p, &s);
  pthread_mutex_unlock(&p->lock);
}

void rs_pool_report(rs_pool *p, FILE *out) {
  rs_memory_stats st;
  memset(&st, 0, sizeof st);
  rs_pool_stats(p, &st);
  char a[32], b[32], c[32], d[32], e[32], f[32];
  fprintf(out, "  in use %s (requested %s), cached %s, reserved %s in %lld segment%s\n",
          rs_fmt_bytes(a, sizeof a, (double)st.in_use_bytes),
          rs_fmt_bytes(b, sizeof b, (double)st.requested_bytes),
          rs_fmt_bytes(c, sizeof c, (double)st.cached_bytes),
          rs_fmt_bytes(d, sizeof d, (double)st.reserved_bytes), (long long)st.segments,
          st.segments == 1 ? "" : "s");
  fprintf(out, "  peak in use %s, peak reserved %s, largest free block %s, limit %s\n",
          rs_fmt_bytes(a, sizeof a, (double)st.peak_in_use_bytes),
          rs_fmt_bytes(b, sizeof b, (double)st.peak_reserved_bytes),
          rs_fmt_bytes(e, sizeof e, (double)st.largest_free_block),
          st.limit_bytes ? rs_fmt_bytes(f, sizeof f, (double)st.limit_bytes) : "none");
  fprintf(out,
          "  allocations %lld (hits %lld, misses %lld), frees %lld, waiting for other "
          "streams %lld block%s (%s)\n",
          (long long)st.allocations, (long long)st.hits, (long long)st.misses, (long long)st.frees,
          (long long)st.waiting_blocks, st.waiting_blocks == 1 ? "" : "s",
          rs_fmt_bytes(a, sizeof a, (double)st.waiting_bytes));
  /* The whole map, however long: this is the report the user asked for. */
  pthread_mutex_lock(&p->lock);
  for (rs_pool_segment *seg = p->segments; seg; seg = seg->next) {
    fprintf(out, "    segment %p %s", (void *)seg->addr,
            rs_fmt_bytes(a, sizeof a, (double)seg->size));
    if (seg->stream) fprintf(out, " (stream %p)", seg->stream);
    fprintf(out, ":");
    int k = 0;
    for (rs_pool_block *blk = seg->first; blk; blk = blk->next, k++)
      fprintf(out, "%s %c %s", k ? "," : "", state_letter(blk->state),
              rs_fmt_bytes(b, sizeof b, (double)blk->size));
    fprintf(out, "\n");
  }
  pthread_mutex_unlock(&p->lock);
}
