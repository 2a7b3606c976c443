/* The CUDA toolkit's include directory, for NVRTC: user kernels include toolkit headers
 * (<cooperative_groups.h>, <cuda_fp16.h>, ...) that nvcc finds by itself and NVRTC does
 * not ("no directories in search list"). The one beside the loaded libnvrtc comes first
 * (lib64/../include: the headers of the compiler that runs), then $CUDA_HOME, $CUDA_PATH
 * and /usr/local/cuda; the first that holds cooperative_groups.h is taken. Its cccl/
 * subdirectory, where newer toolkits keep <cuda/std/...> that the cooperative groups
 * headers include, is added when present. Looked up once. */
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/cuda/cuda_kernel.h"

static pthread_once_t rs_toolkit_once = PTHREAD_ONCE_INIT;
static void *rs_toolkit_lib;
static char rs_toolkit_inc[PATH_MAX];
static char rs_toolkit_cccl[PATH_MAX + 8];

static int rs_has_cg(const char *dir) {
  char p[PATH_MAX + 32];
  snprintf(p, sizeof p, "%s/cooperative_groups.h", dir);
  return access(p, R_OK) == 0;
}

static int rs_try(const char *dir) {
  if (!dir || !dir[0] || strlen(dir) >= sizeof rs_toolkit_inc || !rs_has_cg(dir)) return 0;
  snprintf(rs_toolkit_inc, sizeof rs_toolkit_inc, "%s", dir);
  snprintf(rs_toolkit_cccl, sizeof rs_toolkit_cccl, "%s/cccl", dir);
  if (access(rs_toolkit_cccl, R_OK) != 0) rs_toolkit_cccl[0] = '\0';
  return 1;
}

static void rs_toolkit_find(void) {
  struct link_map *map = NULL;
  char dir[PATH_MAX];
  if (rs_toolkit_lib && dlinfo(rs_toolkit_lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
    char real[PATH_MAX];
    if (realpath(map->l_name, real)) {
      char *slash = strrchr(real, '/'); /* .../lib64/libnvrtc.so.13 -> .../include */
      if (slash) *slash = '\0';
      slash = strrchr(real, '/');
      if (slash) {
        *slash = '\0';
        snprintf(dir, sizeof dir, "%.*s/include", PATH_MAX - 16, real);
        if (rs_try(dir)) return;
      }
    }
  }
  const char *envs[] = {"CUDA_HOME", "CUDA_PATH"};
  for (size_t i = 0; i < 2; i++) {
    const char *e = getenv(envs[i]);
    if (e && strlen(e) < PATH_MAX - 16) {
      snprintf(dir, sizeof dir, "%s/include", e);
      if (rs_try(dir)) return;
    }
  }
  (void)rs_try("/usr/local/cuda/include");
}

int rs_cuda_toolkit_includes(void *nvrtc_lib, const char *out[2]) {
  rs_toolkit_lib = nvrtc_lib;
  pthread_once(&rs_toolkit_once, rs_toolkit_find);
  int n = 0;
  if (rs_toolkit_inc[0]) out[n++] = rs_toolkit_inc;
  if (rs_toolkit_cccl[0]) out[n++] = rs_toolkit_cccl;
  return n;
}
