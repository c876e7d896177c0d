#pragma once
// Internal helpers over the OpenCL C API: error text, info queries and device
// enumeration with their handles.
#include <CL/cl.h>

#include <string>
#include <string_view>
#include <vector>

#include "vta/kernels/opencl.h"

namespace vta::opencl {

/// "CL_OUT_OF_RESOURCES" for -5, "error -9999" for codes it does not know.
std::string error_name(cl_int err);
/// Throws vta::Error for `err` during `what` on `device`; errors that mean the
/// device stopped working (out of resources, not available, a failed command)
/// are reported as a lost device, allocation failures as such.
[[noreturn]] void fail_cl(cl_int err, std::string_view what, std::string_view device);

std::string platform_string(cl_platform_id p, cl_platform_info what);
std::string device_string(cl_device_id d, cl_device_info what);
template <typename T>
T device_value(cl_device_id d, cl_device_info what) {
  T v{};
  clGetDeviceInfo(d, what, sizeof(T), &v, nullptr);
  return v;
}

/// A device with its handles.
struct Found {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  DeviceInfo info;
};
/// Every device of every platform.
std::vector<Found> enumerate_devices();
/// The device the config (or VTA_OPENCL_PLATFORM / VTA_OPENCL_DEVICE) names;
/// throws vta::Error listing the devices when none matches or there are none.
Found select_device(const Config& c);

}  // namespace vta::opencl
