/* Internal to src/memory: the caching pool, used for device memory (the default
 * allocator) and for page-locked host memory (the pinned pool).
 *
 * Memory is taken from a source in segments. A segment is cut into blocks that tile it
 * in address order; a block is in use, free (ready for reuse, in the free index) or
 * waiting (freed, but another stream's work on it may not be done: it joins the free
 * index when the events recorded there have completed). Neighbouring free blocks are
 * merged at once, so a fully free segment is one block and can go back to the source.
 *
 * Sizes: requests are rounded up to 512 bytes. Blocks of up to 1 MiB ("small") are cut
 * from 2 MiB segments; larger ones come from the large index, whose segments are 20 MiB
 * for requests up to 10 MiB and otherwise the request rounded up to 2 MiB, so big arrays
 * get a segment of their own. Small and large blocks never share a segment, which keeps
 * many small long-lived blocks from pinning large segments. A large block is split only
 * if more than 1 MiB remains. Under a cap (limit) every request gets a segment of its own
 * size, and a block is split only when such a segment does not fit under the cap: cached
 * memory must be able to go back for requests that fit (pool.c).
 *
 * A segment belongs to the stream it was allocated for; its blocks are handed out only
 * for that stream, where stream order alone makes reuse safe.
 *
 * One mutex per pool. The source is called without it for allocations (a slow
 * cudaMalloc does not stall other threads' hits) and with it when segments are given
 * back.
 */
#ifndef RS_MEMORY_POOL_H
#define RS_MEMORY_POOL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include "memory/addrmap.h"
#include "memory/allocator.h"
#include "memory/source.h"

#define RS_POOL_ROUND ((size_t)512)
#define RS_POOL_SMALL_MAX ((size_t)1 << 20)     /* largest small block */
#define RS_POOL_SMALL_SEGMENT ((size_t)2 << 20) /* segment for small blocks */
#define RS_POOL_MEDIUM_MAX ((size_t)10 << 20)   /* largest request sharing a segment */
#define RS_POOL_MEDIUM_SEGMENT ((size_t)20 << 20)
#define RS_POOL_LARGE_ROUND ((size_t)2 << 20)

typedef enum rs_block_state {
  RS_BLOCK_USED = 1,
  RS_BLOCK_FREE = 2,
  RS_BLOCK_WAITING = 3
} rs_block_state;

typedef struct rs_pool_segment rs_pool_segment;
typedef struct rs_pool_block rs_pool_block;

struct rs_pool_block {
  uintptr_t addr;
  size_t size;      /* a multiple of 512 */
  size_t requested; /* what the caller asked for, while in use */
  rs_pool_segment *seg;
  rs_pool_block *prev, *next;  /* address neighbours in the segment */
  rs_pool_block *left, *right; /* free index */
  uint32_t prio;               /* free index: heap priority */
  rs_block_state state;
  rs_mem_uses *uses;    /* waiting: what it waits for */
  rs_mem_event *ready;  /* device pool: completes when the last owner's work on the
                           segment's stream is done (NULL: nothing pending) */
  int dirty;            /* freed raw, with no event: the next tracked owner records
                           one when it takes the block */
  rs_pool_block *wnext; /* waiting list, or the spare-block list */
};

struct rs_pool_segment {
  uintptr_t addr;
  size_t size;
  void *stream; /* blocks are handed out for this stream only */
  int large;    /* indexed in the large free index */
  rs_pool_block *first;
  rs_pool_segment *prev, *next;
};

/* The free index: blocks ordered by (stream, size, address), so the first block not
 * below (stream, size, 0) is the best fit for that stream - the lowest address among
 * equal sizes, which keeps reuse predictable. A treap: expected O(log n). */
typedef struct rs_pool_tree {
  rs_pool_block *root;
} rs_pool_tree;

void rs_pool_tree_insert(rs_pool_tree *t, rs_pool_block *b);
void rs_pool_tree_remove(rs_pool_tree *t, rs_pool_block *b);
rs_pool_block *rs_pool_tree_best_fit(const rs_pool_tree *t, void *stream, size_t size);
size_t rs_pool_tree_largest(const rs_pool_tree *t);
uint32_t rs_pool_priority(uintptr_t addr);

typedef struct rs_pool {
  pthread_mutex_t lock;
  rs_mem_source *src;
  const char *what; /* "device" or "pinned", for messages */
  rs_pool_tree small, large;
  rs_pool_block *waiting;
  rs_pool_block *spare; /* block structs kept for reuse */
  rs_addrmap blocks;    /* block start -> block, every block */
  rs_pool_segment *segments;
  size_t limit;     /* 0 = none */
  size_t reserving; /* segment bytes being allocated right now (counted against the limit) */
  /* statistics */
  size_t in_use, requested, reserved, waiting_bytes;
  size_t peak_in_use, peak_reserved;
  int64_t nsegments, nwaiting, used_blocks;
  int64_t allocations, frees, hits, misses;
  /* told the bytes in use and reserved after each change (the ledger's trace counters);
   * called with the lock held, so it must take no lock of the memory layer */
  void (*observe)(void *arg, int pinned, size_t in_use, size_t held);
  void *observe_arg;
} rs_pool;

rs_status rs_pool_init(rs_pool *p, rs_mem_source *src, const char *what);
/* Give every segment back, whatever it holds (context teardown). */
void rs_pool_destroy(rs_pool *p);

/* A block of at least bytes for stream. RS_ERR_OUT_OF_MEMORY (message set) when neither
 * the cache nor the source has room or the limit is reached; other source errors pass
 * through. The caller does the flush-and-retry. ready (may be NULL) receives a reference
 * to the block's ready event, or NULL when nothing can still be using it. */
rs_status rs_pool_alloc(rs_pool *p, size_t bytes, void *stream, void **out, rs_mem_event **ready);

/* Whether work on a block's own stream may still use it when it is freed. */
typedef enum rs_pool_used {
  RS_POOL_UNUSED = 0, /* no: nothing to wait for */
  RS_POOL_USED = 1,   /* yes: an event is recorded now for the next owner */
  RS_POOL_UNKNOWN = 2 /* raw memory, nobody knows: an event is recorded only if a buffer
                         takes the block next (raw owners order their own work) */
} rs_pool_used;

/* Give a block back. uses is taken over (NULL = none). use_stream: the stream it was
 * last used on; another one than the segment's counts as a use there. */
rs_status rs_pool_free(rs_pool *p, void *ptr, size_t bytes, void *use_stream, rs_mem_uses *uses,
                       rs_pool_used used);

/* Give segments with nothing in use back to the source. wait: first wait for the
 * events of waiting blocks so they can go too. Returns the first source error. */
rs_status rs_pool_trim(rs_pool *p, int wait);

/* Bytes handed out and not yet freed. */
size_t rs_pool_in_use(rs_pool *p);

/* A cap on reserved bytes (0 = none). RS_ERR_LIMIT below the bytes in use; trims cached
 * segments when reserved is above it. */
rs_status rs_pool_set_limit(rs_pool *p, size_t limit);

/* pool_stats.c: statistics, the block map and the report. */
void rs_pool_stats(rs_pool *p, rs_memory_stats *out);
void rs_pool_reset_stats(rs_pool *p);
/* The block map, compact, into buf (truncated with "..."). Takes the lock. */
void rs_pool_map_str(rs_pool *p, char *buf, size_t len);
void rs_pool_report(rs_pool *p, FILE *out);

/* Helpers shared by the pool's files (lock held). */
void rs_pool_collect_waiting(rs_pool *p, int wait);

/* Human-readable bytes: "512 B", "4.0 KiB", "100.0 MiB", "1.50 GiB". */
const char *rs_fmt_bytes(char *buf, size_t len, double bytes);

#endif
