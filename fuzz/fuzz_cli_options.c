/* The command's option parsers: rs_opt_value / rs_opt_int / rs_opt_double against a
 * plain reference, then each command's whole parser on a fuzzed argument list (NUL
 * separated). Two unknown options end every list, so a command refuses it (or prints its
 * help) and never runs its workload: one of them may be taken as an option's value, the
 * other is still there. */
#include <errno.h>
#include <math.h>
#include <unistd.h>
#include "fuzz_util.h"
#include "cli/commands.h"
#include "cli/options.h"

#define STOP "--fuzz-stop-here"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("RESIDENT_BACKEND", "sim", 1);
  setenv("RESIDENT_CACHE_DIR", "off", 1);
  if (!freopen("/dev/null", "w", stdout)) abort(); /* usage texts and tables */
  return 0;
}

static void check_numbers(const char *text) {
  long v = -5;
  errno = 0;
  char *end = NULL;
  long ref = strtol(text, &end, 10);
  /* the strict grammar (src/core/parse.h): decimal digits only, no sign or space */
  int digits = text[0] != '\0' && strspn(text, "0123456789") == strlen(text);
  int ref_ok = digits && end != text && *end == '\0' && errno == 0 && ref >= 1 && ref <= 1000;
  int ok = rs_opt_int(&v, text, 1, 1000) == 0;
  FZ_ASSERT(ok == ref_ok && (!ok || v == ref), "rs_opt_int('%s') = %d/%ld, reference %d/%ld", text, ok, v,
            ref_ok, ref);
  double d = -5;
  ok = rs_opt_double(&d, text, 1e9) == 0;
  FZ_ASSERT(!ok || (isfinite(d) && d > 0 && d <= 1e9), "rs_opt_double('%s') = %g", text, d);
  FZ_ASSERT(ok || d == -5, "a failed rs_opt_double('%s') wrote %g", text, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0 || size > 512) return 0;
  /* argv[0] is the command, then the NUL-separated arguments, then the two stops */
  char *buf = malloc(size + 1);
  char *argv[80];
  if (!buf) return 0;
  memcpy(buf + 1, data + 1, size - 1);
  buf[size] = '\0';
  int argc = 0;
  argv[argc++] = "cmd";
  for (size_t i = 1; i < size && argc < 76;) {
    argv[argc++] = buf + i;
    i += strlen(buf + i) + 1;
  }
  for (int i = 1; i < argc; i++) check_numbers(argv[i]);

  /* rs_opt_value on each position: it advances by at most one, and a value it returns is
   * the rest of the argument or the next argument */
  argv[argc] = NULL;
  for (int i = 1; i < argc; i++) {
    int j = i, missing = 0; /* set, never cleared, by rs_opt_value (cli/options.h) */
    const char *v = rs_opt_value(argc, argv, &j, "--size", &missing);
    FZ_ASSERT(j == i || (j == i + 1 && v == argv[j]), "rs_opt_value moved %d -> %d", i, j);
    FZ_ASSERT(!v || (v >= argv[i] && v <= argv[i] + strlen(argv[i])) || v == argv[i + 1], "value");
    FZ_ASSERT(!(v && missing), "a value and missing");
  }

  argv[argc++] = STOP;
  argv[argc++] = STOP;
  argv[argc] = NULL;
  int (*const cmds[])(int, char **) = {rs_cmd_info, rs_cmd_bandwidth, rs_cmd_bench, rs_cmd_pipeline};
  int rc = cmds[data[0] % 4](argc, argv);
  FZ_ASSERT(rc == 0 || rc == 2 || rc == 1, "the command returned %d", rc);
  free(buf);
  return 0;
}
