#include "cli/ledger_json.h"

static const char *rs_entry_kind_name(rs_entry_kind kind) {
  switch (kind) {
    case RS_ENTRY_COPY: return "copy";
    case RS_ENTRY_KERNEL: return "kernel";
    case RS_ENTRY_WAIT: return "wait";
    case RS_ENTRY_PREFETCH: return "prefetch";
    case RS_ENTRY_GRAPH: return "graph";
    case RS_ENTRY_COLLECTIVE: return "collective";
  }
  return "unknown";
}

rs_status rs_json_ledger_entries(rs_json *j, rs_context *ctx, int64_t first) {
  int64_t held = 0, dropped = 0;
  rs_status st = rs_ledger_count(ctx, &held, &dropped);
  if (st != RS_OK) return st;
  int64_t skip = first > dropped ? first - dropped : 0; /* entries of earlier runs */
  int64_t count = held - skip;
  dropped = first > dropped ? 0 : dropped - first;
  rs_json_int(j, "entries_dropped", dropped);
  rs_json_array(j, "entries");
  for (int64_t i = 0; i < count && st == RS_OK; i++) {
    rs_ledger_entry e;
    st = rs_ledger_entry_at(ctx, skip + i, &e);
    if (st != RS_OK) break;
    int copy = e.kind == RS_ENTRY_COPY, moves = copy || e.kind == RS_ENTRY_PREFETCH;
    int sends = moves || e.kind == RS_ENTRY_COLLECTIVE; /* a collective's bytes: what this rank sent */
    rs_json_object(j, NULL);
    rs_json_int(j, "index", dropped + i + 1);
    rs_json_string(j, "kind", rs_entry_kind_name(e.kind));
    rs_json_string(j, "direction", moves ? rs_direction_name(e.dir) : NULL);
    if (copy)
      rs_json_bool(j, "implicit", e.implicit);
    else
      rs_json_null(j, "implicit");
    if (sends)
      rs_json_int(j, "bytes", (long long)e.bytes);
    else
      rs_json_null(j, "bytes");
    rs_json_string(j, "cause", e.cause);
    if (e.arg >= 0)
      rs_json_int(j, "argument", e.arg);
    else
      rs_json_null(j, "argument");
    rs_json_number(j, "host_start_ms", e.host_start_ms);
    rs_json_number(j, "host_ms", e.host_ms);
    if (e.device_ms >= 0)
      rs_json_number(j, "device_ms", e.device_ms);
    else
      rs_json_null(j, "device_ms");
    rs_json_end(j);
  }
  rs_json_end(j);
  return st;
}

void rs_json_ledger_stats(rs_json *j, const rs_ledger_stats *s) {
  rs_json_object(j, "stats");
  rs_json_int(j, "copies", rs_ledger_copies(s, -1));
  rs_json_int(j, "copies_explicit", rs_ledger_copies(s, 0));
  rs_json_int(j, "copies_implicit", rs_ledger_copies(s, 1));
  rs_json_int(j, "bytes", rs_ledger_bytes(s, -1));
  rs_json_int(j, "bytes_explicit", rs_ledger_bytes(s, 0));
  rs_json_int(j, "bytes_implicit", rs_ledger_bytes(s, 1));
  rs_json_number(j, "copy_ms", rs_ledger_copy_ms(s));
  rs_json_object(j, "by_direction");
  for (int d = 0; d < RS_DIRECTIONS; d++) {
    rs_json_object(j, rs_direction_name((rs_direction)d));
    rs_json_int(j, "copies_explicit", s->copies[d][0]);
    rs_json_int(j, "copies_implicit", s->copies[d][1]);
    rs_json_int(j, "bytes_explicit", s->bytes[d][0]);
    rs_json_int(j, "bytes_implicit", s->bytes[d][1]);
    rs_json_end(j);
  }
  rs_json_end(j);
  rs_json_int(j, "kernels", s->kernels);
  rs_json_number(j, "kernel_device_ms", s->kernel_device_ms);
  rs_json_number(j, "kernel_host_ms", s->kernel_host_ms);
  rs_json_int(j, "waits", s->waits);
  rs_json_number(j, "wait_ms", s->wait_ms);
  rs_json_int(j, "collectives", s->collectives); /* issue 19: bytes this rank sent */
  rs_json_int(j, "collective_bytes", s->collective_bytes);
  rs_json_end(j);
}
