/* Compiling user kernels with NVRTC.
 *
 * libnvrtc is loaded with dlopen on the first compile, never linked: libresident must load
 * (and fall back to the simulator) on machines without the CUDA toolkit, and a program
 * that never compiles a kernel should not pay for NVRTC's 60+ MB at start-up. Only the
 * prototypes come from nvrtc.h.
 *
 * Code is compiled for the device's own architecture (sm_XY, a CUBIN the driver loads as
 * is). If this NVRTC does not know the device, the newest virtual architecture it has is
 * used instead (PTX, compiled by the driver at load). The image is a small header - what
 * the code is, and the kernel's lowered (mangled) name, which NVRTC alone can tell - then
 * the code. */
#include <dlfcn.h>
#include <limits.h>
#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_kernel.h"
#include "resident/kernel.h"

#define RS_NVRTC_MAX_OPTIONS 256

static struct {
  void *lib;
  __typeof__(&nvrtcVersion) version;
  __typeof__(&nvrtcGetErrorString) error_string;
  __typeof__(&nvrtcCreateProgram) create;
  __typeof__(&nvrtcDestroyProgram) destroy;
  __typeof__(&nvrtcCompileProgram) compile;
  __typeof__(&nvrtcGetProgramLogSize) log_size;
  __typeof__(&nvrtcGetProgramLog) log;
  __typeof__(&nvrtcGetCUBINSize) cubin_size;
  __typeof__(&nvrtcGetCUBIN) cubin;
  __typeof__(&nvrtcGetPTXSize) ptx_size;
  __typeof__(&nvrtcGetPTX) ptx;
  __typeof__(&nvrtcAddNameExpression) add_name;
  __typeof__(&nvrtcGetLoweredName) lowered_name;
  __typeof__(&nvrtcGetNumSupportedArchs) num_archs;
  __typeof__(&nvrtcGetSupportedArchs) archs;
  int major, minor;
  int arch_list[128];
  int narchs;
  char error[512];
} rs_nvrtc;

static pthread_once_t rs_nvrtc_once = PTHREAD_ONCE_INIT;

static void rs_nvrtc_load(void) {
  /* The major version this library was built against first: NVRTC's ABI follows it. */
  char major_name[64];
  snprintf(major_name, sizeof major_name, "libnvrtc.so.%d", CUDART_VERSION / 1000);
  const char *names[] = {major_name, "libnvrtc.so", "/usr/local/cuda/lib64/libnvrtc.so"};
  for (size_t i = 0; i < sizeof names / sizeof names[0] && !rs_nvrtc.lib; i++)
    rs_nvrtc.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (!rs_nvrtc.lib) {
    snprintf(rs_nvrtc.error, sizeof rs_nvrtc.error,
             "NVRTC is not available (dlopen %s: %s); install the CUDA toolkit's runtime compiler or add "
             "its directory to the loader's path",
             major_name, dlerror());
    return;
  }
  void *l = rs_nvrtc.lib;
  int ok = 1;
#define RS_SYM(field, sym) ok &= (*(void **)&rs_nvrtc.field = dlsym(l, #sym)) != NULL
  RS_SYM(version, nvrtcVersion);
  RS_SYM(error_string, nvrtcGetErrorString);
  RS_SYM(create, nvrtcCreateProgram);
  RS_SYM(destroy, nvrtcDestroyProgram);
  RS_SYM(compile, nvrtcCompileProgram);
  RS_SYM(log_size, nvrtcGetProgramLogSize);
  RS_SYM(log, nvrtcGetProgramLog);
  RS_SYM(cubin_size, nvrtcGetCUBINSize);
  RS_SYM(cubin, nvrtcGetCUBIN);
  RS_SYM(ptx_size, nvrtcGetPTXSize);
  RS_SYM(ptx, nvrtcGetPTX);
  RS_SYM(add_name, nvrtcAddNameExpression);
  RS_SYM(lowered_name, nvrtcGetLoweredName);
  RS_SYM(num_archs, nvrtcGetNumSupportedArchs);
  RS_SYM(archs, nvrtcGetSupportedArchs);
#undef RS_SYM
  if (!ok) {
    snprintf(rs_nvrtc.error, sizeof rs_nvrtc.error, "the NVRTC library found lacks functions this library needs");
    dlclose(l);
    rs_nvrtc.lib = NULL;
    return;
  }
  rs_nvrtc.version(&rs_nvrtc.major, &rs_nvrtc.minor);
  int n = 0;
  if (rs_nvrtc.num_archs(&n) == NVRTC_SUCCESS && n > 0 && n <= 128 && rs_nvrtc.archs(rs_nvrtc.arch_list) == NVRTC_SUCCESS)
    rs_nvrtc.narchs = n;
}

static rs_status rs_nvrtc_ready(void) {
  pthread_once(&rs_nvrtc_once, rs_nvrtc_load);
  if (!rs_nvrtc.lib) return rs_fail(RS_ERR_UNSUPPORTED, "%s", rs_nvrtc.error);
  return RS_OK;
}

/* The architecture code is generated for: the device's own (real = 1) when this NVRTC
 * supports it, else the newest one it has, as PTX. */
static rs_status rs_arch(const rs_backend *b, int *arch, int *real) {
  int major = 0, minor = 0;
  RS_CUDA_CALL(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, b->device),
               "cudaDeviceGetAttribute(compute capability, device %d)", b->device);
  RS_CUDA_CALL(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, b->device),
               "cudaDeviceGetAttribute(compute capability, device %d)", b->device);
  *arch = major * 10 + minor;
  /* CUDA_FORCE_PTX_JIT=1 asks the driver to JIT every kernel from PTX; the runtime JIT
   * honours it too (PTX for the device's own architecture), so one variable proves the
   * PTX path of both the built-in and the compiled kernels. Only "1" counts, as for the
   * driver. The target string names compute_XX, so its cache entries are separate. */
  const char *force = getenv("CUDA_FORCE_PTX_JIT");
  *real = !(force && strcmp(force, "1") == 0);
  if (rs_nvrtc.narchs == 0) return RS_OK; /* an NVRTC that does not list: trust it */
  int best = 0;
  for (int i = 0; i < rs_nvrtc.narchs; i++) {
    if (rs_nvrtc.arch_list[i] == *arch) return RS_OK; /* real as chosen above */
    if (rs_nvrtc.arch_list[i] < *arch && rs_nvrtc.arch_list[i] > best) best = rs_nvrtc.arch_list[i];
  }
  if (best == 0)
    return rs_fail(RS_ERR_UNSUPPORTED, "NVRTC %d.%d cannot generate code for compute capability %d.%d", rs_nvrtc.major,
                   rs_nvrtc.minor, major, minor);
  *arch = best;
  *real = 0;
  return RS_OK;
}

rs_status rs_cuda_kernel_target(rs_backend *b, char *out, size_t len) {
  RS_TRY(rs_nvrtc_ready());
  int arch = 0, real = 0;
  RS_TRY(rs_arch(b, &arch, &real));
  snprintf(out, len, "%s_%d nvrtc %d.%d", real ? "sm" : "compute", arch, rs_nvrtc.major, rs_nvrtc.minor);
  return RS_OK;
}

static char *rs_program_log(nvrtcProgram prog) {
  size_t n = 0;
  if (rs_nvrtc.log_size(prog, &n) != NVRTC_SUCCESS || n == 0) return NULL;
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (rs_nvrtc.log(prog, log) != NVRTC_SUCCESS) {
    free(log);
    return NULL;
  }
  log[n] = '\0';
  return log;
}

/* The first line with "error" in it, for the one-line reason. */
static void rs_first_error(const char *log, char *out, size_t len) {
  const char *e = log ? strstr(log, "error") : NULL;
  if (!e) {
    snprintf(out, len, "NVRTC could not compile the source");
    return;
  }
  const char *line = e;
  while (line > log && line[-1] != '\n') line--;
  snprintf(out, len, "NVRTC: %.*s", (int)strcspn(line, "\n"), line);
}

/* The code and the lowered name into one image. */
static rs_status rs_pack(int kind, const char *lowered, const char *code, size_t code_len, void **image,
                         size_t *bytes) {
  size_t name_len = strlen(lowered) + 1;
  rs_cuda_image_header h = {RS_CUDA_IMAGE_MAGIC, (uint32_t)kind, (uint32_t)name_len, 0, (uint64_t)code_len};
  size_t total = sizeof h + name_len + code_len;
  char *p = malloc(total);
  if (!p) return rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "NVRTC: out of host memory for %zu bytes of code", total);
  memcpy(p, &h, sizeof h);
  memcpy(p + sizeof h, lowered, name_len);
  memcpy(p + sizeof h + name_len, code, code_len);
  *image = p;
  *bytes = total;
  return RS_OK;
}

rs_status rs_cuda_kernel_compile(rs_backend *b, const rs_kernel_source *src, void **image, size_t *bytes,
                                 char **log) {
  *image = NULL;
  *log = NULL;
  RS_TRY(rs_nvrtc_ready());
  int arch = 0, real = 0;
  RS_TRY(rs_arch(b, &arch, &real));
  if (src->noptions + src->ninclude_paths + 8 > RS_NVRTC_MAX_OPTIONS)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "NVRTC: more than %d options and include paths", RS_NVRTC_MAX_OPTIONS - 8);
  char arch_opt[48];
  snprintf(arch_opt, sizeof arch_opt, "--gpu-architecture=%s_%d", real ? "sm" : "compute", arch);
  const char *opts[RS_NVRTC_MAX_OPTIONS];
  char *inc[RS_NVRTC_MAX_OPTIONS];
  int nopts = 0, ninc = 0;
  opts[nopts++] = arch_opt;
  for (int i = 0; i < src->noptions; i++) opts[nopts++] = src->options[i];
  rs_status st = RS_OK;
  for (int i = 0; i < src->ninclude_paths && st == RS_OK; i++) {
    size_t n = strlen(src->include_paths[i]) + 4;
    inc[ninc] = malloc(n);
    if (!inc[ninc]) st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "NVRTC: out of host memory");
    else {
      snprintf(inc[ninc], n, "-I%s", src->include_paths[i]);
      opts[nopts++] = inc[ninc++];
    }
  }
  /* One source for both backends: a function without __host__/__device__ (a helper, or a
   * host prototype from a header shared with host code) is a device function, as on the
   * simulator, where all code is host code; and the toolkit's headers are found after the
   * user's own include paths. */
  opts[nopts++] = "-default-device";
  char toolkit[2][PATH_MAX + 16];
  const char *tk[2];
  int ntk = rs_cuda_toolkit_includes(rs_nvrtc.lib, tk);
  for (int i = 0; i < ntk; i++) {
    snprintf(toolkit[i], sizeof toolkit[i], "-I%s", tk[i]);
    opts[nopts++] = toolkit[i];
  }
  /* resident_device.h comes from the library, whatever the include paths hold. */
  const char *headers[] = {rs_kernel_device_header()};
  const char *header_names[] = {"resident_device.h"};
  nvrtcProgram prog = NULL;
  nvrtcResult r = NVRTC_SUCCESS;
  if (st == RS_OK) {
    r = rs_nvrtc.create(&prog, src->text, src->file, 1, headers, header_names);
    if (r != NVRTC_SUCCESS) st = rs_fail(RS_ERR_HOST_OUT_OF_MEMORY, "nvrtcCreateProgram: %s", rs_nvrtc.error_string(r));
  }
  /* The name as an expression makes NVRTC instantiate a template kernel and tell us the
   * symbol it gets ("_Z5scalePfi" for a C++ kernel, "scale" for an extern "C" one). */
  if (st == RS_OK && (r = rs_nvrtc.add_name(prog, src->name)) != NVRTC_SUCCESS)
    st = rs_fail(RS_ERR_COMPILE, "nvrtcAddNameExpression(%s): %s", src->name, rs_nvrtc.error_string(r));
  if (st == RS_OK) {
    r = rs_nvrtc.compile(prog, nopts, opts);
    *log = rs_program_log(prog);
    if (r != NVRTC_SUCCESS) {
      char reason[400];
      rs_first_error(*log, reason, sizeof reason);
      st = rs_fail(r == NVRTC_ERROR_INVALID_OPTION ? RS_ERR_INVALID_ARGUMENT : RS_ERR_COMPILE, "%s", reason);
    }
  }
  const char *lowered = NULL;
  if (st == RS_OK && (r = rs_nvrtc.lowered_name(prog, src->name, &lowered)) != NVRTC_SUCCESS)
    st = rs_fail(RS_ERR_NOT_FOUND, "NVRTC does not know the kernel '%s' (%s)", src->name, rs_nvrtc.error_string(r));
  if (st == RS_OK) {
    size_t n = 0;
    r = real ? rs_nvrtc.cubin_size(prog, &n) : rs_nvrtc.ptx_size(prog, &n);
    char *code = r == NVRTC_SUCCESS && n > 0 ? malloc(n) : NULL;
    if (!code) st = rs_fail(RS_ERR_COMPILE, "NVRTC produced no code (%s)", rs_nvrtc.error_string(r));
    else if ((r = real ? rs_nvrtc.cubin(prog, code) : rs_nvrtc.ptx(prog, code)) != NVRTC_SUCCESS)
      st = rs_fail(RS_ERR_COMPILE, "NVRTC: reading the code: %s", rs_nvrtc.error_string(r));
    else
      st = rs_pack(real ? RS_CUDA_IMAGE_CUBIN : RS_CUDA_IMAGE_PTX, lowered, code, n, image, bytes);
    free(code);
  }
  if (prog) rs_nvrtc.destroy(&prog);
  for (int i = 0; i < ninc; i++) free(inc[i]);
  return st;
}
