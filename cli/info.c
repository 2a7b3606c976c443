/* resident info: which backends answer, and what their devices are. */
#include <stdio.h>
#include <string.h>
#include "cli/commands.h"
#include "cli/output.h"
#include "resident.h"

static void rs_print_props(FILE *out, const rs_device_props *p, int index) {
  fprintf(out, "  device %d: %s\n", index, p->name);
  fprintf(out, "    memory            %.2f GiB total, %.2f GiB free\n", (double)p->total_memory / 1073741824.0,
         (double)p->free_memory / 1073741824.0);
  fprintf(out, "    multiprocessors   %d\n", p->multiprocessors);
  fprintf(out, "    compute           %d.%d\n", p->compute_major, p->compute_minor);
  fprintf(out, "    threads/block     %d, shared memory/block %zu KiB, warp %d\n", p->max_threads_per_block,
         p->shared_memory_per_block / 1024, p->warp_size);
  fprintf(out, "    mapped memory     %s, managed memory %s\n", p->can_map_host_memory ? "yes" : "no",
         p->managed_memory ? "yes" : "no");
  if (p->pci_bus >= 0) fprintf(out, "    PCI               %04x:%02x:%02x.0\n", p->pci_domain, p->pci_bus, p->pci_device);
  if (p->pcie_generation > 0)
    fprintf(out, "    PCIe link         gen %d x%d (%.1f GB/s each way, theoretical)\n", p->pcie_generation,
           p->pcie_width, p->pcie_gbytes_per_s);
  else
    fprintf(out, "    PCIe link         unknown\n");
}

static void rs_json_props(rs_json *j, const rs_device_props *p, int index) {
  char pci[32];
  rs_json_object(j, NULL);
  rs_json_int(j, "index", index);
  rs_json_string(j, "name", p->name);
  rs_json_int(j, "total_memory", (long long)p->total_memory);
  rs_json_int(j, "free_memory", (long long)p->free_memory);
  rs_json_int(j, "multiprocessors", p->multiprocessors);
  rs_json_int(j, "compute_major", p->compute_major);
  rs_json_int(j, "compute_minor", p->compute_minor);
  rs_json_int(j, "max_threads_per_block", p->max_threads_per_block);
  rs_json_int(j, "shared_memory_per_block", (long long)p->shared_memory_per_block);
  rs_json_int(j, "warp_size", p->warp_size);
  rs_json_bool(j, "can_map_host_memory", p->can_map_host_memory);
  rs_json_bool(j, "managed_memory", p->managed_memory);
  snprintf(pci, sizeof pci, "%04x:%02x:%02x.0", (unsigned)p->pci_domain, (unsigned)p->pci_bus,
           (unsigned)p->pci_device);
  rs_json_string(j, "pci", p->pci_bus >= 0 ? pci : NULL);
  if (p->pcie_generation > 0) {
    rs_json_object(j, "pcie");
    rs_json_int(j, "generation", p->pcie_generation);
    rs_json_int(j, "width", p->pcie_width);
    rs_json_number(j, "gbytes_per_s", p->pcie_gbytes_per_s);
    rs_json_end(j);
  } else {
    rs_json_null(j, "pcie");
  }
  rs_json_end(j);
}

int rs_cmd_info(int argc, char **argv) {
  rs_cli_output o = {.command = "info"};
  for (int i = 1; i < argc; i++) {
    if (rs_cli_json_option(&o, argv[i])) continue;
    int help = strcmp(argv[i], "--help") == 0;
    fprintf(help ? stdout : stderr,
            "usage: resident info [--json[=FILE]]\n  Lists the backends, their devices and properties.\n"
            "  --json[=FILE]  the same as JSON (docs/cli-json.md), on stdout or into FILE\n");
    return help ? 0 : 2;
  }
  int bad = rs_cli_output_open(&o);
  if (bad) return bad;
  FILE *out = o.text;
  rs_json *j = o.json.f ? &o.json : NULL;
  fprintf(out, "resident %s\n", rs_version());
  if (j) rs_json_report(j, "resident.info/1", NULL, NULL);
  rs_context *ctx = NULL;
  if (rs_context_create(&ctx, RS_BACKEND_AUTO, 0) == RS_OK) {
    const char *name = rs_backend_name(rs_context_backend(ctx));
    fprintf(out, "default backend: %s (RESIDENT_BACKEND=auto|cuda|sim chooses)\n", name);
    if (j) rs_json_string(j, "default_backend", name), rs_json_null(j, "default_backend_error");
    rs_context_destroy(ctx);
  } else {
    fprintf(out, "default backend: none (%s)\n", rs_last_error());
    if (j) rs_json_null(j, "default_backend"), rs_json_string(j, "default_backend_error", rs_last_error());
  }
  if (j) rs_json_array(j, "backends");
  const rs_backend_kind kinds[] = {RS_BACKEND_CUDA, RS_BACKEND_SIM};
  for (int k = 0; k < 2; k++) {
    int count = 0;
    const char *name = rs_backend_name(kinds[k]);
    if (j) rs_json_object(j, NULL), rs_json_string(j, "name", name);
    if (rs_device_count(kinds[k], &count) != RS_OK) {
      fprintf(out, "\n%s: unavailable (%s)\n", name, rs_last_error());
      if (j) {
        rs_json_bool(j, "available", 0);
        rs_json_string(j, "error", rs_last_error());
        rs_json_array(j, "devices");
        rs_json_end(j);
        rs_json_end(j);
      }
      continue;
    }
    fprintf(out, "\n%s: %d device%s\n", name, count, count == 1 ? "" : "s");
    if (j) rs_json_bool(j, "available", count > 0), rs_json_null(j, "error"), rs_json_array(j, "devices");
    for (int d = 0; d < count; d++) {
      rs_device_props p;
      if (rs_device_get_props(kinds[k], d, &p) == RS_OK) {
        rs_print_props(out, &p, d);
        if (j) rs_json_props(j, &p, d);
      } else {
        fprintf(out, "  device %d: %s\n", d, rs_last_error());
        if (j) rs_json_object(j, NULL), rs_json_int(j, "index", d), rs_json_string(j, "error", rs_last_error()),
            rs_json_end(j);
      }
    }
    if (j) rs_json_end(j), rs_json_end(j);
  }
  return rs_cli_output_close(&o);
}
