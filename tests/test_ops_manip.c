/* Manipulation and creation to the array API standard (resident/manip.h) against NumPy:
 * concat, stack, flip, roll, repeat, tile, meshgrid, tril/triu and the views (expand_dims,
 * squeeze, moveaxis, broadcast_to/arrays, unstack) over several dtypes, non-contiguous
 * inputs, empty and 0-d arrays, each on the device and on the host path; the _into forms
 * (a view as dst, in place, a wider dtype); the new elementwise functions at their edges
 * (shifts past the width, float16 nextafter, halves for round); and the bad inputs:
 * status, message, nothing written. */
#include "ops_testlib.h"
#include "resident/manip.h"

/* Run `call` for both placements: side 0 the device inputs into c->dev, side 1 the host
 * ones into c->host. In call, ON(p) is the input of this side and o_ the output. */
#define ON(p) (side_ ? (p).host : (p).dev)
#define RUN(c, call)                                        \
  do {                                                      \
    for (int side_ = 0; side_ < 2; side_++) {               \
      rs_array **o_ = side_ ? &(c)->host : &(c)->dev;       \
      rs_status s_ = (call);                                \
      if (side_) (c)->shost = s_; else (c)->sdev = s_;      \
    }                                                       \
  } while (0)

/* The same into a new float64 dst of the given shape at each side's placement (d_). */
#define RUN_INTO(c, nd, shp, call)                                                           \
  do {                                                                                      \
    for (int side_ = 0; side_ < 2; side_++) {                                               \
      rs_array *d_ = NULL;                                                                  \
      rs_status s_ = rs_zeros(&d_, ctx, side_ ? RS_MEM_HOST : RS_MEM_DEVICE, nd, shp, RS_FLOAT64, NULL); \
      if (s_ == RS_OK) s_ = (call);                                                         \
      if (side_) (c)->host = d_, (c)->shost = s_;                                           \
      else (c)->dev = d_, (c)->sdev = s_;                                                   \
    }                                                                                       \
  } while (0)

static void test_copies(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ds[] = {RS_BOOL, RS_INT8, RS_INT32, RS_UINT16, RS_FLOAT16, RS_FLOAT32, RS_FLOAT64, RS_COMPLEX128};
  int64_t sa[3] = {3, 4, 5}, sb[3] = {3, 2, 5}, sc[3] = {3, 1, 5};
  for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
    rs_dtype d = ds[di];
    const char *nm = rs_dtype_name(d);
    pair a, b, c3, a2, t;
    CHECK_OK(make_pair(&a, s, ctx, d, 3, sa, 1, 1));
    CHECK_OK(make_pair(&b, s, ctx, d, 3, sb, 2, 1));
    CHECK_OK(make_pair(&c3, s, ctx, d, 3, sc, 3, 1));
    CHECK_OK(make_pair(&a2, s, ctx, d, 3, sa, 4, 1));
    /* a non-contiguous view: a transposed to (5, 3, 4) */
    int perm[3] = {2, 0, 1};
    CHECK_OK(rs_array_permute(&t.dev, a.dev, perm));
    CHECK_OK(rs_array_permute(&t.host, a.host, perm));
    t.np = tl_np_expr(&s->np, "np.transpose(a%d, (2, 0, 1))", a.np);
    ew_case *c = suite_add(s, "concat axis 1 %s", nm);
    RUN(c, rs_concat(o_, 3, (const rs_array *[]){ON(a), ON(b), ON(c3)}, 1, NULL));
    c->np = tl_np_expr(&s->np, "np.concat([a%d, a%d, a%d], axis=1)", a.np, b.np, c3.np);
    c = suite_add(s, "concat axis None %s", nm);
    RUN(c, rs_concat(o_, 3, (const rs_array *[]){ON(a), ON(t), ON(b)}, RS_ALL_AXES, NULL));
    c->np = tl_np_expr(&s->np, "np.concat([a%d, np.transpose(a%d, (2, 0, 1)), a%d], axis=None)", a.np, a.np, b.np);
    c = suite_add(s, "concat transposed axis -1 %s", nm);
    RUN(c, rs_concat(o_, 2, (const rs_array *[]){ON(t), ON(t)}, -1, NULL));
    c->np = tl_np_expr(&s->np, "np.concat([np.transpose(a%d, (2, 0, 1))] * 2, axis=-1)", a.np);
    c = suite_add(s, "stack axis 1 %s", nm);
    RUN(c, rs_stack(o_, 2, (const rs_array *[]){ON(a), ON(a2)}, 1, NULL));
    c->np = tl_np_expr(&s->np, "np.stack([a%d, a%d], axis=1)", a.np, a2.np);
    c = suite_add(s, "stack axis -1 %s", nm);
    RUN(c, rs_stack(o_, 3, (const rs_array *[]){ON(a), ON(a2), ON(a)}, -1, NULL));
    c->np = tl_np_expr(&s->np, "np.stack([a%d, a%d, a%d], axis=-1)", a.np, a2.np, a.np);
    c = suite_add(s, "flip all %s", nm);
    RUN(c, rs_flip(o_, ON(a), 0, NULL, NULL));
    c->np = tl_np_expr(&s->np, "np.flip(a%d)", a.np);
    c = suite_add(s, "flip (0, 2) of a transposed view %s", nm);
    RUN(c, rs_flip(o_, ON(t), 2, (const int[]){0, -1}, NULL));
    c->np = tl_np_expr(&s->np, "np.flip(np.transpose(a%d, (2, 0, 1)), (0, 2))", a.np);
    c = suite_add(s, "roll 3 axis 2 %s", nm);
    RUN(c, rs_roll(o_, ON(a), 1, (const int64_t[]){3}, (const int[]){2}, NULL));
    c->np = tl_np_expr(&s->np, "np.roll(a%d, 3, axis=2)", a.np);
    c = suite_add(s, "roll (2, -1) axes (0, 1) %s", nm);
    RUN(c, rs_roll(o_, ON(a), 2, (const int64_t[]){2, -1}, (const int[]){0, 1}, NULL));
    c->np = tl_np_expr(&s->np, "np.roll(a%d, (2, -1), axis=(0, 1))", a.np);
    c = suite_add(s, "roll repeated axis %s", nm);
    RUN(c, rs_roll(o_, ON(a), 3, (const int64_t[]){2, 3, 11}, (const int[]){1, 1, 2}, NULL));
    c->np = tl_np_expr(&s->np, "np.roll(a%d, (2, 3, 11), axis=(1, 1, 2))", a.np);
    c = suite_add(s, "roll flattened transposed %s", nm);
    RUN(c, rs_roll(o_, ON(t), 1, (const int64_t[]){-7}, NULL, NULL));
    c->np = tl_np_expr(&s->np, "np.roll(np.transpose(a%d, (2, 0, 1)), -7)", a.np);
    c = suite_add(s, "repeat 3 axis 1 %s", nm);
    RUN(c, rs_repeat(o_, ON(a), 1, (const int64_t[]){3}, 1, NULL));
    c->np = tl_np_expr(&s->np, "np.repeat(a%d, 3, axis=1)", a.np);
    c = suite_add(s, "repeat per element axis 1 %s", nm);
    RUN(c, rs_repeat(o_, ON(a), 4, (const int64_t[]){1, 0, 2, 2}, 1, NULL));
    c->np = tl_np_expr(&s->np, "np.repeat(a%d, [1, 0, 2, 2], axis=1)", a.np);
    c = suite_add(s, "repeat flattened transposed %s", nm);
    RUN(c, rs_repeat(o_, ON(t), 1, (const int64_t[]){2}, RS_ALL_AXES, NULL));
    c->np = tl_np_expr(&s->np, "np.repeat(np.transpose(a%d, (2, 0, 1)), 2)", a.np);
    c = suite_add(s, "tile (2, 1, 3) %s", nm);
    RUN(c, rs_tile(o_, ON(a), 3, (const int64_t[]){2, 1, 3}, NULL));
    c->np = tl_np_expr(&s->np, "np.tile(a%d, (2, 1, 3))", a.np);
    c = suite_add(s, "tile (2,) of a transposed view %s", nm);
    RUN(c, rs_tile(o_, ON(t), 1, (const int64_t[]){2}, NULL));
    c->np = tl_np_expr(&s->np, "np.tile(np.transpose(a%d, (2, 0, 1)), 2)", a.np);
    c = suite_add(s, "tile (2, 1, 1, 2) %s", nm);
    RUN(c, rs_tile(o_, ON(c3), 4, (const int64_t[]){2, 1, 1, 2}, NULL));
    c->np = tl_np_expr(&s->np, "np.tile(a%d, (2, 1, 1, 2))", c3.np);
    for (int k = -1; k <= 2; k++) {
      c = suite_add(s, "tril k=%d %s", k, nm);
      RUN(c, rs_tril(o_, ON(a), k, NULL));
      c->np = tl_np_expr(&s->np, "np.tril(a%d, %d)", a.np, k);
      c = suite_add(s, "triu k=%d of a transposed view %s", k, nm);
      RUN(c, rs_triu(o_, ON(t), k, NULL));
      c->np = tl_np_expr(&s->np, "np.triu(np.transpose(a%d, (2, 0, 1)), %d)", a.np, k);
    }
    free_pair(&a), free_pair(&b), free_pair(&c3), free_pair(&a2), free_pair(&t);
  }
  /* concat and stack promote (NumPy's result_type) */
  pair i8, f32;
  int64_t s1[1] = {6};
  CHECK_OK(make_pair(&i8, s, ctx, RS_INT8, 1, s1, 5, 0));
  CHECK_OK(make_pair(&f32, s, ctx, RS_UINT8, 1, s1, 6, 0));
  ew_case *c = suite_add(s, "concat int8 + uint8");
  RUN(c, rs_concat(o_, 2, (const rs_array *[]){ON(i8), ON(f32)}, 0, NULL));
  c->np = tl_np_expr(&s->np, "np.concat([a%d, a%d])", i8.np, f32.np);
  c = suite_add(s, "stack int8 + uint8");
  RUN(c, rs_stack(o_, 2, (const rs_array *[]){ON(i8), ON(f32)}, 0, NULL));
  c->np = tl_np_expr(&s->np, "np.stack([a%d, a%d])", i8.np, f32.np);
  free_pair(&i8), free_pair(&f32);
  /* the _into forms, into float64 arrays (a same_kind cast) */
  pair m;
  CHECK_OK(make_pair(&m, s, ctx, RS_INT16, 2, (const int64_t[]){3, 4}, 9, 0));
  c = suite_add(s, "stack_into");
  RUN_INTO(c, 3, ((const int64_t[]){3, 2, 4}), rs_stack_into(d_, 2, (const rs_array *[]){ON(m), ON(m)}, 1, NULL));
  c->np = tl_np_expr(&s->np, "np.stack([a%d, a%d], axis=1).astype(np.float64)", m.np, m.np);
  c = suite_add(s, "concat_into");
  RUN_INTO(c, 2, ((const int64_t[]){3, 8}), rs_concat_into(d_, 2, (const rs_array *[]){ON(m), ON(m)}, 1, NULL));
  c->np = tl_np_expr(&s->np, "np.concat([a%d, a%d], axis=1).astype(np.float64)", m.np, m.np);
  c = suite_add(s, "flip_into");
  RUN_INTO(c, 2, ((const int64_t[]){3, 4}), rs_flip_into(d_, ON(m), 1, (const int[]){1}, NULL));
  c->np = tl_np_expr(&s->np, "np.flip(a%d, 1).astype(np.float64)", m.np);
  c = suite_add(s, "roll_into");
  RUN_INTO(c, 2, ((const int64_t[]){3, 4}), rs_roll_into(d_, ON(m), 1, (const int64_t[]){5}, NULL, NULL));
  c->np = tl_np_expr(&s->np, "np.roll(a%d, 5).astype(np.float64)", m.np);
  c = suite_add(s, "repeat_into");
  RUN_INTO(c, 2, ((const int64_t[]){6, 4}), rs_repeat_into(d_, ON(m), 3, (const int64_t[]){2, 1, 3}, 0, NULL));
  c->np = tl_np_expr(&s->np, "np.repeat(a%d, [2, 1, 3], axis=0).astype(np.float64)", m.np);
  c = suite_add(s, "tile_into");
  RUN_INTO(c, 2, ((const int64_t[]){6, 8}), rs_tile_into(d_, ON(m), 2, (const int64_t[]){2, 2}, NULL));
  c->np = tl_np_expr(&s->np, "np.tile(a%d, (2, 2)).astype(np.float64)", m.np);
  c = suite_add(s, "tril_into");
  RUN_INTO(c, 2, ((const int64_t[]){3, 4}), rs_tril_into(d_, ON(m), 1, NULL));
  c->np = tl_np_expr(&s->np, "np.tril(a%d, 1).astype(np.float64)", m.np);
  c = suite_add(s, "triu_into");
  RUN_INTO(c, 2, ((const int64_t[]){3, 4}), rs_triu_into(d_, ON(m), -1, NULL));
  c->np = tl_np_expr(&s->np, "np.triu(a%d, -1).astype(np.float64)", m.np);
  pair v1;
  CHECK_OK(make_pair(&v1, s, ctx, RS_INT16, 1, (const int64_t[]){4}, 10, 0));
  c = suite_add(s, "meshgrid_into of one array");
  RUN_INTO(c, 1, ((const int64_t[]){4}),
           rs_meshgrid_into((rs_array *const[]){d_}, 1, (const rs_array *[]){ON(v1)}, RS_MESHGRID_XY, NULL));
  c->np = tl_np_expr(&s->np, "np.meshgrid(a%d)[0].astype(np.float64)", v1.np);
  free_pair(&v1);
  free_pair(&m);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_edges(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t e0[2] = {0, 5}, e2[2] = {2, 5}, z[1] = {0};
  pair em, full, sc, sc2, zero1;
  CHECK_OK(make_pair(&em, s, ctx, RS_FLOAT32, 2, e0, 1, 0));
  CHECK_OK(make_pair(&full, s, ctx, RS_FLOAT32, 2, e2, 2, 0));
  CHECK_OK(make_pair(&sc, s, ctx, RS_INT64, 0, NULL, 3, 0));
  CHECK_OK(make_pair(&sc2, s, ctx, RS_INT64, 0, NULL, 4, 0));
  CHECK_OK(make_pair(&zero1, s, ctx, RS_FLOAT64, 1, z, 5, 0));
  ew_case *c = suite_add(s, "concat empty + full");
  RUN(c, rs_concat(o_, 3, (const rs_array *[]){ON(em), ON(full), ON(em)}, 0, NULL));
  c->np = tl_np_expr(&s->np, "np.concat([a%d, a%d, a%d])", em.np, full.np, em.np);
  c = suite_add(s, "concat 0-d flattened");
  RUN(c, rs_concat(o_, 2, (const rs_array *[]){ON(sc), ON(sc2)}, RS_ALL_AXES, NULL));
  c->np = tl_np_expr(&s->np, "np.concat([a%d, a%d], axis=None)", sc.np, sc2.np);
  c = suite_add(s, "stack 0-d");
  RUN(c, rs_stack(o_, 2, (const rs_array *[]){ON(sc), ON(sc2)}, 0, NULL));
  c->np = tl_np_expr(&s->np, "np.stack([a%d, a%d])", sc.np, sc2.np);
  c = suite_add(s, "flip empty");
  RUN(c, rs_flip(o_, ON(em), 0, NULL, NULL));
  c->np = tl_np_expr(&s->np, "np.flip(a%d)", em.np);
  c = suite_add(s, "flip 0-d");
  RUN(c, rs_flip(o_, ON(sc), 0, NULL, NULL));
  c->np = tl_np_expr(&s->np, "np.flip(a%d)", sc.np);
  c = suite_add(s, "roll empty");
  RUN(c, rs_roll(o_, ON(em), 1, (const int64_t[]){3}, NULL, NULL));
  c->np = tl_np_expr(&s->np, "np.roll(a%d, 3)", em.np);
  c = suite_add(s, "roll 0-d");
  RUN(c, rs_roll(o_, ON(sc), 1, (const int64_t[]){3}, NULL, NULL));
  c->np = tl_np_expr(&s->np, "np.roll(a%d, 3)", sc.np);
  c = suite_add(s, "repeat counts all 0");
  RUN(c, rs_repeat(o_, ON(full), 5, (const int64_t[]){0, 0, 0, 0, 0}, 1, NULL));
  c->np = tl_np_expr(&s->np, "np.repeat(a%d, [0] * 5, axis=1)", full.np);
  c = suite_add(s, "repeat 0-d flattened");
  RUN(c, rs_repeat(o_, ON(sc), 1, (const int64_t[]){4}, RS_ALL_AXES, NULL));
  c->np = tl_np_expr(&s->np, "np.repeat(a%d, 4)", sc.np);
  c = suite_add(s, "tile 0 times");
  RUN(c, rs_tile(o_, ON(full), 2, (const int64_t[]){0, 2}, NULL));
  c->np = tl_np_expr(&s->np, "np.tile(a%d, (0, 2))", full.np);
  c = suite_add(s, "tile 0-d");
  RUN(c, rs_tile(o_, ON(sc), 1, (const int64_t[]){3}, NULL));
  c->np = tl_np_expr(&s->np, "np.tile(a%d, 3)", sc.np);
  c = suite_add(s, "stack of empty 1-d arrays");
  RUN(c, rs_stack(o_, 2, (const rs_array *[]){ON(zero1), ON(zero1)}, 1, NULL));
  c->np = tl_np_expr(&s->np, "np.stack([a%d, a%d], axis=1)", zero1.np, zero1.np);
  c = suite_add(s, "tril empty");
  RUN(c, rs_tril(o_, ON(em), 0, NULL));
  c->np = tl_np_expr(&s->np, "np.tril(a%d)", em.np);
  /* meshgrid: three outputs per call */
  pair x, y, w;
  CHECK_OK(make_pair(&x, s, ctx, RS_FLOAT32, 1, (const int64_t[]){3}, 6, 0));
  CHECK_OK(make_pair(&y, s, ctx, RS_INT16, 1, (const int64_t[]){4}, 7, 0));
  CHECK_OK(make_pair(&w, s, ctx, RS_FLOAT64, 1, (const int64_t[]){2}, 8, 0));
  for (int ij = 0; ij < 2; ij++) {
    ew_case *m[3];
    for (int i = 0; i < 3; i++) {
      m[i] = suite_add(s, "meshgrid %s output %d", ij ? "ij" : "xy", i);
      m[i]->np = tl_np_expr(&s->np, "np.meshgrid(a%d, a%d, a%d, indexing='%s')[%d]", x.np, y.np, w.np, ij ? "ij" : "xy", i);
    }
    for (int side_ = 0; side_ < 2; side_++) {
      rs_array *o[3] = {0};
      rs_status st = rs_meshgrid(o, 3, (const rs_array *[]){ON(x), ON(y), ON(w)}, ij ? RS_MESHGRID_IJ : RS_MESHGRID_XY, NULL);
      for (int i = 0; i < 3; i++) {
        if (side_) m[i]->host = o[i], m[i]->shost = st;
        else m[i]->dev = o[i], m[i]->sdev = st;
      }
    }
  }
  free_pair(&x), free_pair(&y), free_pair(&w);
  free_pair(&em), free_pair(&full), free_pair(&sc), free_pair(&sc2), free_pair(&zero1);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

static void test_views(rs_context *ctx) {
  ew_suite *s = suite_new();
  int64_t sa[3] = {3, 1, 4}, sb[2] = {2, 1};
  pair a, b;
  CHECK_OK(make_pair(&a, s, ctx, RS_INT32, 3, sa, 1, 0));
  CHECK_OK(make_pair(&b, s, ctx, RS_FLOAT64, 2, sb, 2, 0));
  ew_case *c = suite_add(s, "expand_dims (0, -1)");
  RUN(c, rs_array_expand_dims_axes(o_, ON(a), 2, (const int[]){0, -1}));
  c->np = tl_np_expr(&s->np, "np.expand_dims(a%d, (0, -1))", a.np);
  c = suite_add(s, "squeeze (1,)");
  RUN(c, rs_array_squeeze_axes(o_, ON(a), 1, (const int[]){1}));
  c->np = tl_np_expr(&s->np, "np.squeeze(a%d, 1)", a.np);
  c = suite_add(s, "permute_dims");
  RUN(c, rs_array_permute_dims(o_, ON(a), (const int[]){2, 0, 1}));
  c->np = tl_np_expr(&s->np, "np.permute_dims(a%d, (2, 0, 1))", a.np);
  c = suite_add(s, "moveaxis 0 -> -1");
  RUN(c, rs_array_moveaxis(o_, ON(a), 1, (const int[]){0}, (const int[]){-1}));
  c->np = tl_np_expr(&s->np, "np.moveaxis(a%d, 0, -1)", a.np);
  c = suite_add(s, "moveaxis (0, 2) -> (1, 0)");
  RUN(c, rs_array_moveaxis(o_, ON(a), 2, (const int[]){0, 2}, (const int[]){1, 0}));
  c->np = tl_np_expr(&s->np, "np.moveaxis(a%d, (0, 2), (1, 0))", a.np);
  c = suite_add(s, "broadcast_to (2, 3, 5, 4)");
  RUN(c, rs_array_broadcast_to(o_, ON(a), 4, (const int64_t[]){2, 3, 5, 4}));
  c->np = tl_np_expr(&s->np, "np.broadcast_to(a%d, (2, 3, 5, 4))", a.np);
  /* broadcast_arrays and unstack: several views per call */
  ew_case *ba[2], *us[3];
  for (int i = 0; i < 2; i++) {
    ba[i] = suite_add(s, "broadcast_arrays %d", i);
    ba[i]->np = tl_np_expr(&s->np, "np.broadcast_arrays(a%d, a%d)[%d]", a.np, b.np, i);
  }
  for (int i = 0; i < 3; i++) {
    us[i] = suite_add(s, "unstack axis 0, %d", i);
    us[i]->np = tl_np_expr(&s->np, "np.unstack(a%d)[%d]", a.np, i);
  }
  for (int side_ = 0; side_ < 2; side_++) {
    rs_array *o[3] = {0};
    rs_status st = rs_array_broadcast_arrays(o, 2, (const rs_array *[]){ON(a), ON(b)});
    for (int i = 0; i < 2; i++) {
      if (side_) ba[i]->host = o[i], ba[i]->shost = st;
      else ba[i]->dev = o[i], ba[i]->sdev = st;
    }
    st = rs_array_unstack(o, 3, ON(a), 0);
    for (int i = 0; i < 3; i++) {
      if (side_) us[i]->host = o[i], us[i]->shost = st;
      else us[i]->dev = o[i], us[i]->sdev = st;
    }
  }
  free_pair(&a), free_pair(&b);
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* The new elementwise functions where NumPy's answer is not the C operator's. */
static void test_new_ufunc_edges(rs_context *ctx) {
  ew_suite *s = suite_new();
  const rs_dtype ints[] = {RS_INT8, RS_UINT8, RS_INT32, RS_INT64, RS_UINT64};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    rs_dtype d = ints[i];
    int sg = d == RS_INT8 || d == RS_INT32 || d == RS_INT64;
    pair v, k;
    v.dev = v.host = k.dev = k.host = NULL;
    CHECK_OK(rs_arange(&v.dev, ctx, RS_MEM_DEVICE, sg ? -40 : 0, sg ? 40 : 80, 1, d, NULL));
    CHECK_OK(rs_arange(&v.host, ctx, RS_MEM_HOST, sg ? -40 : 0, sg ? 40 : 80, 1, d, NULL));
    CHECK_OK(rs_arange(&k.dev, ctx, RS_MEM_DEVICE, sg ? -2 : 0, sg ? 78 : 80, 1, d, NULL));
    CHECK_OK(rs_arange(&k.host, ctx, RS_MEM_HOST, sg ? -2 : 0, sg ? 78 : 80, 1, d, NULL));
    v.np = tl_np_input(&s->np, v.host);
    k.np = tl_np_input(&s->np, k.host);
    const rs_op ops[2] = {RS_OP_BITWISE_LEFT_SHIFT, RS_OP_BITWISE_RIGHT_SHIFT};
    for (int o = 0; o < 2; o++) {
      ew_case *c = suite_add(s, "%s %s past the width", rs_op_name(ops[o]), rs_dtype_name(d));
      RUN(c, rs_binary(o_, ops[o], ON(v), ON(k), NULL));
      c->np = tl_np_expr(&s->np, "np.%s(a%d, a%d)", rs_op_name(ops[o]), v.np, k.np);
    }
    free_pair(&v), free_pair(&k);
  }
  const rs_dtype fl[] = {RS_FLOAT16, RS_FLOAT32, RS_FLOAT64};
  for (size_t i = 0; i < sizeof fl / sizeof fl[0]; i++) {
    rs_dtype d = fl[i];
    pair v, tgt;
    v.dev = v.host = tgt.dev = tgt.host = NULL;
    CHECK_OK(rs_arange(&v.dev, ctx, RS_MEM_DEVICE, -3, 3.25, 0.25, d, NULL));
    CHECK_OK(rs_arange(&v.host, ctx, RS_MEM_HOST, -3, 3.25, 0.25, d, NULL));
    CHECK_OK(rs_full(&tgt.dev, ctx, RS_MEM_DEVICE, 1, (const int64_t[]){25}, d, rs_scalar_float(INFINITY), NULL));
    CHECK_OK(rs_full(&tgt.host, ctx, RS_MEM_HOST, 1, (const int64_t[]){25}, d, rs_scalar_float(INFINITY), NULL));
    v.np = tl_np_input(&s->np, v.host);
    tgt.np = tl_np_input(&s->np, tgt.host);
    ew_case *c = suite_add(s, "nextafter up %s", rs_dtype_name(d));
    RUN(c, rs_binary(o_, RS_OP_NEXTAFTER, ON(v), ON(tgt), NULL));
    c->np = tl_np_expr(&s->np, "np.nextafter(a%d, a%d)", v.np, tgt.np);
    c = suite_add(s, "nextafter down %s", rs_dtype_name(d));
    RUN(c, rs_scalar_binary(o_, RS_OP_NEXTAFTER, rs_scalar_float(-INFINITY), ON(v), NULL));
    c->np = tl_np_expr(&s->np, "np.nextafter(np.%s(-np.inf), a%d)", rs_dtype_name(d), v.np);
    c = suite_add(s, "round halves %s", rs_dtype_name(d));
    RUN(c, rs_unary(o_, RS_OP_ROUND, ON(v), NULL));
    c->np = tl_np_expr(&s->np, "np.round(a%d)", v.np);
    c = suite_add(s, "signbit %s", rs_dtype_name(d));
    RUN(c, rs_unary(o_, RS_OP_SIGNBIT, ON(v), NULL));
    c->np = tl_np_expr(&s->np, "np.signbit(a%d)", v.np);
    c = suite_add(s, "logaddexp with inf %s", rs_dtype_name(d));
    RUN(c, rs_binary(o_, RS_OP_LOGADDEXP, ON(v), ON(tgt), NULL));
    c->np = tl_np_expr(&s->np, "np.logaddexp(a%d, a%d)", v.np, tgt.np);
    c->rtol = tl_rtol(d);
    free_pair(&v), free_pair(&tgt);
  }
  int bad = suite_check(s, ctx);
  suite_free(s);
  CHECK(bad == 0);
}

/* Reads element i of a float64 array (any placement). */
static double at(const rs_array *a, int64_t i) {
  double v = NAN;
  if (rs_array_item_double(a, &i, &v, NULL) != RS_OK) return NAN;
  return v;
}

static void test_into(rs_context *ctx) {
  const rs_mem_kind kinds[2] = {RS_MEM_DEVICE, RS_MEM_HOST};
  for (int k = 0; k < 2; k++) {
    rs_array *x = NULL, *big = NULL, *part = NULL, *f = NULL;
    CHECK_OK(rs_arange(&x, ctx, kinds[k], 0, 6, 1, RS_INT32, NULL));
    CHECK_OK(rs_full(&big, ctx, kinds[k], 1, (const int64_t[]){20}, RS_FLOAT64, rs_scalar_float(-1), NULL));
    /* concat into every second element of a wider float64 array (a view, a cast) */
    rs_slice sl = {2, 14, 2};
    CHECK_OK(rs_array_slice(&part, big, 1, &sl));
    CHECK_OK(rs_concat_into(part, 1, (const rs_array *[]){x}, 0, NULL));
    CHECK_STATUS(rs_concat_into(part, 2, (const rs_array *[]){x, x}, RS_ALL_AXES, NULL), RS_ERR_SHAPE);
    CHECK(at(big, 0) == -1 && at(big, 2) == 0 && at(big, 3) == -1 && at(big, 4) == 1 && at(big, 14) == -1);
    CHECK(at(big, 12) == 5);
    /* in place: flip and roll of x into x itself go through a temporary */
    CHECK_OK(rs_flip_into(x, x, 0, NULL, NULL));
    CHECK_OK(rs_roll_into(x, x, 1, (const int64_t[]){1}, NULL, NULL));
    CHECK_OK(rs_astype(&f, x, RS_FLOAT64, NULL));
    const double want[6] = {0, 5, 4, 3, 2, 1};
    for (int i = 0; i < 6; i++) CHECK_MSG(at(f, i) == want[i], "element %d: %g, want %g", i, at(f, i), want[i]);
    /* concat of x with a view of itself into x's buffer */
    rs_array *halfv = NULL;
    rs_slice h = {0, 3, 1};
    CHECK_OK(rs_array_slice(&halfv, x, 1, &h));
    CHECK_OK(rs_concat_into(x, 2, (const rs_array *[]){halfv, halfv}, 0, NULL));
    rs_array_release(f);
    f = NULL;
    CHECK_OK(rs_astype(&f, x, RS_FLOAT64, NULL));
    CHECK(at(f, 0) == 0 && at(f, 3) == 0 && at(f, 5) == 4);
    tl_release(5, x, big, part, f, halfv);
  }
}

/* Large arrays at odd offsets: concat writes its second input at a byte offset no vector
 * width divides, roll and flip cross their ragged ends; checked against plain loops. */
static void test_large_unaligned(rs_context *ctx) {
  const int64_t n1 = 7, n2 = 1000003;
  const rs_mem_kind kinds[2] = {RS_MEM_DEVICE, RS_MEM_HOST};
  for (int k = 0; k < 2; k++) {
    rs_array *x = NULL, *y = NULL, *c = NULL, *r = NULL, *f = NULL;
    CHECK_OK(rs_arange(&x, ctx, kinds[k], 0, (double)n1, 1, RS_FLOAT32, NULL));
    CHECK_OK(rs_arange(&y, ctx, kinds[k], 100, 100 + (double)n2, 1, RS_FLOAT32, NULL));
    CHECK_OK(rs_concat(&c, 2, (const rs_array *[]){x, y}, 0, NULL));
    CHECK_OK(rs_roll(&r, c, 1, (const int64_t[]){333333}, NULL, NULL));
    CHECK_OK(rs_flip(&f, c, 0, NULL, NULL));
    rs_array *arrs[3] = {c, r, f}, *host[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
      if (kinds[k] == RS_MEM_DEVICE) CHECK_OK(rs_copy_to_host(&host[i], arrs[i], NULL));
      else CHECK_OK(rs_array_retain(host[i] = arrs[i]));
    }
    const float *pc = rs_array_host_data(host[0]), *pr = rs_array_host_data(host[1]), *pf = rs_array_host_data(host[2]);
    const int64_t n = n1 + n2;
    CHECK(rs_array_size(host[0]) == n);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 3; i++) {
      float want = i < n1 ? (float)i : (float)(100 + (i - n1));
      float rolled = (i >= 333333) ? pc[i - 333333] : pc[n - 333333 + i];
      if (pc[i] != want || pr[i] != rolled || pf[i] != pc[n - 1 - i]) {
        printf("    element %lld: concat %g (want %g), roll %g (want %g), flip %g (want %g)\n", (long long)i, pc[i], want,
               pr[i], rolled, pf[i], pc[n - 1 - i]);
        bad++;
      }
    }
    tl_release(8, x, y, c, r, f, host[0], host[1], host[2]);
    CHECK(bad == 0);
  }
}

static void test_astype_copy(rs_context *ctx) {
  rs_array *a = NULL, *b = NULL, *c = NULL, *d = NULL;
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 1, (const int64_t[]){4}, RS_FLOAT32, NULL));
  CHECK_OK(rs_astype_copy(&b, a, RS_FLOAT32, 0, NULL));
  CHECK(b == a); /* the same array, one more reference */
  CHECK_OK(rs_astype_copy(&c, a, RS_FLOAT32, 1, NULL));
  CHECK(c != a && rs_array_dtype(c) == RS_FLOAT32);
  CHECK_OK(rs_astype_copy(&d, a, RS_INT16, 0, NULL));
  CHECK(d != a && rs_array_dtype(d) == RS_INT16);
  CHECK(at(d, 3) == 1);
  tl_release(4, a, b, c, d);
}

static void test_bad_input(rs_context *ctx) {
  rs_array *a = NULL, *b = NULL, *dst = NULL, *o = NULL, *v1 = NULL;
  int64_t sa[2] = {2, 3}, sb[2] = {3, 3};
  CHECK_OK(rs_ones(&a, ctx, RS_MEM_DEVICE, 2, sa, RS_FLOAT64, NULL));
  CHECK_OK(rs_ones(&b, ctx, RS_MEM_DEVICE, 2, sb, RS_FLOAT64, NULL));
  CHECK_OK(rs_full(&dst, ctx, RS_MEM_DEVICE, 2, sa, RS_FLOAT64, rs_scalar_float(7), NULL));
  CHECK_OK(rs_ones(&v1, ctx, RS_MEM_DEVICE, 2, (const int64_t[]){2, 2}, RS_FLOAT64, NULL));
  CHECK_STATUS(rs_concat(&o, 2, (const rs_array *[]){a, b}, 1, NULL), RS_ERR_SHAPE);
  CHECK_ERRMSG("axis 0");
  CHECK_STATUS(rs_concat(&o, 2, (const rs_array *[]){a, a}, 2, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_concat(&o, 0, (const rs_array *[]){a}, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_stack(&o, 2, (const rs_array *[]){a, b}, 0, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_stack(&o, 2, (const rs_array *[]){a, a}, 3, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_flip(&o, a, 2, (const int[]){0, 0}, NULL), RS_ERR_AXIS);
  CHECK_ERRMSG("twice");
  CHECK_STATUS(rs_flip(&o, a, 1, (const int[]){5}, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_roll(&o, a, 1, (const int64_t[]){1}, (const int[]){-3}, NULL), RS_ERR_AXIS);
  CHECK_STATUS(rs_roll(&o, a, 2, (const int64_t[]){1, 1}, NULL, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_STATUS(rs_repeat(&o, a, 1, (const int64_t[]){-1}, 0, NULL), RS_ERR_INVALID_ARGUMENT);
  CHECK_ERRMSG("-1");
  CHECK_STATUS(rs_repeat(&o, a, 2, (const int64_t[]){1, 2}, 1, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_tile(&o, a, 1, (const int64_t[]){-2}, NULL), RS_ERR_INVALID_ARGUMENT);
  rs_array *flat = NULL;
  CHECK_OK(rs_array_ravel(&flat, a));
  CHECK_STATUS(rs_tril(&o, flat, 0, NULL), RS_ERR_SHAPE);
  rs_array_release(flat);
  CHECK_STATUS(rs_meshgrid((rs_array *[2]){0}, 2, (const rs_array *[]){a, a}, RS_MESHGRID_XY, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_array_squeeze_axes(&o, a, 1, (const int[]){0}), RS_ERR_SHAPE);
  CHECK_STATUS(rs_array_expand_dims_axes(&o, a, 2, (const int[]){0, -4}), RS_ERR_AXIS);
  CHECK_STATUS(rs_array_moveaxis(&o, a, 1, (const int[]){0}, (const int[]){2}), RS_ERR_AXIS);
  CHECK_STATUS(rs_array_broadcast_to(&o, a, 2, (const int64_t[]){4, 3}), RS_ERR_BROADCAST);
  CHECK_STATUS(rs_array_unstack((rs_array *[3]){0}, 3, a, 0), RS_ERR_SHAPE);
  CHECK(o == NULL);
  /* a dst of the wrong shape, or of a dtype the result does not cast to: nothing written */
  CHECK_STATUS(rs_concat_into(dst, 2, (const rs_array *[]){a, a}, 0, NULL), RS_ERR_SHAPE);
  CHECK_STATUS(rs_flip_into(v1, a, 0, NULL, NULL), RS_ERR_SHAPE);
  rs_array *i8 = NULL;
  CHECK_OK(rs_zeros(&i8, ctx, RS_MEM_DEVICE, 2, sa, RS_INT8, NULL));
  CHECK_STATUS(rs_roll_into(i8, a, 1, (const int64_t[]){1}, NULL, NULL), RS_ERR_DTYPE);
  CHECK_STATUS(rs_repeat_into(dst, a, 1, (const int64_t[]){-1}, 1, NULL), RS_ERR_INVALID_ARGUMENT);
  for (int64_t i = 0; i < 2; i++)
    for (int64_t j = 0; j < 3; j++) {
      double v = 0;
      CHECK_OK(rs_array_item_double(dst, (const int64_t[]){i, j}, &v, NULL));
      CHECK(v == 7);
    }
  tl_release(5, a, b, dst, v1, i8);
}

static const rs_test_case tests[] = {RS_TEST(test_copies),     RS_TEST(test_edges),      RS_TEST(test_views),
                                     RS_TEST(test_new_ufunc_edges), RS_TEST(test_into), RS_TEST(test_large_unaligned), RS_TEST(test_astype_copy),
                                     RS_TEST(test_bad_input)};
RS_TEST_MAIN(tests)
