/* The name parsers: dtype, backend, allocator names and the transfer guard's text.
 * No crash on any text; a failure says why and writes nothing; a name that is accepted
 * names a valid value, and the value's own name reads back as the same value. */
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char text[96];
  rs_fz_text(data, size, text, sizeof text);

  rs_dtype dt = (rs_dtype)-7;
  rs_clear_error();
  rs_status st = rs_dtype_from_name(text, &dt);
  if (st == RS_OK) {
    FZ_ASSERT(rs_dtype_valid(dt), "'%s' gave dtype %d", text, (int)dt);
    rs_dtype back = (rs_dtype)-7;
    FZ_ASSERT(rs_dtype_from_name(rs_dtype_name(dt), &back) == RS_OK && back == dt,
              "'%s' -> %s does not read back", text, rs_dtype_name(dt));
  } else {
    FZ_FAILED_WITH_MESSAGE(st, text);
    FZ_ASSERT(dt == (rs_dtype)-7, "a failed dtype parse of '%s' wrote %d", text, (int)dt);
  }

  rs_backend_kind bk = (rs_backend_kind)-7;
  rs_clear_error();
  st = rs_backend_from_name(text, &bk);
  if (st == RS_OK) {
    FZ_ASSERT(bk == RS_BACKEND_AUTO || bk == RS_BACKEND_CUDA || bk == RS_BACKEND_SIM, "'%s' gave %d",
              text, (int)bk);
    rs_backend_kind back = (rs_backend_kind)-7;
    FZ_ASSERT(rs_backend_from_name(rs_backend_name(bk), &back) == RS_OK && back == bk,
              "'%s' -> %s does not read back", text, rs_backend_name(bk));
  } else {
    FZ_FAILED_WITH_MESSAGE(st, text);
    FZ_ASSERT(bk == (rs_backend_kind)-7, "a failed backend parse of '%s' wrote %d", text, (int)bk);
  }

  rs_allocator_kind ak = (rs_allocator_kind)-7;
  rs_clear_error();
  st = rs_allocator_from_name(text, &ak);
  if (st == RS_OK) {
    FZ_ASSERT(ak >= RS_ALLOCATOR_POOL && ak <= RS_ALLOCATOR_USER, "'%s' gave %d", text, (int)ak);
    rs_allocator_kind back = (rs_allocator_kind)-7;
    FZ_ASSERT(rs_allocator_from_name(rs_allocator_name(ak), &back) == RS_OK && back == ak,
              "'%s' -> %s does not read back", text, rs_allocator_name(ak));
  } else {
    FZ_FAILED_WITH_MESSAGE(st, text);
  }

  /* unnamed directions keep their value */
  rs_guard_mode modes[RS_DIRECTIONS] = {RS_GUARD_LOG, RS_GUARD_LOG, RS_GUARD_LOG, RS_GUARD_LOG};
  rs_clear_error();
  st = rs_guard_parse(text, modes);
  if (st == RS_OK) {
    for (int d = 0; d < RS_DIRECTIONS; d++)
      FZ_ASSERT(modes[d] >= RS_GUARD_ALLOW && modes[d] <= RS_GUARD_DISALLOW_EXPLICIT,
                "'%s' gave mode %d for direction %d", text, (int)modes[d], d);
  } else {
    FZ_FAILED_WITH_MESSAGE(st, text);
  }

  /* the names of out-of-range values are still strings */
  int k = size ? (int8_t)data[0] : 0;
  FZ_ASSERT(rs_dtype_name((rs_dtype)k) != NULL, "dtype %d", k);
  FZ_ASSERT(rs_backend_name((rs_backend_kind)k) != NULL, "backend %d", k);
  FZ_ASSERT(rs_allocator_name((rs_allocator_kind)k) != NULL, "allocator %d", k);
  FZ_ASSERT(rs_guard_mode_name((rs_guard_mode)k) != NULL, "guard %d", k);
  FZ_ASSERT(rs_status_str((rs_status)k) != NULL && rs_status_name((rs_status)k) != NULL, "status %d", k);
  return 0;
}
