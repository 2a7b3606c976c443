/* A sequence of API calls decoded from the input: small arrays made on the host or the
 * device (float32/64, int32/64, up to 3 dimensions of up to 4), views of them (slices,
 * transposes, reshapes, added and removed axes), copies both ways, elementwise ops, casts,
 * writes into existing arrays, sums (of all, or along an axis) and releases. Beside each
 * array the harness keeps a plain C model of its values (row-major doubles); every result
 * is read back and compared with the model, and at the end the context must hold nothing.
 *
 * Values stay small integers (below 2^22), so every dtype holds them exactly and every
 * elementwise result must match exactly; sums within a relative 1e-6. Slices use steps up
 * to 3 and bounds within twice the axis: the overflowing ones are a known defect (issue 11
 * item 7) left to RS_FUZZ_KNOWN=1, as is the slice of an empty axis below. */
#include <math.h>
#include "fuzz_util.h"

#define NSLOTS 6
#define MAXN 64 /* elements: 4 * 4 * 4 */
#define LIMIT 4194304.0

typedef struct slot {
  rs_array *a; /* NULL when free */
  int ndim;
  int64_t shape[RS_MAX_DIMS];
  double v[MAXN]; /* logical values, row-major */
  int group;      /* arrays that share memory share a group */
} slot;

static rs_context *ctx;
static slot slots[NSLOTS];
static int next_group;
static const rs_dtype dtypes[] = {RS_FLOAT32, RS_FLOAT64, RS_INT32, RS_INT64};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("RESIDENT_CACHE_DIR", "off", 1);
  if (rs_context_create(&ctx, RS_BACKEND_SIM, 0) != RS_OK) abort();
  return 0;
}

static int64_t count(const slot *s) {
  int64_t n = 1;
  for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
  return n;
}

#define CALL_OK(call)                                                                  \
  do {                                                                                 \
    rs_status st_ = (call);                                                            \
    FZ_ASSERT(st_ == RS_OK, "%s failed: %s", #call, rs_last_error());                  \
  } while (0)

static double read_elem(const char *p, rs_dtype dt) {
  switch (dt) {
    case RS_FLOAT32: return *(const float *)p;
    case RS_FLOAT64: return *(const double *)p;
    case RS_INT32: return *(const int32_t *)p;
    case RS_INT64: return (double)*(const int64_t *)p;
    default: FZ_ASSERT(0, "dtype %d", (int)dt); return 0;
  }
}

/* Compare the array of s with its model, through a host copy read by strides. */
static void check(const slot *s) {
  FZ_ASSERT(rs_array_ndim(s->a) == s->ndim, "ndim %d, model %d", rs_array_ndim(s->a), s->ndim);
  const int64_t *shape = rs_array_shape(s->a);
  for (int i = 0; i < s->ndim; i++)
    FZ_ASSERT(shape[i] == s->shape[i], "axis %d: %lld, model %lld", i, (long long)shape[i],
              (long long)s->shape[i]);
  rs_array *h = NULL;
  CALL_OK(rs_copy_to_host(&h, s->a, NULL));
  const char *base = rs_array_host_data(h);
  const int64_t *st = rs_array_strides(h);
  rs_dtype dt = rs_array_dtype(h);
  int64_t n = count(s), idx[RS_MAX_DIMS] = {0};
  for (int64_t e = 0; e < n; e++) {
    int64_t off = 0, r = e;
    for (int d = s->ndim - 1; d >= 0; d--) {
      idx[d] = r % s->shape[d];
      r /= s->shape[d];
      off += idx[d] * st[d];
    }
    double got = read_elem(base + off, dt);
    FZ_ASSERT(got == s->v[e], "element %lld: %g, model %g", (long long)e, got, s->v[e]);
  }
  CALL_OK(rs_array_release(h));
}

static slot *free_slot(void) {
  for (int i = 0; i < NSLOTS; i++)
    if (!slots[i].a) return &slots[i];
  return NULL;
}

static int alone(const slot *s) {
  for (int i = 0; i < NSLOTS; i++)
    if (slots[i].a && &slots[i] != s && slots[i].group == s->group) return 0;
  return 1;
}

static slot *pick(rs_fz_reader *r) {
  slot *s = &slots[rs_fz_below(r, NSLOTS)];
  return s->a ? s : NULL;
}

static void op_create(rs_fz_reader *r) {
  slot *s = free_slot();
  if (!s) return;
  s->ndim = (int)rs_fz_below(r, 4);
  for (int i = 0; i < s->ndim; i++) s->shape[i] = rs_fz_below(r, 5);
  rs_dtype dt = dtypes[rs_fz_below(r, 4)];
  rs_array *h = NULL;
  CALL_OK(rs_host_array(&h, ctx, s->ndim, s->shape, dt, NULL, RS_ORDER_C));
  char *p = rs_array_host_data(h);
  int64_t n = count(s);
  for (int64_t e = 0; e < n; e++) {
    s->v[e] = (double)((int)rs_fz_below(r, 64) - 32);
    switch (dt) {
      case RS_FLOAT32: ((float *)p)[e] = (float)s->v[e]; break;
      case RS_FLOAT64: ((double *)p)[e] = s->v[e]; break;
      case RS_INT32: ((int32_t *)p)[e] = (int32_t)s->v[e]; break;
      default: ((int64_t *)p)[e] = (int64_t)s->v[e]; break;
    }
  }
  if (rs_fz_below(r, 2)) {
    CALL_OK(rs_to_device(&s->a, h, 0, NULL));
    CALL_OK(rs_array_release(h));
  } else {
    s->a = h;
  }
  s->group = next_group++;
}

/* How an explicit bound of an axis of length n is taken (the header: Python's convention,
 * but an index outside the axis is RS_ERR_INDEX, not clamped): 2 inside the axis, 1 one
 * past either end (accepted as Python does or refused: both are fine), 0 refused. */
static int bound_ok(int64_t v, int64_t n) {
  if (v < 0) v += n;
  return v >= 0 && v < n ? 2 : v >= -1 && v <= n ? 1 : 0;
}

/* Python's slice.indices(n) and the length of the slice. */
static int64_t slice_model(int64_t n, int64_t *start, int64_t *stop, int64_t step, int has_start, int has_stop) {
  int64_t lo = step < 0 ? -1 : 0, hi = step < 0 ? n - 1 : n;
  if (!has_start) *start = step < 0 ? hi : lo;
  else {
    if (*start < 0) *start += n;
    if (*start < lo) *start = lo;
    if (*start > hi) *start = hi;
  }
  if (!has_stop) *stop = step < 0 ? lo : hi;
  else {
    if (*stop < 0) *stop += n;
    if (*stop < lo) *stop = lo;
    if (*stop > hi) *stop = hi;
  }
  if (step > 0) return *stop > *start ? (*stop - *start + step - 1) / step : 0;
  return *start > *stop ? (*start - *stop - step - 1) / -step : 0;
}

/* A view of s in a free slot, its model computed from the index map of the view. */
static void op_view(rs_fz_reader *r) {
  slot *s = pick(r), *o = free_slot();
  if (!s || !o) return;
  int kind = (int)rs_fz_below(r, 5);
  rs_array *view = NULL;
  slot m = {0};
  /* map[e] = the element of s that element e of the view is */
  int64_t map[MAXN];
  if (kind == 0) { /* slice every axis */
    rs_slice sl[RS_MAX_DIMS];
    int64_t step_of[RS_MAX_DIMS], start_of[RS_MAX_DIMS];
    m.ndim = s->ndim;
    int valid = 2; /* the lowest of bound_ok over the explicit bounds */
    for (int i = 0; i < s->ndim; i++) {
      int64_t n = s->shape[i];
      int has_start = (int)rs_fz_below(r, 2), has_stop = (int)rs_fz_below(r, 2);
      int64_t start = (int64_t)rs_fz_below(r, 4 * (unsigned)n + 1) - 2 * n;
      int64_t stop = (int64_t)rs_fz_below(r, 4 * (unsigned)n + 1) - 2 * n;
      int64_t step = (int64_t)rs_fz_below(r, 6) - 3;
      if (step == 0) step = 1;
      /* a start on an empty axis with a negative step gives one element (a new defect,
       * in views.c: `start == n && n > 0`), left to RS_FUZZ_KNOWN=1 like item 7 */
      if (n == 0 && step < 0 && !rs_fz_known()) has_start = 0;
      /* read the same in both modes, so a known input decodes the same everywhere */
      int wild = rs_fz_below(r, 4) == 0;
      int64_t wild_step = wild ? rs_fz_i64(r) : 0;
      if (rs_fz_known() && wild && wild_step != 0) step = wild_step; /* issue 11 item 7 */
      if (has_start && bound_ok(start, n) < valid) valid = bound_ok(start, n);
      if (has_stop && bound_ok(stop, n) < valid) valid = bound_ok(stop, n);
      sl[i] = (rs_slice){has_start ? start : RS_SLICE_DEFAULT, has_stop ? stop : RS_SLICE_DEFAULT, step};
      m.shape[i] = slice_model(n, &start, &stop, step, has_start, has_stop);
      step_of[i] = step;
      start_of[i] = start;
    }
    rs_status st = rs_array_slice(&view, s->a, s->ndim, sl);
    if (rs_fz_known() && st != RS_OK) return;
    if (st != RS_OK) {
      FZ_ASSERT(valid < 2, "slice refused: %s", rs_last_error());
      FZ_FAILED_WITH_MESSAGE(st, "slice");
      return;
    }
    FZ_ASSERT(valid > 0, "a slice with a bound outside the axis gave RS_OK");
    int64_t n = count(&m);
    for (int64_t e = 0; e < n; e++) {
      int64_t rr = e, src = 0, mul = 1;
      int64_t idx[RS_MAX_DIMS];
      for (int d = m.ndim - 1; d >= 0; d--) {
        idx[d] = rr % m.shape[d];
        rr /= m.shape[d];
      }
      for (int d = s->ndim - 1; d >= 0; d--) {
        src += (start_of[d] + idx[d] * step_of[d]) * mul;
        mul *= s->shape[d];
      }
      map[e] = src;
    }
  } else if (kind == 1) { /* transpose: reverse the axes */
    CALL_OK(rs_array_transpose(&view, s->a));
    m.ndim = s->ndim;
    for (int i = 0; i < s->ndim; i++) m.shape[i] = s->shape[s->ndim - 1 - i];
    int64_t n = count(&m);
    for (int64_t e = 0; e < n; e++) {
      int64_t rr = e, src = 0, mul = 1, idx[RS_MAX_DIMS];
      for (int d = m.ndim - 1; d >= 0; d--) {
        idx[d] = rr % m.shape[d];
        rr /= m.shape[d];
      }
      for (int d = s->ndim - 1; d >= 0; d--) { /* axis d of s is axis ndim-1-d of the view */
        src += idx[s->ndim - 1 - d] * mul;
        mul *= s->shape[d];
      }
      map[e] = src;
    }
  } else { /* reshape, ravel, expand_dims, squeeze: the row-major order is kept */
    int64_t n = count(s);
    rs_status st;
    if (kind == 2) {
      m.ndim = (int)rs_fz_below(r, 4);
      int64_t left = n;
      for (int i = 0; i < m.ndim; i++) m.shape[i] = 1;
      /* split n over the axes: a factor of what is left, the rest on the last axis */
      for (int i = 0; i + 1 < m.ndim; i++) {
        int64_t f = (int64_t)rs_fz_below(r, 5);
        if (f > 0 && left % f == 0) {
          m.shape[i] = f;
          left /= f;
        }
      }
      if (m.ndim > 0) m.shape[m.ndim - 1] = left;
      else if (n != 1) return;
      st = rs_array_reshape(&view, s->a, m.ndim, m.shape);
      /* a reshape that needs a copy (a non-contiguous view) may be refused */
      if (st != RS_OK) {
        FZ_FAILED_WITH_MESSAGE(st, "reshape");
        return;
      }
    } else if (kind == 3) {
      int axis = (int)rs_fz_below(r, (unsigned)s->ndim + 1);
      if (s->ndim + 1 > 3) return;
      CALL_OK(rs_array_expand_dims(&view, s->a, axis));
      m.ndim = s->ndim + 1;
      for (int i = 0, j = 0; i < m.ndim; i++) m.shape[i] = i == axis ? 1 : s->shape[j++];
    } else {
      CALL_OK(rs_array_squeeze(&view, s->a, RS_ALL_AXES));
      for (int i = 0; i < s->ndim; i++)
        if (s->shape[i] != 1) m.shape[m.ndim++] = s->shape[i];
    }
    for (int64_t e = 0; e < n; e++) map[e] = e;
  }
  *o = m;
  o->a = view;
  o->group = s->group;
  for (int64_t e = 0; e < count(o); e++) o->v[e] = s->v[map[e]];
  check(o);
}

static void op_copy(rs_fz_reader *r) {
  slot *s = pick(r), *o = free_slot();
  if (!s || !o) return;
  *o = *s;
  o->a = NULL;
  switch (rs_fz_below(r, 4)) {
    case 0: CALL_OK(rs_copy(&o->a, s->a, NULL)); break;
    case 1: CALL_OK(rs_copy_to_host(&o->a, s->a, NULL)); break;
    case 2: CALL_OK(rs_to_device(&o->a, s->a, 0, NULL)); break;
    default: CALL_OK(rs_astype(&o->a, s->a, dtypes[rs_fz_below(r, 4)], NULL)); break;
  }
  o->group = next_group++;
  check(o);
}

static int same_shape(const slot *a, const slot *b) {
  if (a->ndim != b->ndim) return 0;
  for (int i = 0; i < a->ndim; i++)
    if (a->shape[i] != b->shape[i]) return 0;
  return 1;
}

/* a + b, a - b or a * b into a new array or into an existing one alone in its group. */
static void op_binary(rs_fz_reader *r) {
  slot *a = pick(r), *b = pick(r);
  int which = (int)rs_fz_below(r, 3), into = (int)rs_fz_below(r, 2);
  slot *o = into ? pick(r) : free_slot();
  if (!a || !b || !o || !same_shape(a, b)) return;
  if (into && (!same_shape(o, a) || !alone(o))) return;
  double res[MAXN];
  int64_t n = count(a);
  for (int64_t e = 0; e < n; e++) {
    res[e] = which == 0 ? a->v[e] + b->v[e] : which == 1 ? a->v[e] - b->v[e] : a->v[e] * b->v[e];
    if (fabs(res[e]) >= LIMIT) return; /* stays exact in every dtype */
  }
  /* an integer destination of a float result: a cast the library may refuse */
  rs_status st;
  if (into) {
    st = which == 0   ? rs_add_into(o->a, a->a, b->a, NULL)
         : which == 1 ? rs_subtract_into(o->a, a->a, b->a, NULL)
                      : rs_multiply_into(o->a, a->a, b->a, NULL);
    if (st != RS_OK) {
      FZ_FAILED_WITH_MESSAGE(st, "binary into");
      return;
    }
  } else {
    rs_array *y = NULL;
    st = which == 0   ? rs_add(&y, a->a, b->a, NULL)
         : which == 1 ? rs_subtract(&y, a->a, b->a, NULL)
                      : rs_multiply(&y, a->a, b->a, NULL);
    FZ_ASSERT(st == RS_OK, "binary %d: %s", which, rs_last_error());
    *o = *a;
    o->a = y;
    o->group = next_group++;
  }
  memcpy(o->v, res, sizeof(double) * (size_t)n);
  check(o);
}

static void op_sum(rs_fz_reader *r) {
  slot *s = pick(r);
  if (!s) return;
  rs_array *y = NULL;
  CALL_OK(rs_sum(&y, s->a, 0, NULL, 0, NULL));
  double got = 0, want = 0;
  for (int64_t e = 0; e < count(s); e++) want += s->v[e];
  CALL_OK(rs_array_item_double(y, NULL, &got, NULL));
  FZ_ASSERT(fabs(got - want) <= 1e-6 * fabs(want), "sum %g, model %g", got, want);
  CALL_OK(rs_array_release(y));
}

/* A sum along one axis (given as negative half the time), keeping it or not. */
static void op_sum_axis(rs_fz_reader *r) {
  slot *s = pick(r), *o = free_slot();
  if (!s || !o || s->ndim == 0) return;
  int axis = (int)rs_fz_below(r, (unsigned)s->ndim), keep = (int)rs_fz_below(r, 2);
  int given = rs_fz_below(r, 2) ? axis - s->ndim : axis;
  slot m = {0};
  int64_t outer = 1, len = s->shape[axis], inner = 1;
  for (int i = 0; i < s->ndim; i++) {
    if (i < axis) outer *= s->shape[i];
    if (i > axis) inner *= s->shape[i];
    if (i != axis || keep) m.shape[m.ndim++] = i == axis ? 1 : s->shape[i];
  }
  for (int64_t a = 0; a < outer; a++)
    for (int64_t c = 0; c < inner; c++) {
      double sum = 0;
      for (int64_t k = 0; k < len; k++) sum += s->v[(a * len + k) * inner + c];
      if (fabs(sum) >= LIMIT) return;
      m.v[a * inner + c] = sum;
    }
  rs_array *y = NULL;
  CALL_OK(rs_sum(&y, s->a, 1, &given, keep, NULL));
  *o = m;
  o->a = y;
  o->group = next_group++;
  check(o);
}

static void op_fill(rs_fz_reader *r) {
  slot *s = pick(r);
  if (!s || !alone(s)) return;
  double v = (double)((int)rs_fz_below(r, 64) - 32);
  CALL_OK(rs_full_into(s->a, rs_scalar_float(v), NULL));
  for (int64_t e = 0; e < count(s); e++) s->v[e] = v;
  check(s);
}

static void op_release(rs_fz_reader *r) {
  slot *s = pick(r);
  if (!s) return;
  CALL_OK(rs_array_release(s->a));
  s->a = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rs_fz_reader r = {data, size};
  memset(slots, 0, sizeof slots);
  const int trace = getenv("RS_FUZZ_TRACE") != NULL; /* to read a failing input's steps */
  for (int steps = 0; r.n > 0 && steps < 64; steps++) {
    unsigned op = rs_fz_below(&r, 8);
    if (trace) {
      fprintf(stderr, "step %d: op %u;", steps, op);
      for (int i = 0; i < NSLOTS; i++)
        if (slots[i].a) fprintf(stderr, " [%d]=%s", i, rs_array_describe(slots[i].a, (char[160]){0}, 160));
      fprintf(stderr, "\n");
    }
    switch (op) {
      case 0: op_create(&r); break;
      case 1: op_view(&r); break;
      case 2: op_copy(&r); break;
      case 3: op_binary(&r); break;
      case 4: op_sum(&r); break;
      case 5: op_fill(&r); break;
      case 6: op_sum_axis(&r); break;
      default: op_release(&r); break;
    }
  }
  for (int i = 0; i < NSLOTS; i++)
    if (slots[i].a) {
      check(&slots[i]);
      CALL_OK(rs_array_release(slots[i].a));
    }
  rs_live_stats live;
  CALL_OK(rs_context_get_live_stats(ctx, &live));
  FZ_ASSERT(live.arrays == 0 && live.buffers == 0, "%lld arrays, %lld buffers alive after the sequence",
            (long long)live.arrays, (long long)live.buffers);
  /* the pools keep freed blocks: give them back, so libFuzzer's leak check sees none */
  CALL_OK(rs_memory_release(ctx, RS_SPACE_DEVICE));
  CALL_OK(rs_memory_release(ctx, RS_SPACE_PINNED));
  return 0;
}
