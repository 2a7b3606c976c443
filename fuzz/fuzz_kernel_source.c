/* Kernel source scanning: the blanking of comments, literals and preprocessor lines, the
 * __global__ parameter parser, the token scan and the include walk; then rs_kernel_create
 * on the simulator for every source the parser refuses (it must fail the same way, before
 * any compile: compiling is too slow to fuzz).
 * Input: the kernel's name, a newline, the source. */
#include "fuzz_util.h"
#include "kernel/kernel_internal.h"

static rs_context *ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("RESIDENT_CACHE_DIR", "off", 1);
  if (rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK) {
    fprintf(stderr, "fuzz_kernel_source: no simulator context: %s\n", rs_last_error());
    abort();
  }
  return 0;
}

/* The include walk opens what a source names: leave the special files (a known defect,
 * issue 11 item 5: /dev/zero is read until memory runs out, a FIFO hangs) to
 * RS_FUZZ_KNOWN=1. */
static int names_special_file(const char *text) {
  return strstr(text, "/dev") || strstr(text, "/proc") || strstr(text, "/sys") || strstr(text, "/run");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  char *nl = strchr(buf, '\n');
  const char *name = "k", *text = buf;
  if (nl) {
    *nl = '\0';
    name = buf;
    text = nl + 1;
  }
  size_t len = strlen(text);

  char *blanked = rs_ksrc_blank(text);
  FZ_ASSERT(blanked != NULL, "blanking failed");
  FZ_ASSERT(strlen(blanked) == len, "blanking changed the length %zu -> %zu", len, strlen(blanked));
  for (size_t i = 0; i < len; i++)
    FZ_ASSERT((text[i] == '\n') == (blanked[i] == '\n') && (blanked[i] == text[i] || blanked[i] == ' '),
              "blanking changed byte %zu ('%c' -> '%c') beyond blanking it", i, text[i], blanked[i]);
  if (name[0]) (void)rs_ksrc_has_token(blanked, name); /* the library asks for fixed words only */

  rs_kparam params[RS_KERNEL_MAX_PARAMS];
  int nparams = -1;
  rs_clear_error();
  rs_status st = rs_kparse_params(blanked, name, params, &nparams);
  if (st == RS_OK) {
    FZ_ASSERT(nparams >= 0 && nparams <= RS_KERNEL_MAX_PARAMS, "%d parameters", nparams);
    for (int i = 0; i < nparams; i++) {
      FZ_ASSERT(memchr(params[i].name, '\0', sizeof params[i].name) != NULL, "parameter %d's name", i);
      FZ_ASSERT(memchr(params[i].type, '\0', sizeof params[i].type) != NULL, "parameter %d's type", i);
      FZ_ASSERT(memchr(params[i].defval, '\0', sizeof params[i].defval) != NULL, "parameter %d's default", i);
      rs_kparam_default(&params[i]); /* a default's literal, read as a launch would */
    }
  } else {
    FZ_FAILED_WITH_MESSAGE(st, "rs_kparse_params");
    /* the public call refuses it the same way, before compiling */
    rs_kernel *k = NULL;
    rs_clear_error();
    rs_status cst = rs_kernel_create(&k, ctx, text, name, NULL);
    FZ_ASSERT(cst != RS_OK && k == NULL, "rs_kernel_create accepted what the parser refused");
    FZ_FAILED_WITH_MESSAGE(cst, "rs_kernel_create");
  }

  if (rs_fz_known() || !names_special_file(text)) {
    rs_textbuf key = {0};
    int barrier = 0;
    const char *inc[] = {"."};
    (void)rs_ksrc_add_headers(&key, text, 1, inc, &barrier);
    rs_textbuf_free(&key);
  }
  free(blanked);
  free(buf);
  return 0;
}
