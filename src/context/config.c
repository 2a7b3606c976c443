/* The one place environment variables are read. Numbers go through the one strict parser
 * (core/parse.h); every bad value fails context creation with RS_ERR_PARSE and a message
 * naming the variable, the value and what it takes. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/config.h"
#include "core/error.h"
#include "core/parse.h"

/* RESIDENT_CACHE_DIR, else $XDG_CACHE_HOME/resident, else $HOME/.cache/resident; "off",
 * "none" or "0" (or no HOME at all) leaves it empty: kernels are then cached in memory
 * only. A relative path is refused: it would name a different folder in every working
 * directory. */
static rs_status rs_config_cache_dir(rs_config *cfg) {
  const size_t cap = sizeof cfg->cache_dir;
  const char *v = getenv("RESIDENT_CACHE_DIR");
  int n = 0;
  if (v && *v) {
    if (strcmp(v, "off") == 0 || strcmp(v, "none") == 0 || strcmp(v, "0") == 0) return RS_OK;
    if (v[0] != '/')
      return rs_fail(RS_ERR_PARSE, "RESIDENT_CACHE_DIR='%s': a relative path; give an absolute directory, or off",
                     v);
    n = snprintf(cfg->cache_dir, cap, "%s", v);
  } else if ((v = getenv("XDG_CACHE_HOME")) && v[0] == '/') {
    n = snprintf(cfg->cache_dir, cap, "%s/resident", v);
  } else if ((v = getenv("HOME")) && v[0] == '/') {
    n = snprintf(cfg->cache_dir, cap, "%s/.cache/resident", v);
  }
  if (n < 0 || (size_t)n >= cap) {
    cfg->cache_dir[0] = '\0';
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "RESIDENT_CACHE_DIR: the path is longer than %zu bytes",
                   cap - 1);
  }
  return RS_OK;
}

/* A variable's value; NULL when unset or empty (both mean "the default"). */
static const char *rs_env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* The parser's message ("'1.5' is not a whole number of bytes; expected ...") under the
 * variable's name, and what else the variable takes. */
static rs_status rs_env_bad(const char *name, const char *also) {
  char msg[768];
  snprintf(msg, sizeof msg, "%s", rs_last_error());
  return rs_fail(RS_ERR_PARSE, "%s=%s%s", name, msg, also ? also : "");
}

static rs_status rs_env_size(const char *name, size_t min, size_t *out, const char *also) {
  const char *v = rs_env(name);
  if (v && rs_parse_size(v, min, SIZE_MAX, out) != RS_OK) return rs_env_bad(name, also);
  return RS_OK;
}

static rs_status rs_env_count(const char *name, int64_t min, int64_t max, int64_t *out) {
  const char *v = rs_env(name);
  if (v && rs_parse_count(v, min, max, out) != RS_OK) return rs_env_bad(name, NULL);
  return RS_OK;
}

/* One of a list of words; the off words (off, none, 0) stand for the word "off" when
 * the list has it. */
static rs_status rs_env_word(const char *name, const char *const *words, int n, int *out) {
  const char *v = rs_env(name);
  if (!v) return RS_OK;
  for (int i = 0; i < n; i++)
    if (strcmp(v, words[i]) == 0 || (strcmp(words[i], "off") == 0 && rs_parse_is_off(v))) {
      *out = i;
      return RS_OK;
    }
  char expected[256] = "";
  for (int i = 0; i < n; i++)
    snprintf(expected + strlen(expected), sizeof expected - strlen(expected), "%s%s%s",
             i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i],
             strcmp(words[i], "off") == 0 ? " (none, 0)" : "");
  return rs_fail(RS_ERR_PARSE, "%s='%s': expected %s", name, v, expected);
}

/* RESIDENT_POOL_LIMIT: off (none, 0), a fraction of the device memory ("0.8", "80%"), or
 * a size ("12GiB", "4096"). A plain number with a point is a fraction, so "1.5" is an
 * error rather than 1 byte. */
static rs_status rs_config_pool_limit(rs_config *cfg) {
  const char *name = "RESIDENT_POOL_LIMIT", *v = rs_env(name);
  if (!v || rs_parse_is_off(v)) return RS_OK;
  const char *also = " (the limit is a size, a fraction or a percentage of the device memory, or off)";
  if (strchr(v, '%') || rs_parse_looks_fractional(v)) {
    if (rs_parse_fraction(v, &cfg->pool_limit_fraction) != RS_OK) return rs_env_bad(name, also);
    return RS_OK;
  }
  return rs_env_size(name, 1, &cfg->pool_limit, also);
}

/* The memory layer's settings (src/memory takes them from the config). */
static rs_status rs_config_memory(rs_config *cfg) {
  cfg->allocator = RS_ALLOCATOR_POOL;
  cfg->max_pending_count = 10;
  cfg->max_pending_ratio = 0.2;
  const char *v = rs_env("RESIDENT_ALLOCATOR");
  if (v) {
    rs_status st = rs_allocator_from_name(v, &cfg->allocator);
    if (st != RS_OK) return rs_fail(st, "RESIDENT_ALLOCATOR='%s': expected pool, direct or async", v);
  }
  RS_TRY(rs_config_pool_limit(cfg));
  RS_TRY(rs_env_count("RESIDENT_MAX_PENDING_DEALLOCS_COUNT", 1, INT64_MAX, &cfg->max_pending_count));
  v = rs_env("RESIDENT_MAX_PENDING_DEALLOCS_RATIO");
  if (v && rs_parse_fraction(v, &cfg->max_pending_ratio) != RS_OK)
    return rs_env_bad("RESIDENT_MAX_PENDING_DEALLOCS_RATIO", NULL);
  return RS_OK;
}

/* The ledger's settings: what is timed, and how many entries the log keeps. */
static rs_status rs_config_ledger(rs_config *cfg) {
  static const char *const words[] = {"off", "copies", "kernels", "all"};
  static const unsigned what[] = {RS_TIME_NONE, RS_TIME_COPIES, RS_TIME_KERNELS, RS_TIME_ALL};
  int i = 1;
  const char *v = rs_env("RESIDENT_LEDGER_TIMING");
  if (v && strcmp(v, "1") == 0)
    i = 3; /* 1 = all, the counterpart of the off word 0 */
  else
    RS_TRY(rs_env_word("RESIDENT_LEDGER_TIMING", words, 4, &i));
  cfg->ledger_timing = what[i];
  cfg->ledger_entries = 65536;
  return rs_env_count("RESIDENT_LEDGER_ENTRIES", 1, (int64_t)1 << 26, &cfg->ledger_entries);
}

/* RESIDENT_TRACE: a path, of printable characters, with no % but %p, %n and %%. */
static rs_status rs_config_trace(rs_config *cfg) {
  const char *v = rs_env("RESIDENT_TRACE");
  if (!v) return RS_OK;
  size_t n = strlen(v);
  if (n >= sizeof cfg->trace_path)
    return rs_fail(RS_ERR_PARSE, "RESIDENT_TRACE: a path of %zu bytes; at most %zu", n, sizeof cfg->trace_path - 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    if (c < 0x20 || c == 0x7f)
      return rs_fail(RS_ERR_PARSE, "RESIDENT_TRACE: control character 0x%02x at byte %zu of the path", c, i);
    if (c == '%' && (i + 1 == n || !strchr("pn%", v[i + 1])))
      return rs_fail(RS_ERR_PARSE, "RESIDENT_TRACE='%s': '%%' at byte %zu must be %%p (process id), %%n (context number) or %%%%",
                     v, i);
    if (c == '%') i++;
  }
  memcpy(cfg->trace_path, v, n + 1);
  return RS_OK;
}

rs_status rs_config_from_env(rs_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  const char *v = rs_env("RESIDENT_BACKEND");
  if (v) {
    rs_status st = rs_backend_from_name(v, &cfg->backend);
    if (st != RS_OK) return rs_fail(st, "RESIDENT_BACKEND='%s': expected auto, cuda or sim", v);
  }
  RS_TRY(rs_env_size("RESIDENT_SIM_DEVICE_MEMORY", 1, &cfg->sim_device_memory, NULL));
  int64_t devices = 1, threads = 0;
  RS_TRY(rs_env_count("RESIDENT_SIM_DEVICES", 1, RS_SIM_MAX_DEVICES, &devices));
  cfg->sim_devices = (int)devices;
  RS_TRY(rs_env_count("RESIDENT_SIM_THREADS", 0, RS_SIM_MAX_THREADS, &threads));
  cfg->sim_threads = (int)threads;
  threads = 0;
  RS_TRY(rs_env_count("RESIDENT_HOST_THREADS", 0, RS_HOST_MAX_THREADS, &threads));
  cfg->host_threads = (int)threads;
  /* collectives (resident/collective.h): the longest wait for the other ranks */
  int64_t comm_timeout = 300;
  RS_TRY(rs_env_count("RESIDENT_COMM_TIMEOUT", 1, 86400, &comm_timeout));
  cfg->comm_timeout_s = (int)comm_timeout;
  RS_TRY(rs_config_ledger(cfg));
  RS_TRY(rs_config_cache_dir(cfg));
  /* RESIDENT_CACHE_MAX: the disk cache's size; off (none, 0) for no limit */
  cfg->cache_max = (size_t)1 << 30;
  if ((v = rs_env("RESIDENT_CACHE_MAX")) && rs_parse_is_off(v)) cfg->cache_max = 0;
  else RS_TRY(rs_env_size("RESIDENT_CACHE_MAX", 1, &cfg->cache_max, " (or off for no limit)"));
  v = rs_env("RESIDENT_TRANSFER_GUARD");
  if (v) {
    rs_status st = rs_guard_parse(v, cfg->guard);
    if (st != RS_OK)
      return rs_fail_prefix(st, "RESIDENT_TRANSFER_GUARD='%s': expected a mode or dir=mode,...: ", v);
  }
  RS_TRY(rs_config_memory(cfg));
  static const char *const staging[] = {"auto", "on", "off"};
  static const rs_staging_mode modes[] = {RS_STAGING_AUTO, RS_STAGING_ON, RS_STAGING_OFF};
  int s = 0;
  RS_TRY(rs_env_word("RESIDENT_PAGEABLE_STAGING", staging, 3, &s));
  cfg->pageable_staging = modes[s];
  int64_t lanes = 0;
  RS_TRY(rs_env_count("RESIDENT_STAGING_THREADS", 0, RS_STAGING_MAX_THREADS, &lanes));
  cfg->staging_threads = (int)lanes;
  int64_t checks = 1;
  RS_TRY(rs_env_count("RESIDENT_SIM_CHECKS", 0, 1, &checks));
  cfg->sim_checks_off = checks == 0;
  return rs_config_trace(cfg);
}
