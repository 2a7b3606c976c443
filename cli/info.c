/* resident info: which backends answer, and what their devices are. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "resident.h"

static void rs_print_props(const rs_device_props *p, int index) {
  printf("  device %d: %s\n", index, p->name);
  printf("    memory            %.2f GiB total, %.2f GiB free\n", (double)p->total_memory / 1073741824.0,
         (double)p->free_memory / 1073741824.0);
  printf("    multiprocessors   %d\n", p->multiprocessors);
  printf("    compute           %d.%d\n", p->compute_major, p->compute_minor);
  printf("    threads/block     %d, shared memory/block %zu KiB, warp %d\n", p->max_threads_per_block,
         p->shared_memory_per_block / 1024, p->warp_size);
  printf("    mapped memory     %s, managed memory %s\n", p->can_map_host_memory ? "yes" : "no",
         p->managed_memory ? "yes" : "no");
  if (p->pci_bus >= 0) printf("    PCI               %04x:%02x:%02x.0\n", p->pci_domain, p->pci_bus, p->pci_device);
  if (p->pcie_generation > 0)
    printf("    PCIe link         gen %d x%d (%.1f GB/s each way, theoretical)\n", p->pcie_generation,
           p->pcie_width, p->pcie_gbytes_per_s);
  else
    printf("    PCIe link         unknown\n");
}

int rs_cmd_info(int argc, char **argv) {
  if (argc > 1) {
    int help = strcmp(argv[1], "--help") == 0;
    fprintf(help ? stdout : stderr, "usage: resident info\n  Lists the backends, their devices and properties.\n");
    return help ? 0 : 2;
  }
  printf("resident %s\n", rs_version());
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, RS_BACKEND_AUTO, 0) == RS_OK) {
    printf("default backend: %s (RESIDENT_BACKEND=auto|cuda|sim chooses)\n",
           rs_backend_name(rs_context_backend(ctx)));
    rs_context_destroy(ctx);
  } else {
    printf("default backend: none (%s)\n", rs_last_error());
  }
  const rs_backend_kind kinds[] = {RS_BACKEND_CUDA, RS_BACKEND_SIM};
  for (int k = 0; k < 2; k++) {
    int count = 0;
    if (rs_device_count(kinds[k], &count) != RS_OK) {
      printf("\n%s: unavailable (%s)\n", rs_backend_name(kinds[k]), rs_last_error());
      continue;
    }
    printf("\n%s: %d device%s\n", rs_backend_name(kinds[k]), count, count == 1 ? "" : "s");
    for (int d = 0; d < count; d++) {
      rs_device_props p;
      if (rs_device_get_props(kinds[k], d, &p) == RS_OK)
        rs_print_props(&p, d);
      else
        printf("  device %d: %s\n", d, rs_last_error());
    }
  }
  return 0;
}
