/* Element types: sizes, names, parsing and aliases. */
#include "harness.h"

/* The reference, written out by hand (not generated from RS_DTYPE_LIST). */
static const struct {
  rs_dtype dt;
  const char *name;
  size_t size;
} ref[] = {
    {RS_BOOL, "bool", 1},        {RS_INT8, "int8", 1},         {RS_INT16, "int16", 2},
    {RS_INT32, "int32", 4},      {RS_INT64, "int64", 8},       {RS_UINT8, "uint8", 1},
    {RS_UINT16, "uint16", 2},    {RS_UINT32, "uint32", 4},     {RS_UINT64, "uint64", 8},
    {RS_FLOAT16, "float16", 2},  {RS_FLOAT32, "float32", 4},   {RS_FLOAT64, "float64", 8},
    {RS_COMPLEX64, "complex64", 8}, {RS_COMPLEX128, "complex128", 16},
};
#define NREF ((int)(sizeof ref / sizeof ref[0]))

static void test_sizes_and_names(rs_context *ctx) {
  (void)ctx;
  CHECK_EQ_I64(NREF, 14);
  CHECK_EQ_I64(RS_DTYPE_COUNT, 14);
  for (int i = 0; i < NREF; i++) {
    CHECK_EQ_I64(ref[i].dt, i); /* the order is append-only */
    CHECK_MSG(rs_dtype_size(ref[i].dt) == ref[i].size, "%s: size %zu, expected %zu",
              ref[i].name, rs_dtype_size(ref[i].dt), ref[i].size);
    CHECK_STREQ(rs_dtype_name(ref[i].dt), ref[i].name);
    CHECK_EQ_I64(rs_dtype_valid(ref[i].dt), 1);
  }
  /* C's own sizes agree for the types C has */
  CHECK_EQ_I64(rs_dtype_size(RS_INT16), sizeof(int16_t));
  CHECK_EQ_I64(rs_dtype_size(RS_UINT64), sizeof(uint64_t));
  CHECK_EQ_I64(rs_dtype_size(RS_FLOAT32), sizeof(float));
  CHECK_EQ_I64(rs_dtype_size(RS_FLOAT64), sizeof(double));
  CHECK_EQ_I64(rs_dtype_size(RS_COMPLEX128), 2 * sizeof(double));
}

static void test_invalid_values(rs_context *ctx) {
  (void)ctx;
  const int bad[] = {-1, 14, 15, 99, 1000, -1000};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rs_dtype d = (rs_dtype)bad[i];
    CHECK_MSG(rs_dtype_size(d) == 0, "size of dtype %d is %zu", bad[i], rs_dtype_size(d));
    CHECK_STREQ(rs_dtype_name(d), "invalid");
    CHECK_EQ_I64(rs_dtype_valid(d), 0);
  }
  CHECK_EQ_I64(rs_dtype_valid(RS_DTYPE_COUNT), 0);
}

static void test_from_name_round_trip(rs_context *ctx) {
  (void)ctx;
  for (int i = 0; i < NREF; i++) {
    rs_dtype d = (rs_dtype)-1;
    CHECK_OK(rs_dtype_from_name(ref[i].name, &d));
    CHECK_EQ_I64(d, ref[i].dt);
    /* and back through rs_dtype_name */
    rs_dtype d2 = (rs_dtype)-1;
    CHECK_OK(rs_dtype_from_name(rs_dtype_name(d), &d2));
    CHECK_EQ_I64(d2, d);
  }
}

static void test_aliases(rs_context *ctx) {
  (void)ctx;
  /* The aliases the header lists, with NumPy's meaning: np.dtype("float") is float64,
   * np.dtype("int") is int64 (on LP64 Linux), "double" is float64. */
  const struct {
    const char *alias;
    rs_dtype dt;
  } al[] = {
      {"f4", RS_FLOAT32}, {"f8", RS_FLOAT64}, {"i4", RS_INT32},     {"i8", RS_INT64},
      {"double", RS_FLOAT64}, {"int", RS_INT64}, {"float", RS_FLOAT64},
  };
  for (size_t i = 0; i < sizeof al / sizeof al[0]; i++) {
    rs_dtype d = (rs_dtype)-1;
    CHECK_OK(rs_dtype_from_name(al[i].alias, &d));
    CHECK_MSG(d == al[i].dt, "alias \"%s\" parsed as %s, NumPy says %s", al[i].alias,
              rs_dtype_name(d), rs_dtype_name(al[i].dt));
  }
}

static void test_unknown_names(rs_context *ctx) {
  (void)ctx;
  const char *bad[] = {"", "float33", "int128", "cplx", "f3", "floaty", "int32 ", " int32",
                       "unsigned_int", "i4x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rs_dtype d = RS_UINT16;
    rs_clear_error();
    rs_status st = rs_dtype_from_name(bad[i], &d);
    CHECK_MSG(st == RS_ERR_DTYPE, "\"%s\" gave %s", bad[i], rs_status_name(st));
    CHECK_MSG(rs_last_error()[0] != '\0', "no message for \"%s\"", bad[i]);
    CHECK_MSG(d == RS_UINT16, "a failed parse of \"%s\" changed the output", bad[i]);
    if (bad[i][0] && bad[i][0] != ' ' && bad[i][strlen(bad[i]) - 1] != ' ')
      CHECK_ERRMSG(bad[i]);
  }
  rs_dtype d;
  CHECK_STATUS(rs_dtype_from_name(NULL, &d), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_dtype_from_name("float32", NULL), RS_ERR_NULL_POINTER);
}

static const rs_test_case tests[] = {
    RS_TEST(test_sizes_and_names), RS_TEST(test_invalid_values),
    RS_TEST(test_from_name_round_trip), RS_TEST(test_aliases), RS_TEST(test_unknown_names),
};
RS_TEST_MAIN(tests)
