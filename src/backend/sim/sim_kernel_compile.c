/* Compiling a user kernel for the simulator: the host C++ compiler (c++, g++ or clang++,
 * looked up on PATH when first needed) builds the shim header + the user's source + an
 * entry stub into a shared object, whose bytes are the kernel's image.
 *
 * Two things of CUDA C cannot be done by the shim's macros alone and are rewritten in
 * the source: `extern __shared__ T name[];` (dynamic shared memory, which every such
 * declaration aliases) becomes a reference to this block's buffer, and inline PTX
 * (`asm`) is refused. A `#line` directive keeps the compiler's messages and __FILE__ /
 * __LINE__ pointing into the user's text. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "backend/sim/sim_kernel.h"
#include "core/error.h"
#include "resident/kernel.h"

extern char **environ;

#define RS_SIM_MAX_ARGS 160

/* ---- a growable text (the kernel layer's buffer is not the backend's to use) ---------------- */

typedef struct sim_text {
  char *data;
  size_t len, cap;
} sim_text;

static rs_status rs_text_add(sim_text *t, const void *data, size_t len) {
  if (t->len + len + 1 > t->cap) {
    size_t cap = t->cap ? t->cap : 4096;
    while (cap < t->len + len + 1) cap *= 2;
    char *grown = realloc(t->data, cap);
    if (!grown) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim compile: out of host memory");
    t->data = grown;
    t->cap = cap;
  }
  memcpy(t->data + t->len, data, len);
  t->len += len;
  t->data[t->len] = '\0';
  return RS_OK;
}

static rs_status rs_text_addf(sim_text *t, const char *fmt, ...) RS_PRINTF(2, 3);
static rs_status rs_text_addf(sim_text *t, const char *fmt, ...) {
  char small[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return rs_fail(RS_ERR_INTERNAL, "sim compile: formatting failed");
  if ((size_t)n < sizeof small) return rs_text_add(t, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if (!big) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "sim compile: out of host memory");
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  rs_status st = rs_text_add(t, big, (size_t)n);
  free(big);
  return st;
}

static void rs_text_free(sim_text *t) {
  free(t->data);
  t->data = NULL;
  t->len = t->cap = 0;
}

/* ---- running a program -------------------------------------------------------------------- */

/* Run argv (looked up on PATH) with stdin from /dev/null, collecting stdout and stderr in
 * *output (malloc'ed). Returns the exit status, or -1 if it could not run. */
static int rs_run(char *const argv[], char **output) {
  *output = NULL;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  pid_t pid = 0;
  int err = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (err != 0) {
    close(fds[0]);
    return -1;
  }
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  for (;;) {
    if (buf && len + 1024 > cap) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) {
        free(buf);
        buf = NULL;
      } else {
        buf = grown;
        cap *= 2;
      }
    }
    char sink[1024];
    ssize_t n = read(fds[0], buf ? buf + len : sink, buf ? cap - len - 1 : sizeof sink);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (buf) len += (size_t)n;
  }
  close(fds[0]);
  if (buf) buf[len] = '\0';
  *output = buf;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* ---- the compiler ------------------------------------------------------------------------- */

static pthread_once_t rs_cxx_once = PTHREAD_ONCE_INIT;
static char rs_cxx[32];
static char rs_cxx_version[200];
static int rs_cxx_is_gcc;

static void rs_find_cxx(void) {
  static const char *const candidates[] = {"c++", "g++", "clang++"};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    char *argv[] = {(char *)candidates[i], "--version", NULL};
    char *out = NULL;
    int rc = rs_run(argv, &out);
    if (rc == 0 && out) {
      snprintf(rs_cxx, sizeof rs_cxx, "%s", candidates[i]);
      size_t line = strcspn(out, "\n");
      snprintf(rs_cxx_version, sizeof rs_cxx_version, "%.*s", (int)line, out);
      rs_cxx_is_gcc = strstr(out, "clang") == NULL;
      free(out);
      return;
    }
    free(out);
  }
}

static rs_status rs_need_cxx(void) {
  pthread_once(&rs_cxx_once, rs_find_cxx);
  if (!rs_cxx[0])
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "the simulator compiles user kernels with the host C++ compiler, and none of c++, g++ "
                   "or clang++ runs from PATH");
  return RS_OK;
}

/* A short hash of the shim and the entry stub: a changed shim must not reuse old objects. */
static unsigned long long rs_text_hash(const char *a, const char *b) {
  unsigned long long h = 1469598103934665603ull;
  for (const char *p = a; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  for (const char *p = b; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

rs_status sim_kernel_target(rs_backend *b, char *out, size_t len) {
  (void)b;
  RS_TRY(rs_need_cxx());
#if defined(__x86_64__)
  const char *arch = "x86_64";
#elif defined(__aarch64__)
  const char *arch = "aarch64";
#else
  const char *arch = "host";
#endif
  snprintf(out, len, "%s (%s) %s abi %u shim %016llx", rs_cxx, rs_cxx_version, arch, RS_SIM_ABI,
           rs_text_hash(rs_sim_shim_text, rs_sim_entry_text));
  return RS_OK;
}

/* ---- rewriting the source -------------------------------------------------------------- */

static int rs_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *rs_find_token(const char *s, const char *from, const char *word) {
  size_t w = strlen(word);
  for (const char *p = strstr(from, word); p; p = strstr(p + 1, word))
    if ((p == s || !rs_ident(p[-1])) && !rs_ident(p[w])) return p;
  return NULL;
}

/* Append `decl` (blanked text of one declaration, without its ';') minus the words and
 * groups that are not part of the element type. Returns the declared name in name. */
static rs_status rs_dynamic_shared_type(const char *decl, size_t len, sim_text *type, char *name, size_t name_len) {
  const char *bracket = memchr(decl, '[', len);
  if (!bracket) return RS_ERR_NOT_FOUND;
  const char *e = bracket;
  while (e > decl && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n')) e--;
  const char *n0 = e;
  while (n0 > decl && rs_ident(n0[-1])) n0--;
  if (n0 == e || (size_t)(e - n0) >= name_len) return RS_ERR_NOT_FOUND;
  memcpy(name, n0, (size_t)(e - n0));
  name[e - n0] = '\0';
  const char *p = decl;
  while (p < n0) {
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
      p++;
      continue;
    }
    const char *w = p;
    while (p < n0 && rs_ident(*p)) p++;
    if (p == w) p++; /* punctuation: '*', '::', ... */
    size_t wl = (size_t)(p - w);
    if ((wl == 6 && !strncmp(w, "extern", 6)) || (wl == 10 && !strncmp(w, "__shared__", 10))) continue;
    if ((wl == 9 && !strncmp(w, "__align__", 9)) || (wl == 7 && !strncmp(w, "alignas", 7)) ||
        (wl == 13 && !strncmp(w, "__attribute__", 13))) {
      /* skip the parenthesized group: the reference carries no alignment of its own */
      while (p < n0 && *p != '(') p++;
      int depth = 0;
      for (; p < n0; p++) {
        if (*p == '(') depth++;
        if (*p == ')' && --depth == 0) {
          p++;
          break;
        }
      }
      continue;
    }
    RS_TRY(rs_text_add(type, " ", 1));
    RS_TRY(rs_text_add(type, w, wl));
  }
  return RS_OK;
}

/* The user's source with each `extern __shared__ T name[];` turned into a thread-local
 * reference to the block's dynamic shared memory, on the same line. */
static rs_status rs_rewrite(const rs_kernel_source *src, sim_text *out) {
  const char *s = src->blanked, *text = src->text;
  size_t copied = 0;
  for (const char *at = rs_find_token(s, s, "__shared__"); at; at = rs_find_token(s, at + 1, "__shared__")) {
    const char *d0 = at;
    while (d0 > s && d0[-1] != ';' && d0[-1] != '{' && d0[-1] != '}') d0--;
    while (*d0 == ' ' || *d0 == '\t' || *d0 == '\n' || *d0 == '\r') d0++;
    const char *d1 = strchr(at, ';');
    if (!d1 || (size_t)(d0 - s) < copied) continue;
    if (!rs_find_token(s, d0, "extern") || rs_find_token(s, d0, "extern") > at) continue;
    sim_text type = {0};
    char name[128];
    rs_status st = rs_dynamic_shared_type(d0, (size_t)(d1 - d0), &type, name, sizeof name);
    if (st == RS_ERR_NOT_FOUND) {
      rs_text_free(&type);
      continue; /* not an array: the compiler will complain in its own words */
    }
    if (st == RS_OK) st = rs_text_add(out, text + copied, (size_t)(d0 - s) - copied);
    if (st == RS_OK)
      st = rs_text_addf(out,
                        "static thread_local%s (&%s)[] = *reinterpret_cast<%s (*)[]>(::rs_sim_rt::rt->dynamic_shared());",
                        type.data, name, type.data);
    for (const char *p = d0; st == RS_OK && p < d1; p++)
      if (*p == '\n') st = rs_text_add(out, "\n", 1);
    rs_text_free(&type);
    RS_TRY(st);
    copied = (size_t)(d1 - s) + 1;
  }
  return rs_text_add(out, text + copied, strlen(text) - copied);
}

/* The stub with @NAME@ and @BARRIER@ filled in. */
static rs_status rs_entry(const rs_kernel_source *src, sim_text *out) {
  for (const char *p = rs_sim_entry_text; *p;) {
    if (!strncmp(p, "@NAME@", 6)) {
      RS_TRY(rs_text_add(out, src->name, strlen(src->name)));
      p += 6;
    } else if (!strncmp(p, "@BARRIER@", 9)) {
      RS_TRY(rs_text_add(out, src->uses_barrier ? "1" : "0", 1));
      p += 9;
    } else {
      RS_TRY(rs_text_add(out, p, 1));
      p++;
    }
  }
  return RS_OK;
}

/* ---- files -------------------------------------------------------------------------------- */

static rs_status rs_write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return rs_fail(RS_ERR_DEVICE, "sim compile: cannot create %s", path);
  int ok = fwrite(data, 1, len, f) == len;
  ok = fclose(f) == 0 && ok;
  return ok ? RS_OK : rs_fail(RS_ERR_DEVICE, "sim compile: cannot write %s", path);
}

static rs_status rs_read_file(const char *path, void **data, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return rs_fail(RS_ERR_DEVICE, "sim compile: the compiler left no %s", path);
  sim_text b = {0};
  char chunk[65536];
  size_t n;
  rs_status st = RS_OK;
  while (st == RS_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0) st = rs_text_add(&b, chunk, n);
  fclose(f);
  if (st != RS_OK || b.len == 0) {
    rs_text_free(&b);
    return st != RS_OK ? st : rs_fail(RS_ERR_DEVICE, "sim compile: %s is empty", path);
  }
  *data = b.data;
  *len = b.len;
  return RS_OK;
}

/* ---- options ------------------------------------------------------------------------------ */

/* NVRTC's options the host compiler understands the same way: -D, -U, -I (also in their
 * long forms) and -std=c++17 or later; the rest concern GPU code generation. */
static const char *rs_map_option(const char *o, char *buf, size_t len) {
  if (!strncmp(o, "-D", 2) || !strncmp(o, "-U", 2) || !strncmp(o, "-I", 2)) return o;
  if (!strncmp(o, "--define-macro=", 15)) return snprintf(buf, len, "-D%s", o + 15), buf;
  if (!strncmp(o, "--undefine-macro=", 17)) return snprintf(buf, len, "-U%s", o + 17), buf;
  if (!strncmp(o, "--include-path=", 15)) return snprintf(buf, len, "-I%s", o + 15), buf;
  const char *std = !strncmp(o, "-std=", 5) ? o + 5 : !strncmp(o, "--std=", 6) ? o + 6 : NULL;
  if (std && (!strcmp(std, "c++17") || !strcmp(std, "c++20") || !strcmp(std, "c++23")))
    return snprintf(buf, len, "-std=%s", std), buf;
  return NULL;
}

/* ---- the compile -------------------------------------------------------------------------- */

/* The one-line reason of a failed compile, from the log. */
static void rs_reason(const char *log, char *out, size_t len) {
  const char *u = log ? strstr(log, " is not supported by the resident simulator") : NULL;
  if (u) {
    const char *w = u;
    while (w > log && rs_ident(w[-1])) w--;
    snprintf(out, len, "the kernel uses %.*s, which the resident simulator does not support", (int)(u - w), w);
    return;
  }
  const char *e = log ? strstr(log, "error:") : NULL;
  if (e) {
    const char *line = e;
    while (line > log && line[-1] != '\n') line--;
    snprintf(out, len, "the host C++ compiler failed: %.*s", (int)strcspn(line, "\n"), line);
    return;
  }
  snprintf(out, len, "the host C++ compiler (%s) failed", rs_cxx);
}

typedef struct rs_tmpdir {
  char dir[64];
  char cpp[96], so[96], shim[96], dev[96];
} rs_tmpdir;

static void rs_tmpdir_remove(rs_tmpdir *t) {
  unlink(t->cpp);
  unlink(t->so);
  unlink(t->shim);
  unlink(t->dev);
  rmdir(t->dir);
}

static rs_status rs_prepare(const rs_kernel_source *src, rs_tmpdir *t) {
  snprintf(t->dir, sizeof t->dir, "/tmp/resident-sim-XXXXXX");
  if (!mkdtemp(t->dir)) return rs_fail(RS_ERR_DEVICE, "sim compile: cannot create a directory in /tmp");
  snprintf(t->cpp, sizeof t->cpp, "%s/kernel.cpp", t->dir);
  snprintf(t->so, sizeof t->so, "%s/kernel.so", t->dir);
  snprintf(t->shim, sizeof t->shim, "%s/rs_sim_shim.h", t->dir);
  snprintf(t->dev, sizeof t->dev, "%s/resident_device.h", t->dir);
  RS_TRY(rs_write_file(t->shim, rs_sim_shim_text, strlen(rs_sim_shim_text)));
  const char *dev = rs_kernel_device_header();
  RS_TRY(rs_write_file(t->dev, dev, strlen(dev)));
  sim_text text = {0};
  rs_status st = rs_text_addf(&text, "#include \"rs_sim_shim.h\"\n#line 1 \"%s\"\n", src->file);
  if (st == RS_OK) st = rs_rewrite(src, &text);
  if (st == RS_OK) st = rs_text_add(&text, "\n", 1);
  if (st == RS_OK) st = rs_entry(src, &text);
  if (st == RS_OK) st = rs_write_file(t->cpp, text.data, text.len);
  rs_text_free(&text);
  return st;
}

rs_status sim_kernel_compile(rs_backend *b, const rs_kernel_source *src, void **image, size_t *bytes, char **log) {
  (void)b;
  *image = NULL;
  *log = NULL;
  RS_TRY(rs_need_cxx());
  if (rs_find_token(src->blanked, src->blanked, "asm") || rs_find_token(src->blanked, src->blanked, "__asm__"))
    return rs_fail(RS_ERR_COMPILE, "the kernel uses inline assembly (asm), which the resident simulator does not support");
  if (src->noptions + src->ninclude_paths + 24 > RS_SIM_MAX_ARGS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim compile: more than %d options and include paths",
                   RS_SIM_MAX_ARGS - 24);
  rs_tmpdir t;
  memset(&t, 0, sizeof t);
  rs_status st = rs_prepare(src, &t);
  /* Options are copied: the mapped ones live in a buffer per option. */
  char mapped[RS_SIM_MAX_ARGS][512];
  char *argv[RS_SIM_MAX_ARGS];
  int argc = 0, nmapped = 0;
  argv[argc++] = rs_cxx;
  argv[argc++] = "-std=c++17";
  for (int i = 0; i < src->noptions; i++) {
    const char *m = rs_map_option(src->options[i], mapped[nmapped], sizeof mapped[nmapped]);
    if (!m) continue;
    if (m == mapped[nmapped]) nmapped++;
    argv[argc++] = (char *)m;
  }
  argv[argc++] = "-O2";
  argv[argc++] = "-fPIC";
  argv[argc++] = "-shared";
  /* The object's own symbols bind inside it (two kernels may both define `scale`), and an
   * undefined one fails here rather than at load. */
  argv[argc++] = "-Wl,-Bsymbolic";
  argv[argc++] = "-Wl,-z,defs";
  /* GCC marks statics of inline functions STB_GNU_UNIQUE, which makes an object
   * unloadable and shares such statics between kernels: off. */
  if (rs_cxx_is_gcc) argv[argc++] = "-fno-gnu-unique";
  char inc0[80];
  snprintf(inc0, sizeof inc0, "-I%s", t.dir);
  argv[argc++] = inc0;
  for (int i = 0; i < src->ninclude_paths; i++) {
    snprintf(mapped[nmapped], sizeof mapped[nmapped], "-I%s", src->include_paths[i]);
    argv[argc++] = mapped[nmapped++];
  }
  argv[argc++] = "-o";
  argv[argc++] = t.so;
  argv[argc++] = t.cpp;
  argv[argc] = NULL;
  if (st == RS_OK) {
    int rc = rs_run(argv, log);
    if (rc < 0) {
      st = rs_fail(RS_ERR_UNSUPPORTED, "sim compile: cannot run %s", rs_cxx);
    } else if (rc != 0) {
      char reason[400];
      rs_reason(*log, reason, sizeof reason);
      st = rs_fail(RS_ERR_COMPILE, "%s", reason);
    } else {
      st = rs_read_file(t.so, image, bytes);
    }
  }
  rs_tmpdir_remove(&t);
  return st;
}
