/* Devices without a context: count and properties, the PCIe link from Linux sysfs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "backend/cuda/cuda_internal.h"

rs_status rs_cuda_device_count(int *out) {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    /* No driver, no GPU, a stub library: all mean "no CUDA devices", never a failure, so
     * auto selection falls back to the simulator. */
    (void)cudaGetLastError();
    n = 0;
  }
  *out = n;
  return RS_OK;
}

/* First number in a sysfs attribute ("32.0 GT/s PCIe", "16"); -1 if absent or unparsable
 * ("Unknown" on links the kernel cannot read). */
static double sysfs_number(const char *dir, const char *attr) {
  char path[512], text[64];
  int n = snprintf(path, sizeof path, "%s/%s", dir, attr);
  if (n < 0 || (size_t)n >= sizeof path) return -1;
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *got = fgets(text, sizeof text, f);
  fclose(f);
  if (!got) return -1;
  char *end;
  double v = strtod(text, &end);
  return end == text ? -1 : v;
}

static int pcie_gen_from_gts(double gts) {
  static const double rate[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  for (int i = 0; i < 6; i++)
    if (fabs(gts - rate[i]) < 0.5) return i + 1;
  return 0;
}

static double pcie_lane_gbytes(int gen) {
  /* after line encoding: 8b/10b for gen 1-2, 128b/130b for 3-5, FLIT for 6 */
  static const double per_lane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
  return gen >= 1 && gen <= 6 ? per_lane[gen] : 0;
}

/* The link's negotiated capability. NVIDIA GPUs retrain an idle link down to 2.5 GT/s to
 * save power, so current_link_* read at rest would report gen 1 on a gen 5 slot. When the
 * current value is below the device's maximum, the link can reach min(device max,
 * upstream port max); that is what a transfer will see. */
static double link_value(const char *dev_dir, const char *current, const char *max) {
  double cur = sysfs_number(dev_dir, current);
  double dev_max = sysfs_number(dev_dir, max);
  if (cur <= 0 || dev_max <= cur) return cur;
  char port_dir[512];
  int n = snprintf(port_dir, sizeof port_dir, "%s/..", dev_dir);
  if (n < 0 || (size_t)n >= sizeof port_dir) return cur;
  double port_max = sysfs_number(port_dir, max);
  double cap = port_max > 0 && port_max < dev_max ? port_max : dev_max;
  return cap > cur ? cap : cur;
}

static void read_pcie_link(rs_device_props *p) {
  p->pcie_generation = 0;
  p->pcie_width = 0;
  p->pcie_gbytes_per_s = 0;
  if (p->pci_domain < 0 || p->pci_bus < 0 || p->pci_device < 0) return;
  char dir[256];
  snprintf(dir, sizeof dir, "/sys/bus/pci/devices/%04x:%02x:%02x.0", (unsigned)p->pci_domain,
           (unsigned)p->pci_bus, (unsigned)p->pci_device);
  int gen = pcie_gen_from_gts(link_value(dir, "current_link_speed", "max_link_speed"));
  double width = link_value(dir, "current_link_width", "max_link_width");
  if (gen == 0 || width <= 0) return;
  p->pcie_generation = gen;
  p->pcie_width = (int)width;
  p->pcie_gbytes_per_s = pcie_lane_gbytes(gen) * (int)width;
}

rs_status rs_cuda_device_props(int device, const rs_config *cfg, rs_device_props *out) {
  (void)cfg; /* a GPU reports what it has; no setting changes that */
  int count = 0;
  rs_cuda_device_count(&count);
  if (device < 0 || device >= count)
    return rs_fail(RS_ERR_INVALID_ARGUMENT, "device_props: CUDA device %d does not exist (%d device%s)",
                   device, count, count == 1 ? "" : "s");
  struct cudaDeviceProp cp;
  RS_CUDA_CALL(cudaGetDeviceProperties(&cp, device), "cudaGetDeviceProperties(device %d)", device);

  /* cudaMemGetInfo answers for the current device only; restore the caller's choice. */
  int previous = 0;
  RS_CUDA_CALL(cudaGetDevice(&previous), "cudaGetDevice");
  RS_CUDA_CALL(cudaSetDevice(device), "cudaSetDevice(%d)", device);
  size_t free_bytes = 0, total_bytes = 0;
  cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
  cudaError_t back = cudaSetDevice(previous);
  if (err != cudaSuccess) return rs_cuda_fail(err, "cudaMemGetInfo(device %d)", device);
  if (back != cudaSuccess) return rs_cuda_fail(back, "cudaSetDevice(%d)", previous);

  rs_device_props p;
  memset(&p, 0, sizeof p);
  snprintf(p.name, sizeof p.name, "%s", cp.name);
  p.total_memory = cp.totalGlobalMem;
  p.free_memory = free_bytes;
  p.multiprocessors = cp.multiProcessorCount;
  p.compute_major = cp.major;
  p.compute_minor = cp.minor;
  p.max_threads_per_block = cp.maxThreadsPerBlock;
  p.shared_memory_per_block = cp.sharedMemPerBlock;
  p.warp_size = cp.warpSize;
  p.can_map_host_memory = cp.canMapHostMemory != 0;
  p.managed_memory = cp.managedMemory != 0;
  p.pci_domain = cp.pciDomainID;
  p.pci_bus = cp.pciBusID;
  p.pci_device = cp.pciDeviceID;
  read_pcie_link(&p);
  *out = p;
  return RS_OK;
}

/* CUDA encodes versions as 1000 * major + 10 * minor. */
rs_status rs_cuda_version(char *buf, size_t len) {
  int runtime = 0, driver = 0;
  if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) runtime = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0; /* 0 as well without a driver */
  (void)cudaGetLastError();
  char drv[32] = "driver: none";
  if (driver > 0) snprintf(drv, sizeof drv, "driver %d.%d", driver / 1000, driver % 1000 / 10);
  snprintf(buf, len, "CUDA runtime %d.%d (built with %d.%d), %s", runtime / 1000, runtime % 1000 / 10,
           CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10, drv);
  return RS_OK;
}
