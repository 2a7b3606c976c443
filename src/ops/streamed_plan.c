/* How a streamed run cuts its array: chunk 0 runs alone as a probe, timed with events,
 * and its stage times, scaled to the rest of the array, give the chunk count that best
 * balances the pipeline's fill and drain (about one chunk of every stage but the
 * slowest, so fewer for more chunks) against what each chunk costs to queue (host time)
 * and to start on the device (a launch or copy gap per stage). */
#include <pthread.h>
#include "core/error.h"
#include "ledger/ledger_hooks.h"
#include "memory/buffer.h"
#include "ops/streamed_internal.h"

/* What one more chunk costs the pipeline beyond its bytes: the gaps between back-to-back
 * copies and launches and the events between them. Fitted to bench/streamed --sweep on
 * the H200 (2026-12-01): the best chunk counts (12-16 for 100 MB, 48-64 for 1 GiB, the
 * raw CUDA version's too) are those where (fill + drain) / n and n x 20 us balance. */
#define RS_STREAMED_GAP_MS 0.02
#define RS_STREAMED_MAX_CHUNKS 1024
/* Three slots (streams for the steps, each with its buffers): in the same sweep 3 beat 2,
 * 4, 6 and 8 at every chunk count from 12 up, raw and resident alike (one chunk copying
 * in, one computing, one copying out), and with the copies on streams of their own
 * (2026-12-02) 3 were still as fast as any other count but for a few noisy points. A pageable
 * side adds a stage on the host (the copy through pinned memory), and one slot more keeps
 * it busy: 1 GiB pageable ran 77 ms over 4 streams, 96-103 ms over 3. */
int rs_streamed_default_streams(const rs_streamed_run_state *r) {
  return rs_buffer_effective_kind(r->src->buf) == RS_MEM_HOST || rs_buffer_effective_kind(r->dst->buf) == RS_MEM_HOST
             ? 4
             : 3;
}

static double elapsed(rs_event *a, rs_event *b) {
  float ms = 0;
  return rs_event_elapsed_ms(a, b, &ms) == RS_OK ? (double)ms : 0.0;
}

static double max4(double a, double b, double c, double d) {
  double m = a > b ? a : b;
  m = m > c ? m : c;
  return m > d ? m : d;
}

/* Estimated time of the rest in n chunks: the slowest stage with its per-chunk costs,
 * plus the fill and drain. */
static double model_ms(int64_t n, double h, double k, double d, double m, double issue) {
  double g = (double)n * RS_STREAMED_GAP_MS;
  return max4(h + g, k + g, d + g, m + (double)n * issue) + (h + k + d + m) / (double)n;
}

rs_status rs_streamed_probe(rs_streamed_run_state *r, int64_t probe_rows, int64_t *chunk_rows, int *streams) {
  r->nslots = 1;
  rs_streamed_slot *s = &r->slots[0];
  RS_TRY(rs_streamed_slot_ensure(r, s, probe_rows));
  rs_streamed_chunk c = {0, 0, probe_rows, 0};
  double staged0 = r->staging_ms, t0 = rs_now_ms();
  rs_status st = rs_streamed_chunk_run(r, &c);
  double issue = rs_now_ms() - t0 - (r->staging_ms - staged0);
  if (st != RS_OK) {
    if (r->rep->failed_chunk == -1) r->rep->failed_chunk = 0;
    return st;
  }
  RS_TRY(rs_streamed_drain(r)); /* the probe's results are in dst now */
  r->rep->chunks = 1;
  r->rep->rows_done = probe_rows;
  int64_t rest = r->rows - probe_rows;
  if (rest == 0) {
    *chunk_rows = probe_rows;
    if (*streams == RS_STREAMED_AUTO) *streams = 1;
    return RS_OK;
  }
  /* Per-row times of the stages, with the fixed gap of each taken out before scaling. */
  double scale = (double)rest / (double)probe_rows;
  double h = elapsed(rs_streamed_ev(r, 0, 0), rs_streamed_ev(r, 0, 1)) - RS_STREAMED_GAP_MS;
  double k = elapsed(rs_streamed_ev(r, 0, 1), rs_streamed_ev(r, 0, 2)) - RS_STREAMED_GAP_MS;
  double d = elapsed(rs_streamed_ev(r, 0, 2), rs_streamed_ev(r, 0, 3)) - RS_STREAMED_GAP_MS;
  double m = r->staging_ms - staged0;
  h = (h > 0 ? h : 0) * scale, k = (k > 0 ? k : 0) * scale, d = (d > 0 ? d : 0) * scale, m *= scale;
  int64_t limit = rest < RS_STREAMED_MAX_CHUNKS ? rest : RS_STREAMED_MAX_CHUNKS, best = 1;
  for (int64_t n = 2; n <= limit; n++)
    if (model_ms(n, h, k, d, m, issue) < model_ms(best, h, k, d, m, issue)) best = n;
  *chunk_rows = (rest + best - 1) / best;
  int most = rs_streamed_default_streams(r);
  if (*streams == RS_STREAMED_AUTO) *streams = best < most ? (int)best : most;
  return RS_OK;
}

/* ---- plans remembered across runs --------------------------------------------------------
 * A run that chose its sizes from a probe leaves them here, keyed by what they depend on;
 * the next run of the same step over the same shapes and memory kinds reuses them and
 * skips the probe. Only a hint: a stale entry (a context freed and another made at the
 * same address) costs speed, never correctness. */
#define RS_STREAMED_PLANS 16

typedef struct {
  const void *ctx;
  rs_streamed_step step;
  void *user;
  int64_t rows;
  size_t row_in, row_out;
  int pageable; /* bit 0: src, bit 1: dst */
  int64_t chunk_rows;
  int streams;
  int used;
} rs_streamed_plan;

static rs_streamed_plan rs_plans[RS_STREAMED_PLANS];
static unsigned rs_plans_next;
static pthread_mutex_t rs_plans_lock = PTHREAD_MUTEX_INITIALIZER;

static int rs_plan_matches(const rs_streamed_plan *p, const rs_streamed_run_state *r, int pageable) {
  return p->used && p->ctx == r->ctx && p->step == r->step && p->user == r->user && p->rows == r->rows &&
         p->row_in == r->row_in && p->row_out == r->row_out && p->pageable == pageable;
}

int rs_streamed_plan_find(const rs_streamed_run_state *r, int pageable, int64_t *chunk_rows, int *streams) {
  int found = 0;
  pthread_mutex_lock(&rs_plans_lock);
  for (int i = 0; i < RS_STREAMED_PLANS && !found; i++)
    if (rs_plan_matches(&rs_plans[i], r, pageable)) {
      *chunk_rows = rs_plans[i].chunk_rows;
      if (*streams == RS_STREAMED_AUTO) *streams = rs_plans[i].streams;
      found = 1;
    }
  pthread_mutex_unlock(&rs_plans_lock);
  return found;
}

void rs_streamed_plan_keep(const rs_streamed_run_state *r, int pageable, int64_t chunk_rows, int streams) {
  pthread_mutex_lock(&rs_plans_lock);
  rs_streamed_plan *p = NULL;
  for (int i = 0; i < RS_STREAMED_PLANS && !p; i++)
    if (rs_plan_matches(&rs_plans[i], r, pageable)) p = &rs_plans[i];
  if (!p) p = &rs_plans[rs_plans_next++ % RS_STREAMED_PLANS];
  *p = (rs_streamed_plan){r->ctx, r->step, r->user, r->rows, r->row_in, r->row_out, pageable, chunk_rows, streams, 1};
  pthread_mutex_unlock(&rs_plans_lock);
}
