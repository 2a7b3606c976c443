/* Compiling user kernels: compile errors with the compiler's log, functions not in the
 * source, options and include paths (and the headers' contents in the cache key), files,
 * C++ and template kernels, the memory and disk caches, and the device header. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"
#include "kernel_test_util.h"

/* A source no earlier run can have cached: a nonce in a comment. */
static void kt_unique_source(char *out, size_t len, const char *body) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(out, len, "// nonce %ld.%09ld pid %ld\n%s", (long)ts.tv_sec, ts.tv_nsec, (long)getpid(), body);
}

static void test_compile_error_has_log(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void broken(float *x, int n) {\n"
      "  int i = threadIdx.x;\n"
      "  x[i] = undeclared_thing * 2.0f;\n"
      "}\n";
  rs_kernel *k = NULL;
  CHECK_STATUS(rs_kernel_create(&k, ctx, src, "broken", NULL), RS_ERR_COMPILE);
  CHECK(k == NULL);
  CHECK_ERRMSG("undeclared_thing");
  CHECK_ERRMSG("broken");
  const char *log = rs_kernel_last_log();
  CHECK_MSG(strstr(log, "undeclared_thing") != NULL, "log: %s", log);
  CHECK(strstr(log, ":3:") != NULL || strstr(log, "(3)") != NULL); /* the line: g++ and NVRTC style */
}

static void test_long_log_is_cut_in_the_message(rs_context *ctx) {
  char src[8192];
  size_t used = (size_t)snprintf(src, sizeof src, "extern \"C\" __global__ void many(float *x) {\n");
  for (int i = 0; i < 40; i++)
    used += (size_t)snprintf(src + used, sizeof src - used, "  x[%d] = missing_%d;\n", i, i);
  snprintf(src + used, sizeof src - used, "}\n");
  rs_kernel *k = NULL;
  CHECK_STATUS(rs_kernel_create(&k, ctx, src, "many", NULL), RS_ERR_COMPILE);
  CHECK_ERRMSG("rs_kernel_last_log()");
  const char *log = rs_kernel_last_log();
  CHECK(strlen(log) > strlen(rs_last_error()));
  CHECK(strstr(log, "missing_39") != NULL);
}

static void test_function_not_in_source(rs_context *ctx) {
  static const char *src =
      "extern \"C\" __global__ void first(float *x) { x[0] = 1.0f; }\n"
      "__global__ void second(float *x) { x[0] = 2.0f; }\n";
  rs_kernel *k = NULL;
  CHECK_STATUS(rs_kernel_create(&k, ctx, src, "third", NULL), RS_ERR_NOT_FOUND);
  CHECK_ERRMSG("'third'");
  CHECK_ERRMSG("first, second");
  CHECK_STATUS(rs_kernel_create(&k, ctx, "int main() { return 0; }", "main", NULL), RS_ERR_NOT_FOUND);
  CHECK_ERRMSG("has none");
}

static void test_bad_arguments(rs_context *ctx) {
  rs_kernel *k = NULL;
  CHECK_STATUS(rs_kernel_create(NULL, ctx, "x", "k", NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_kernel_create(&k, NULL, "x", "k", NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_kernel_create(&k, ctx, NULL, "k", NULL), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_kernel_create(&k, ctx, "x", "", NULL), RS_ERR_INVALID_ARGUMENT);
  rs_kernel_options bad = {.noptions = 1, .options = NULL};
  CHECK_STATUS(rs_kernel_create(&k, ctx, "x", "k", &bad), RS_ERR_NULL_POINTER);
  CHECK_STATUS(rs_kernel_create_from_file(&k, ctx, "/nonexistent/kernel.cu", "k", NULL), RS_ERR_NOT_FOUND);
  CHECK_ERRMSG("/nonexistent/kernel.cu");
  rs_launch_config cfg = {0};
  CHECK_STATUS(rs_kernel_launch(NULL, &cfg, 0, NULL), RS_ERR_NULL_POINTER);
  CHECK_OK(rs_kernel_destroy(NULL)); /* ignored */
}

static void test_destroyed_kernel_handle(rs_context *ctx) {
  rs_kernel *k = NULL;
  CHECK_OK(rs_kernel_create(&k, ctx, "extern \"C\" __global__ void nothing() {}\n", "nothing", NULL));
  rs_kernel_destroy(k);
  rs_launch_config cfg = {.grid = {1}, .block = {1}};
  CHECK_STATUS(rs_kernel_launch(k, &cfg, 0, NULL), RS_ERR_DESTROYED);
  rs_kernel_info info;
  CHECK_STATUS(rs_kernel_get_info(k, &info), RS_ERR_DESTROYED);
}

static const char *fill_body =
    "#include \"kt_value.h\"\n"
    "extern \"C\" __global__ void fill(float *x, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] = KT_VALUE * KT_SCALE;\n"
    "}\n";

static rs_status kt_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return RS_ERR_INVALID_ARGUMENT;
  fputs(text, f);
  fclose(f);
  return RS_OK;
}

static rs_status kt_run_fill(rs_context *ctx, rs_kernel *k, float *first) {
  int64_t n = 100;
  rs_array *d = NULL;
  H_OK(rs_device_array(&d, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C));
  rs_launch_config cfg = {.elements = n};
  rs_status st = rs_kernel_launch(k, &cfg, RS_ARGS(rs_arg_array(d), rs_arg_i32(100)));
  float out[100];
  if (st == RS_OK) st = rs_t_read_(d, out);
  rs_array_release(d);
  *first = out[0];
  return st;
}

static void test_options_include_paths_and_header_key(rs_context *ctx) {
  char dir[] = "/tmp/resident-kt-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char header[128];
  snprintf(header, sizeof header, "%s/kt_value.h", dir);
  CHECK_OK(kt_write(header, "#define KT_VALUE 3.0f\n"));
  char src[1024];
  kt_unique_source(src, sizeof src, fill_body);
  const char *options[] = {"-DKT_SCALE=2.0f"};
  const char *incs[] = {dir};
  rs_kernel_options o = {1, options, 1, incs, 0};
  rs_kernel *k = NULL;
  float v = 0;
  rs_status st = rs_kernel_create(&k, ctx, src, "fill", &o);
  if (st == RS_OK) st = kt_run_fill(ctx, k, &v);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(v == 6.0f);
  /* The header changed: the cache must not serve the old code. */
  CHECK_OK(kt_write(header, "#define KT_VALUE 5.0f\n"));
  st = rs_kernel_create(&k, ctx, src, "fill", &o);
  rs_kernel_info info;
  memset(&info, 0, sizeof info);
  if (st == RS_OK) st = rs_kernel_get_info(k, &info);
  if (st == RS_OK) st = kt_run_fill(ctx, k, &v);
  rs_kernel_destroy(k);
  unlink(header);
  rmdir(dir);
  CHECK_OK(st);
  CHECK(info.origin == RS_KERNEL_COMPILED);
  CHECK(v == 10.0f);
}

static void test_from_file(rs_context *ctx) {
  char path[4096];
  kt_source_path(path, sizeof path, "examples/kernel_reduce.cu");
  rs_kernel *k = NULL;
  CHECK_OK(rs_kernel_create_from_file(&k, ctx, path, "total_atomic", NULL));
  rs_kernel_param p;
  rs_status st = rs_kernel_get_param(k, 0, &p);
  rs_kernel_destroy(k);
  CHECK_OK(st);
  CHECK(p.kind == RS_PARAM_POINTER && p.read_only);
  CHECK_STATUS(rs_kernel_create_from_file(&k, ctx, path, "no_such_kernel", NULL), RS_ERR_NOT_FOUND);
  CHECK_ERRMSG("kernel_reduce.cu");
}

static void test_cpp_and_template_kernels(rs_context *ctx) {
  static const char *src =
      "__global__ void scale(float *x, float a, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] *= a;\n"
      "}\n"
      "template <typename T> __global__ void fill(T *x, T v, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] = v;\n"
      "}\n";
  rs_kernel *ks = NULL, *kf = NULL;
  KT_CREATE(ks, ctx, src, "scale");
  rs_status st = rs_kernel_create(&kf, ctx, src, "fill<double>", NULL);
  int64_t n = 50;
  rs_array *f = NULL, *d = NULL;
  if (st == RS_OK) st = rs_device_array(&f, ctx, 1, &n, RS_FLOAT32, NULL, RS_ORDER_C);
  if (st == RS_OK) st = rs_device_array(&d, ctx, 1, &n, RS_FLOAT64, NULL, RS_ORDER_C);
  rs_launch_config cfg = {.elements = n};
  float ones[50];
  for (int i = 0; i < 50; i++) ones[i] = 1.0f;
  if (st == RS_OK) st = rs_t_write_(f, ones);
  if (st == RS_OK) st = rs_kernel_launch(ks, &cfg, RS_ARGS(rs_arg_array(f), rs_arg_f32(4.0f), rs_arg_i32(50)));
  if (st == RS_OK) st = rs_kernel_launch(kf, &cfg, RS_ARGS(rs_arg_array(d), rs_arg_f64(0.5), rs_arg_i32(50)));
  float fo[50];
  double dout[50];
  if (st == RS_OK) st = rs_t_read_(f, fo);
  if (st == RS_OK) st = rs_t_read_(d, dout);
  /* the template parameter T is a type the parser cannot size: the compiled size checks */
  rs_status wrong = RS_OK;
  if (st == RS_OK) wrong = rs_kernel_launch(kf, &cfg, RS_ARGS(rs_arg_array(d), rs_arg_f32(0.5f), rs_arg_i32(50)));
  rs_array_release(f);
  rs_array_release(d);
  rs_kernel_destroy(ks);
  rs_kernel_destroy(kf);
  CHECK_OK(st);
  CHECK(wrong == RS_ERR_LAUNCH);
  CHECK(fo[49] == 4.0f && dout[0] == 0.5 && dout[49] == 0.5);
}

static void test_cache_memory_then_disk(rs_context *ctx) {
  char dir[] = "/tmp/resident-kt-cache-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  setenv("RESIDENT_CACHE_DIR", dir, 1);
  rs_context *c2 = NULL;
  rs_status st = rs_context_create(&c2, rs_context_backend(ctx), rs_context_device(ctx));
  unsetenv("RESIDENT_CACHE_DIR");
  CHECK_OK(st);
  char src[1024];
  kt_unique_source(src, sizeof src, "extern \"C\" __global__ void cached(int *x) { x[threadIdx.x] = 7; }\n");
  rs_kernel_cache_stats s0, s1, s2, s3;
  rs_kernel_info i1, i2, i3;
  rs_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
  CHECK_OK(rs_kernel_cache_get_stats(&s0));
  st = rs_kernel_create(&k1, c2, src, "cached", NULL);
  if (st == RS_OK) st = rs_kernel_get_info(k1, &i1);
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s1);
  if (st == RS_OK) st = rs_kernel_create(&k2, c2, src, "cached", NULL);
  if (st == RS_OK) st = rs_kernel_get_info(k2, &i2);
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s2);
  rs_kernel_cache_clear(); /* as a new process would start: only the disk has it */
  if (st == RS_OK) st = rs_kernel_create(&k3, c2, src, "cached", NULL);
  if (st == RS_OK) st = rs_kernel_get_info(k3, &i3);
  if (st == RS_OK) st = rs_kernel_cache_get_stats(&s3);
  /* the disk copy works */
  int64_t n = 32;
  rs_array *x = NULL;
  int out[32] = {0};
  if (st == RS_OK) st = rs_device_array(&x, c2, 1, &n, RS_INT32, NULL, RS_ORDER_C);
  rs_launch_config cfg = {.grid = {1}, .block = {32}};
  if (st == RS_OK) st = rs_kernel_launch(k3, &cfg, RS_ARGS(rs_arg_array(x)));
  if (st == RS_OK) st = rs_t_read_(x, out);
  rs_array_release(x);
  rs_kernel_destroy(k1);
  rs_kernel_destroy(k2);
  rs_kernel_destroy(k3);
  rs_context_destroy(c2);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  CHECK_OK(st);
  CHECK(i1.origin == RS_KERNEL_COMPILED);
  CHECK(i2.origin == RS_KERNEL_MEMORY_CACHE);
  CHECK(i3.origin == RS_KERNEL_DISK_CACHE);
  CHECK_EQ_I64(s1.compiles - s0.compiles, 1);
  CHECK_EQ_I64(s1.disk_writes - s0.disk_writes, 1);
  CHECK_EQ_I64(s2.memory_hits - s1.memory_hits, 1);
  CHECK_EQ_I64(s2.compiles, s1.compiles);
  CHECK_EQ_I64(s3.disk_hits - s2.disk_hits, 1);
  CHECK_EQ_I64(s3.compiles, s1.compiles);
  CHECK(i2.create_ms < i1.create_ms);
  CHECK(out[0] == 7 && out[31] == 7);
}

/* The cache directory's *.rsk files: how many, their bytes, and up to 8 names. */
typedef struct cache_listing {
  int n;
  int64_t bytes;
  char names[8][256];
} cache_listing;

static cache_listing list_cache(const char *dir) {
  cache_listing l = {0};
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 4 || strcmp(e->d_name + len - 4, ".rsk") != 0) continue;
    char path[1400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (stat(path, &st) != 0) continue;
    if (l.n < 8) snprintf(l.names[l.n], sizeof l.names[0], "%s", e->d_name);
    l.n++;
    l.bytes += st.st_size;
  }
  if (d) closedir(d);
  return l;
}

static int listed(const cache_listing *l, const char *name) {
  for (int i = 0; i < l->n && i < 8; i++)
    if (strcmp(l->names[i], name) == 0) return 1;
  return 0;
}

/* A context whose cache is dir, limited to max ("none" = no limit). */
static rs_context *cache_context(rs_context *like, const char *dir, const char *max) {
  setenv("RESIDENT_CACHE_DIR", dir, 1);
  setenv("RESIDENT_CACHE_MAX", max, 1);
  rs_context *c = NULL;
  rs_status st = rs_context_create(&c, rs_context_backend(like), rs_context_device(like));
  unsetenv("RESIDENT_CACHE_DIR");
  unsetenv("RESIDENT_CACHE_MAX");
  return st == RS_OK ? c : NULL;
}

static rs_status create_and_drop(rs_context *c, const char *src, const char *name) {
  rs_kernel *k = NULL;
  rs_status st = rs_kernel_create(&k, c, src, name, NULL);
  rs_kernel_destroy(k);
  return st;
}

/* RESIDENT_CACHE_MAX: a write past the limit deletes the least recently used kernels (a
 * disk hit counts as a use) down to 3/4 of the limit; the file just written stays. With
 * room for 2.8 kernels: write A and B, use A from disk, write C - B goes, A and C stay. */
static void test_cache_limit_evicts_least_recent(rs_context *ctx) {
  char dir[] = "/tmp/resident-kt-limit-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char a[512], b[512], c[512];
  kt_unique_source(a, sizeof a, "extern \"C\" __global__ void lim_a(int *x) { x[threadIdx.x] = 1; }\n");
  kt_unique_source(b, sizeof b, "extern \"C\" __global__ void lim_b(int *x) { x[threadIdx.x] = 2; }\n");
  kt_unique_source(c, sizeof c, "extern \"C\" __global__ void lim_c(int *x) { x[threadIdx.x] = 3; }\n");
  rs_context *open = cache_context(ctx, dir, "none");
  CHECK(open != NULL);
  rs_status st = open ? create_and_drop(open, a, "lim_a") : RS_ERR_STATE;
  cache_listing after_a = list_cache(dir);
  char max[64];
  snprintf(max, sizeof max, "%lld", (long long)(after_a.bytes * 28 / 10));
  rs_context *limited = cache_context(ctx, dir, max);
  rs_kernel_cache_stats s0, s1;
  rs_kernel_cache_get_stats(&s0);
  if (st == RS_OK) st = limited ? create_and_drop(limited, b, "lim_b") : RS_ERR_STATE;
  cache_listing after_b = list_cache(dir);
  rs_kernel_cache_clear(); /* A from the disk now: a use */
  rs_kernel *ka = NULL;
  rs_kernel_info ia = {0};
  if (st == RS_OK) st = rs_kernel_create(&ka, limited, a, "lim_a", NULL);
  if (st == RS_OK) st = rs_kernel_get_info(ka, &ia);
  rs_kernel_destroy(ka);
  if (st == RS_OK) st = create_and_drop(limited, c, "lim_c");
  cache_listing after_c = list_cache(dir);
  rs_kernel_cache_get_stats(&s1);
  if (open) rs_context_destroy(open);
  if (limited) rs_context_destroy(limited);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  CHECK(limited != NULL);
  CHECK_OK(st);
  CHECK_EQ_I64(after_a.n, 1);
  CHECK_EQ_I64(after_b.n, 2);
  CHECK(ia.origin == RS_KERNEL_DISK_CACHE);
  CHECK_MSG(after_c.n == 2 && s1.disk_evictions - s0.disk_evictions == 1,
            "after C: %d entries, %lld evictions; bytes after A %lld, after B %lld, after C %lld, limit %s",
            after_c.n, (long long)(s1.disk_evictions - s0.disk_evictions), (long long)after_a.bytes,
            (long long)after_b.bytes, (long long)after_c.bytes, max);
  const char *name_a = after_a.names[0];
  const char *name_b = strcmp(after_b.names[0], name_a) == 0 ? after_b.names[1] : after_b.names[0];
  CHECK_MSG(listed(&after_c, name_a), "A (used last before C) was evicted");
  CHECK_MSG(!listed(&after_c, name_b), "B (least recently used) is still there");
}

static void test_cache_limit_bad_value(rs_context *ctx) {
  setenv("RESIDENT_CACHE_MAX", "lots", 1);
  rs_context *c = NULL;
  CHECK_STATUS(rs_context_create(&c, rs_context_backend(ctx), rs_context_device(ctx)), RS_ERR_PARSE);
  unsetenv("RESIDENT_CACHE_MAX");
  CHECK(c == NULL);
  CHECK_ERRMSG("RESIDENT_CACHE_MAX", "lots");
}

static void test_no_cache_flag(rs_context *ctx) {
  char src[1024];
  kt_unique_source(src, sizeof src, "extern \"C\" __global__ void uncached(int *x) { x[0] = 1; }\n");
  rs_kernel_options o = {.flags = RS_KERNEL_NO_CACHE};
  rs_kernel *a = NULL, *b = NULL;
  rs_kernel_info ia, ib;
  rs_status st = rs_kernel_create(&a, ctx, src, "uncached", &o);
  if (st == RS_OK) st = rs_kernel_create(&b, ctx, src, "uncached", &o);
  if (st == RS_OK) st = rs_kernel_get_info(a, &ia);
  if (st == RS_OK) st = rs_kernel_get_info(b, &ib);
  rs_kernel_destroy(a);
  rs_kernel_destroy(b);
  CHECK_OK(st);
  CHECK(ia.origin == RS_KERNEL_COMPILED && ib.origin == RS_KERNEL_COMPILED);
  o.flags = 0x100;
  CHECK_STATUS(rs_kernel_create(&a, ctx, src, "uncached", &o), RS_ERR_INVALID_ARGUMENT);
}

static void test_device_header_matches_file(rs_context *ctx) {
  (void)ctx;
  char path[4096];
  kt_source_path(path, sizeof path, "include/resident_device.h");
  FILE *f = fopen(path, "rb");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  static char text[65536];
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  CHECK_MSG(strcmp(text, rs_kernel_device_header()) == 0,
            "the embedded device header is not include/resident_device.h: the build's embed step failed");
}

/* The simulator refuses what it cannot run, by name. */
static void test_unsupported_intrinsic_named(rs_context *ctx) {
  if (rs_context_backend(ctx) != RS_BACKEND_SIM) return;
  static const char *src =
      "extern \"C\" __global__ void tex(float *x) {\n"
      "  x[threadIdx.x] = tex1Dfetch(0, threadIdx.x);\n"
      "}\n";
  rs_kernel *k = NULL;
  CHECK_STATUS(rs_kernel_create(&k, ctx, src, "tex", NULL), RS_ERR_COMPILE);
  CHECK_ERRMSG("tex1Dfetch");
  CHECK_ERRMSG("does not support");
  static const char *ptx =
      "extern \"C\" __global__ void lane(unsigned *x) {\n"
      "  unsigned l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); x[threadIdx.x] = l;\n"
      "}\n";
  CHECK_STATUS(rs_kernel_create(&k, ctx, ptx, "lane", NULL), RS_ERR_COMPILE);
  CHECK_ERRMSG("asm");
}

static const rs_test_case tests[] = {
    RS_TEST(test_compile_error_has_log),
    RS_TEST(test_long_log_is_cut_in_the_message),
    RS_TEST(test_function_not_in_source),
    RS_TEST(test_bad_arguments),
    RS_TEST(test_destroyed_kernel_handle),
    RS_TEST(test_options_include_paths_and_header_key),
    RS_TEST(test_from_file),
    RS_TEST(test_cpp_and_template_kernels),
    RS_TEST(test_cache_memory_then_disk),
    RS_TEST(test_cache_limit_evicts_least_recent),
    RS_TEST(test_cache_limit_bad_value),
    RS_TEST(test_no_cache_flag),
    RS_TEST(test_device_header_matches_file),
    RS_TEST(test_unsupported_intrinsic_named),
};
RS_TEST_MAIN(tests)
