/* rs_trace_write: the ledger's entries, scopes and pool samples as Trace Event Format
 * JSON (resident/trace.h), read one at a time under the ledger's lock and written as
 * they are read: the three logs are each in time order, and are merged by host time. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "ledger/ledger_internal.h"
#include "ledger/trace_file.h"
#include "resident/trace.h"
#include "resident/version.h"

#define RS_TRACE_STREAMS 63  /* device tracks; later streams share the last one */
#define RS_TRACE_THREADS 255 /* host tracks; later threads share the last one */
#define PID_DEVICE 1
#define PID_HOST 2

/* The tracks seen so far: their names are written when first used, and each keeps its
 * last timestamp so the file's timestamps never go back on a track. */
typedef struct rs_tracer {
  rs_trace_file file;
  void *streams[RS_TRACE_STREAMS];
  double stream_last[RS_TRACE_STREAMS + 1]; /* the end of the last slice on each stream */
  int nstreams;
  unsigned char thread_named[RS_TRACE_THREADS + 1];
  double thread_last[RS_TRACE_THREADS + 1];
  double pool_last[2];
} rs_tracer;

static void put(rs_tracer *t, const char *fmt, ...) RS_PRINTF(2, 3);
static void put(rs_tracer *t, const char *fmt, ...) {
  char line[2048]; /* an event: bounded fields (causes of 63 bytes), well under this */
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = (int)sizeof line - 1; /* fields are bounded; never */
  rs_trace_file_put(&t->file, line, (size_t)n);
}

/* A JSON string body (no quotes) of a bounded cause or name. */
static const char *esc(char *out, size_t len, const char *s) {
  size_t o = 0;
  for (; *s && o + 7 < len; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c < 0x20) {
      o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
    } else {
      out[o++] = (char)c;
    }
  }
  out[o] = '\0';
  return out;
}

static int thread_track(rs_tracer *t, int thread) {
  int tid = thread < 1 ? 1 : thread > RS_TRACE_THREADS ? RS_TRACE_THREADS : thread;
  if (!t->thread_named[tid]) {
    t->thread_named[tid] = 1;
    put(t, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"host thread %d%s\"}}",
        PID_HOST, tid, tid, tid == RS_TRACE_THREADS ? " and later" : "");
  }
  return tid;
}

static int stream_track(rs_tracer *t, void *stream) {
  for (int i = 0; i < t->nstreams; i++)
    if (t->streams[i] == stream) return i + 1;
  if (t->nstreams == RS_TRACE_STREAMS) return RS_TRACE_STREAMS + 1;
  t->streams[t->nstreams++] = stream;
  int tid = t->nstreams;
  if (stream)
    put(t, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"stream %p%s\"}}",
        PID_DEVICE, tid, stream, tid == RS_TRACE_STREAMS ? " and later streams" : "");
  else
    put(t, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"legacy default stream\"}}",
        PID_DEVICE, tid);
  return tid;
}

/* Never earlier than the track's last event: entries of one thread can end out of order
 * when one is recorded inside another. */
static double monotonic(double *last, double ts, int *moved) {
  *moved = ts < *last;
  if (*moved) ts = *last;
  *last = ts;
  return ts;
}

static void entry_event(rs_tracer *t, const rs_ledger_entry *e) {
  char cause[160], name[200], args[1024];
  esc(cause, sizeof cause, e->cause);
  const char *cat, *cname;
  int n = snprintf(args, sizeof args, "\"cause\":\"%s\",\"host_ms\":%.6f", cause, e->host_ms);
  if (e->kind == RS_ENTRY_COPY) {
    snprintf(name, sizeof name, "%s %s", rs_direction_name(e->dir), e->implicit ? "implicit" : "explicit");
    cat = e->implicit ? "copy.implicit" : "copy.explicit";
    cname = e->implicit ? "terrible" : "good";
    double ms = e->device_ms >= 0 ? e->device_ms : e->host_ms;
    n += snprintf(args + n, sizeof args - (size_t)n, ",\"bytes\":%zu,\"shape\":\"%s\",\"direction\":\"%s\",\"implicit\":%s",
                  e->bytes, e->shape, rs_direction_name(e->dir), e->implicit ? "true" : "false");
    if (ms > 0) n += snprintf(args + n, sizeof args - (size_t)n, ",\"bandwidth_gbs\":%.3f", (double)e->bytes / ms / 1e6);
    if (e->arg >= 0) n += snprintf(args + n, sizeof args - (size_t)n, ",\"kernel_argument\":%d", e->arg);
  } else if (e->kind == RS_ENTRY_KERNEL) {
    snprintf(name, sizeof name, "%s", cause);
    cat = "kernel";
    cname = "rail_animation";
  } else if (e->kind == RS_ENTRY_PREFETCH) {
    snprintf(name, sizeof name, "prefetch to the %s", e->dir == RS_H2D ? "device" : "host");
    cat = "prefetch";
    cname = "generic_work";
    n += snprintf(args + n, sizeof args - (size_t)n, ",\"bytes\":%zu", e->bytes);
  } else if (e->kind == RS_ENTRY_GRAPH) {
    snprintf(name, sizeof name, "graph replay");
    cat = "graph";
    cname = "rail_response";
    n += snprintf(args + n, sizeof args - (size_t)n, ",\"bytes\":%zu,\"copies\":%lld,\"kernels\":%lld", e->bytes,
                  (long long)e->graph_copies, (long long)e->graph_kernels);
  } else if (e->kind == RS_ENTRY_COLLECTIVE) {
    snprintf(name, sizeof name, "collective: %s", cause);
    cat = "collective";
    cname = "thread_state_running";
    n += snprintf(args + n, sizeof args - (size_t)n, ",\"bytes\":%zu", e->bytes);
  } else {
    snprintf(name, sizeof name, "wait: %s", cause);
    cat = "wait";
    cname = "bad";
  }
  if (e->kind != RS_ENTRY_WAIT) n += snprintf(args + n, sizeof args - (size_t)n, ",\"stream\":\"%p\"", e->stream);
  if (e->device_ms >= 0) n += snprintf(args + n, sizeof args - (size_t)n, ",\"device_ms\":%.6f", e->device_ms);
  int host = thread_track(t, e->thread), moved = 0;
  if (e->device_start_ms >= 0) {
    /* A stream runs its work in order: a start before the previous end is the rounding
     * of the events' float milliseconds (a few ns); the slice starts at that end. */
    int tid = stream_track(t, e->stream);
    double *end = &t->stream_last[tid - 1], ts = e->device_start_ms * 1e3, dur = e->device_ms * 1e3;
    moved = ts < *end;
    if (moved) {
      dur = dur > *end - ts ? dur - (*end - ts) : 0;
      ts = *end;
    }
    *end = ts + dur;
    put(t, ",\n{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"cname\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
        "\"dur\":%.3f,\"args\":{%s%s}}",
        name, cat, cname, PID_DEVICE, tid, ts, dur, args, moved ? ",\"moved\":true" : "");
    /* the host call that queued it */
    ts = monotonic(&t->thread_last[host], e->host_start_ms * 1e3, &moved);
    put(t, ",\n{\"ph\":\"X\",\"name\":\"queue %s\",\"cat\":\"api\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
        "\"args\":{\"cause\":\"%s\"}}",
        name, PID_HOST, host, ts, e->host_ms * 1e3, cause);
    return;
  }
  double ts = monotonic(&t->thread_last[host], e->host_start_ms * 1e3, &moved);
  put(t, ",\n{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"%s\",\"cname\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
      "\"dur\":%.3f,\"args\":{%s%s}}",
      name, cat, cname, PID_HOST, host, ts, e->host_ms * 1e3, args, moved ? ",\"moved\":true" : "");
}

static void scope_event(rs_tracer *t, const rs_scope_record *r, double now_ms) {
  char name[120];
  int tid = thread_track(t, r->thread), moved = 0;
  double end = r->end_ms >= 0 ? r->end_ms : now_ms;
  double ts = monotonic(&t->thread_last[tid], r->start_ms * 1e3, &moved);
  put(t, ",\n{\"ph\":\"X\",\"name\":\"%s\",\"cat\":\"scope\",\"cname\":\"grey\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,"
      "\"dur\":%.3f,\"args\":{\"depth\":%d,\"open\":%s}}",
      esc(name, sizeof name, r->name), PID_HOST, tid, ts, (end - r->start_ms) * 1e3, r->depth,
      r->end_ms >= 0 ? "false" : "true");
}

static void pool_event(rs_tracer *t, const rs_pool_sample *s) {
  int moved = 0;
  double ts = monotonic(&t->pool_last[s->pinned ? 1 : 0], s->t_ms * 1e3, &moved);
  put(t, ",\n{\"ph\":\"C\",\"name\":\"%s pool\",\"pid\":%d,\"ts\":%.3f,\"args\":{\"in_use_bytes\":%zu,\"held_bytes\":%zu}}",
      s->pinned ? "pinned" : "device", s->pinned ? PID_HOST : PID_DEVICE, ts, s->in_use, s->held);
}

/* What the logs hold at the start (newer records are left for the next trace). */
typedef struct rs_trace_span {
  int64_t entry, entry_end, scope, scope_end, pool, pool_end;
  int64_t dropped_entries, dropped_scopes, dropped_pool;
  double now_ms, ref_uncertainty_ms, ref_shift_ms;
  int device_clock;
} rs_trace_span;

static rs_trace_span snapshot(rs_ledger *l) {
  rs_trace_span s;
  pthread_mutex_lock(&l->lock);
  s.entry_end = l->count;
  s.entry = l->count > l->capacity ? l->count - l->capacity : 0;
  s.scope_end = l->scope_count;
  s.scope = l->scope_count > RS_LEDGER_SCOPE_LOG ? l->scope_count - RS_LEDGER_SCOPE_LOG : 0;
  s.pool_end = l->pool_count;
  s.pool = l->pool_count > RS_LEDGER_POOL_LOG ? l->pool_count - RS_LEDGER_POOL_LOG : 0;
  s.dropped_entries = s.entry;
  s.dropped_scopes = s.scope;
  s.dropped_pool = s.pool;
  s.now_ms = rs_now_ms() - l->epoch_ms;
  s.device_clock = l->ref_event != NULL;
  s.ref_uncertainty_ms = l->ref_uncertainty_ms;
  s.ref_shift_ms = l->ref_shift_ms;
  pthread_mutex_unlock(&l->lock);
  return s;
}

/* The next record of each log still held (lock held): 0 when gone or done. */
static int next_entry(rs_ledger *l, rs_trace_span *s, rs_ledger_entry *out) {
  if (l->count < s->entry_end) return 0; /* reset meanwhile: what is left is another run's */
  if (s->entry < l->count - l->capacity) s->entry = l->count - l->capacity; /* overwritten meanwhile */
  if (s->entry >= s->entry_end) return 0;
  rs_ledger_read(l, s->entry, out);
  return 1;
}

static rs_status rs_trace_body(rs_context *ctx, rs_tracer *t, const char *path) {
  rs_ledger *l = ctx->ledger;
  rs_trace_span s = snapshot(l);
  char head[1536], bname[64];
  int n = snprintf(head, sizeof head,
                   "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"resident %s\",\"backend\":\"%s\","
                   "\"clock\":\"host monotonic clock, microseconds since the ledger's reset\","
                   "\"device_times\":\"%s\",\"device_clock_uncertainty_us\":%.3f,\"device_clock_shift_us\":%.3f,"
                   "\"dropped_entries\":%lld,\"dropped_scopes\":%lld,\"dropped_pool_samples\":%lld},\n"
                   "\"traceEvents\":[\n"
                   "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"resident device (%s)\"}},\n"
                   "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"resident host\"}}",
                   rs_version(), ctx->vt->name,
                   s.device_clock ? "from events, placed on the host clock by a reference event recorded at a reset: at most "
                                    "device_clock_uncertainty_us later than the record, moved device_clock_shift_us "
                                    "later so that none starts before its host call"
                                  : "none: the backend gave no reference event, entries are at host times",
                   s.ref_uncertainty_ms * 1e3, s.ref_shift_ms * 1e3, (long long)s.dropped_entries, (long long)s.dropped_scopes,
                   (long long)s.dropped_pool, PID_DEVICE, esc(bname, sizeof bname, ctx->vt->name), PID_HOST);
  static const char tail[] =
      ",\n{\"ph\":\"i\",\"s\":\"g\",\"name\":\"trace truncated\",\"pid\":1,\"tid\":0,\"ts\":0,"
      "\"args\":{\"reason\":\"a write failed (disk full?): the events after this point are missing\"}}\n]}\n";
  rs_status st = rs_trace_file_begin(&t->file, head, (size_t)n, tail, "rs_trace_write", path);
  if (st != RS_OK) {
    close(t->file.fd);
    return st;
  }
  rs_ledger_entry e = {0};
  rs_scope_record r = {0};
  rs_pool_sample p = {0};
  for (;;) {
    /* Each step takes the lock for one record: recording threads are held up by no more. */
    int which = -1;
    double best = 0;
    pthread_mutex_lock(&l->lock);
    int he = next_entry(l, &s, &e);
    if (s.scope < l->scope_count - RS_LEDGER_SCOPE_LOG) s.scope = l->scope_count - RS_LEDGER_SCOPE_LOG;
    int hs = s.scope < s.scope_end && l->scope_count >= s.scope_end;
    if (hs) r = l->scope_log[s.scope % RS_LEDGER_SCOPE_LOG];
    if (s.pool < l->pool_count - RS_LEDGER_POOL_LOG) s.pool = l->pool_count - RS_LEDGER_POOL_LOG;
    int hp = s.pool < s.pool_end && l->pool_count >= s.pool_end;
    if (hp) p = l->pool_log[s.pool % RS_LEDGER_POOL_LOG];
    pthread_mutex_unlock(&l->lock);
    /* A scope before an entry at the same time: it encloses the entry. */
    if (hs) which = 1, best = r.start_ms;
    if (he && (which < 0 || e.host_start_ms < best)) which = 0, best = e.host_start_ms;
    if (hp && (which < 0 || p.t_ms < best)) which = 2;
    if (which < 0) break;
    if (which == 0) entry_event(t, &e), s.entry++;
    if (which == 1) scope_event(t, &r, s.now_ms), s.scope++;
    if (which == 2) pool_event(t, &p), s.pool++;
  }
  return rs_trace_file_close(&t->file, "\n]}\n", "rs_trace_write", path);
}

rs_status rs_trace_write(rs_context *ctx, const char *path) {
  if (!ctx || !path) return rs_fail(RS_ERR_NULL_POINTER, "rs_trace_write: %s is NULL", ctx ? "path" : "context");
  if (!path[0]) return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_trace_write: the path is empty");
  rs_tracer *t = calloc(1, sizeof *t);
  if (!t) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "rs_trace_write: no host memory for the writer");
  rs_status st = rs_trace_file_open(&t->file, path, "rs_trace_write");
  if (st == RS_OK) {
    rs_ledger_resolve(ctx, 1); /* device times, before anything is read */
    st = rs_trace_body(ctx, t, path);
  }
  free(t);
  return st;
}

rs_status rs_trace_prepare(rs_context *ctx) {
  static _Atomic long contexts = 0;
  long number = atomic_fetch_add(&contexts, 1) + 1;
  const char *v = ctx->cfg.trace_path;
  char *out = ctx->ledger->trace_path;
  size_t o = 0, cap = sizeof ctx->ledger->trace_path;
  out[0] = '\0';
  if (!v[0]) return RS_OK;
  for (size_t i = 0; v[i] && o + 1 < cap; i++) {
    if (v[i] != '%') {
      out[o++] = v[i];
      continue;
    }
    char part[32];
    i++;
    if (v[i] == 'p') snprintf(part, sizeof part, "%ld", (long)getpid());
    else if (v[i] == 'n') snprintf(part, sizeof part, "%ld", number);
    else snprintf(part, sizeof part, "%%");
    size_t k = strlen(part);
    if (o + k >= cap) break;
    memcpy(out + o, part, k);
    o += k;
  }
  out[o] = '\0';
  rs_status st = rs_trace_file_check(out, "RESIDENT_TRACE");
  if (st != RS_OK) out[0] = '\0';
  return st;
}

void rs_trace_at_exit(rs_context *ctx) {
  if (!ctx->ledger->trace_path[0]) return;
  if (rs_trace_write(ctx, ctx->ledger->trace_path) != RS_OK) rs_log_line("resident: RESIDENT_TRACE: %s", rs_last_error());
}
