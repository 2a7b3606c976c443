/* THE copy path's entry: every byte that moves between two arrays comes through here, and
 * goes on to the copy within one context (copy.c) or between two (copy_across.c). */
#include "core/error.h"
#include "transfer/copy.h"
#include "transfer/copy_across.h"

rs_status rs_copy_path(rs_array *dst, const rs_array *src, rs_stream *stream, const rs_copy_cause *cause) {
  RS_TRY(rs_copy_check_pair(dst, src, cause->what));
  if (dst->ctx != src->ctx) return rs_copy_across(dst, src, stream, cause);
  return rs_copy_within(dst, src, stream, cause);
}
