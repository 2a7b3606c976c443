/* The printed report: copies on their own lines, apart from kernels, waits and the rest. */
#include "core/error.h"
#include "resident/ledger.h"

static void rs_print_bytes(FILE *f, double bytes) {
  const char *units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (bytes >= 1000.0 && u < 4) {
    bytes /= 1000.0;
    u++;
  }
  fprintf(f, "%8.2f %-2s", bytes, units[u]);
}

rs_status rs_ledger_print(const rs_ledger_stats *s, double wall_ms, double bandwidth_gbs, FILE *f) {
  if (!f || !s) return rs_fail(RS_ERR_NULL_POINTER, "rs_ledger_print: NULL argument");
  if (!(bandwidth_gbs > 0))
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "rs_ledger_print: bandwidth %g GB/s must be above 0",
                   bandwidth_gbs);
  double copy_ms = 0, estimate_ms = 0;
  fprintf(f, "  %-18s %6s %11s %12s %14s\n", "copies", "count", "bytes", "measured", "at link speed");
  for (int d = 0; d < RS_DIRECTIONS; d++)
    for (int i = 0; i < 2; i++) {
      if (s->copies[d][i] == 0) continue;
      double dev = s->copy_device_ms[d][i], host = s->copy_host_ms[d][i];
      double ms = dev > 0 ? dev : host;
      /* Only bus crossings have a PCIe estimate. */
      int crosses = d == RS_H2D || d == RS_D2H;
      double est = crosses ? (double)s->bytes[d][i] / (bandwidth_gbs * 1e6) : 0;
      copy_ms += ms;
      estimate_ms += est;
      fprintf(f, "  %s %-14s %6lld ", rs_direction_name((rs_direction)d),
              i ? "implicit" : "explicit", (long long)s->copies[d][i]);
      rs_print_bytes(f, (double)s->bytes[d][i]);
      fprintf(f, " %9.3f ms", ms);
      if (crosses)
        fprintf(f, " %11.3f ms\n", est);
      else
        fprintf(f, " %14s\n", "-");
    }
  int64_t total = rs_ledger_copies(s, -1);
  fprintf(f, "  %-18s %6lld ", "all copies", (long long)total);
  rs_print_bytes(f, (double)rs_ledger_bytes(s, -1));
  fprintf(f, " %9.3f ms %11.3f ms  (estimate at %.1f GB/s)\n", copy_ms, estimate_ms, bandwidth_gbs);
  for (int to_device = 1; to_device >= 0; to_device--) {
    if (s->prefetches[to_device] == 0) continue;
    double dev = s->prefetch_device_ms[to_device];
    fprintf(f, "  %-18s %6lld ", to_device ? "prefetch to device" : "prefetch to host",
            (long long)s->prefetches[to_device]);
    rs_print_bytes(f, (double)s->prefetch_bytes[to_device]);
    fprintf(f, " %9.3f ms  (managed pages, not copies)\n", dev > 0 ? dev : s->prefetch_host_ms[to_device]);
  }
  if (s->collectives > 0) { /* bytes this rank sent to the others, not copies of its own */
    fprintf(f, "  %-18s %6lld ", "collectives", (long long)s->collectives);
    rs_print_bytes(f, (double)s->collective_bytes);
    fprintf(f, " %9.3f ms  (sent to other devices)\n",
            s->collective_device_ms > 0 ? s->collective_device_ms : s->collective_host_ms);
  }
  double kernel_ms = s->kernel_device_ms > 0 ? s->kernel_device_ms : s->kernel_host_ms;
  fprintf(f, "  %-18s %6lld %11s %9.3f ms\n", "kernels", (long long)s->kernels, "", kernel_ms);
  fprintf(f, "  %-18s %6lld %11s %9.3f ms\n", "host waits", (long long)s->waits, "", s->wait_ms);
  if (wall_ms > 0) {
    double rest = wall_ms - copy_ms - kernel_ms;
    fprintf(f, "  %-18s %6s %11s %9.3f ms\n", "other", "", "", rest > 0 ? rest : 0.0);
    fprintf(f, "  %-18s %6s %11s %9.3f ms\n", "wall time", "", "", wall_ms);
  }
  return RS_OK;
}
