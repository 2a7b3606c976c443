/* The ledger as JSON (docs/cli-json.md, "ledger entries" and "ledger stats"). */
#ifndef RS_CLI_LEDGER_JSON_H
#define RS_CLI_LEDGER_JSON_H

#include "cli/json.h"
#include "resident.h"

/* "entries": every entry the ledger holds from absolute index `first` (the number of
 * entries recorded before: 0 for all), and "entries_dropped": how many of those it no
 * longer holds (RESIDENT_LEDGER_ENTRIES). */
rs_status rs_json_ledger_entries(rs_json *j, rs_context *ctx, int64_t first);

/* "stats": the totals by direction and kind. */
void rs_json_ledger_stats(rs_json *j, const rs_ledger_stats *s);

#endif
