/* The host C++ compiler the simulator builds user kernels with: c++, g++ or clang++,
 * whichever runs first from PATH, looked up once when first needed; and running it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "backend/sim/sim_kernel.h"
#include "core/error.h"

extern char **environ;

/* ---- running a program -------------------------------------------------------------------- */

/* Run argv (looked up on PATH) with stdin from /dev/null, collecting stdout and stderr in
 * *output (malloc'ed). Returns the exit status, or -1 if it could not run. */
int sim_cxx_run(char *const argv[], char **output) {
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
    int rc = sim_cxx_run(argv, &out);
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

rs_status sim_cxx_ready(void) {
  pthread_once(&rs_cxx_once, rs_find_cxx);
  if (!rs_cxx[0])
    return rs_fail(RS_ERR_UNSUPPORTED,
                   "the simulator compiles user kernels with the host C++ compiler, and none of c++, g++ "
                   "or clang++ runs from PATH");
  return RS_OK;
}

/* A short hash of the shim, the entry stub and the cooperative groups header: a changed
 * shim must not reuse old objects. */
static unsigned long long rs_text_hash(const char *const *texts, int n) {
  unsigned long long h = 1469598103934665603ull;
  for (int i = 0; i < n; i++)
    for (const char *p = texts[i]; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  return h;
}

rs_status sim_kernel_target(rs_backend *b, char *out, size_t len) {
  RS_TRY(sim_cxx_ready());
#if defined(__x86_64__)
  const char *arch = "x86_64";
#elif defined(__aarch64__)
  const char *arch = "aarch64";
#else
  const char *arch = "host";
#endif
  /* the memory checks change the object: part of the cache key */
  snprintf(out, len, "%s (%s) %s abi %u shim %016llx%s", rs_cxx, rs_cxx_version, arch, RS_SIM_ABI,
           rs_text_hash((const char *const[]){rs_sim_shim_text, rs_sim_entry_text, rs_sim_cg_text}, 3),
           b->checks ? " checked" : "");
  return RS_OK;
}

const char *sim_cxx_name(void) { return rs_cxx; }
int sim_cxx_is_gcc(void) { return rs_cxx_is_gcc; }
