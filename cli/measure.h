/* Copy bandwidth measurements shared by `resident bandwidth` and `resident pipeline`. */
#ifndef RS_CLI_MEASURE_H
#define RS_CLI_MEASURE_H

#include "resident.h"

typedef enum { RS_BW_H2D_PAGEABLE, RS_BW_D2H_PAGEABLE, RS_BW_H2D_PINNED, RS_BW_D2H_PINNED, RS_BW_D2D, RS_BW_KINDS } rs_bw_kind;

const char *rs_bw_kind_name(rs_bw_kind kind);

/* Median GB/s of `repeat` copies of `bytes` (D2D counts bytes once; double it for
 * read + write traffic). Times come from the ledger's device events when the copy is
 * asynchronous, from the host clock otherwise. */
rs_status rs_measure_bandwidth(double *gbs, rs_context *ctx, rs_bw_kind kind, size_t bytes, int repeat);

#endif
