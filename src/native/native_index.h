/* Internal: the native loops of indexing, searching and sets (native_index.c), run by the
 * host path (src/backend/host_ops.c) and the simulator (sim_ops_index.c). Plans:
 * native/plans_index.h. None fails: what they need is checked before. */
#ifndef RS_NATIVE_INDEX_H
#define RS_NATIVE_INDEX_H

#include "core/thread_pool.h"
#include "native/plans_index.h"

void rs_native_index(rs_thread_pool *pool, const rs_index_plan *p);
void rs_native_select(const rs_select_plan *p);
void rs_native_unique(const rs_unique_plan *p);
void rs_native_search(rs_thread_pool *pool, const rs_search_plan *p);

#endif
