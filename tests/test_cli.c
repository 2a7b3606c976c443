/* The `resident` command: `pipeline` counts the copies of N kernels in the implicit and
 * explicit styles, `bandwidth` prints a table, `info` lists devices, and bad options get
 * a usage message and exit status 2.
 *
 * The binary is found through the environment variable RESIDENT_CLI (set by CTest to
 * $<TARGET_FILE:resident_cli>); without it the test is skipped (exit 77). The commands
 * run through popen with standard error folded into the captured output. */
#include <sys/wait.h>
#include "harness.h"

static const char *cli_path;

typedef struct {
  int status; /* exit status; 128 + signal when killed; -1 when it could not run */
  char *out;  /* stdout and stderr together, NUL-terminated */
} cli_run;

static void cli_free(cli_run *r) {
  free(r->out);
  r->out = NULL;
}

/* Run `env cli args 2>&1`; env is a prefix of VAR=value words (may be ""). */
static int run_cli(cli_run *r, const char *env, const char *args) {
  char cmd[2048];
  r->status = -1;
  r->out = NULL;
  snprintf(cmd, sizeof cmd, "%s '%s' %s 2>&1", env, cli_path, args);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (!buf) {
    pclose(p);
    return -1;
  }
  size_t got;
  while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += got;
    if (cap - len < 1024) {
      char *grown = realloc(buf, cap * 2);
      if (!grown) break;
      buf = grown;
      cap *= 2;
    }
  }
  buf[len] = '\0';
  int st = pclose(p);
  r->out = buf;
  if (st == -1)
    r->status = -1;
  else if (WIFEXITED(st))
    r->status = WEXITSTATUS(st);
  else if (WIFSIGNALED(st))
    r->status = 128 + WTERMSIG(st);
  return 0;
}

/* ---- output parsing ------------------------------------------------------------------- */

#define MAX_TOK 16
/* Split a line into whitespace-separated tokens (in place). */
static int tokenize(char *line, char **tok) {
  int n = 0;
  char *save = NULL;
  for (char *t = strtok_r(line, " \t\r", &save); t && n < MAX_TOK; t = strtok_r(NULL, " \t\r", &save))
    tok[n++] = t;
  return n;
}

/* What one section ("== implicit ..." or "== explicit ...") of the pipeline shows. */
typedef struct {
  int present;
  char ops[4096];  /* the operations in order, waits left out: "H2D:4000000 K D2H:4000000 ..." */
  int nops;
  long h2d_imp, d2h_imp, h2d_exp, d2h_exp; /* counts on the report lines, -1 if absent */
  long all_copies, kernels;
  int ok_line, wrong_line;
  char all_copies_line[512];
} section;

typedef struct {
  section s[2]; /* 0 implicit, 1 explicit */
  long summary_copies[2];
  int other_sections;
} pipeline_output;

static int is_index(const char *t) {
  if (!*t) return 0;
  for (; *t; t++)
    if (*t < '0' || *t > '9') return 0;
  return 1;
}

static void parse_pipeline(pipeline_output *po, const char *text) {
  memset(po, 0, sizeof *po);
  for (int m = 0; m < 2; m++) {
    section *s = &po->s[m];
    s->h2d_imp = s->d2h_imp = s->h2d_exp = s->d2h_exp = s->all_copies = s->kernels = -1;
    po->summary_copies[m] = -1;
  }
  char *copy = strdup(text);
  if (!copy) return;
  char *save = NULL;
  section *cur = NULL;
  int in_summary = 0;
  for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char raw[512];
    snprintf(raw, sizeof raw, "%s", line);
    char *tok[MAX_TOK];
    int n = tokenize(line, tok);
    if (n == 0) continue;
    if (strcmp(tok[0], "==") == 0 && n >= 2) {
      in_summary = 0;
      cur = NULL;
      if (strncmp(tok[1], "implicit", 8) == 0)
        cur = &po->s[0];
      else if (strncmp(tok[1], "explicit", 8) == 0)
        cur = &po->s[1];
      else if (strcmp(tok[1], "summary") == 0)
        in_summary = 1;
      else
        po->other_sections++;
      if (cur) cur->present = 1;
      continue;
    }
    if (in_summary && n >= 3 && strcmp(tok[2], "copies") == 0) {
      if (strcmp(tok[0], "implicit") == 0) po->summary_copies[0] = strtol(tok[1], NULL, 10);
      if (strcmp(tok[0], "explicit") == 0) po->summary_copies[1] = strtol(tok[1], NULL, 10);
      continue;
    }
    if (!cur) continue;
    /* an operation: "<index> copy H2D implicit <bytes> ..." or "<index> kernel ..." */
    if (n >= 2 && is_index(tok[0])) {
      char op[64] = "";
      if (strcmp(tok[1], "copy") == 0 && n >= 5)
        snprintf(op, sizeof op, "%s%s:%s ", tok[2], strcmp(tok[3], "implicit") == 0 ? "i" : "e", tok[4]);
      else if (strcmp(tok[1], "kernel") == 0)
        snprintf(op, sizeof op, "K ");
      else if (strcmp(tok[1], "wait") == 0)
        continue;
      else
        snprintf(op, sizeof op, "?%s ", tok[1]);
      if (strlen(cur->ops) + strlen(op) < sizeof cur->ops) strcat(cur->ops, op);
      cur->nops++;
      continue;
    }
    if (n >= 3 && strcmp(tok[1], "implicit") == 0) {
      if (strcmp(tok[0], "H2D") == 0) cur->h2d_imp = strtol(tok[2], NULL, 10);
      if (strcmp(tok[0], "D2H") == 0) cur->d2h_imp = strtol(tok[2], NULL, 10);
    } else if (n >= 3 && strcmp(tok[1], "explicit") == 0) {
      if (strcmp(tok[0], "H2D") == 0) cur->h2d_exp = strtol(tok[2], NULL, 10);
      if (strcmp(tok[0], "D2H") == 0) cur->d2h_exp = strtol(tok[2], NULL, 10);
    } else if (n >= 3 && strcmp(tok[0], "all") == 0 && strcmp(tok[1], "copies") == 0) {
      cur->all_copies = strtol(tok[2], NULL, 10);
      snprintf(cur->all_copies_line, sizeof cur->all_copies_line, "%s", raw);
    } else if (n >= 2 && strcmp(tok[0], "kernels") == 0) {
      cur->kernels = strtol(tok[1], NULL, 10);
    } else if (strstr(raw, "result vs CPU loop")) {
      if (n >= 5 && strcmp(tok[4], "OK") == 0) cur->ok_line++;
      if (strstr(raw, "WRONG")) cur->wrong_line++;
    }
  }
  free(copy);
}

/* The sequence a style must show, waits left out. */
static void expected_ops(char *buf, size_t len, int implicit, long kernels, long bytes) {
  buf[0] = '\0';
  char op[64];
  if (!implicit) {
    snprintf(op, sizeof op, "H2De:%ld ", bytes);
    strncat(buf, op, len - strlen(buf) - 1);
  }
  for (long k = 0; k < kernels; k++) {
    if (implicit) {
      snprintf(op, sizeof op, "H2Di:%ld ", bytes);
      strncat(buf, op, len - strlen(buf) - 1);
    }
    strncat(buf, "K ", len - strlen(buf) - 1);
    if (implicit) {
      snprintf(op, sizeof op, "D2Hi:%ld ", bytes);
      strncat(buf, op, len - strlen(buf) - 1);
    }
  }
  if (!implicit) {
    snprintf(op, sizeof op, "D2He:%ld ", bytes);
    strncat(buf, op, len - strlen(buf) - 1);
  }
}


/* Check one style's section of a pipeline run. */
static void check_section(const pipeline_output *po, int implicit, long kernels, long bytes,
                          const char *what) {
  const section *s = &po->s[implicit ? 0 : 1];
  const char *style = implicit ? "implicit" : "explicit";
  char want[4096];
  CHECK_MSG(s->present, "%s: no '== %s' section", what, style);
  expected_ops(want, sizeof want, implicit, kernels, bytes);
  CHECK_MSG(strcmp(s->ops, want) == 0, "%s, %s: operations\n           \"%s\"\n         expected\n"
            "           \"%s\"", what, style, s->ops, want);
  if (implicit) {
    CHECK_MSG(s->h2d_imp == kernels && s->d2h_imp == kernels,
              "%s: implicit report lines show H2D %ld, D2H %ld copies, expected %ld each", what,
              s->h2d_imp, s->d2h_imp, kernels);
    CHECK_MSG(s->h2d_exp == -1 && s->d2h_exp == -1, "%s: the implicit style shows explicit copies",
              what);
    CHECK_MSG(s->all_copies == 2 * kernels, "%s: implicit 'all copies' %ld, expected %ld", what,
              s->all_copies, 2 * kernels);
  } else {
    CHECK_MSG(s->h2d_exp == 1 && s->d2h_exp == 1,
              "%s: explicit report lines show H2D %ld, D2H %ld copies, expected 1 each", what,
              s->h2d_exp, s->d2h_exp);
    CHECK_MSG(s->h2d_imp == -1 && s->d2h_imp == -1, "%s: the explicit style shows implicit copies",
              what);
    CHECK_MSG(s->all_copies == 2, "%s: explicit 'all copies' %ld, expected 2", what, s->all_copies);
  }
  CHECK_MSG(s->kernels == kernels, "%s, %s: 'kernels' line shows %ld, expected %ld", what, style,
            s->kernels, kernels);
  CHECK_MSG(s->ok_line == 1 && s->wrong_line == 0, "%s, %s: the result check is not 'OK'", what, style);
}

#define CHECK_RUN(r, env, args)                                                         \
  do {                                                                                  \
    CHECK_MSG(run_cli(&(r), env, args) == 0 && (r).out, "could not run %s %s", cli_path, args); \
  } while (0)

/* Show the output when a check on it fails. */
#define CHECK_OUT(r, cond, ...)                                                         \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      rs_t_fail_(__FILE__, __LINE__, "CHECK(%s)", #cond);                               \
      printf("         ");                                                              \
      printf(__VA_ARGS__);                                                              \
      printf("\n----- output -----\n%s\n------------------\n", (r).out ? (r).out : "");  \
      cli_free(&(r));                                                                   \
      return;                                                                           \
    }                                                                                   \
  } while (0)

/* ---- pipeline --------------------------------------------------------------------------- */

static void test_pipeline_both(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "", "pipeline --size 4MB --kernels 3 --backend sim");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  pipeline_output po;
  parse_pipeline(&po, r.out);
  CHECK_OUT(r, po.summary_copies[0] == 6 && po.summary_copies[1] == 2,
            "summary shows %ld implicit and %ld explicit copies, expected 6 and 2",
            po.summary_copies[0], po.summary_copies[1]);
  check_section(&po, 1, 3, 4000000, "pipeline --size 4MB --kernels 3");
  check_section(&po, 0, 3, 4000000, "pipeline --size 4MB --kernels 3");
  if (rs_t_.failed) printf("----- output -----\n%s\n------------------\n", r.out);
  cli_free(&r);
}

static void test_pipeline_implicit_pinned_f64(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "",
            "pipeline --size 1MB --kernels 10 --dtype float64 --mode implicit --host pinned "
            "--backend sim --show 1000");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  pipeline_output po;
  parse_pipeline(&po, r.out);
  CHECK_OUT(r, !po.s[1].present, "--mode implicit shows an explicit section");
  CHECK_OUT(r, strstr(r.out, "pinned") != NULL, "the host memory kind is not shown");
  check_section(&po, 1, 10, 1000000, "pipeline float64 pinned, 10 kernels");
  if (rs_t_.failed) printf("----- output -----\n%s\n------------------\n", r.out);
  cli_free(&r);
}

static void test_pipeline_explicit_bandwidth(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "", "pipeline --size 2MB --kernels 1 --mode explicit --bandwidth 6.5 --backend sim");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  pipeline_output po;
  parse_pipeline(&po, r.out);
  CHECK_OUT(r, !po.s[0].present, "--mode explicit shows an implicit section");
  check_section(&po, 0, 1, 2000000, "pipeline explicit, 1 kernel");
  CHECK_PASSING();
  /* 2 copies of 2 MB at 6.5 GB/s: 4e6 / 6.5e6 ms */
  CHECK_OUT(r, rs_t_line_has_number(po.s[1].all_copies_line, 4e6 / 6.5e6, 0.005),
            "'all copies' line \"%s\" lacks the estimate %.4f ms at 6.5 GB/s", po.s[1].all_copies_line,
            4e6 / 6.5e6);
  cli_free(&r);
}

/* The pipeline on the backend the harness found (the GPU on the cuda run). */
static void test_pipeline_context_backend(rs_context *ctx) {
  char args[256];
  snprintf(args, sizeof args, "pipeline --size 8MB --kernels 2 --backend %s",
           rs_backend_name(rs_context_backend(ctx)));
  cli_run r;
  CHECK_RUN(r, "", args);
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  pipeline_output po;
  parse_pipeline(&po, r.out);
  check_section(&po, 1, 2, 8000000, args);
  check_section(&po, 0, 2, 8000000, args);
  if (rs_t_.failed) printf("----- output -----\n%s\n------------------\n", r.out);
  cli_free(&r);
}

static void test_pipeline_bad_options(rs_context *ctx) {
  (void)ctx;
  static const struct {
    const char *args;
    const char *names; /* the output must mention this, or NULL */
  } bad[] = {
      {"--kernels 0", NULL},        {"--kernels -2", NULL},        {"--kernels three", "three"},
      {"--size abc", "abc"},        {"--size 0", NULL},            {"--size -5MB", NULL},
      {"--mode sideways", "sideways"}, {"--dtype int7", "int7"},   {"--dtype int32", "int32"},
      {"--bandwidth 0", NULL},      {"--bandwidth -3", NULL},      {"--bandwidth fast", "fast"},
      {"--host floppy", "floppy"},  {"--backend gpu9", "gpu9"},    {"--frobnicate", "--frobnicate"},
      {"--kernels", NULL},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char args[256];
    snprintf(args, sizeof args, "pipeline --backend sim --size 1MB %s", bad[i].args);
    cli_run r;
    CHECK_RUN(r, "", args);
    CHECK_OUT(r, r.status == 2, "`resident %s` exit status %d, expected 2", args, r.status);
    CHECK_OUT(r, rs_t_contains_(r.out, "usage"), "`resident %s` prints no usage", args);
    CHECK_OUT(r, !strstr(r.out, "== implicit") && !strstr(r.out, "== explicit"),
              "`resident %s` ran the pipeline", args);
    if (bad[i].names)
      CHECK_OUT(r, strstr(r.out, bad[i].names) != NULL, "`resident %s` does not name '%s'", args,
                bad[i].names);
    cli_free(&r);
  }
}

static void test_pipeline_does_not_fit(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "RESIDENT_SIM_DEVICE_MEMORY=64MiB", "pipeline --size 100MB --backend sim");
  CHECK_OUT(r, r.status == 2, "exit status %d, expected 2", r.status);
  CHECK_OUT(r, rs_t_contains_(r.out, "does not fit"), "no 'does not fit' message");
  CHECK_OUT(r, !strstr(r.out, "== implicit"), "the pipeline ran");
  cli_free(&r);
  /* the same device takes a size that fits */
  CHECK_RUN(r, "RESIDENT_SIM_DEVICE_MEMORY=64MiB", "pipeline --size 4MB --kernels 1 --backend sim");
  CHECK_OUT(r, r.status == 0, "4MB on a 64MiB device: exit status %d", r.status);
  cli_free(&r);
}

/* The guard from the environment applies to the pipeline: implicit copies are refused,
 * explicit ones pass. */
static void test_pipeline_guard_env(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "RESIDENT_TRANSFER_GUARD=disallow",
            "pipeline --size 1MB --kernels 2 --mode implicit --backend sim");
  CHECK_OUT(r, r.status != 0 && r.status != 2 && r.status < 128,
            "implicit under disallow: exit status %d, expected a plain failure", r.status);
  CHECK_OUT(r, rs_t_contains_(r.out, "refused"), "implicit under disallow: no 'refused' message");
  cli_free(&r);
  CHECK_RUN(r, "RESIDENT_TRANSFER_GUARD=disallow",
            "pipeline --size 1MB --kernels 2 --mode explicit --backend sim");
  CHECK_OUT(r, r.status == 0, "explicit under disallow: exit status %d", r.status);
  pipeline_output po;
  parse_pipeline(&po, r.out);
  check_section(&po, 0, 2, 1000000, "explicit under disallow");
  if (rs_t_.failed) printf("----- output -----\n%s\n------------------\n", r.out);
  cli_free(&r);
}

static void test_pipeline_help(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "", "pipeline --help");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  CHECK_OUT(r, rs_t_contains_(r.out, "usage") && strstr(r.out, "--kernels") && strstr(r.out, "--size") &&
                   strstr(r.out, "--mode") && strstr(r.out, "--bandwidth"),
            "the help does not describe the options");
  cli_free(&r);
}

/* ---- bandwidth, info, the command itself -------------------------------------------------- */

static void test_bandwidth(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "", "bandwidth --max 4MiB --repeat 2 --backend sim");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  CHECK_OUT(r, strstr(r.out, "H2D") && strstr(r.out, "D2H") && strstr(r.out, "D2D") &&
                   rs_t_contains_(r.out, "pinned") && rs_t_contains_(r.out, "pageable"),
            "the table header lacks a direction or a host memory kind");
  /* rows: "<size> MiB <5 numbers>", for 1 MiB and 4 MiB */
  char *copy = strdup(r.out);
  CHECK_OUT(r, copy != NULL, "strdup");
  char *save = NULL;
  int rows = 0, good = 0;
  double sizes[8];
  for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *tok[MAX_TOK];
    int n = tokenize(line, tok);
    if (n < 2 || strcmp(tok[1], "MiB") != 0) continue;
    if (rows < 8) sizes[rows] = strtod(tok[0], NULL);
    rows++;
    int positive = n == 7;
    for (int i = 2; i < n; i++) {
      char *end = NULL;
      double v = strtod(tok[i], &end);
      if (end == tok[i] || *end != '\0' || !(v > 0)) positive = 0;
    }
    good += positive;
  }
  free(copy);
  CHECK_OUT(r, rows == 2, "%d table rows, expected 2 (1 MiB and 4 MiB)", rows);
  CHECK_OUT(r, sizes[0] == 1.0 && sizes[1] == 4.0, "row sizes %g and %g MiB", sizes[0], sizes[1]);
  CHECK_OUT(r, good == 2, "%d of 2 rows have 5 positive bandwidths", good);
  cli_free(&r);
}

static void test_bandwidth_bad_options(rs_context *ctx) {
  (void)ctx;
  static const char *bad[] = {"--max 0", "--max lots", "--repeat 0", "--min 8MiB --max 4MiB",
                              "--sideways", "--backend gpu9"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char args[256];
    snprintf(args, sizeof args, "bandwidth --backend sim %s", bad[i]);
    cli_run r;
    CHECK_RUN(r, "", args);
    CHECK_OUT(r, r.status == 2, "`resident %s` exit status %d, expected 2", args, r.status);
    CHECK_OUT(r, rs_t_contains_(r.out, "usage"), "`resident %s` prints no usage", args);
    cli_free(&r);
  }
}

static void test_info(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "", "info");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  CHECK_OUT(r, strstr(r.out, "sim") != NULL, "info does not list the simulator");
  cli_free(&r);
  CHECK_RUN(r, "", "info --bogus");
  CHECK_OUT(r, r.status == 2, "info --bogus: exit status %d", r.status);
  cli_free(&r);
}

static void test_command_usage(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "", "");
  CHECK_OUT(r, r.status == 2 && rs_t_contains_(r.out, "usage"), "no command: exit status %d", r.status);
  cli_free(&r);
  CHECK_RUN(r, "", "frobnicate");
  CHECK_OUT(r, r.status == 2 && rs_t_contains_(r.out, "usage"), "unknown command: exit status %d",
            r.status);
  CHECK_OUT(r, strstr(r.out, "frobnicate") != NULL, "the unknown command is not named");
  cli_free(&r);
  CHECK_RUN(r, "", "--help");
  CHECK_OUT(r, r.status == 0 && strstr(r.out, "pipeline") && strstr(r.out, "bandwidth"),
            "--help: exit status %d", r.status);
  cli_free(&r);
}

/* ---- options: one strict parser, and the right message for each mistake ----------------- */

/* `resident <args>` exits 2 with a usage message that says `says`, and runs nothing. */
static void check_usage_error(const char *env, const char *args, const char *says) {
  cli_run r;
  CHECK_RUN(r, env, args);
  CHECK_OUT(r, r.status == 2, "`resident %s` exit status %d, expected 2", args, r.status);
  CHECK_OUT(r, rs_t_contains_(r.out, "usage"), "`resident %s` prints no usage", args);
  CHECK_OUT(r, rs_t_contains_(r.out, says), "`resident %s` does not say '%s'", args, says);
  CHECK_OUT(r, !strstr(r.out, "== implicit") && !strstr(r.out, "GB/s, median") && !strstr(r.out, "elements"),
            "`resident %s` ran the command", args);
  cli_free(&r);
}

/* An option given last with no value is missing its value, not an unknown option. */
static void test_option_missing_value(rs_context *ctx) {
  (void)ctx;
  static const struct {
    const char *args, *says;
  } cases[] = {
      {"pipeline --backend sim --size 1MB --kernels", "option --kernels needs a value"},
      {"pipeline --backend sim --kernels 1 --size", "option --size needs a value"},
      {"pipeline --backend sim --bandwidth", "option --bandwidth needs a value"},
      {"bandwidth --backend sim --max", "option --max needs a value"},
      {"bandwidth --backend sim --repeat", "option --repeat needs a value"},
      {"bench --backend sim --only host --sizes", "option --sizes needs a value"},
      {"bench --backend sim --only host --budget", "option --budget needs a value"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    check_usage_error("", cases[i].args, cases[i].says);
    cli_run r;
    CHECK_RUN(r, "", cases[i].args);
    CHECK_OUT(r, !rs_t_contains_(r.out, "unknown option"), "`resident %s` calls it an unknown option", cases[i].args);
    cli_free(&r);
  }
}

/* --sizes: every count is parsed strictly; an empty list or item is an error, not the
 * default sweep; a count past the range is refused, not clamped. */
static void test_bench_sizes_strict(rs_context *ctx) {
  (void)ctx;
  char many[512] = "";
  for (int i = 0; i < 65; i++) snprintf(many + strlen(many), sizeof many - strlen(many), "%s5", i ? "," : "");
  char args_many[640];
  snprintf(args_many, sizeof args_many, "bench --backend sim --only host --budget 1 --max 50 --sizes %s", many);
  static const struct {
    const char *args, *says;
  } cases[] = {
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 12345678901234567890123", "too large"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 5,12345678901234567890123", "too large"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes ''", "empty"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes=", "empty"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 5,,50", "not a count"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 5,50,", "not a count"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 5e1", "not a count"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 0x10", "not a count"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes ' 5'", "not a count"},
      {"bench --backend sim --only host --budget 1 --max 50 --sizes 0", "too small"},
      {"bench --backend sim --only host --budget 1e2 --max 50 --sizes 5", "1e2"},
      {"bench --backend sim --only host --budget 1 --max 50.5 --sizes 5", "50.5"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_usage_error("", cases[i].args, cases[i].says);
  check_usage_error("", args_many, "more than 64");
}

/* A size the device cannot hold is "too large", and a value past size_t as well. */
static void test_bandwidth_sizes_strict(rs_context *ctx) {
  (void)ctx;
  check_usage_error("RESIDENT_SIM_DEVICE_MEMORY=64MiB", "bandwidth --backend sim --repeat 1 --max 18446744073709551614",
                    "too large");
  check_usage_error("", "bandwidth --backend sim --repeat 1 --max 123456789012345678901234", "too large");
  check_usage_error("", "bandwidth --backend sim --repeat 1 --max 1.5", "whole number");
  check_usage_error("", "bandwidth --backend sim --repeat 1 --max 0x100000", "0x100000");
  check_usage_error("", "bandwidth --backend sim --repeat 1 --min 0", "too small");
  cli_run r;
  CHECK_RUN(r, "", "bandwidth --backend sim --repeat 1 --max 18446744073709551614");
  CHECK_OUT(r, !rs_t_contains_(r.out, "above 0"), "a too large --max is called 'not above 0'");
  cli_free(&r);
}

/* A failure while measuring goes to standard error (the table on standard output stays a
 * table) and the exit status is 1. On a 4 MiB simulated device D2D of 4 MiB cannot run. */
static void test_bandwidth_errors_on_stderr(rs_context *ctx) {
  (void)ctx;
  const char *env = "RESIDENT_SIM_DEVICE_MEMORY=4MiB";
  const char *args = "bandwidth --backend sim --repeat 1 --min 4MiB --max 4MiB";
  char only_out[256], only_err[256];
  snprintf(only_out, sizeof only_out, "%s 2>/dev/null | cat", args);
  snprintf(only_err, sizeof only_err, "%s 2>&1 >/dev/null | cat", args);
  cli_run r;
  CHECK_RUN(r, env, args);
  CHECK_OUT(r, r.status == 1, "exit status %d, expected 1", r.status);
  CHECK_OUT(r, rs_t_contains_(r.out, "out of device memory"), "no message about the failure");
  cli_free(&r);
  CHECK_RUN(r, env, only_out);
  CHECK_OUT(r, strstr(r.out, "H2D") && !rs_t_contains_(r.out, "out of device memory") &&
                   !strstr(r.out, "resident bandwidth:"),
            "standard output holds the error (or not the table)");
  cli_free(&r);
  CHECK_RUN(r, env, only_err);
  CHECK_OUT(r, rs_t_contains_(r.out, "resident bandwidth: D2D") && rs_t_contains_(r.out, "out of device memory"),
            "standard error does not hold the error");
  cli_free(&r);
}

/* ---- pipeline --devices (issue 19): the copies per device, the all-reduced result ----- */

static void test_pipeline_devices(rs_context *ctx) {
  (void)ctx;
  cli_run r;
  CHECK_RUN(r, "RESIDENT_SIM_DEVICES=3", "pipeline --devices all --size 3MB --kernels 2 --backend sim");
  CHECK_OUT(r, r.status == 0, "exit status %d", r.status);
  CHECK_OUT(r, strstr(r.out, "split over 3 devices") != NULL, "the header names 3 devices");
  for (int d = 0; d < 3; d++) {
    char want[64];
    snprintf(want, sizeof want, "== device %d: ", d);
    const char *sec = strstr(r.out, want);
    CHECK_OUT(r, sec != NULL, "no section for device %d", d);
    /* each device's part: one H2D copy of a third of the array, then one collective */
    const char *h2d = sec ? strstr(sec, "H2D explicit") : NULL;
    long count = 0;
    double mb = 0;
    CHECK_OUT(r, h2d && sscanf(h2d, "H2D explicit %ld %lf MB", &count, &mb) == 2 && count == 1 && mb > 0.99 && mb < 1.01,
              "device %d: H2D line (count %ld, %.2f MB)", d, count, mb);
    CHECK_OUT(r, sec && strstr(sec, "collectives             1") != NULL, "device %d: one collective", d);
  }
  CHECK_OUT(r, strstr(r.out, "(all-reduced)") && strstr(r.out, ": OK ("), "the all-reduced sum checks out");
  cli_free(&r);
  CHECK_RUN(r, "RESIDENT_SIM_DEVICES=2", "pipeline --devices 3 --size 1MB --backend sim");
  CHECK_OUT(r, r.status == 2, "exit status %d for 3 of 2 devices", r.status);
  CHECK_OUT(r, strstr(r.out, "--devices 3") && strstr(r.out, "2 devices"), "the message names the request and the count");
  cli_free(&r);
  CHECK_RUN(r, "", "pipeline --devices 0 --backend sim");
  CHECK_OUT(r, r.status == 2, "exit status %d for --devices 0", r.status);
  cli_free(&r);
  CHECK_RUN(r, "", "pipeline --devices all --html /tmp/x.html --backend sim");
  CHECK_OUT(r, r.status == 2 && strstr(r.out, "not with --devices"), "exit status %d for --devices with --html", r.status);
  cli_free(&r);
}

static const rs_test_case tests[] = {
    RS_TEST(test_pipeline_both),
    RS_TEST(test_pipeline_implicit_pinned_f64),
    RS_TEST(test_pipeline_explicit_bandwidth),
    RS_TEST(test_pipeline_context_backend),
    RS_TEST(test_pipeline_bad_options),
    RS_TEST(test_pipeline_does_not_fit),
    RS_TEST(test_pipeline_guard_env),
    RS_TEST(test_pipeline_help),
    RS_TEST(test_bandwidth),
    RS_TEST(test_bandwidth_bad_options),
    RS_TEST(test_info),
    RS_TEST(test_command_usage),
    RS_TEST(test_option_missing_value),
    RS_TEST(test_bench_sizes_strict),
    RS_TEST(test_bandwidth_sizes_strict),
    RS_TEST(test_bandwidth_errors_on_stderr),
    RS_TEST(test_pipeline_devices), /* issue 19 */
};

int main(int argc, char **argv) {
  cli_path = getenv("RESIDENT_CLI");
  if (!cli_path || !*cli_path) {
    printf("skipped: RESIDENT_CLI (the path of the resident binary) is not set\n");
    return 77;
  }
  if (access(cli_path, X_OK) != 0) {
    printf("RESIDENT_CLI=%s is not an executable file\n", cli_path);
    return 1;
  }
  if (strchr(cli_path, '\'')) {
    printf("RESIDENT_CLI=%s: a quote in the path is not supported\n", cli_path);
    return 1;
  }
  return rs_t_run_(tests, sizeof tests / sizeof tests[0], argc, argv);
}
