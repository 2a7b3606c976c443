/* The source line of a checked fault, and the fault: the kernel object is compiled with a line table
 * (-g1) when the checks are on, and addr2line (binutils, beside every compiler that can
 * build the kernel) reads it from the object's memory file. Only on a fault, so its cost
 * (a process) does not matter. */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "backend/sim/sim_check.h"

void sim_check_where(const sim_kmodule *m, void *pc, char *file, size_t len, int *line) {
  struct link_map *map = NULL;
  uintptr_t base = dlinfo(m->dl, RTLD_DI_LINKMAP, &map) == 0 && map ? (uintptr_t)map->l_addr : 0;
  /* pc is the return address of the check's call: the access is the instruction before */
  uintptr_t off = (uintptr_t)pc - 1 - base;
  snprintf(file, len, "kernel '%s' at offset 0x%lx", m->name, (unsigned long)off);
  *line = 0;
  if (m->fd < 0) return;
  char path[64], addr[32];
  snprintf(path, sizeof path, "/proc/%ld/fd/%d", (long)getpid(), m->fd);
  snprintf(addr, sizeof addr, "0x%lx", (unsigned long)off);
  char *argv[] = {"addr2line", "-e", path, addr, NULL};
  char *out = NULL;
  if (sim_cxx_run(argv, &out) == 0 && out) {
    /* "file:line" or "file:line (discriminator n)"; "??:0" or "??:?" when unknown */
    out[strcspn(out, "\n")] = '\0';
    char *d = strstr(out, " (discriminator");
    if (d) *d = '\0';
    char *colon = strrchr(out, ':');
    int n = colon ? atoi(colon + 1) : 0;
    if (colon && n > 0 && strncmp(out, "??", 2) != 0) {
      *colon = '\0';
      const char *name = out;
      /* (once for the compilation directory, once for the file table's directory 0) */
      while (!strncmp(name, SIM_CHECK_CWD_MARK "/", sizeof SIM_CHECK_CWD_MARK)) name += sizeof SIM_CHECK_CWD_MARK;
      snprintf(file, len, "%s", name);
      *line = n;
    }
  }
  free(out);
}

void sim_check_fault(sim_host *h, const char *what, void *pc) {
  int line = 0;
  sim_check_where(h->launch->m, pc, h->where_file, sizeof h->where_file, &line);
  sim_rt_trap(what, h->where_file, line);
}

void sim_check_thread_name(const sim_host *h, unsigned t, char *out, size_t len) {
  const rs_sim_dim3 *i = &h->g[t].state.thread_idx;
  snprintf(out, len, "(%u,%u,%u)", i->x, i->y, i->z);
}
