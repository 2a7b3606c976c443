/* tests/ops_testlib.h - what the array-operation tests share (header-only, after
 * harness.h):
 *
 *   - deterministic input arrays of every dtype, on the device or the host, with special
 *     values (0, -0, inf, nan) on request;
 *   - NumPy references: inputs are written as .npy files, one Python process evaluates a
 *     batch of expressions and saves the results (or the exception's name) as .npy files,
 *     which are read back as host arrays. Without python3 + numpy the NumPy checks are
 *     skipped (said once on stdout); the tests then still compare the device with the
 *     host path (two independent implementations on the CUDA backend);
 *   - comparison of two arrays of any dtype with rtol / atol, NaN equal to NaN.
 */
#ifndef RS_TEST_OPS_TESTLIB_H
#define RS_TEST_OPS_TESTLIB_H

#include <complex.h>
#include <stdarg.h>
#include <sys/stat.h>
#include "harness.h"
#include "resident/linalg.h"
#include "resident/ops.h"
#include "resident/random.h"
#include "resident/reduce.h"
#include "resident/sort.h"
#include "resident/ledger.h"
#include "core/half.h"

/* ---- dtypes ----------------------------------------------------------------------------- */

static const rs_dtype tl_all_dtypes[] = {RS_BOOL,   RS_INT8,    RS_INT16,   RS_INT32,     RS_INT64,
                                         RS_UINT8,  RS_UINT16,  RS_UINT32,  RS_UINT64,    RS_FLOAT16,
                                         RS_FLOAT32, RS_FLOAT64, RS_COMPLEX64, RS_COMPLEX128};
#define TL_NDTYPES ((int)(sizeof tl_all_dtypes / sizeof tl_all_dtypes[0]))

static inline int tl_is_float(rs_dtype d) { return d == RS_FLOAT16 || d == RS_FLOAT32 || d == RS_FLOAT64; }
static inline int tl_is_complex(rs_dtype d) { return d == RS_COMPLEX64 || d == RS_COMPLEX128; }
static inline int tl_is_int(rs_dtype d) { return d >= RS_INT8 && d <= RS_UINT64; }

static inline const char *tl_npy_descr(rs_dtype d) {
  static const char *names[] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4",
                                "<u8", "<f2", "<f4", "<f8", "<c8", "<c16"};
  return (unsigned)d < RS_DTYPE_COUNT ? names[d] : "?";
}

/* ---- values ------------------------------------------------------------------------------ */

/* Element i of dtype d as (re, im). */
static inline void tl_get(const void *buf, rs_dtype d, int64_t i, double *re, double *im) {
  const char *p = (const char *)buf + (size_t)i * rs_dtype_size(d);
  *im = 0;
  switch (d) {
    case RS_BOOL: *re = *(const uint8_t *)p != 0; break;
    case RS_INT8: *re = *(const int8_t *)p; break;
    case RS_INT16: *re = *(const int16_t *)p; break;
    case RS_INT32: *re = *(const int32_t *)p; break;
    case RS_INT64: *re = (double)*(const int64_t *)p; break;
    case RS_UINT8: *re = *(const uint8_t *)p; break;
    case RS_UINT16: *re = *(const uint16_t *)p; break;
    case RS_UINT32: *re = *(const uint32_t *)p; break;
    case RS_UINT64: *re = (double)*(const uint64_t *)p; break;
    case RS_FLOAT16: *re = rs_half_to_float(*(const uint16_t *)p); break;
    case RS_FLOAT32: *re = *(const float *)p; break;
    case RS_FLOAT64: *re = *(const double *)p; break;
    case RS_COMPLEX64: *re = ((const float *)p)[0], *im = ((const float *)p)[1]; break;
    default: *re = ((const double *)p)[0], *im = ((const double *)p)[1]; break;
  }
}

/* Exact integer element (for int64/uint64 comparisons double would round). */
static inline int tl_get_exact(const void *buf, rs_dtype d, int64_t i, uint64_t *bits) {
  const char *p = (const char *)buf + (size_t)i * rs_dtype_size(d);
  if (d == RS_INT64 || d == RS_UINT64) {
    memcpy(bits, p, 8);
    return 1;
  }
  return 0;
}

static inline void tl_set(void *buf, rs_dtype d, int64_t i, double re, double im) {
  char *p = (char *)buf + (size_t)i * rs_dtype_size(d);
  switch (d) {
    case RS_BOOL: *(uint8_t *)p = re != 0; break;
    case RS_INT8: *(int8_t *)p = (int8_t)re; break;
    case RS_INT16: *(int16_t *)p = (int16_t)re; break;
    case RS_INT32: *(int32_t *)p = (int32_t)re; break;
    case RS_INT64: *(int64_t *)p = (int64_t)re; break;
    case RS_UINT8: *(uint8_t *)p = (uint8_t)re; break;
    case RS_UINT16: *(uint16_t *)p = (uint16_t)re; break;
    case RS_UINT32: *(uint32_t *)p = (uint32_t)re; break;
    case RS_UINT64: *(uint64_t *)p = (uint64_t)re; break;
    case RS_FLOAT16: *(uint16_t *)p = rs_double_to_half(re); break;
    case RS_FLOAT32: *(float *)p = (float)re; break;
    case RS_FLOAT64: *(double *)p = re; break;
    case RS_COMPLEX64: ((float *)p)[0] = (float)re, ((float *)p)[1] = (float)im; break;
    default: ((double *)p)[0] = re, ((double *)p)[1] = im; break;
  }
}

/* A deterministic value for element i: small integers (signed types include negatives,
 * so wrap-around and floor division are exercised), quarter steps for floats; with
 * `special`, every 7th float element is one of 0, -0, inf, -inf, nan. */
static inline void tl_value(rs_dtype d, int64_t i, uint64_t seed, int special, double *re, double *im) {
  uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull;
  h ^= h >> 31;
  h *= 0xD6E8FEB86969A4D5ull;
  h ^= h >> 29;
  int v = (int)(h % 41) - 20; /* -20 .. 20 */
  *im = 0;
  if (d == RS_BOOL) {
    *re = (h >> 8) & 1;
  } else if (d >= RS_UINT8 && d <= RS_UINT64) {
    *re = (double)((h >> 8) % 60);
  } else if (tl_is_int(d)) {
    *re = v * (d == RS_INT8 ? 3 : 7);
    if (d == RS_INT8 && *re < -128) *re = -128;
  } else {
    *re = v / 4.0;
    *im = tl_is_complex(d) ? (double)((int)((h >> 20) % 17) - 8) / 4.0 : 0;
    if (special && i % 7 == 3) {
      static const double sp[5] = {0.0, -0.0, INFINITY, -INFINITY, NAN};
      *re = sp[(i / 7) % 5];
    }
  }
}

/* A new array (any kind) filled with tl_value(). */
static inline rs_status tl_make(rs_array **out, rs_context *ctx, rs_mem_kind where, rs_dtype d, int ndim,
                                const int64_t *shape, uint64_t seed, int special) {
  H_OK(rs_empty(out, ctx, where, ndim, shape, d));
  int64_t n = rs_array_size(*out);
  void *buf = malloc((size_t)(n > 0 ? n : 1) * rs_dtype_size(d));
  for (int64_t i = 0; i < n; i++) {
    double re, im;
    tl_value(d, i, seed, special, &re, &im);
    tl_set(buf, d, i, re, im);
  }
  rs_status st = n > 0 ? rs_t_write_(*out, buf) : RS_OK;
  free(buf);
  return st;
}

/* ---- .npy files --------------------------------------------------------------------------- */

static inline int tl_npy_write(const char *path, rs_dtype d, int ndim, const int64_t *shape, const void *data) {
  char dict[512], shp[256] = "";
  size_t used = 0;
  int64_t n = 1;
  for (int k = 0; k < ndim; k++) {
    used += (size_t)snprintf(shp + used, sizeof shp - used, "%lld,%s", (long long)shape[k], k + 1 < ndim ? " " : "");
    n *= shape[k];
  }
  int len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", tl_npy_descr(d), shp);
  int total = 10 + len + 1;
  int pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
  uint16_t hl = (uint16_t)(len + pad + 1);
  pre[8] = (unsigned char)(hl & 0xff);
  pre[9] = (unsigned char)(hl >> 8);
  fwrite(pre, 1, 10, f);
  fwrite(dict, 1, (size_t)len, f);
  for (int i = 0; i < pad; i++) fputc(' ', f);
  fputc('\n', f);
  if (n > 0) fwrite(data, rs_dtype_size(d), (size_t)n, f);
  fclose(f);
  return 0;
}

/* Read a C-order .npy into a new host array. */
static inline int tl_npy_read(const char *path, rs_context *ctx, rs_array **out) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  unsigned char pre[10];
  if (fread(pre, 1, 10, f) != 10 || pre[0] != 0x93) {
    fclose(f);
    return -1;
  }
  size_t hl = pre[8] | ((size_t)pre[9] << 8);
  char *hdr = calloc(1, hl + 1);
  if (fread(hdr, 1, hl, f) != hl) {
    free(hdr);
    fclose(f);
    return -1;
  }
  rs_dtype d = RS_DTYPE_COUNT;
  const char *ds = strstr(hdr, "'descr': '");
  if (ds) {
    ds += 10;
    for (int i = 0; i < RS_DTYPE_COUNT; i++) {
      const char *nm = tl_npy_descr((rs_dtype)i);
      /* '|b1' may come as '|b1'; '<i8' etc.; compare without the byte-order mark */
      if (strncmp(ds + 1, nm + 1, strlen(nm) - 1) == 0 && ds[strlen(nm)] == '\'') d = (rs_dtype)i;
    }
  }
  int ndim = 0;
  int64_t shape[RS_MAX_DIMS];
  const char *ss = strstr(hdr, "'shape': (");
  if (ss) {
    ss += 10;
    while (*ss && *ss != ')') {
      char *end;
      long long v = strtoll(ss, &end, 10);
      if (end == ss) break;
      shape[ndim++] = v;
      ss = end;
      while (*ss == ',' || *ss == ' ') ss++;
    }
  }
  int fortran = strstr(hdr, "'fortran_order': True") != NULL;
  free(hdr);
  if (d == RS_DTYPE_COUNT || fortran) {
    fclose(f);
    return -1;
  }
  if (rs_host_array(out, ctx, ndim, shape, d, NULL, RS_ORDER_C) != RS_OK) {
    fclose(f);
    return -1;
  }
  size_t n = (size_t)rs_array_size(*out);
  size_t got = n ? fread(rs_array_host_data(*out), rs_dtype_size(d), n, f) : 0;
  fclose(f);
  return got == n ? 0 : -1;
}

/* ---- batches of NumPy expressions ---------------------------------------------------------- */

typedef struct tl_np {
  char dir[64];
  FILE *py;
  int nin, nout;
  int usable;
} tl_np;

/* The Python with NumPy that CTest found (RESIDENT_TEST_PYTHON, the project's .venv made
 * by scripts/deps.sh), else python3 on PATH. */
static inline const char *tl_python(void) {
  const char *p = getenv("RESIDENT_TEST_PYTHON");
  return p && *p ? p : "python3";
}

static inline int tl_np_available(void) {
  static int known = -1;
  if (known < 0) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' -c 'import numpy' >/dev/null 2>&1", tl_python());
    known = system(cmd) == 0;
    if (!known) printf("    note: python3 with numpy not found - NumPy reference checks are skipped\n");
  }
  return known;
}

static inline void tl_np_begin(tl_np *b) {
  memset(b, 0, sizeof *b);
  b->usable = tl_np_available();
  if (!b->usable) return;
  snprintf(b->dir, sizeof b->dir, "/tmp/rs_np_XXXXXX");
  if (!mkdtemp(b->dir)) {
    b->usable = 0;
    return;
  }
  char path[128];
  snprintf(path, sizeof path, "%s/run.py", b->dir);
  b->py = fopen(path, "w");
  if (!b->py) {
    b->usable = 0;
    return;
  }
  fprintf(b->py,
          "import numpy as np, warnings\n"
          "warnings.filterwarnings('ignore')\n"
          "np.seterr(all='ignore')\n"
          "D = '%s'\n"
          "def save(k, f):\n"
          "    try:\n"
          "        r = np.array(np.asarray(f()), order='C')\n"
          "        np.save(D + '/out%%d.npy' %% k, r)\n"
          "    except Exception as e:\n"
          "        open(D + '/out%%d.err' %% k, 'w').write(type(e).__name__ + ': ' + str(e))\n",
          b->dir);
}

/* Save an array (any kind, any view) as input aK; returns K, or -1. */
static inline int tl_np_input(tl_np *b, const rs_array *a) {
  if (!b->usable) return -1;
  int64_t n = rs_array_size(a);
  void *buf = malloc((size_t)(n > 0 ? n : 1) * rs_array_itemsize(a));
  if (n > 0 && rs_t_read_(a, buf) != RS_OK) {
    free(buf);
    return -1;
  }
  char path[160];
  int k = b->nin++;
  snprintf(path, sizeof path, "%s/in%d.npy", b->dir, k);
  tl_npy_write(path, rs_array_dtype(a), rs_array_ndim(a), rs_array_shape(a), buf);
  free(buf);
  fprintf(b->py, "a%d = np.load(D + '/in%d.npy')\n", k, k);
  return k;
}

/* Queue an expression (Python, over a0, a1, ...); returns its result number. */
static inline int tl_np_expr(tl_np *b, const char *fmt, ...) {
  if (!b->usable) return -1;
  int k = b->nout++;
  fprintf(b->py, "save(%d, lambda: (", k);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(b->py, fmt, ap);
  va_end(ap);
  fprintf(b->py, "))\n");
  return k;
}

/* Run the batch; 0 on success. */
static inline int tl_np_run(tl_np *b) {
  if (!b->usable) return -1;
  fclose(b->py);
  b->py = NULL;
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' %s/run.py > %s/log.txt 2>&1", tl_python(), b->dir, b->dir);
  if (system(cmd) != 0) {
    printf("    note: the NumPy batch failed (see %s/log.txt)\n", b->dir);
    b->usable = 0;
    return -1;
  }
  return 0;
}

/* Result K: 1 and a new host array, 0 and the exception's text in err when NumPy raised,
 * -1 when not available. */
static inline int tl_np_result(tl_np *b, int k, rs_context *ctx, rs_array **out, char *err, size_t errlen) {
  *out = NULL;
  if (!b->usable || k < 0) return -1;
  char path[160];
  snprintf(path, sizeof path, "%s/out%d.npy", b->dir, k);
  if (tl_npy_read(path, ctx, out) == 0) return 1;
  snprintf(path, sizeof path, "%s/out%d.err", b->dir, k);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t got = fread(err, 1, errlen - 1, f);
  err[got] = '\0';
  fclose(f);
  return 0;
}

static inline void tl_np_end(tl_np *b) {
  if (b->py) fclose(b->py);
  if (b->dir[0]) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", b->dir);
    if (system(cmd) != 0) { /* a leftover temporary directory is harmless */
    }
  }
  b->dir[0] = '\0';
}

/* ---- comparing ---------------------------------------------------------------------------- */

static inline int tl_close1(double g, double w, double rtol, double atol) {
  if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
  if (isinf(g) || isinf(w)) return g == w;
  return fabs(g - w) <= atol + rtol * fabs(w);
}

/* 1 when got and want have equal shapes (and dtypes, unless any_dtype) and every element
 * is close; else 0 with a message naming the first difference. */
static inline int tl_compare(const rs_array *got, const rs_array *want, double rtol, double atol, int any_dtype,
                             char *msg, size_t len) {
  char a[600], b[600];
  if (rs_array_ndim(got) != rs_array_ndim(want) ||
      memcmp(rs_array_shape(got), rs_array_shape(want), (size_t)rs_array_ndim(got) * sizeof(int64_t)) != 0 ||
      (!any_dtype && rs_array_dtype(got) != rs_array_dtype(want))) {
    snprintf(msg, len, "got %s, want %s", rs_array_describe(got, a, sizeof a), rs_array_describe(want, b, sizeof b));
    return 0;
  }
  int64_t n = rs_array_size(got);
  rs_dtype dg = rs_array_dtype(got), dw = rs_array_dtype(want);
  void *bg = malloc((size_t)(n > 0 ? n : 1) * rs_dtype_size(dg)), *bw = malloc((size_t)(n > 0 ? n : 1) * rs_dtype_size(dw));
  int ok = 1;
  if (n > 0 && (rs_t_read_(got, bg) != RS_OK || rs_t_read_(want, bw) != RS_OK)) {
    snprintf(msg, len, "reading the arrays failed");
    ok = 0;
  }
  for (int64_t i = 0; ok && i < n; i++) {
    uint64_t xg, xw;
    if (dg == dw && tl_get_exact(bg, dg, i, &xg) && tl_get_exact(bw, dw, i, &xw)) {
      if (xg != xw) {
        snprintf(msg, len, "element %lld: got %llu, want %llu (%s)", (long long)i, (unsigned long long)xg,
                 (unsigned long long)xw, rs_dtype_name(dg));
        ok = 0;
      }
      continue;
    }
    double gr, gi, wr, wi;
    tl_get(bg, dg, i, &gr, &gi);
    tl_get(bw, dw, i, &wr, &wi);
    if (!tl_close1(gr, wr, rtol, atol) || !tl_close1(gi, wi, rtol, atol)) {
      snprintf(msg, len, "element %lld: got %.17g%+.17gj, want %.17g%+.17gj (%s, rtol %g, atol %g)", (long long)i, gr, gi,
               wr, wi, rs_dtype_name(dg), rtol, atol);
      ok = 0;
    }
  }
  free(bg);
  free(bw);
  return ok;
}

/* Tolerances fitting a dtype's precision (transcendental functions differ by an ulp or
 * two between libm, NumPy's own loops and CUDA). */
static inline double tl_rtol(rs_dtype d) {
  switch (d) {
    case RS_FLOAT16: return 2e-3;
    case RS_FLOAT32:
    case RS_COMPLEX64: return 2e-6;
    case RS_FLOAT64:
    case RS_COMPLEX128: return 1e-13;
    default: return 0;
  }
}

#define CHECK_CLOSE_ARR(got, want, rtol, atol)                                              \
  do {                                                                                      \
    char tl_msg_[1024];                                                                     \
    if (!tl_compare((got), (want), (rtol), (atol), 0, tl_msg_, sizeof tl_msg_))            \
      FAIL("%s vs %s: %s", #got, #want, tl_msg_);                                           \
  } while (0)

/* Release a list of arrays (NULLs skipped). */
static inline void tl_release(int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) rs_array_release(va_arg(ap, rs_array *));
  va_end(ap);
}

/* ---- suites: cases computed on the device and on the host, checked against NumPy ---- */

typedef struct ew_case {
  char label[128];
  rs_array *dev, *host; /* results (NULL if the call failed) */
  rs_status sdev, shost;
  int np;               /* NumPy result number */
  double rtol, atol;
} ew_case;

#define MAX_CASES 1200

typedef struct ew_suite {
  ew_case c[MAX_CASES];
  int n;
  tl_np np;
} ew_suite;

static inline ew_suite *suite_new(void) {
  ew_suite *s = calloc(1, sizeof *s);
  tl_np_begin(&s->np);
  return s;
}

static inline ew_case *suite_add(ew_suite *s, const char *fmt, ...) {
  ew_case *c = &s->c[s->n++];
  memset(c, 0, sizeof *c);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->label, sizeof c->label, fmt, ap);
  va_end(ap);
  c->np = -1;
  return c;
}

/* Compare every case with NumPy (and device with host); returns the number of failures. */
static inline int suite_check(ew_suite *s, rs_context *ctx) {
  tl_np_run(&s->np);
  int bad = 0;
  for (int i = 0; i < s->n; i++) {
    ew_case *c = &s->c[i];
    rs_array *want = NULL;
    char err[512] = "", msg[1024];
    int r = tl_np_result(&s->np, c->np, ctx, &want, err, sizeof err);
    if (r == 0) { /* NumPy raised: we must refuse too */
      if (c->sdev == RS_OK || c->shost == RS_OK) {
        printf("    FAIL %s: NumPy raised (%s) but resident computed\n", c->label, err);
        bad++;
      }
    } else if (c->sdev != RS_OK || c->shost != RS_OK) {
      printf("    FAIL %s: device %s, host %s: %s\n", c->label, rs_status_name(c->sdev), rs_status_name(c->shost),
             rs_last_error());
      bad++;
    } else {
      if (r == 1 && !tl_compare(c->dev, want, c->rtol, c->atol, 0, msg, sizeof msg)) {
        printf("    FAIL %s (device): %s\n", c->label, msg);
        bad++;
      } else if (r == 1 && !tl_compare(c->host, want, c->rtol, c->atol, 0, msg, sizeof msg)) {
        printf("    FAIL %s (host): %s\n", c->label, msg);
        bad++;
      } else if (!tl_compare(c->dev, c->host, c->rtol, c->atol, 0, msg, sizeof msg)) {
        printf("    FAIL %s (device vs host): %s\n", c->label, msg);
        bad++;
      }
    }
    rs_array_release(want);
    if (bad >= 10) break;
  }
  return bad;
}

static inline void suite_free(ew_suite *s) {
  for (int i = 0; i < s->n; i++) tl_release(2, s->c[i].dev, s->c[i].host);
  tl_np_end(&s->np);
  free(s);
}

/* Both placements of one input: same values on the device and on the host. */
typedef struct pair {
  rs_array *dev, *host;
  int np;
} pair;

static inline rs_status make_pair(pair *p, ew_suite *s, rs_context *ctx, rs_dtype d, int ndim, const int64_t *shape,
                           uint64_t seed, int special) {
  p->dev = p->host = NULL;
  H_OK(tl_make(&p->dev, ctx, RS_MEM_DEVICE, d, ndim, shape, seed, special));
  H_OK(tl_make(&p->host, ctx, RS_MEM_HOST, d, ndim, shape, seed, special));
  p->np = tl_np_input(&s->np, p->host);
  return RS_OK;
}

static inline void free_pair(pair *p) { tl_release(2, p->dev, p->host); }

/* Whether every one of the n float64 elements of a is v (a destination a refused call
 * must leave as it was). */
static inline int tl_all_f64(const rs_array *a, int64_t n, double v) {
  double *back = (double *)malloc((size_t)n * sizeof(double));
  int same = back && rs_t_read_(a, back) == RS_OK;
  for (int64_t i = 0; same && i < n; i++) same = back[i] == v;
  free(back);
  return same;
}

/* make_pair for a stack of n x n matrices (the last two axes) with matrix q made exactly
 * singular: its row 1 and column 1 zeroed. A zero row or column stays exactly zero through
 * an LU with partial pivoting, so a pivot is exactly 0 whether A or A^T is factored. */
static inline rs_status make_pair_singular(pair *p, ew_suite *s, rs_context *ctx, rs_dtype d, int ndim,
                                           const int64_t *shape, uint64_t seed, int64_t q) {
  int64_t n = shape[ndim - 1], total = 1;
  for (int i = 0; i < ndim; i++) total *= shape[i];
  void *buf = malloc((size_t)(total > 0 ? total : 1) * rs_dtype_size(d));
  if (!buf) return RS_ERR_HOST_OUT_OF_MEMORY;
  for (int64_t i = 0; i < total; i++) {
    double re, im;
    int64_t e = i - q * n * n;
    tl_value(d, i, seed, 0, &re, &im);
    if (e >= 0 && e < n * n && (e / n == 1 || e % n == 1)) re = im = 0;
    tl_set(buf, d, i, re, im);
  }
  p->dev = p->host = NULL;
  rs_status st = rs_empty(&p->dev, ctx, RS_MEM_DEVICE, ndim, shape, d);
  if (st == RS_OK) st = rs_empty(&p->host, ctx, RS_MEM_HOST, ndim, shape, d);
  if (st == RS_OK) st = rs_t_write_(p->dev, buf);
  if (st == RS_OK) st = rs_t_write_(p->host, buf);
  free(buf);
  p->np = -1;
  if (st == RS_OK && s) p->np = tl_np_input(&s->np, p->host); /* s NULL: no NumPy mirror */
  return st;
}


#endif
