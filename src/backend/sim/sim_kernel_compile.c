/* Compiling a user kernel for the simulator: the translation unit (sim_kernel_source.c)
 * goes into a private temporary directory with the shim and resident_device.h, the host
 * C++ compiler (sim_kernel_cxx.c) builds it into a shared object, and that object's bytes
 * are the kernel's image. Inline PTX (`asm`) is refused before anything runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "backend/sim/sim_check.h"
#include "core/error.h"
#include "resident/kernel.h"

#define RS_SIM_MAX_ARGS 160

static int rs_is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* 1 if the identifier word occurs as a whole token in blanked text. */
static int rs_has_token(const char *s, const char *word) {
  size_t w = strlen(word);
  for (const char *p = strstr(s, word); p; p = strstr(p + 1, word))
    if ((p == s || !rs_is_ident(p[-1])) && !rs_is_ident(p[w])) return 1;
  return 0;
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
  rs_textbuf b = {0};
  char chunk[65536];
  size_t n;
  rs_status st = RS_OK;
  while (st == RS_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0) st = rs_textbuf_add(&b, chunk, n);
  fclose(f);
  if (st != RS_OK || b.len == 0) {
    rs_textbuf_free(&b);
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

/* The identifier that starts at or after p (skipping quotes and spaces), into out. */
static void rs_ident_after(const char *p, const char *end, char *out, size_t len) {
  while (p < end && !rs_is_ident(*p)) p++;
  const char *w = p;
  while (p < end && rs_is_ident(*p)) p++;
  snprintf(out, len, "%.*s", (int)(p - w), w);
}

/* A construct of cooperative_groups that the simulator's header lacks, from the compiler's
 * first error line that names the namespace ("'x' is not a member of 'cooperative_groups'",
 * "'class cooperative_groups::thread_block' has no member named 'x'", clang's "no member
 * named 'x' in ..."): 1 and the reason in out. */
static int rs_cg_reason(const char *log, const char *alias, char *out, size_t len) {
  for (const char *e = strstr(log, "error:"); e; e = strstr(e + 1, "error:")) {
    const char *end = e + strcspn(e, "\n");
    const char *ns = strstr(e, "cooperative_groups");
    const char *of = strstr(e, "is not a member of");
    char named[64] = "";
    if (of && of < end) rs_ident_after(of + 18, end, named, sizeof named);
    if ((!ns || ns > end) && !(alias[0] && !strcmp(named, alias))) continue;
    char member[64] = "", type[64] = "";
    const char *m = strstr(e, "no member named");
    const char *n = strstr(e, "is not a member of");
    if (m && m < end) {
      rs_ident_after(m + 15, end, member, sizeof member);
    } else if (n && n < end) {
      const char *w = n;
      while (w > e && !rs_is_ident(w[-1])) w--;
      while (w > e && rs_is_ident(w[-1])) w--;
      rs_ident_after(w, n, member, sizeof member);
    }
    const char *q = strstr(e, "cooperative_groups::");
    if (q && q < end) rs_ident_after(q + 20, end, type, sizeof type);
    if (!member[0]) continue;
    snprintf(out, len, "the kernel uses cooperative_groups::%s%s%s, which the resident simulator does not support",
             type[0] && strcmp(type, member) ? type : "", type[0] && strcmp(type, member) ? "::" : "", member);
    return 1;
  }
  return 0;
}

/* X of `namespace X = cooperative_groups;` in blanked source, or "". */
static void rs_cg_alias(const char *s, char *alias, size_t len) {
  alias[0] = '\0';
  for (const char *p = strstr(s, "cooperative_groups"); p; p = strstr(p + 1, "cooperative_groups")) {
    const char *q = p;
    while (q > s && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n')) q--;
    if (q == s || q[-1] != '=') continue;
    q--;
    while (q > s && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n')) q--;
    const char *w = q;
    while (w > s && rs_is_ident(w[-1])) w--;
    if (w < q && (size_t)(q - w) < len) {
      snprintf(alias, len, "%.*s", (int)(q - w), w);
      return;
    }
  }
}

/* The one-line reason of a failed compile, from the log. */
static void rs_reason(const char *log, const char *blanked, char *out, size_t len) {
  const char *u = log ? strstr(log, " is not supported by the resident simulator") : NULL;
  if (u) {
    const char *w = u;
    while (w > log && (rs_is_ident(w[-1]) || w[-1] == ':')) w--;
    snprintf(out, len, "the kernel uses %.*s, which the resident simulator does not support", (int)(u - w), w);
    return;
  }
  char alias[64];
  rs_cg_alias(blanked, alias, sizeof alias);
  if (log && rs_cg_reason(log, alias, out, len)) return;
  /* GCC: "the frame size of N bytes is larger than ..."; clang: "stack frame size (N) exceeds" */
  const char *frame = log ? strstr(log, "frame size of ") : NULL;
  const char *cframe = log ? strstr(log, "stack frame size (") : NULL;
  if (frame || cframe) {
    const char *at = frame ? frame : cframe, *line = at;
    while (line > log && line[-1] != '\n') line--;
    const char *where = strstr(line, ": error");
    unsigned long long n = strtoull(frame ? frame + 14 : cframe + 18, NULL, 10);
    snprintf(out, len,
             "a function needs %llu bytes of per-thread local memory (%.*s); CUDA allows 512 KiB (524288 bytes) per "
             "thread",
             n, (int)(where && where < at ? where - line : 0), line);
    return;
  }
  const char *e = log ? strstr(log, "error:") : NULL;
  if (e) {
    const char *line = e;
    while (line > log && line[-1] != '\n') line--;
    snprintf(out, len, "the host C++ compiler failed: %.*s", (int)strcspn(line, "\n"), line);
    return;
  }
  snprintf(out, len, "the host C++ compiler (%s) failed", sim_cxx_name());
}

typedef struct rs_tmpdir {
  char dir[64];
  char cpp[96], obj[96], so[96], shim[96], dev[96], cg[96], cgdir[96], cgreduce[128];
} rs_tmpdir;

static void rs_tmpdir_remove(rs_tmpdir *t) {
  unlink(t->cpp);
  unlink(t->obj);
  unlink(t->so);
  unlink(t->shim);
  unlink(t->dev);
  unlink(t->cg);
  unlink(t->cgreduce);
  rmdir(t->cgdir);
  rmdir(t->dir);
}

static rs_status rs_prepare(const rs_kernel_source *src, rs_tmpdir *t) {
  snprintf(t->dir, sizeof t->dir, "/tmp/resident-sim-XXXXXX");
  if (!mkdtemp(t->dir)) return rs_fail(RS_ERR_DEVICE, "sim compile: cannot create a directory in /tmp");
  snprintf(t->cpp, sizeof t->cpp, "%s/kernel.cpp", t->dir);
  snprintf(t->so, sizeof t->so, "%s/kernel.so", t->dir);
  snprintf(t->obj, sizeof t->obj, "%s/kernel.o", t->dir);
  snprintf(t->shim, sizeof t->shim, "%s/rs_sim_shim.h", t->dir);
  snprintf(t->dev, sizeof t->dev, "%s/resident_device.h", t->dir);
  snprintf(t->cg, sizeof t->cg, "%s/cooperative_groups.h", t->dir);
  snprintf(t->cgdir, sizeof t->cgdir, "%s/cooperative_groups", t->dir);
  snprintf(t->cgreduce, sizeof t->cgreduce, "%s/reduce.h", t->cgdir);
  RS_TRY(rs_write_file(t->shim, rs_sim_shim_text, strlen(rs_sim_shim_text)));
  /* The simulator's cooperative groups in place of the toolkit's (which are device code). */
  RS_TRY(rs_write_file(t->cg, rs_sim_cg_text, strlen(rs_sim_cg_text)));
  if (mkdir(t->cgdir, 0700) != 0) return rs_fail(RS_ERR_DEVICE, "sim compile: cannot create %s", t->cgdir);
  static const char reduce[] = "#include <cooperative_groups.h>\n";
  RS_TRY(rs_write_file(t->cgreduce, reduce, strlen(reduce)));
  const char *dev = rs_kernel_device_header();
  RS_TRY(rs_write_file(t->dev, dev, strlen(dev)));
  rs_textbuf text = {0};
  rs_status st = sim_kernel_translation_unit(src, &text);
  if (st == RS_OK) st = rs_write_file(t->cpp, text.data, text.len);
  rs_textbuf_free(&text);
  return st;
}

rs_status sim_kernel_compile(rs_backend *b, const rs_kernel_source *src, void **image, size_t *bytes, char **log) {
  *image = NULL;
  *log = NULL;
  RS_TRY(sim_cxx_ready());
  if (rs_has_token(src->blanked, "asm") || rs_has_token(src->blanked, "__asm__"))
    return rs_fail(RS_ERR_COMPILE, "the kernel uses inline assembly (asm), which the resident simulator does not support");
  if (src->noptions + src->ninclude_paths + 28 > RS_SIM_MAX_ARGS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "sim compile: more than %d options and include paths",
                   RS_SIM_MAX_ARGS - 28);
  rs_tmpdir t;
  memset(&t, 0, sizeof t);
  rs_status st = rs_prepare(src, &t);
  /* Options are copied: the mapped ones live in a buffer per option. */
  char mapped[RS_SIM_MAX_ARGS][512];
  char *argv[RS_SIM_MAX_ARGS];
  int argc = 0, nmapped = 0;
  argv[argc++] = (char *)sim_cxx_name();
  argv[argc++] = "-std=c++17";
  for (int i = 0; i < src->noptions; i++) {
    const char *m = rs_map_option(src->options[i], mapped[nmapped], sizeof mapped[nmapped]);
    if (!m) continue;
    if (m == mapped[nmapped]) nmapped++;
    argv[argc++] = (char *)m;
  }
  argv[argc++] = "-O2";
  /* CUDA's limit of local memory per thread (512 KiB): a larger frame is a compile error
   * (rs_reason names it) rather than a fiber stack overflow at run time. */
  argv[argc++] = "-Werror=frame-larger-than=524288";
  argv[argc++] = "-fPIC";
  /* The debugger's checks (sim_shim.h handles what they find): an index outside an array
   * of known size - __shared__ and local arrays - and a misaligned or NULL access, each a
   * fault naming the thread and the line. Linked without the flags: the handlers are the
   * shim's, no sanitizer runtime is loaded. */
  argv[argc++] = "-fsanitize=bounds,alignment,null";
  /* The memory checks (sim_check.h): ThreadSanitizer's calls before every load and store,
   * answered by the shim (sim_shim_check.h), and a line table to name the faulting line. */
  char prefix_map[600];
  if (b->checks) {
    argv[argc++] = "-fsanitize=thread";
    argv[argc++] = "-g1";
    /* A relative source name (the kernel's own, "<string>") stays as written: the
     * compiler's directory is marked, and sim_check_where takes the mark off. */
    char cwd[512];
    if (getcwd(cwd, sizeof cwd)) {
      snprintf(prefix_map, sizeof prefix_map, "-fdebug-prefix-map=%s=" SIM_CHECK_CWD_MARK, cwd);
      argv[argc++] = prefix_map;
    }
    if (sim_cxx_is_gcc()) argv[argc++] = "--param=tsan-instrument-func-entry-exit=0";
  }
  /* GCC marks statics of inline functions STB_GNU_UNIQUE, which makes an object
   * unloadable and shares such statics between kernels: off. */
  if (sim_cxx_is_gcc()) argv[argc++] = "-fno-gnu-unique";
  char inc0[80];
  snprintf(inc0, sizeof inc0, "-I%s", t.dir);
  argv[argc++] = inc0;
  for (int i = 0; i < src->ninclude_paths; i++) {
    snprintf(mapped[nmapped], sizeof mapped[nmapped], "-I%s", src->include_paths[i]);
    argv[argc++] = mapped[nmapped++];
  }
  argv[argc++] = "-c";
  argv[argc++] = "-o";
  argv[argc++] = t.obj;
  argv[argc++] = t.cpp;
  argv[argc] = NULL;
  /* The object's own symbols bind inside it (two kernels may both define `scale`), and an
   * undefined one fails here rather than at load. */
  char *link[] = {(char *)sim_cxx_name(), "-shared", "-fPIC", "-Wl,-Bsymbolic", "-Wl,-z,defs", "-o", t.so, t.obj, NULL};
  if (st == RS_OK) {
    int rc = sim_cxx_run(argv, log);
    if (rc == 0) {
      free(*log);
      rc = sim_cxx_run(link, log);
    }
    if (rc < 0) {
      st = rs_fail(RS_ERR_UNSUPPORTED, "sim compile: cannot run %s", sim_cxx_name());
    } else if (rc != 0) {
      char reason[400];
      rs_reason(*log, src->blanked, reason, sizeof reason);
      st = rs_fail(RS_ERR_COMPILE, "%s", reason);
    } else {
      st = rs_read_file(t.so, image, bytes);
    }
  }
  rs_tmpdir_remove(&t);
  return st;
}
