/* resident: the command-line tool. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "resident.h"

static const struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *help;
} rs_commands[] = {
    {"pipeline", rs_cmd_pipeline, "the copy counter: N kernels with implicit vs explicit copies"},
    {"bandwidth", rs_cmd_bandwidth, "H2D / D2H (pageable, pinned) and D2D copy bandwidth over sizes"},
    {"info", rs_cmd_info, "backend, devices and their properties"},
    {"bench", rs_cmd_bench, "array operations on the host vs the device over sizes, and the crossover"},
};

static void rs_usage(FILE *f) {
  fprintf(f, "usage: resident <command> [options]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof rs_commands / sizeof rs_commands[0]; i++)
    fprintf(f, "  %-10s %s\n", rs_commands[i].name, rs_commands[i].help);
  fprintf(f, "\n'resident <command> --help' describes a command's options;\n"
             "'resident --version' prints the library's version.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    rs_usage(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    rs_usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
    /* The running library's version (rs_version), not the headers' it was built with. */
    printf("resident %s\n", rs_version());
    const rs_backend_kind kinds[] = {RS_BACKEND_CUDA, RS_BACKEND_SIM};
    for (int k = 0; k < 2; k++) {
      char text[160];
      if (rs_backend_version(kinds[k], text, sizeof text) != RS_OK) snprintf(text, sizeof text, "not built in");
      printf("%s backend: %s\n", rs_backend_name(kinds[k]), text);
    }
    return 0;
  }
  for (size_t i = 0; i < sizeof rs_commands / sizeof rs_commands[0]; i++)
    if (strcmp(argv[1], rs_commands[i].name) == 0) return rs_commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "resident: unknown command '%s'\n\n", argv[1]);
  rs_usage(stderr);
  return 2;
}
