/* The ledger as JSON (docs/cli-json.md, "ledger entries" and "ledger stats"). */
#ifndef RS_CLI_LEDGER_JSON_H
#define RS_CLI_LEDGER_JSON_H

#include "cli/json.h"
#include "resident.h"

/* "entries": every entry the ledger holds, and "entries_dropped": how many older ones it
 * no longer does (RESIDENT_LEDGER_ENTRIES). */
rs_status rs_json_ledger_entries(rs_json *j, rs_context *ctx);

/* "stats": the totals by direction and kind. */
void rs_json_ledger_stats(rs_json *j, const rs_ledger_stats *s);

#endif
