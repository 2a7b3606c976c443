/* Issue 13, managed memory: prefetch to the device or the host on a stream, and advice.
 * A prefetch is a ledger entry of its own kind (counted and timed, not a copy); the data
 * stays right across device work between two prefetches; memory that does not migrate is
 * refused with a message. */
#include "harness.h"
#include "resident/ops.h"

#define N (1 << 20)

static void test_prefetch_round_trip_is_recorded(rs_context *ctx) {
  CHECK_OK(rs_t_kernels_warm(ctx));
  rs_array *m = NULL;
  rs_stream *s = NULL;
  const int64_t n[1] = {N};
  CHECK_OK(rs_stream_create(&s, ctx, RS_STREAM_NON_BLOCKING));
  CHECK_OK(rs_managed_array(&m, ctx, 1, n, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  float *x = rs_array_host_data(m);
  CHECK(x != NULL);
  for (int i = 0; i < N; i++) x[i] = (float)(i % 1000);
  CHECK_OK(rs_array_advise(m, RS_ADVISE_PREFERRED_LOCATION, RS_MEM_DEVICE));
  CHECK_OK(rs_array_advise(m, RS_ADVISE_ACCESSED_BY, RS_MEM_DEVICE));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_array_prefetch(m, RS_MEM_DEVICE, s));
  CHECK_OK(rs_t_axpb(m, 2.0, 1.0, s)); /* on the device, after the pages arrived */
  CHECK_OK(rs_array_prefetch(m, RS_MEM_HOST, s));
  CHECK_OK(rs_stream_synchronize(s));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += x[i] != 2.0f * (float)(i % 1000) + 1.0f;
  CHECK_MSG(bad == 0, "%d values wrong after prefetch, kernel, prefetch", bad);

  rs_ledger_stats st;
  CHECK_OK(rs_ledger_get_stats(ctx, &st));
  CHECK_EQ_I64(st.prefetches[1], 1);
  CHECK_EQ_I64(st.prefetches[0], 1);
  CHECK_EQ_I64(st.prefetch_bytes[1], (int64_t)N * 4);
  CHECK_EQ_I64(st.prefetch_bytes[0], (int64_t)N * 4);
  CHECK_EQ_I64(rs_ledger_copies(&st, -1), 0); /* not copies */
  int64_t count = 0, dropped = 0, seen = 0;
  CHECK_OK(rs_ledger_count(ctx, &count, &dropped));
  for (int64_t i = 0; i < count; i++) {
    rs_ledger_entry e;
    CHECK_OK(rs_ledger_entry_at(ctx, i, &e));
    if (e.kind != RS_ENTRY_PREFETCH) continue;
    CHECK_EQ_I64(e.dir, seen == 0 ? RS_H2D : RS_D2H); /* to the device first */
    CHECK_EQ_I64(e.bytes, (int64_t)N * 4);
    CHECK(strcmp(e.cause, "rs_array_prefetch") == 0);
    CHECK(e.stream == rs_stream_native(s));
    seen++;
  }
  CHECK_EQ_I64(seen, 2);
  /* the printed table has a line for each direction */
  char buf[4096] = "";
  FILE *f = fmemopen(buf, sizeof buf - 1, "w");
  CHECK(f != NULL);
  CHECK_OK(rs_ledger_print(&st, 0, RS_DEFAULT_PCIE_GBS, f));
  fclose(f);
  CHECK_MSG(strstr(buf, "prefetch to device") && strstr(buf, "prefetch to host"), "table:\n%s", buf);

  CHECK_OK(rs_array_advise(m, RS_ADVISE_UNSET_ACCESSED_BY, RS_MEM_DEVICE));
  CHECK_OK(rs_array_advise(m, RS_ADVISE_UNSET_PREFERRED_LOCATION, RS_MEM_DEVICE));
  CHECK_OK(rs_array_advise(m, RS_ADVISE_PREFERRED_LOCATION, RS_MEM_HOST));
  CHECK_OK(rs_array_advise(m, RS_ADVISE_READ_MOSTLY, RS_MEM_DEVICE));
  CHECK_OK(rs_array_advise(m, RS_ADVISE_UNSET_READ_MOSTLY, RS_MEM_DEVICE));
  CHECK_OK(rs_array_release(m));
  CHECK_OK(rs_stream_destroy(s));
}

/* A view prefetches its span; an empty one nothing. */
static void test_prefetch_of_views(rs_context *ctx) {
  rs_array *m = NULL, *v = NULL, *e = NULL;
  const int64_t n[1] = {1000};
  CHECK_OK(rs_managed_array(&m, ctx, 1, n, RS_FLOAT64, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  rs_slice every3 = {10, 910, 3}; /* elements 10, 13, ..., 907: span 898 elements */
  CHECK_OK(rs_array_slice(&v, m, 1, &every3));
  rs_slice none = {5, 5, 1};
  CHECK_OK(rs_array_slice(&e, m, 1, &none));
  CHECK_OK(rs_ledger_reset(ctx));
  CHECK_OK(rs_array_prefetch(v, RS_MEM_DEVICE, NULL));
  CHECK_OK(rs_array_prefetch(e, RS_MEM_DEVICE, NULL));
  CHECK_OK(rs_context_synchronize(ctx));
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_get_stats(ctx, &st));
  CHECK_EQ_I64(st.prefetches[1], 1);
  CHECK_EQ_I64(st.prefetch_bytes[1], (907 - 10 + 1) * 8);
  CHECK_OK(rs_array_release(e));
  CHECK_OK(rs_array_release(v));
  CHECK_OK(rs_array_release(m));
}

/* Memory that does not migrate, bad where, bad advice, a foreign stream: refused. */
static void test_prefetch_refuses_other_memory(rs_context *ctx) {
  const int64_t n[1] = {64};
  const rs_mem_kind others[] = {RS_MEM_DEVICE, RS_MEM_HOST, RS_MEM_PINNED, RS_MEM_MAPPED};
  for (int k = 0; k < 4; k++) {
    rs_array *a = NULL;
    CHECK_OK(rs_zeros(&a, ctx, others[k], 1, n, RS_FLOAT32, NULL));
    rs_clear_error();
    CHECK_EQ_I64(rs_array_prefetch(a, RS_MEM_DEVICE, NULL), RS_ERR_MEMORY_KIND);
    CHECK(strstr(rs_last_error(), "managed") != NULL);
    CHECK_EQ_I64(rs_array_advise(a, RS_ADVISE_READ_MOSTLY, RS_MEM_DEVICE), RS_ERR_MEMORY_KIND);
    CHECK_OK(rs_array_release(a));
  }
  rs_array *m = NULL;
  CHECK_OK(rs_managed_array(&m, ctx, 1, n, RS_FLOAT32, NULL, RS_ORDER_C, RS_ATTACH_GLOBAL));
  CHECK_EQ_I64(rs_array_prefetch(m, RS_MEM_PINNED, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(rs_array_prefetch(m, (rs_mem_kind)42, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(rs_array_advise(m, (rs_mem_advice)0, RS_MEM_DEVICE), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(rs_array_advise(m, (rs_mem_advice)7, RS_MEM_DEVICE), RS_ERR_INVALID_ARGUMENT);
  CHECK_EQ_I64(rs_array_advise(m, RS_ADVISE_ACCESSED_BY, RS_MEM_MANAGED), RS_ERR_INVALID_ARGUMENT);
  rs_context *other = NULL;
  rs_stream *os = NULL;
  CHECK_OK(rs_context_create(&other, rs_context_backend(ctx), 0));
  CHECK_OK(rs_stream_create(&os, other, 0));
  CHECK_FAILS(rs_array_prefetch(m, RS_MEM_DEVICE, os));
  CHECK_OK(rs_stream_destroy(os));
  CHECK_OK(rs_context_destroy(other));
  CHECK_OK(rs_ledger_reset(ctx));
  rs_ledger_stats st;
  CHECK_OK(rs_ledger_get_stats(ctx, &st));
  CHECK_EQ_I64(st.prefetches[0] + st.prefetches[1], 0); /* nothing refused was recorded */
  CHECK_OK(rs_array_release(m));
}

static const rs_test_case tests[] = {
    RS_TEST(test_prefetch_round_trip_is_recorded),
    RS_TEST(test_prefetch_of_views),
    RS_TEST(test_prefetch_refuses_other_memory),
};
RS_TEST_MAIN(tests)
