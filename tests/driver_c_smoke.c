/* The upstream driver ABI used from C, as an upstream runtime would: copy a
 * conformance vector into VTAMemAlloc'd buffers, run it with VTADeviceRun and
 * compare the output bit-exactly (the shipped vectors, or those of
 * VTA_CONFORMANCE_DIR). Exit 0 pass, 1 fail. Also checks that a broken
 * program is reported. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vta/driver.h"

static void* read_file(const char* dir, const char* name, size_t* size) {
  char path[4096];
  snprintf(path, sizeof path, "%s/16x16/%s", dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void* buf = malloc(*size ? *size : 1);
  if (fread(buf, 1, *size, f) != *size) *size = 0;
  fclose(f);
  return buf;
}

int main(void) {
  VTADeviceHandle dev = VTADeviceAlloc();
  if (!dev) {
    fprintf(stderr, "VTADeviceAlloc failed: %s\n", VTARuntimeLastError());
    return 1;
  }
  /* A program of one all-zero instruction (a no-op LOAD) has no FINISH. */
  void* bad = VTAMemAlloc(16, VTA_CACHED);
  memset(bad, 0, 16);
  if (VTADeviceRun(dev, VTAMemGetPhyAddr(bad), 1, 1000) == 0 || strstr(VTARuntimeLastError(), "no FINISH") == NULL) {
    fprintf(stderr, "a program without FINISH was not reported: '%s'\n", VTARuntimeLastError());
    return 1;
  }
  VTAMemFree(bad);

  const char* dir = getenv("VTA_CONFORMANCE_DIR");
  if (!dir || !*dir) dir = VTA_SHIPPED_VECTORS; /* tests/data/conformance/vectors */
  /* Layout of tests/data/conformance/README.md: each file on its own pages. */
  const char* names[] = {"input.bin", "weight.bin", "out.bin", "uop.bin", "accumulator.bin", "instructions.bin"};
  void* dev_buf[6];
  size_t sizes[6];
  for (int i = 0; i < 6; ++i) {
    void* host = read_file(dir, names[i], &sizes[i]);
    if (!host) {
      fprintf(stderr, "cannot read %s\n", names[i]);
      return 1;
    }
    dev_buf[i] = VTAMemAlloc(sizes[i], VTA_CACHED);
    VTAMemCopyFromHost(dev_buf[i], host, sizes[i]);
    VTAFlushCache(dev_buf[i], VTAMemGetPhyAddr(dev_buf[i]), (int)sizes[i]);
    free(host);
  }
  if (VTAMemGetPhyAddr(dev_buf[0]) != 0x1000 || VTAMemGetPhyAddr(dev_buf[3]) != 0x4000) {
    fprintf(stderr, "unexpected physical layout: input 0x%x uop 0x%x\n", VTAMemGetPhyAddr(dev_buf[0]),
            VTAMemGetPhyAddr(dev_buf[3]));
    return 1;
  }
  if (VTADeviceRun(dev, VTAMemGetPhyAddr(dev_buf[5]), (uint32_t)(sizes[5] / 16), 100000) != 0) {
    fprintf(stderr, "VTADeviceRun failed: %s\n", VTARuntimeLastError());
    return 1;
  }
  size_t expected_size = 0;
  unsigned char* expected = read_file(dir, "expected_out.bin", &expected_size);
  unsigned char* out = malloc(expected_size);
  VTAInvalidateCache(dev_buf[2], VTAMemGetPhyAddr(dev_buf[2]), (int)expected_size);
  VTAMemCopyToHost(out, dev_buf[2], expected_size);
  int ok = expected_size > 0 && memcmp(out, expected, expected_size) == 0;
  printf("16x16 through the C driver ABI: %s (%zu bytes)\nstats: %s\n", ok ? "PASS" : "FAIL", expected_size,
         VTARuntimeStatsJson());
  for (int i = 0; i < 6; ++i) VTAMemFree(dev_buf[i]);
  free(out);
  free(expected);
  VTADeviceFree(dev);
  return ok ? 0 : 1;
}
