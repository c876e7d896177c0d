// OpenCL platform and device enumeration, selection and listing.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "cl_util.h"
#include "vta/isa/error.h"

namespace vta::opencl {

namespace {

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 6 &&
         std::all_of(s.begin(), s.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
}

std::string type_name(cl_device_type t) {
  std::string s;
  auto add = [&](cl_device_type bit, const char* name) {
    if (t & bit) s += s.empty() ? name : std::string("+") + name;
  };
  add(CL_DEVICE_TYPE_CPU, "CPU");
  add(CL_DEVICE_TYPE_GPU, "GPU");
  add(CL_DEVICE_TYPE_ACCELERATOR, "accelerator");
  add(CL_DEVICE_TYPE_CUSTOM, "custom");
  return s.empty() ? "other" : s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string mib(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / double(1 << 30));
  if (bytes >= (uint64_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / double(1 << 20));
  return fmt::format("{} KiB", bytes >> 10);
}

}  // namespace

std::vector<Found> enumerate_devices() {
  std::vector<Found> out;
  cl_uint np = 0;
  if (clGetPlatformIDs(0, nullptr, &np) != CL_SUCCESS || np == 0) return out;  // no ICD at all
  std::vector<cl_platform_id> platforms(np);
  if (clGetPlatformIDs(np, platforms.data(), nullptr) != CL_SUCCESS) return out;
  for (cl_uint p = 0; p < np; ++p) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &nd) != CL_SUCCESS || nd == 0) continue;
    std::vector<cl_device_id> devices(nd);
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devices.data(), nullptr) != CL_SUCCESS) continue;
    for (cl_device_id d : devices) {
      Found f;
      f.platform = platforms[p];
      f.device = d;
      DeviceInfo& i = f.info;
      i.index = static_cast<int>(out.size());
      i.platform_index = static_cast<int>(p);
      i.platform = platform_string(platforms[p], CL_PLATFORM_NAME);
      i.platform_version = platform_string(platforms[p], CL_PLATFORM_VERSION);
      i.vendor = device_string(d, CL_DEVICE_VENDOR);
      i.name = device_string(d, CL_DEVICE_NAME);
      i.type = type_name(device_value<cl_device_type>(d, CL_DEVICE_TYPE));
      i.version = device_string(d, CL_DEVICE_VERSION);
      i.driver_version = device_string(d, CL_DRIVER_VERSION);
      i.c_version = device_string(d, CL_DEVICE_OPENCL_C_VERSION);
      i.compute_units = device_value<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS);
      i.clock_mhz = device_value<cl_uint>(d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
      i.global_mem = device_value<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE);
      i.local_mem = device_value<cl_ulong>(d, CL_DEVICE_LOCAL_MEM_SIZE);
      i.max_alloc = device_value<cl_ulong>(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
      i.max_work_group = device_value<size_t>(d, CL_DEVICE_MAX_WORK_GROUP_SIZE);
      i.little_endian = device_value<cl_bool>(d, CL_DEVICE_ENDIAN_LITTLE) != CL_FALSE;
      i.available = device_value<cl_bool>(d, CL_DEVICE_AVAILABLE) != CL_FALSE;
      for (const char ch : device_string(d, CL_DEVICE_EXTENSIONS))  // one space between names
        if (ch != ' ' || (!i.extensions.empty() && i.extensions.back() != ' ')) i.extensions += ch;
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<DeviceInfo> list_devices() {
  std::vector<DeviceInfo> out;
  for (auto& f : enumerate_devices()) out.push_back(std::move(f.info));
  return out;
}

std::string describe_devices(const std::vector<DeviceInfo>& devices) {
  if (devices.empty())
    return "no OpenCL platform found (the ICD loader lists no driver: install one, e.g. pocl-opencl-icd, or set "
           "OCL_ICD_VENDORS to a folder of .icd files)\n";
  std::string out;
  int platform = -1;
  for (const auto& d : devices) {
    if (d.platform_index != platform) {
      platform = d.platform_index;
      out += fmt::format("platform {}: {} ({})\n", d.platform_index, d.platform, d.platform_version);
    }
    out += fmt::format("  device {}: {} [{}]{}\n", d.index, d.name, d.type, d.available ? "" : " (not available)");
    out += fmt::format("    vendor {}, {}, driver {}, {}\n", d.vendor, d.version, d.driver_version, d.c_version);
    out += fmt::format("    compute units {}, clock {} MHz, max work-group {}\n", d.compute_units, d.clock_mhz,
                       d.max_work_group);
    out += fmt::format("    global memory {}, local memory {}, max allocation {}{}\n", mib(d.global_mem),
                       mib(d.local_mem), mib(d.max_alloc), d.little_endian ? "" : ", big-endian");
    out += fmt::format("    extensions: {}\n", d.extensions.empty() ? "(none)" : d.extensions);
  }
  return out;
}

Found select_device(const Config& c) {
  std::string want_platform = c.opencl.platform, want_device = c.opencl.device;
  if (want_platform.empty()) want_platform = env("VTA_OPENCL_PLATFORM");
  if (want_device.empty()) want_device = env("VTA_OPENCL_DEVICE");
  std::vector<Found> all = enumerate_devices();
  if (all.empty())
    fail(
        "no OpenCL platform found: the ICD loader lists no driver (install one, e.g. pocl-opencl-icd, or set "
        "OCL_ICD_VENDORS to a folder of .icd files)");
  auto listing = [&] {
    std::string s;
    for (const auto& f : all)
      s += fmt::format("{}{}: {} (platform {}: {})", s.empty() ? "" : "; ", f.info.index, f.info.name,
                       f.info.platform_index, f.info.platform);
    return s;
  };
  std::vector<const Found*> candidates;
  for (const auto& f : all) {
    if (want_platform.empty() ||
        (is_index(want_platform) ? f.info.platform_index == std::atoi(want_platform.c_str())
                                 : lower(f.info.platform).find(lower(want_platform)) != std::string::npos))
      candidates.push_back(&f);
  }
  if (candidates.empty())
    fail("no OpenCL platform matches opencl.platform '{}'; devices: {}", want_platform, listing());
  const Found* pick = nullptr;
  if (want_device.empty()) {
    pick = candidates.front();
  } else if (is_index(want_device)) {
    const auto k = static_cast<size_t>(std::atoi(want_device.c_str()));
    if (k < candidates.size()) pick = candidates[k];
  } else {
    for (const Found* f : candidates)
      if (lower(f->info.name).find(lower(want_device)) != std::string::npos) {
        pick = f;
        break;
      }
  }
  if (!pick)
    fail("no OpenCL device matches opencl.device '{}'{}; devices: {}", want_device,
         want_platform.empty() ? "" : fmt::format(" on platform '{}'", want_platform), listing());
  if (!pick->info.available) fail("OpenCL device {} ({}) is not available", pick->info.index, pick->info.name);
  if (!pick->info.little_endian)
    fail("OpenCL device {} ({}) is big-endian; the VTA kernel reads little-endian DRAM words", pick->info.index,
         pick->info.name);
  return *pick;
}

}  // namespace vta::opencl
