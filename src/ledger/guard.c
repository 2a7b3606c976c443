/* The transfer guard: per direction, allow / log / refuse copies. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "core/error.h"
#include "core/objects.h"
#include "ledger/ledger_hooks.h"
#include "ledger/state.h"

static const char *const rs_guard_names[] = {"allow", "log", "disallow", "disallow_explicit"};
static const char *const rs_dir_names[] = {"H2D", "D2H", "D2D", "H2H", "P2P"};

const char *rs_guard_mode_name(rs_guard_mode mode) {
  return (unsigned)mode < 4 ? rs_guard_names[mode] : "invalid";
}

const char *rs_direction_name(rs_direction dir) {
  return (unsigned)dir < RS_DIRECTIONS ? rs_dir_names[dir] : "invalid";
}

static rs_status rs_guard_word(rs_guard_mode *mode, const char *word, size_t len) {
  for (int m = 0; m < 4; m++)
    if (strlen(rs_guard_names[m]) == len && strncmp(word, rs_guard_names[m], len) == 0) {
      *mode = (rs_guard_mode)m;
      return RS_OK;
    }
  return rs_fail(RS_ERR_PARSE, "guard mode '%.*s' is not one of allow, log, disallow, disallow_explicit",
                 (int)len, word);
}

rs_status rs_guard_parse(const char *text, rs_guard_mode modes[RS_DIRECTIONS]) {
  if (!modes || !text) return rs_fail(RS_ERR_NULL_POINTER, "rs_guard_parse: NULL argument");
  rs_guard_mode parsed[RS_DIRECTIONS];
  memcpy(parsed, modes, sizeof parsed);
  if (!strchr(text, '=')) {
    rs_guard_mode m = RS_GUARD_ALLOW;
    RS_TRY(rs_guard_word(&m, text, strlen(text)));
    for (int d = 0; d < RS_DIRECTIONS; d++) modes[d] = m;
    return RS_OK;
  }
  const char *p = text;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq) return rs_fail(RS_ERR_PARSE, "guard setting '%.*s' is not dir=mode", (int)len, p);
    size_t dlen = (size_t)(eq - p);
    int dir = -1;
    for (int d = 0; d < RS_DIRECTIONS; d++)
      if (dlen == 3 && strncasecmp(p, rs_dir_names[d], 3) == 0) dir = d;
    if (dir < 0)
      return rs_fail(RS_ERR_PARSE, "guard direction '%.*s' is not one of h2d, d2h, d2d, h2h, p2p", (int)dlen, p);
    RS_TRY(rs_guard_word(&parsed[dir], eq + 1, len - dlen - 1));
    if (comma && comma[1] == '\0') return rs_fail(RS_ERR_PARSE, "guard setting '%s' ends with ','", text);
    p += len + (comma ? 1 : 0);
  }
  memcpy(modes, parsed, sizeof parsed);
  return RS_OK;
}

void rs_guard_init(rs_context *ctx) {
  pthread_mutex_init(&ctx->guard->lock, NULL);
  memcpy(ctx->guard->modes, ctx->cfg.guard, sizeof ctx->guard->modes);
  ctx->guard->depth = 0;
}

void rs_guard_destroy(rs_context *ctx) { pthread_mutex_destroy(&ctx->guard->lock); }

static rs_status rs_guard_args(rs_context *ctx, rs_direction dir, rs_guard_mode mode, const char *who) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "%s: context is NULL", who);
  if (dir != RS_ALL_DIRECTIONS && ((int)dir < 0 || dir >= RS_DIRECTIONS))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: direction %d is not a direction", who, (int)dir);
  if ((unsigned)mode > RS_GUARD_DISALLOW_EXPLICIT)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s: mode %d is not a guard mode", who, (int)mode);
  return RS_OK;
}

static void rs_guard_apply(rs_guard *g, rs_direction dir, rs_guard_mode mode) {
  for (int d = 0; d < RS_DIRECTIONS; d++)
    if (dir == RS_ALL_DIRECTIONS || (int)dir == d) g->modes[d] = mode;
}

rs_status rs_guard_set(rs_context *ctx, rs_direction dir, rs_guard_mode mode) {
  RS_TRY(rs_guard_args(ctx, dir, mode, "rs_guard_set"));
  pthread_mutex_lock(&ctx->guard->lock);
  rs_guard_apply(ctx->guard, dir, mode);
  pthread_mutex_unlock(&ctx->guard->lock);
  return RS_OK;
}

rs_status rs_guard_get(rs_context *ctx, rs_direction dir, rs_guard_mode *mode) {
  if (!mode) return rs_fail(RS_ERR_NULL_POINTER, "rs_guard_get: mode is NULL");
  RS_TRY(rs_guard_args(ctx, dir, RS_GUARD_ALLOW, "rs_guard_get"));
  if (dir == RS_ALL_DIRECTIONS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_guard_get: ask for one direction");
  pthread_mutex_lock(&ctx->guard->lock);
  *mode = ctx->guard->modes[dir];
  pthread_mutex_unlock(&ctx->guard->lock);
  return RS_OK;
}

rs_status rs_guard_push(rs_context *ctx, rs_direction dir, rs_guard_mode mode) {
  RS_TRY(rs_guard_args(ctx, dir, mode, "rs_guard_push"));
  rs_guard *g = ctx->guard;
  pthread_mutex_lock(&g->lock);
  if (g->depth == RS_GUARD_MAX_PUSHES) {
    pthread_mutex_unlock(&g->lock);
    return rs_fail(RS_ERR_STATE, "rs_guard_push: more than %d nested guard scopes", RS_GUARD_MAX_PUSHES);
  }
  memcpy(g->saved[g->depth++], g->modes, sizeof g->modes);
  rs_guard_apply(g, dir, mode);
  pthread_mutex_unlock(&g->lock);
  return RS_OK;
}

rs_status rs_guard_pop(rs_context *ctx) {
  if (!ctx) return rs_fail(RS_ERR_NULL_POINTER, "rs_guard_pop: context is NULL");
  rs_guard *g = ctx->guard;
  pthread_mutex_lock(&g->lock);
  if (g->depth == 0) {
    pthread_mutex_unlock(&g->lock);
    return rs_fail(RS_ERR_STATE, "rs_guard_pop: no guard scope was pushed");
  }
  memcpy(g->modes, g->saved[--g->depth], sizeof g->modes);
  pthread_mutex_unlock(&g->lock);
  return RS_OK;
}

/* ---- log sink ---- */
static pthread_mutex_t rs_log_lock = PTHREAD_MUTEX_INITIALIZER;
static rs_log_fn rs_log_handler;
static void *rs_log_user_data;

void rs_set_log_handler(rs_log_fn fn, void *user_data) {
  pthread_mutex_lock(&rs_log_lock);
  rs_log_handler = fn;
  rs_log_user_data = user_data;
  pthread_mutex_unlock(&rs_log_lock);
}

void rs_log_line(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&rs_log_lock);
  if (rs_log_handler)
    rs_log_handler(line, rs_log_user_data);
  else
    fprintf(stderr, "resident: %s\n", line);
  pthread_mutex_unlock(&rs_log_lock);
}

static void rs_describe_cause(char *buf, size_t len, const rs_copy_cause *cause) {
  if (cause->arg >= 0)
    snprintf(buf, len, "kernel '%s' argument %d", cause->what, cause->arg);
  else
    snprintf(buf, len, "%s", cause->what);
}

static rs_status rs_guard_decide(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause,
                                 int may_log) {
  pthread_mutex_lock(&ctx->guard->lock);
  rs_guard_mode mode = ctx->guard->modes[dir];
  pthread_mutex_unlock(&ctx->guard->lock);
  if (mode == RS_GUARD_ALLOW || (!cause->implicit && mode != RS_GUARD_DISALLOW_EXPLICIT)) return RS_OK;
  char what[160];
  rs_describe_cause(what, sizeof what, cause);
  const char *kind = cause->implicit ? "implicit" : "explicit";
  if (mode == RS_GUARD_LOG) {
    if (may_log)
      rs_log_line("transfer guard: %s %s copy of %zu bytes caused by %s", kind, rs_direction_name((rs_direction)dir),
           bytes, what);
    return RS_OK;
  }
  return rs_fail(RS_ERR_TRANSFER_REFUSED,
                 "transfer guard (%s) refused an %s %s copy of %zu bytes caused by %s; nothing was copied",
                 rs_guard_mode_name(mode), kind, rs_direction_name((rs_direction)dir), bytes, what);
}

rs_status rs_guard_check(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause) {
  return rs_guard_decide(ctx, dir, bytes, cause, 1);
}

rs_status rs_guard_precheck(rs_context *ctx, rs_copy_dir dir, size_t bytes, const rs_copy_cause *cause) {
  return rs_guard_decide(ctx, dir, bytes, cause, 0);
}

rs_status rs_guard_capture_check(rs_context *ctx, void *stream, rs_copy_dir dir, int needs_host,
                                 const rs_copy_cause *cause) {
  rs_capture *c = rs_capture_of(ctx, stream, 1);
  if (!c) return RS_OK;
  if (cause->implicit)
    return rs_fail(RS_ERR_TRANSFER_REFUSED,
                   "%s: implicit %s copy of argument %d while stream %p is being captured into a graph: a replay "
                   "would copy stale host data without asking; copy it explicitly (rs_to_device) before the "
                   "capture and pass the device array",
                   cause->what, rs_dir_names[dir], cause->arg, c->native);
  if (needs_host)
    return rs_fail(RS_ERR_TRANSFER_REFUSED,
                   "%s: this %s copy needs the host (pageable memory or a non-contiguous side) while stream %p "
                   "is being captured into a graph, and a graph replays without the host; use pinned memory "
                   "and contiguous arrays inside a capture",
                   cause->what, rs_dir_names[dir], c->native);
  if (!stream)
    return rs_fail(RS_ERR_TRANSFER_REFUSED,
                   "%s: a copy on the legacy default stream while stream %p is being captured would join the "
                   "capture; queue it on the captured stream or after rs_graph_end_capture",
                   cause->what, c->native);
  return RS_OK;
}
