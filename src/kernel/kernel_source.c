/* Reading kernel source: blanking what is not code, finding tokens, and following the
 * user headers a source includes (their contents belong in the cache key: a changed
 * header must not serve stale code). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"
#include "kernel/kernel_internal.h"

#define RS_MAX_HEADER_DEPTH 16
#define RS_MAX_HEADERS 256
#define RS_MAX_SOURCE_BYTES (16 << 20)

static int rs_is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Blank [from, to) but keep line breaks, so positions and line numbers survive. */
static void rs_blank_range(char *s, size_t from, size_t to) {
  for (size_t i = from; i < to; i++)
    if (s[i] != '\n') s[i] = ' ';
}

/* The end of a C++11 raw string starting at s[i] == 'R' followed by '"'. */
static size_t rs_raw_string_end(const char *s, size_t i, size_t n) {
  size_t open = i + 2, d = open;
  while (d < n && s[d] != '(' && d - open < 16) d++;
  if (d >= n || s[d] != '(') return i + 1; /* not a raw string after all */
  size_t dlen = d - open;
  for (size_t j = d + 1; j < n; j++) {
    if (s[j] == ')' && j + 1 + dlen < n && strncmp(s + j + 1, s + open, dlen) == 0 &&
        s[j + 1 + dlen] == '"')
      return j + dlen + 2;
  }
  return n;
}

char *rs_ksrc_blank(const char *text) {
  size_t n = strlen(text);
  char *s = malloc(n + 1);
  if (!s) return NULL;
  memcpy(s, text, n + 1);
  int line_start = 1;
  size_t i = 0;
  while (i < n) {
    char c = s[i];
    if (c == '\n') {
      line_start = 1;
      i++;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      i++;
      continue;
    }
    if (line_start && c == '#') {
      /* A preprocessor line, with its backslash continuations. */
      size_t j = i;
      while (j < n && !(s[j] == '\n' && (j == 0 || s[j - 1] != '\\'))) j++;
      rs_blank_range(s, i, j);
      i = j;
      continue;
    }
    line_start = 0;
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      size_t j = i;
      while (j < n && s[j] != '\n') j++;
      rs_blank_range(s, i, j);
      i = j;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const char *end = strstr(s + i + 2, "*/");
      size_t j = end ? (size_t)(end - s) + 2 : n;
      rs_blank_range(s, i, j);
      i = j;
    } else if (c == 'R' && i + 1 < n && s[i + 1] == '"' && (i == 0 || !rs_is_ident(s[i - 1]))) {
      size_t j = rs_raw_string_end(s, i, n);
      rs_blank_range(s, i, j);
      i = j;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < n && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      if (j < n && s[j] == c) j++;
      if (j > n) j = n;
      rs_blank_range(s, i, j);
      i = j;
    } else if (rs_is_ident(c)) {
      while (i < n && rs_is_ident(s[i])) i++;
    } else {
      i++;
    }
  }
  return s;
}

int rs_ksrc_has_token(const char *blanked, const char *word) {
  size_t w = strlen(word);
  for (const char *p = strstr(blanked, word); p; p = strstr(p + 1, word)) {
    if ((p == blanked || !rs_is_ident(p[-1])) && !rs_is_ident(p[w])) return 1;
  }
  return 0;
}

void rs_ksrc_unstatic(char *text, char *blanked) {
  static const char *const spaces[] = {"__constant__", "__device__", "__managed__", "__shared__"};
  for (char *p = blanked; (p = strstr(p, "static")) != NULL; p += 6) {
    if ((p > blanked && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) || isalnum((unsigned char)p[6]) ||
        p[6] == '_')
      continue;
    const char *q = p + 6;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    for (size_t w = 0; w < sizeof spaces / sizeof spaces[0]; w++) {
      size_t n = strlen(spaces[w]);
      if (!strncmp(q, spaces[w], n) && !isalnum((unsigned char)q[n]) && q[n] != '_') {
        memset(p, ' ', 6);
        memset(text + (p - blanked), ' ', 6);
        break;
      }
    }
  }
}

int rs_ksrc_uses_barrier(const char *blanked) {
  static const char *const words[] = {
      "__syncthreads",     "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",  "__syncwarp",
      "__shfl_sync",       "__shfl_up_sync",      "__shfl_down_sync",  "__shfl_xor_sync",   "__ballot_sync",
      "__any_sync",        "__all_sync",          "__activemask",      "__match_any_sync",  "__match_all_sync",
      "__reduce_add_sync", "__reduce_min_sync",   "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",
      "__reduce_xor_sync", "cooperative_groups",  "this_thread_block", "tiled_partition"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (rs_ksrc_has_token(blanked, words[i])) return 1;
  return 0;
}

/* Read only what is whole and bounded: a FIFO would block, /dev/zero never ends. */
rs_status rs_ksrc_read_file(const char *path, char **out, size_t *len) {
  *out = NULL;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    char buf[128];
    const char *why = strerror_r(err, buf, sizeof buf); /* the GNU variant (_GNU_SOURCE) */
    return rs_fail(err == ENOENT ? RS_ERR_NOT_FOUND : RS_ERR_INVALID_ARGUMENT, "cannot open '%s': %s",
                   path, why);
  }
  struct stat st;
  rs_status status = RS_OK;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    status = rs_fail(RS_ERR_INVALID_ARGUMENT, "'%s' is not a regular file (kernel sources and headers must be)",
                     path);
  else if ((uint64_t)st.st_size > RS_MAX_SOURCE_BYTES)
    status = rs_fail(RS_ERR_INVALID_ARGUMENT, "'%s' is larger than %d MiB, the limit for a kernel source or header",
                     path, RS_MAX_SOURCE_BYTES >> 20);
  rs_textbuf b = {0};
  char chunk[65536];
  ssize_t got = 0;
  while (status == RS_OK && (got = read(fd, chunk, sizeof chunk)) != 0) {
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) status = rs_fail(RS_ERR_INVALID_ARGUMENT, "cannot read '%s'", path);
    else if (b.len + (size_t)got > RS_MAX_SOURCE_BYTES) /* it grew since fstat */
      status = rs_fail(RS_ERR_INVALID_ARGUMENT, "'%s' is larger than %d MiB, the limit for a kernel source or header",
                       path, RS_MAX_SOURCE_BYTES >> 20);
    else status = rs_textbuf_add(&b, chunk, (size_t)got);
  }
  if (status == RS_OK && !b.data) status = rs_textbuf_add(&b, "", 0); /* an empty file */
  close(fd);
  if (status != RS_OK) {
    rs_textbuf_free(&b);
    return status;
  }
  *out = b.data;
  if (len) *len = b.len;
  return RS_OK;
}

/* ---- following #include ---------------------------------------------------------------- */

typedef struct rs_header_walk {
  rs_textbuf *key;
  int ninclude;
  const char *const *include;
  int *barrier;
  char *seen[RS_MAX_HEADERS];
  int nseen;
} rs_header_walk;

/* The next `#include "x"` or `#include <x>` at or after *pos: its name in out and whether
 * it was quoted; 0 when there are no more. */
static int rs_next_include(const char *text, size_t *pos, char *out, size_t len, int *quoted) {
  const char *p = text + *pos;
  while (*p) {
    const char *line = p;
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : line + strlen(line);
    const char *q = line;
    while (*q == ' ' || *q == '\t') q++;
    if (*q != '#') continue;
    q++;
    while (*q == ' ' || *q == '\t') q++;
    if (strncmp(q, "include", 7) != 0) continue;
    q += 7;
    while (*q == ' ' || *q == '\t') q++;
    char close = *q == '"' ? '"' : *q == '<' ? '>' : 0;
    if (!close) continue;
    const char *start = q + 1, *end = start;
    while (*end && *end != close && *end != '\n') end++;
    if (*end != close || (size_t)(end - start) >= len || end == start) continue;
    memcpy(out, start, (size_t)(end - start));
    out[end - start] = '\0';
    *quoted = close == '"';
    *pos = (size_t)(p - text);
    return 1;
  }
  *pos = (size_t)(p - text);
  return 0;
}

static rs_status rs_walk(rs_header_walk *w, const char *text, const char *dir, int depth);

static rs_status rs_visit(rs_header_walk *w, const char *name, const char *path, int depth) {
  for (int i = 0; i < w->nseen; i++)
    if (strcmp(w->seen[i], path) == 0) return RS_OK;
  if (w->nseen == RS_MAX_HEADERS) return RS_OK;
  char *content = NULL;
  size_t len = 0;
  /* Refused here, before a compiler reads it: one that is not a regular file or is huge
   * would hang it or fill the memory. One that went away is the compiler's to report. */
  rs_status read = rs_ksrc_read_file(path, &content, &len);
  if (read == RS_ERR_NOT_FOUND) return RS_OK;
  if (read != RS_OK) return rs_fail_prefix(read, "#include \"%s\": ", name);
  char *copy = strdup(path);
  if (!copy) {
    free(content);
    return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel: out of host memory");
  }
  w->seen[w->nseen++] = copy;
  rs_status st = rs_textbuf_addf(w->key, "\n#header %s\n", path);
  if (st == RS_OK) st = rs_textbuf_add(w->key, content, len);
  if (st == RS_OK && !*w->barrier) {
    char *blanked = rs_ksrc_blank(content);
    if (!blanked) st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel: out of host memory");
    else *w->barrier = rs_ksrc_uses_barrier(blanked);
    free(blanked);
  }
  if (st == RS_OK) {
    /* A header's own quoted includes are looked for next to it first. */
    char *dir = strdup(path);
    if (!dir) {
      st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "kernel: out of host memory");
    } else {
      char *slash = strrchr(dir, '/');
      if (slash) *slash = '\0';
      st = rs_walk(w, content, slash ? dir : ".", depth + 1);
      free(dir);
    }
  }
  free(content);
  return st;
}

/* As a compiler searches: a directory does not end the search, anything else does
 * (and is then read, or refused, by rs_visit). Opening is left to rs_visit: a FIFO opened
 * here would block. */
static int rs_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static rs_status rs_walk(rs_header_walk *w, const char *text, const char *dir, int depth) {
  if (depth > RS_MAX_HEADER_DEPTH) return RS_OK;
  size_t pos = 0;
  char name[1024];
  int quoted = 0;
  while (rs_next_include(text, &pos, name, sizeof name, &quoted)) {
    if (strcmp(name, "resident_device.h") == 0) continue; /* the library's own, versioned */
    char path[4096 + 1024 + 2];
    int found = 0;
    if (name[0] == '/') {
      snprintf(path, sizeof path, "%s", name);
      found = rs_exists(path);
    }
    if (!found && quoted && dir) {
      snprintf(path, sizeof path, "%s/%s", dir, name);
      found = rs_exists(path);
    }
    for (int i = 0; !found && i < w->ninclude; i++) {
      snprintf(path, sizeof path, "%s/%s", w->include[i], name);
      found = rs_exists(path);
    }
    if (found) RS_TRY(rs_visit(w, name, path, depth));
  }
  return RS_OK;
}

rs_status rs_ksrc_add_headers(rs_textbuf *key, const char *text, int ninclude, const char *const *include,
                              int *barrier) {
  rs_header_walk w = {.key = key, .ninclude = ninclude, .include = include, .barrier = barrier};
  rs_status st = rs_walk(&w, text, NULL, 0);
  for (int i = 0; i < w.nseen; i++) free(w.seen[i]);
  return st;
}
