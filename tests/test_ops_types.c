/* Type rules of the array operations against NumPy itself: the result dtype (or the
 * refusal) of every binary op for every pair of dtypes, every unary op for every dtype,
 * weak Python scalars (NEP 50), reductions, and the scalar overflow error. Run on the
 * host path (1-element arrays), so it takes a second on any backend. */
#include "ops_testlib.h"
#include "core/dtype_rules.h"

/* Ops where this library refuses on purpose what NumPy computes: complex is not ordered. */
static int known_deviation(rs_op op, rs_dtype a, rs_dtype b) {
  int cplx = tl_is_complex(a) || tl_is_complex(b);
  switch (op) {
    case RS_OP_MAXIMUM: case RS_OP_MINIMUM: case RS_OP_FMAX: case RS_OP_FMIN: case RS_OP_LESS:
    case RS_OP_LESS_EQUAL: case RS_OP_GREATER: case RS_OP_GREATER_EQUAL:
      return cplx;
    case RS_OP_RINT: case RS_OP_ARCSIN: case RS_OP_ARCCOS: case RS_OP_ARCTAN: case RS_OP_ARCSINH:
    case RS_OP_ARCCOSH: case RS_OP_ARCTANH: case RS_OP_EXP2: case RS_OP_EXPM1: case RS_OP_LOG2:
    case RS_OP_LOG10: case RS_OP_LOG1P: case RS_OP_POSITIVE:
      return cplx || (op == RS_OP_POSITIVE && a == RS_BOOL);
    default:
      return 0;
  }
}

/* Run a Python script that prints one line per case; read the lines into `lines`. */
static char *run_python(const char *script, const char *tag) {
  char dir[] = "/tmp/rs_types_XXXXXX";
  if (!mkdtemp(dir)) return NULL;
  char path[96], cmd[1024];
  snprintf(path, sizeof path, "%s/t.py", dir);
  FILE *f = fopen(path, "w");
  if (!f) return NULL;
  fputs(script, f);
  fclose(f);
  const char *py = getenv("RESIDENT_TEST_PYTHON");
  snprintf(cmd, sizeof cmd, "'%s' %s > %s/out.txt 2>%s/err.txt", py && *py ? py : "python3", path, dir, dir);
  int rc = system(cmd);
  snprintf(path, sizeof path, "%s/out.txt", dir);
  f = fopen(path, "r");
  char *text = NULL;
  if (f && rc == 0) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(1, (size_t)n + 1);
    if (fread(text, 1, (size_t)n, f) != (size_t)n) text[0] = '\0';
  } else {
    printf("    python failed for %s\n", tag);
  }
  if (f) fclose(f);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0) {
  }
  return text;
}

static const char *np_dtype_list =
    "T = ['bool','int8','int16','int32','int64','uint8','uint16','uint32','uint64','float16','float32',"
    "'float64','complex64','complex128']\n";

static rs_status one(rs_array **out, rs_context *ctx, rs_dtype d) {
  int64_t n = 1;
  H_OK(rs_ones(out, ctx, RS_MEM_HOST, 1, &n, d, NULL));
  return RS_OK;
}

static void test_promote_types(rs_context *ctx) {
  (void)ctx;
  if (!tl_np_available()) return;
  char script[4096];
  snprintf(script, sizeof script,
           "import numpy as np\n%s"
           "for a in T:\n  print(' '.join(str(T.index(str(np.promote_types(a, b)))) for b in T))\n",
           np_dtype_list);
  char *text = run_python(script, "promote_types");
  CHECK(text != NULL);
  char *p = text;
  for (int i = 0; i < TL_NDTYPES; i++)
    for (int j = 0; j < TL_NDTYPES; j++) {
      long want = strtol(p, &p, 10);
      rs_dtype got = rs_promote(tl_all_dtypes[i], tl_all_dtypes[j]);
      if ((long)got != want) {
        free(text);
        FAIL("promote(%s, %s) = %s, NumPy says %s", rs_dtype_name(tl_all_dtypes[i]), rs_dtype_name(tl_all_dtypes[j]),
             rs_dtype_name(got), rs_dtype_name((rs_dtype)want));
      }
      CHECK(rs_can_cast_same_kind(tl_all_dtypes[i], tl_all_dtypes[j]) >= 0);
    }
  free(text);
}

static void test_same_kind(rs_context *ctx) {
  (void)ctx;
  if (!tl_np_available()) return;
  char script[4096];
  snprintf(script, sizeof script,
           "import numpy as np\n%s"
           "for a in T:\n  print(' '.join('1' if np.can_cast(a, b, 'same_kind') else '0' for b in T))\n",
           np_dtype_list);
  char *text = run_python(script, "can_cast");
  CHECK(text != NULL);
  char *p = text;
  for (int i = 0; i < TL_NDTYPES; i++)
    for (int j = 0; j < TL_NDTYPES; j++) {
      long want = strtol(p, &p, 10);
      int got = rs_can_cast_same_kind(tl_all_dtypes[i], tl_all_dtypes[j]);
      if (got != want) {
        free(text);
        FAIL("can_cast(%s, %s, same_kind) = %d, NumPy says %ld", rs_dtype_name(tl_all_dtypes[i]),
             rs_dtype_name(tl_all_dtypes[j]), got, want);
      }
    }
  free(text);
}

/* NumPy's result dtype index, or -1 when it raises. */
static const char *np_ufunc_table =
    "def res(f, *xs):\n"
    "  try:\n"
    "    return str(T.index(str(f(*xs).dtype)))\n"
    "  except Exception:\n"
    "    return '-1'\n";

static void test_binary_result_types(rs_context *ctx) {
  if (!tl_np_available()) return;
  char script[8192];
  size_t used = (size_t)snprintf(script, sizeof script, "import numpy as np, warnings\nwarnings.filterwarnings('ignore')\n%s%sops = [",
                                 np_dtype_list, np_ufunc_table);
  int nbin = 0;
  for (int op = 0; op < RS_OP_COUNT; op++)
    if (rs_op_arity((rs_op)op) == 2) {
      used += (size_t)snprintf(script + used, sizeof script - used, "%snp.%s", nbin ? ", " : "", rs_op_name((rs_op)op));
      nbin++;
    }
  snprintf(script + used, sizeof script - used,
           "]\nfor f in ops:\n  for a in T:\n    print(' '.join(res(f, np.ones(1, a), np.ones(1, b)) for b in T))\n");
  char *text = run_python(script, "binary ops");
  CHECK(text != NULL);
  char *p = text;
  rs_array *arr[TL_NDTYPES];
  for (int i = 0; i < TL_NDTYPES; i++) {
    arr[i] = NULL;
    CHECK_OK(one(&arr[i], ctx, tl_all_dtypes[i]));
  }
  int bad = 0;
  for (int op = 0; op < RS_OP_COUNT && !bad; op++) {
    if (rs_op_arity((rs_op)op) != 2) continue;
    for (int i = 0; i < TL_NDTYPES && !bad; i++)
      for (int j = 0; j < TL_NDTYPES && !bad; j++) {
        long want = strtol(p, &p, 10);
        rs_array *r = NULL;
        rs_status st = rs_binary(&r, (rs_op)op, arr[i], arr[j], NULL);
        long got = st == RS_OK ? (long)rs_array_dtype(r) : -1;
        rs_array_release(r);
        if (got == want || known_deviation((rs_op)op, tl_all_dtypes[i], tl_all_dtypes[j])) continue;
        printf("    FAIL %s(%s, %s): got %s (%s), NumPy %s\n", rs_op_name((rs_op)op), rs_dtype_name(tl_all_dtypes[i]),
               rs_dtype_name(tl_all_dtypes[j]), got < 0 ? "error" : rs_dtype_name((rs_dtype)got),
               st ? rs_last_error() : "ok", want < 0 ? "error" : rs_dtype_name((rs_dtype)want));
        bad = 1;
      }
  }
  for (int i = 0; i < TL_NDTYPES; i++) rs_array_release(arr[i]);
  free(text);
  CHECK(!bad);
}

static void test_unary_result_types(rs_context *ctx) {
  if (!tl_np_available()) return;
  char script[8192];
  size_t used = (size_t)snprintf(script, sizeof script, "import numpy as np, warnings\nwarnings.filterwarnings('ignore')\n%s%sops = [",
                                 np_dtype_list, np_ufunc_table);
  int nun = 0;
  for (int op = 0; op < RS_OP_COUNT; op++)
    if (rs_op_arity((rs_op)op) == 1) {
      used += (size_t)snprintf(script + used, sizeof script - used, "%snp.%s", nun ? ", " : "", rs_op_name((rs_op)op));
      nun++;
    }
  snprintf(script + used, sizeof script - used, "]\nfor f in ops:\n  print(' '.join(res(f, np.ones(1, a)) for a in T))\n");
  char *text = run_python(script, "unary ops");
  CHECK(text != NULL);
  char *p = text;
  int bad = 0;
  for (int op = 0; op < RS_OP_COUNT && !bad; op++) {
    if (rs_op_arity((rs_op)op) != 1) continue;
    for (int i = 0; i < TL_NDTYPES && !bad; i++) {
      long want = strtol(p, &p, 10);
      rs_array *a = NULL, *r = NULL;
      CHECK_OK(one(&a, ctx, tl_all_dtypes[i]));
      rs_status st = rs_unary(&r, (rs_op)op, a, NULL);
      long got = st == RS_OK ? (long)rs_array_dtype(r) : -1;
      rs_array_release(r);
      rs_array_release(a);
      if (got == want || known_deviation((rs_op)op, tl_all_dtypes[i], tl_all_dtypes[i])) continue;
      printf("    FAIL %s(%s): got %s (%s), NumPy %s\n", rs_op_name((rs_op)op), rs_dtype_name(tl_all_dtypes[i]),
             got < 0 ? "error" : rs_dtype_name((rs_dtype)got), st ? rs_last_error() : "ok",
             want < 0 ? "error" : rs_dtype_name((rs_dtype)want));
      bad = 1;
    }
  }
  free(text);
  CHECK(!bad);
}

/* Python scalars of each kind next to each dtype (NEP 50) for a few ops. */
static void test_weak_scalars(rs_context *ctx) {
  if (!tl_np_available()) return;
  static const char *pyvals[] = {"True", "1", "1.0", "1j"};
  const rs_scalar vals[] = {rs_scalar_bool(1), rs_scalar_int(1), rs_scalar_float(1), rs_scalar_complex(0, 1)};
  const rs_op ops[] = {RS_OP_ADD, RS_OP_MULTIPLY, RS_OP_DIVIDE, RS_OP_EQUAL, RS_OP_POWER};
  const char *opn[] = {"add", "multiply", "divide", "equal", "power"};
  char script[4096];
  size_t used = (size_t)snprintf(script, sizeof script, "import numpy as np, warnings\nwarnings.filterwarnings('ignore')\n%s%s",
                                 np_dtype_list, np_ufunc_table);
  for (int o = 0; o < 5; o++)
    for (int v = 0; v < 4; v++)
      used += (size_t)snprintf(script + used, sizeof script - used,
                               "print(' '.join(res(np.%s, np.ones(1, a), %s) + ' ' + res(np.%s, %s, np.ones(1, a)) for a in T))\n",
                               opn[o], pyvals[v], opn[o], pyvals[v]);
  char *text = run_python(script, "scalars");
  CHECK(text != NULL);
  char *p = text;
  int bad = 0;
  for (int o = 0; o < 5 && !bad; o++)
    for (int v = 0; v < 4 && !bad; v++)
      for (int i = 0; i < TL_NDTYPES && !bad; i++) {
        long want1 = strtol(p, &p, 10), want2 = strtol(p, &p, 10);
        rs_array *a = NULL, *r1 = NULL, *r2 = NULL;
        CHECK_OK(one(&a, ctx, tl_all_dtypes[i]));
        rs_status s1 = rs_binary_scalar(&r1, ops[o], a, vals[v], NULL);
        rs_status s2 = rs_scalar_binary(&r2, ops[o], vals[v], a, NULL);
        long got1 = s1 == RS_OK ? (long)rs_array_dtype(r1) : -1, got2 = s2 == RS_OK ? (long)rs_array_dtype(r2) : -1;
        tl_release(3, a, r1, r2);
        if ((got1 != want1 || got2 != want2) && !known_deviation(ops[o], tl_all_dtypes[i], tl_all_dtypes[i])) {
          printf("    FAIL %s(%s array, %s): got %ld/%ld, NumPy %ld/%ld\n", opn[o], rs_dtype_name(tl_all_dtypes[i]),
                 pyvals[v], got1, got2, want1, want2);
          bad = 1;
        }
      }
  free(text);
  CHECK(!bad);
}

static void test_scalar_overflow(rs_context *ctx) {
  rs_array *a = NULL, *r = NULL;
  CHECK_OK(one(&a, ctx, RS_UINT8));
  CHECK_STATUS(rs_binary_scalar(&r, RS_OP_ADD, a, rs_scalar_int(-1), NULL), RS_ERR_OVERFLOW);
  CHECK_STATUS(rs_binary_scalar(&r, RS_OP_ADD, a, rs_scalar_int(256), NULL), RS_ERR_OVERFLOW);
  CHECK(r == NULL);
  CHECK_OK(rs_binary_scalar(&r, RS_OP_ADD, a, rs_scalar_int(255), NULL));
  CHECK_EQ_I64(rs_array_dtype(r), RS_UINT8);
  tl_release(2, a, r);
}

static void test_reduce_result_types(rs_context *ctx) {
  if (!tl_np_available()) return;
  char script[4096];
  snprintf(script, sizeof script,
           "import numpy as np, warnings\nwarnings.filterwarnings('ignore')\n%s%s"
           "for f in [np.sum, np.prod, np.mean, np.min, np.max, np.argmin, np.argmax, np.all, np.any]:\n"
           "  print(' '.join(res(f, np.ones(3, a)) for a in T))\n",
           np_dtype_list, np_ufunc_table);
  char *text = run_python(script, "reductions");
  CHECK(text != NULL);
  char *p = text;
  int bad = 0;
  for (int op = 0; op < RS_REDUCE_COUNT && !bad; op++)
    for (int i = 0; i < TL_NDTYPES && !bad; i++) {
      long want = strtol(p, &p, 10);
      rs_array *a = NULL, *r = NULL;
      int64_t n = 3;
      CHECK_OK(rs_ones(&a, ctx, RS_MEM_HOST, 1, &n, tl_all_dtypes[i], NULL));
      rs_status st = rs_reduce(&r, (rs_reduce_op)op, a, 0, NULL, 0, NULL);
      long got = st == RS_OK ? (long)rs_array_dtype(r) : -1;
      if (st == RS_OK) CHECK_EQ_I64(rs_array_ndim(r), 0);
      tl_release(2, a, r);
      int deviation = tl_is_complex(tl_all_dtypes[i]) && op >= RS_REDUCE_MIN && op <= RS_REDUCE_ARGMAX;
      if (got != want && !deviation) {
        printf("    FAIL %s(%s): got %ld, NumPy %ld\n", rs_reduce_op_name((rs_reduce_op)op), rs_dtype_name(tl_all_dtypes[i]),
               got, want);
        bad = 1;
      }
    }
  free(text);
  CHECK(!bad);
}

static const rs_test_case tests[] = {
    RS_TEST(test_promote_types),      RS_TEST(test_same_kind),     RS_TEST(test_binary_result_types),
    RS_TEST(test_unary_result_types), RS_TEST(test_weak_scalars),  RS_TEST(test_scalar_overflow),
    RS_TEST(test_reduce_result_types),
};
RS_TEST_MAIN(tests)
