/* The one place environment variables are read. */
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "core/config.h"
#include "core/error.h"

rs_status rs_parse_bytes(const char *text, size_t *out) {
  if (!out || !text) return rs_fail(RS_ERR_NULL_POINTER, "parse size: NULL argument");
  errno = 0;
  char *end = NULL;
  double value = strtod(text, &end);
  if (end == text || errno != 0 || !(value >= 0) || isinf(value))
    return rs_fail(RS_ERR_PARSE, "size '%s' does not parse (examples: 4096, 100MB, 1.5GiB)", text);
  while (isspace((unsigned char)*end)) end++;
  static const struct {
    const char *unit;
    double scale;
  } units[] = {{"", 1},         {"b", 1},           {"kb", 1e3},          {"mb", 1e6},
               {"gb", 1e9},     {"tb", 1e12},       {"k", 1024.0},        {"kib", 1024.0},
               {"m", 1048576.0}, {"mib", 1048576.0}, {"g", 1073741824.0}, {"gib", 1073741824.0},
               {"t", 1099511627776.0}, {"tib", 1099511627776.0}};
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
    if (strcasecmp(end, units[i].unit) == 0) {
      double bytes = value * units[i].scale;
      if (bytes >= 18446744073709551615.0)
        return rs_fail(RS_ERR_OVERFLOW, "size '%s' is too large", text);
      *out = (size_t)bytes;
      return RS_OK;
    }
  }
  return rs_fail(RS_ERR_PARSE, "size '%s': unknown unit '%s' (use B, KB, MB, GB, KiB, MiB, GiB)",
                 text, end);
}

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
  } else if ((v = getenv("HOME")) && *v) {
    n = snprintf(cfg->cache_dir, cap, "%s/.cache/resident", v);
  }
  if (n < 0 || (size_t)n >= cap) {
    cfg->cache_dir[0] = '\0';
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "RESIDENT_CACHE_DIR: the path is longer than %zu bytes",
                   cap - 1);
  }
  return RS_OK;
}

/* RESIDENT_POOL_LIMIT: "0" (none), a fraction of the device memory ("0.8", "80%"), or
 * bytes with units ("12GiB"). A plain number is a fraction only when written with a
 * decimal point and at most 1, so "1" or "4096" stay byte counts. */
static rs_status rs_parse_pool_limit(rs_config *cfg, const char *v) {
  const char *name = "RESIDENT_POOL_LIMIT";
  size_t len = strlen(v);
  char *end = NULL;
  errno = 0;
  double x = strtod(v, &end);
  int numeric = end != v && errno == 0;
  if (numeric && len > 0 && v[len - 1] == '%' && end == v + len - 1) {
    if (!(x > 0 && x <= 100))
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s='%s': a percentage must be in (0, 100]", name, v);
    cfg->pool_limit_fraction = x / 100.0;
    return RS_OK;
  }
  if (numeric && *end == '\0' && strchr(v, '.') && x <= 1.0) {
    if (!(x > 0))
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "%s='%s': a fraction must be in (0, 1]", name, v);
    cfg->pool_limit_fraction = x;
    return RS_OK;
  }
  rs_status st = rs_parse_bytes(v, &cfg->pool_limit);
  if (st != RS_OK)
    return rs_fail_prefix(st, "%s: expected bytes (\"12GiB\"), a fraction (\"0.8\") or a "
                              "percentage (\"80%%\"): ",
                          name);
  return RS_OK;
}

/* The memory layer's settings (src/memory takes them from the config). */
static rs_status rs_config_memory(rs_config *cfg) {
  cfg->allocator = RS_ALLOCATOR_POOL;
  cfg->max_pending_count = 10;
  cfg->max_pending_ratio = 0.2;
  const char *v = getenv("RESIDENT_ALLOCATOR");
  if (v && *v) {
    rs_status st = rs_allocator_from_name(v, &cfg->allocator);
    if (st != RS_OK) return rs_fail(st, "RESIDENT_ALLOCATOR='%s': expected pool, direct or async", v);
  }
  v = getenv("RESIDENT_POOL_LIMIT");
  if (v && *v) RS_TRY(rs_parse_pool_limit(cfg, v));
  v = getenv("RESIDENT_MAX_PENDING_DEALLOCS_COUNT");
  if (v && *v) {
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || errno != 0 || n < 1)
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "RESIDENT_MAX_PENDING_DEALLOCS_COUNT='%s': expected a count of at least 1", v);
    cfg->max_pending_count = n;
  }
  v = getenv("RESIDENT_MAX_PENDING_DEALLOCS_RATIO");
  if (v && *v) {
    char *end = NULL;
    errno = 0;
    double r = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0 || !(r > 0 && r <= 1))
      return rs_fail(RS_ERR_INVALID_ARGUMENT,
                     "RESIDENT_MAX_PENDING_DEALLOCS_RATIO='%s': expected a fraction in (0, 1]", v);
    cfg->max_pending_ratio = r;
  }
  return RS_OK;
}

rs_status rs_config_from_env(rs_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  const char *v = getenv("RESIDENT_BACKEND");
  if (v && *v) {
    rs_status st = rs_backend_from_name(v, &cfg->backend);
    if (st != RS_OK) return rs_fail(st, "RESIDENT_BACKEND='%s': expected auto, cuda or sim", v);
  }
  v = getenv("RESIDENT_SIM_DEVICE_MEMORY");
  if (v && *v) {
    rs_status st = rs_parse_bytes(v, &cfg->sim_device_memory);
    if (st != RS_OK) return rs_fail_prefix(st, "RESIDENT_SIM_DEVICE_MEMORY: ");
    if (cfg->sim_device_memory == 0)
      return rs_fail(RS_ERR_INVALID_ARGUMENT, "RESIDENT_SIM_DEVICE_MEMORY must be above 0");
  }
  v = getenv("RESIDENT_SIM_THREADS");
  if (v && *v) {
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (*end != '\0' || n < 0 || n > 4096)
      return rs_fail(RS_ERR_PARSE, "RESIDENT_SIM_THREADS='%s': expected a count from 0 to 4096", v);
    cfg->sim_threads = (int)n;
  }
  cfg->ledger_timing = RS_TIME_COPIES;
  v = getenv("RESIDENT_LEDGER_TIMING");
  if (v && *v) {
    static const struct {
      const char *word;
      unsigned what;
    } words[] = {{"none", RS_TIME_NONE}, {"0", RS_TIME_NONE},    {"copies", RS_TIME_COPIES},
                 {"kernels", RS_TIME_KERNELS}, {"all", RS_TIME_ALL}, {"1", RS_TIME_ALL}};
    int found = 0;
    for (size_t i = 0; i < sizeof words / sizeof words[0] && !found; i++)
      if (strcmp(v, words[i].word) == 0) {
        cfg->ledger_timing = words[i].what;
        found = 1;
      }
    if (!found)
      return rs_fail(RS_ERR_PARSE, "RESIDENT_LEDGER_TIMING='%s': expected copies, kernels, all or none", v);
  }
  cfg->ledger_entries = 65536;
  v = getenv("RESIDENT_LEDGER_ENTRIES");
  if (v && *v) {
    char *end = NULL;
    long long n = strtoll(v, &end, 10);
    if (*end != '\0' || n < 1 || n > (1LL << 26))
      return rs_fail(RS_ERR_PARSE, "RESIDENT_LEDGER_ENTRIES='%s': expected a count from 1 to 67108864", v);
    cfg->ledger_entries = n;
  }
  RS_TRY(rs_config_cache_dir(cfg));
  /* RESIDENT_CACHE_MAX: the disk cache's size, "none" or 0 for no limit */
  cfg->cache_max = (size_t)1 << 30;
  v = getenv("RESIDENT_CACHE_MAX");
  if (v && *v) {
    if (strcasecmp(v, "none") == 0 || strcasecmp(v, "unlimited") == 0) {
      cfg->cache_max = 0;
    } else {
      rs_status st = rs_parse_bytes(v, &cfg->cache_max);
      if (st != RS_OK) return rs_fail_prefix(st, "RESIDENT_CACHE_MAX (bytes, or \"none\"): ");
    }
  }
  v = getenv("RESIDENT_TRANSFER_GUARD");
  if (v && *v) {
    rs_status st = rs_guard_parse(v, cfg->guard);
    if (st != RS_OK) return rs_fail_prefix(st, "RESIDENT_TRANSFER_GUARD: ");
  }
  RS_TRY(rs_config_memory(cfg));
  v = getenv("RESIDENT_PAGEABLE_STAGING");
  if (v && *v) {
    if (strcmp(v, "auto") == 0) cfg->pageable_staging = RS_STAGING_AUTO;
    else if (strcmp(v, "on") == 0) cfg->pageable_staging = RS_STAGING_ON;
    else if (strcmp(v, "off") == 0) cfg->pageable_staging = RS_STAGING_OFF;
    else return rs_fail(RS_ERR_PARSE, "RESIDENT_PAGEABLE_STAGING='%s': expected auto, on or off", v);
  }
  return RS_OK;
}
