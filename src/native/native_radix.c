/* The parallel radix sort of one long row of 32- or 64-bit keys (the keys of
 * native_sort.c: unsigned, in the values' order), with int64 indices alongside for
 * argsort. Least significant digit first, 11 bits a pass (3 passes for 32-bit keys, 6
 * for 64-bit: fewer passes over memory than bytes, and 2048 counters still fit in the
 * first-level cache).
 *
 * The row is cut into slices of a power-of-two length, one per thread. One first read
 * counts every digit of every slice; a digit that every key shares is skipped. Each pass
 * turns the slices' counts into each slice's start in each bucket (bucket by bucket,
 * slices in order) and every slice moves its keys - counting, as it writes them, the
 * next digit of each key under the slice it lands in, so no pass reads the keys twice. A
 * slice keeps its keys' order and the slices are laid down in order, so every pass is
 * stable and the result is the one stable order whatever the number of slices: the
 * same on one thread or many. */
#include <string.h>
#include "native/native_radix.h"

#define RADIX_BITS 11
#define RADIX_BUCKETS (1 << RADIX_BITS)
#define RADIX_MASK (RADIX_BUCKETS - 1)
#define RADIX_DIGITS 6 /* of a 64-bit key */

/* [slice][digit][bucket] counts of the first read, then [thread slice][dest slice][bucket]
 * counts of the next digit, and the starts of the pass. */
size_t rs_radix_scratch(void) {
  size_t cells = (size_t)RS_RADIX_SLICES * RADIX_DIGITS * RADIX_BUCKETS +
                 (size_t)RS_RADIX_SLICES * RS_RADIX_SLICES * RADIX_BUCKETS + (size_t)RS_RADIX_SLICES * RADIX_BUCKETS;
  return cells * sizeof(int64_t);
}

typedef struct radix_job {
  int w; /* key bytes: 4 or 8 */
  int64_t n;
  unsigned slice_log; /* slices of 1 << slice_log keys */
  int nslices, ndigits;
  unsigned shift, next_shift; /* next_shift: the next pass's, or 0 when none */
  const void *src;
  void *dst;
  const int64_t *isrc;
  int64_t *idst;
  int64_t *all;   /* [slice][digit][bucket] */
  int64_t *next;  /* [slice][dest slice][bucket] */
  int64_t *start; /* [slice][bucket] */
} radix_job;

static void slice_range(const radix_job *j, int64_t s, int64_t *b, int64_t *e) {
  *b = s << j->slice_log;
  *e = *b + ((int64_t)1 << j->slice_log) < j->n ? *b + ((int64_t)1 << j->slice_log) : j->n;
}

#define RS_RADIX_BODIES(KT)                                                                  \
  static void count_##KT(const radix_job *j, int64_t s) {                                   \
    const KT *k = j->src;                                                                    \
    int64_t *h = j->all + s * RADIX_DIGITS * RADIX_BUCKETS, b, e;                            \
    slice_range(j, s, &b, &e);                                                               \
    memset(h, 0, (size_t)RADIX_DIGITS * RADIX_BUCKETS * sizeof *h);                          \
    for (int64_t i = b; i < e; i++)                                                          \
      for (int d = 0; d < j->ndigits; d++)                                                   \
        h[d * RADIX_BUCKETS + (int64_t)((k[i] >> (d * RADIX_BITS)) & RADIX_MASK)]++;         \
  }                                                                                          \
  static void move_##KT(const radix_job *j, int64_t s) {                                    \
    const KT *k = j->src;                                                                    \
    KT *d = j->dst;                                                                          \
    int64_t *h = j->start + s * RADIX_BUCKETS, *nx = j->next + s * RS_RADIX_SLICES * RADIX_BUCKETS, b, e; \
    unsigned sh = j->shift, nsh = j->next_shift, lg = j->slice_log;                          \
    slice_range(j, s, &b, &e);                                                               \
    if (nsh) memset(nx, 0, (size_t)j->nslices * RADIX_BUCKETS * sizeof *nx);                 \
    for (int64_t i = b; i < e; i++) {                                                        \
      KT v = k[i];                                                                           \
      int64_t to = h[(v >> sh) & RADIX_MASK]++;                                              \
      d[to] = v;                                                                             \
      if (j->isrc) j->idst[to] = j->isrc[i];                                                 \
      if (nsh) nx[((to >> lg) << RADIX_BITS) + (int64_t)((v >> nsh) & RADIX_MASK)]++;        \
    }                                                                                        \
  }
RS_RADIX_BODIES(uint32_t)
RS_RADIX_BODIES(uint64_t)

static void count_body(int64_t s0, int64_t s1, void *arg) {
  const radix_job *j = arg;
  for (int64_t s = s0; s < s1; s++) j->w == 4 ? count_uint32_t(j, s) : count_uint64_t(j, s);
}

static void move_body(int64_t s0, int64_t s1, void *arg) {
  const radix_job *j = arg;
  for (int64_t s = s0; s < s1; s++) j->w == 4 ? move_uint32_t(j, s) : move_uint64_t(j, s);
}

static void run_slices(rs_thread_pool *pool, radix_job *j, void (*body)(int64_t, int64_t, void *)) {
  if (pool && j->nslices > 1)
    rs_thread_pool_run(pool, j->nslices, body, j);
  else
    body(0, j->nslices, j);
}

/* Digit d moves keys unless one bucket holds them all. */
static int digit_moves(const radix_job *j, int d) {
  for (int b = 0; b < RADIX_BUCKETS; b++) {
    int64_t total = 0;
    for (int s = 0; s < j->nslices; s++) total += j->all[((int64_t)s * RADIX_DIGITS + d) * RADIX_BUCKETS + b];
    if (total) return total != j->n;
  }
  return 0;
}

/* Slice s's count of bucket b for the pass: from the first read (first pass) or summed
 * over the slices that wrote into s (later passes). */
static int64_t pass_count(const radix_job *j, int first_digit, int s, int b) {
  if (first_digit >= 0) return j->all[((int64_t)s * RADIX_DIGITS + first_digit) * RADIX_BUCKETS + b];
  int64_t c = 0;
  for (int t = 0; t < j->nslices; t++) c += j->next[((int64_t)t * RS_RADIX_SLICES + s) * RADIX_BUCKETS + b];
  return c;
}

static void pass_starts(radix_job *j, int first_digit) {
  int64_t pos = 0;
  for (int b = 0; b < RADIX_BUCKETS; b++)
    for (int s = 0; s < j->nslices; s++) {
      int64_t c = pass_count(j, first_digit, s, b);
      j->start[(int64_t)s * RADIX_BUCKETS + b] = pos;
      pos += c;
    }
}

int rs_radix_sort(rs_thread_pool *pool, int w, void *k, int64_t *ix, void *k2, int64_t *ix2, int64_t n,
                  void *scratch) {
  int threads = pool ? rs_thread_pool_threads(pool) : 1;
  int want = threads < RS_RADIX_SLICES ? threads : RS_RADIX_SLICES;
  radix_job j = {.w = w, .n = n, .ndigits = (w * 8 + RADIX_BITS - 1) / RADIX_BITS};
  j.all = scratch;
  j.next = j.all + (size_t)RS_RADIX_SLICES * RADIX_DIGITS * RADIX_BUCKETS;
  j.start = j.next + (size_t)RS_RADIX_SLICES * RS_RADIX_SLICES * RADIX_BUCKETS;
  while (((int64_t)1 << j.slice_log) * want < n) j.slice_log++;
  j.nslices = (int)((n + ((int64_t)1 << j.slice_log) - 1) >> j.slice_log);
  j.src = k;
  run_slices(pool, &j, count_body);
  int digits[RADIX_DIGITS], nd = 0;
  for (int d = 0; d < j.ndigits; d++)
    if (digit_moves(&j, d)) digits[nd++] = d;
  int in_second = 0;
  for (int q = 0; q < nd; q++) {
    j.shift = (unsigned)(digits[q] * RADIX_BITS);
    j.next_shift = q + 1 < nd ? (unsigned)(digits[q + 1] * RADIX_BITS) : 0;
    j.src = in_second ? k2 : k;
    j.dst = in_second ? k : k2;
    j.isrc = ix ? (in_second ? ix2 : ix) : NULL;
    j.idst = in_second ? ix : ix2;
    pass_starts(&j, q == 0 ? digits[0] : -1);
    run_slices(pool, &j, move_body);
    in_second = !in_second;
  }
  return in_second;
}
