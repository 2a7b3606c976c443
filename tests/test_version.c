/* The version: one number, from the project version (CMakeLists.txt), the same in the
 * generated header, in rs_version() at run time and in `resident --version`. */
#include <stdio.h>
#include <stdlib.h>
#include "harness.h"
#include "resident/version.h"

#ifndef RS_T_PROJECT_VERSION
#error "tests/CMakeLists.txt passes the project version as RS_T_PROJECT_VERSION"
#endif

static void test_runtime_matches_project(rs_context *ctx) {
  (void)ctx;
  CHECK_STREQ(rs_version(), RS_T_PROJECT_VERSION);
  CHECK_STREQ(RS_VERSION_STRING, RS_T_PROJECT_VERSION);
  int maj = -1, min = -1, pat = -1;
  CHECK(sscanf(RS_T_PROJECT_VERSION, "%d.%d.%d", &maj, &min, &pat) == 3);
  CHECK_EQ_I64(RS_VERSION_MAJOR, maj);
  CHECK_EQ_I64(RS_VERSION_MINOR, min);
  CHECK_EQ_I64(RS_VERSION_PATCH, pat);
  CHECK_EQ_I64(rs_version_number(), maj * 10000 + min * 100 + pat);
  CHECK_EQ_I64(rs_version_number(), RS_VERSION_NUMBER);
}

static void test_cli_version(rs_context *ctx) {
  (void)ctx;
  const char *cli = getenv("RESIDENT_CLI");
  if (!cli || !*cli) {
    printf("    note: RESIDENT_CLI not set, the command is not checked\n");
    return;
  }
  char cmd[4096], line[256] = {0}, want[256];
  snprintf(cmd, sizeof cmd, "'%s' --version 2>&1", cli);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  if (!p) return;
  char *got = fgets(line, sizeof line, p);
  int rc = pclose(p);
  CHECK(got != NULL);
  CHECK_EQ_I64(rc, 0);
  snprintf(want, sizeof want, "resident %s\n", RS_T_PROJECT_VERSION);
  CHECK_STREQ(line, want);
}

static const rs_test_case tests[] = {RS_TEST(test_runtime_matches_project), RS_TEST(test_cli_version)};
RS_TEST_MAIN(tests)
