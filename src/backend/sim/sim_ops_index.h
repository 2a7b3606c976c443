/* The simulator's entries for indexing, searching and sets (sim_ops_index.c). */
#ifndef RS_BACKEND_SIM_OPS_INDEX_H
#define RS_BACKEND_SIM_OPS_INDEX_H

#include "backend/backend.h"
#include "native/plans_index.h"

rs_status rs_sim_ops_index(rs_backend *b, const rs_index_plan *p, void *stream);
rs_status rs_sim_ops_select(rs_backend *b, const rs_select_plan *p, void *stream);
rs_status rs_sim_ops_unique(rs_backend *b, const rs_unique_plan *p, void *stream);
rs_status rs_sim_ops_search(rs_backend *b, const rs_search_plan *p, void *stream);

#endif
