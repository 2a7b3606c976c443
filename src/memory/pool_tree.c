/* The pool's free index: a treap ordered by (stream, size, address). Priorities come
 * from a hash of the address, so the shape does not depend on a random generator and
 * runs are reproducible. */
#include "memory/pool.h"

uint32_t rs_pool_priority(uintptr_t addr) {
  uint64_t x = (uint64_t)addr >> 9;
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  x *= 0x81dadef4bc2dd44dull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static uintptr_t stream_key(const rs_pool_block *b) { return (uintptr_t)b->seg->stream; }

/* a < b in (stream, size, address) order */
static int block_less(const rs_pool_block *a, const rs_pool_block *b) {
  uintptr_t sa = stream_key(a), sb = stream_key(b);
  if (sa != sb) return sa < sb;
  if (a->size != b->size) return a->size < b->size;
  return a->addr < b->addr;
}

static rs_pool_block *rotate_right(rs_pool_block *t) {
  rs_pool_block *l = t->left;
  t->left = l->right;
  l->right = t;
  return l;
}

static rs_pool_block *rotate_left(rs_pool_block *t) {
  rs_pool_block *r = t->right;
  t->right = r->left;
  r->left = t;
  return r;
}

static rs_pool_block *insert(rs_pool_block *t, rs_pool_block *n) {
  if (!t) return n;
  if (block_less(n, t)) {
    t->left = insert(t->left, n);
    if (t->left->prio > t->prio) t = rotate_right(t);
  } else {
    t->right = insert(t->right, n);
    if (t->right->prio > t->prio) t = rotate_left(t);
  }
  return t;
}

static rs_pool_block *join(rs_pool_block *a, rs_pool_block *b) {
  if (!a) return b;
  if (!b) return a;
  if (a->prio > b->prio) {
    a->right = join(a->right, b);
    return a;
  }
  b->left = join(a, b->left);
  return b;
}

static rs_pool_block *remove_node(rs_pool_block *t, rs_pool_block *n) {
  if (!t) return NULL;
  if (t == n) return join(t->left, t->right);
  if (block_less(n, t))
    t->left = remove_node(t->left, n);
  else
    t->right = remove_node(t->right, n);
  return t;
}

void rs_pool_tree_insert(rs_pool_tree *t, rs_pool_block *b) {
  b->left = b->right = NULL;
  b->prio = rs_pool_priority(b->addr);
  t->root = insert(t->root, b);
}

void rs_pool_tree_remove(rs_pool_tree *t, rs_pool_block *b) {
  t->root = remove_node(t->root, b);
  b->left = b->right = NULL;
}

rs_pool_block *rs_pool_tree_best_fit(const rs_pool_tree *t, void *stream, size_t size) {
  uintptr_t s = (uintptr_t)stream;
  rs_pool_block *best = NULL;
  for (rs_pool_block *n = t->root; n;) {
    uintptr_t ns = stream_key(n);
    int below = ns < s || (ns == s && n->size < size);
    if (below) {
      n = n->right;
    } else {
      best = n;
      n = n->left;
    }
  }
  return best && stream_key(best) == s ? best : NULL;
}

static size_t largest(const rs_pool_block *n) {
  if (!n) return 0;
  size_t l = largest(n->left), r = largest(n->right);
  size_t m = l > r ? l : r;
  return n->size > m ? n->size : m;
}

size_t rs_pool_tree_largest(const rs_pool_tree *t) { return largest(t->root); }
