/* The sort of one long row of values (not argsort) through Highway's vqsort, where the
 * build has it (RS_HOST_VQSORT), on every thread and with no second buffer: a sample of
 * the keys picks one splitter per thread; each thread counts, then writes, the keys of its
 * slice of the input into the output by the splitters (the keys are made from the values
 * on the way in, twice, which costs less than reading them back); then every part is
 * sorted by vqsort on its own thread. A key's part depends only on the key, and equal
 * keys are equal bits (a key is a value's bit pattern), so the values come out the same
 * on any number of threads. */
#include <string.h>
#include "native/native_radix.h"

#ifndef RS_HOST_VQSORT
/* Built without Highway: the caller's radix sort does the work. */
int rs_vqsort_row(rs_thread_pool *pool, const rs_keys_maker *mk, int w, void *out, int64_t n) {
  (void)pool, (void)mk, (void)w, (void)out, (void)n;
  return 0;
}
#else

#define MAX_PARTS 16
#define SAMPLE_PER_PART 64
#define CHUNK 1024 /* keys made at a time, on the stack */

typedef struct split_job {
  const rs_keys_maker *mk;
  int w, parts;
  int64_t n, slice;
  void *out;
  uint64_t split[MAX_PARTS - 1];      /* part p holds keys k with split[p-1] < k <= split[p] */
  int64_t count[MAX_PARTS][MAX_PARTS]; /* [slice][part]: counts, then where the slice writes */
  int64_t start[MAX_PARTS + 1];        /* where each part begins in the output */
} split_job;

static int part_of(const split_job *j, uint64_t key) {
  int p = 0;
  for (int i = 0; i < j->parts - 1; i++) p += key > j->split[i];
  return p;
}

static uint64_t key_at(const void *keys, int w, int64_t i) {
  return w == 4 ? ((const uint32_t *)keys)[i] : ((const uint64_t *)keys)[i];
}

/* Slice s: count (write 0) or write (1) its keys by part. */
static void split_slice(split_job *j, int64_t s, int write) {
  int64_t b = s * j->slice, e = b + j->slice < j->n ? b + j->slice : j->n;
  _Alignas(8) unsigned char keys[CHUNK * 8];
  int64_t *at = j->count[s];
  for (int64_t c = b; c < e; c += CHUNK) {
    int64_t m = e - c < CHUNK ? e - c : CHUNK;
    j->mk->make(j->mk, c, m, keys);
    for (int64_t i = 0; i < m; i++) {
      uint64_t k = key_at(keys, j->w, i);
      int p = part_of(j, k);
      if (!write) {
        at[p]++;
      } else if (j->w == 4) {
        ((uint32_t *)j->out)[at[p]++] = (uint32_t)k;
      } else {
        ((uint64_t *)j->out)[at[p]++] = k;
      }
    }
  }
}

static void count_body(int64_t s0, int64_t s1, void *arg) {
  for (int64_t s = s0; s < s1; s++) split_slice(arg, s, 0);
}

static void write_body(int64_t s0, int64_t s1, void *arg) {
  for (int64_t s = s0; s < s1; s++) split_slice(arg, s, 1);
}

static void sort_body(int64_t p0, int64_t p1, void *arg) {
  const split_job *j = arg;
  for (int64_t p = p0; p < p1; p++) {
    int64_t b = j->start[p], m = j->start[p + 1] - b;
    if (m <= 1) continue;
    if (j->w == 4)
      rs_vqsort_u32((uint32_t *)j->out + b, m);
    else
      rs_vqsort_u64((uint64_t *)j->out + b, m);
  }
}

static void run(rs_thread_pool *pool, int64_t n, void (*body)(int64_t, int64_t, void *), void *arg) {
  if (pool && n > 1)
    rs_thread_pool_run(pool, n, body, arg);
  else
    body(0, n, arg);
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Splitters from keys at evenly spaced places of the row. */
static void pick_splitters(split_job *j) {
  uint64_t sample[MAX_PARTS * SAMPLE_PER_PART];
  _Alignas(8) unsigned char one[8];
  int ns = j->parts * SAMPLE_PER_PART;
  for (int i = 0; i < ns; i++) {
    j->mk->make(j->mk, (int64_t)((double)i * (double)j->n / ns), 1, one);
    sample[i] = key_at(one, j->w, 0);
  }
  qsort(sample, (size_t)ns, sizeof sample[0], cmp_u64);
  for (int p = 0; p < j->parts - 1; p++) j->split[p] = sample[(p + 1) * SAMPLE_PER_PART];
}

int rs_vqsort_row(rs_thread_pool *pool, const rs_keys_maker *mk, int w, void *out, int64_t n) {
  split_job j;
  memset(&j, 0, sizeof j);
  int threads = pool ? rs_thread_pool_threads(pool) : 1;
  j.mk = mk, j.w = w, j.n = n, j.out = out;
  j.parts = threads < MAX_PARTS ? threads : MAX_PARTS;
  j.slice = (n + j.parts - 1) / j.parts;
  if (j.parts == 1) { /* one thread: the keys in place, one sort */
    mk->make(mk, 0, n, out);
    j.start[1] = n;
    sort_body(0, 1, &j);
    return 1;
  }
  pick_splitters(&j);
  run(pool, j.parts, count_body, &j);
  int64_t pos = 0; /* part by part, slices in order */
  for (int p = 0; p < j.parts; p++) {
    j.start[p] = pos;
    for (int s = 0; s < j.parts; s++) {
      int64_t c = j.count[s][p];
      j.count[s][p] = pos;
      pos += c;
    }
  }
  j.start[j.parts] = pos;
  run(pool, j.parts, write_body, &j);
  run(pool, j.parts, sort_body, &j);
  return 1;
}

#endif
