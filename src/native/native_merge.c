/* The sort of one long row of values (not argsort) through Highway's vqsort, where the
 * build has it (RS_HOST_VQSORT): the row's keys are cut into a power-of-two number of
 * parts (one per thread, up to 16), each part sorted by vqsort at once on its own
 * thread, then the parts merged pairwise, round by round; each merge is two tasks, one
 * writing the smaller half of the output from the front, one the larger half from the
 * back, so a round keeps every thread busy. Equal keys are equal bits (a key is a value's
 * bit pattern), so where a merge puts them never shows: the values come out the same on
 * any number of threads. */
#include <string.h>
#include "native/native_radix.h"

#define MAX_PARTS 16

typedef struct merge_job {
  int w, parts;
  int64_t n;
  void *src, *dst; /* this round's */
  int64_t width;   /* keys per sorted run this round */
} merge_job;

static int64_t run_end(const merge_job *j, int64_t start) { return start + j->width < j->n ? start + j->width : j->n; }

#define RS_MERGE(KT)                                                                       \
  /* Task t of a round: merge pair t / 2; even t writes its front half, odd t its back. */ \
  static void merge_##KT(const merge_job *j, int64_t t) {                                 \
    int64_t a0 = (t / 2) * 2 * j->width;                                                  \
    if (a0 >= j->n) return;                                                               \
    int64_t a1 = run_end(j, a0), b1 = a1 < j->n ? run_end(j, a1) : a1;                    \
    const KT *s = j->src;                                                                 \
    KT *d = j->dst;                                                                       \
    int64_t total = b1 - a0, half = total / 2;                                            \
    if (t % 2 == 0) {                                                                     \
      int64_t i = a0, k = a1, o = a0;                                                     \
      while (o < a0 + half) d[o++] = (k >= b1 || (i < a1 && s[i] <= s[k])) ? s[i++] : s[k++]; \
    } else {                                                                              \
      int64_t i = a1 - 1, k = b1 - 1, o = b1 - 1;                                         \
      while (o >= a0 + half) d[o--] = (k < a1 || (i >= a0 && s[i] > s[k])) ? s[i--] : s[k--]; \
    }                                                                                     \
  }
RS_MERGE(uint32_t)
RS_MERGE(uint64_t)

static void sort_parts(int64_t p0, int64_t p1, void *arg) {
  const merge_job *j = arg;
  for (int64_t p = p0; p < p1; p++) {
    int64_t b = p * j->width, e = run_end(j, b);
    if (b >= e) continue;
#ifdef RS_HOST_VQSORT
    if (j->w == 4)
      rs_vqsort_u32((uint32_t *)j->src + b, e - b);
    else
      rs_vqsort_u64((uint64_t *)j->src + b, e - b);
#endif
  }
}

static void merge_tasks(int64_t t0, int64_t t1, void *arg) {
  const merge_job *j = arg;
  for (int64_t t = t0; t < t1; t++) j->w == 4 ? merge_uint32_t(j, t) : merge_uint64_t(j, t);
}

int rs_vqsort_row(rs_thread_pool *pool, int w, void *k, void *k2, int64_t n) {
#ifndef RS_HOST_VQSORT
  (void)pool, (void)w, (void)k, (void)k2, (void)n;
  return 0;
#else
  int threads = pool ? rs_thread_pool_threads(pool) : 1, parts = 1;
  while (parts * 2 <= threads && parts * 2 <= MAX_PARTS) parts *= 2;
  merge_job j = {w, parts, n, k, k2, (n + parts - 1) / parts};
  if (parts > 1)
    rs_thread_pool_run(pool, parts, sort_parts, &j);
  else
    sort_parts(0, 1, &j);
  int in_second = 0;
  for (; j.width < n; j.width *= 2) {
    j.src = in_second ? k2 : k;
    j.dst = in_second ? k : k2;
    int64_t tasks = 2 * ((n + 2 * j.width - 1) / (2 * j.width));
    if (pool && tasks > 1)
      rs_thread_pool_run(pool, tasks, merge_tasks, &j);
    else
      merge_tasks(0, tasks, &j);
    in_second = !in_second;
  }
  return 1 + in_second;
#endif
}
