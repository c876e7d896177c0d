// OpenCL error text and info queries.
#include "cl_util.h"

#include "vta/isa/error.h"

namespace vta::opencl {

std::string error_name(cl_int err) {
  switch (err) {
#define VTA_CL_ERR(e) \
  case e:             \
    return #e;
    VTA_CL_ERR(CL_DEVICE_NOT_FOUND)
    VTA_CL_ERR(CL_DEVICE_NOT_AVAILABLE)
    VTA_CL_ERR(CL_COMPILER_NOT_AVAILABLE)
    VTA_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    VTA_CL_ERR(CL_OUT_OF_RESOURCES)
    VTA_CL_ERR(CL_OUT_OF_HOST_MEMORY)
    VTA_CL_ERR(CL_PROFILING_INFO_NOT_AVAILABLE)
    VTA_CL_ERR(CL_MEM_COPY_OVERLAP)
    VTA_CL_ERR(CL_BUILD_PROGRAM_FAILURE)
    VTA_CL_ERR(CL_MAP_FAILURE)
    VTA_CL_ERR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    VTA_CL_ERR(CL_LINK_PROGRAM_FAILURE)
    VTA_CL_ERR(CL_INVALID_VALUE)
    VTA_CL_ERR(CL_INVALID_DEVICE_TYPE)
    VTA_CL_ERR(CL_INVALID_PLATFORM)
    VTA_CL_ERR(CL_INVALID_DEVICE)
    VTA_CL_ERR(CL_INVALID_CONTEXT)
    VTA_CL_ERR(CL_INVALID_QUEUE_PROPERTIES)
    VTA_CL_ERR(CL_INVALID_COMMAND_QUEUE)
    VTA_CL_ERR(CL_INVALID_MEM_OBJECT)
    VTA_CL_ERR(CL_INVALID_BINARY)
    VTA_CL_ERR(CL_INVALID_BUILD_OPTIONS)
    VTA_CL_ERR(CL_INVALID_PROGRAM)
    VTA_CL_ERR(CL_INVALID_PROGRAM_EXECUTABLE)
    VTA_CL_ERR(CL_INVALID_KERNEL_NAME)
    VTA_CL_ERR(CL_INVALID_KERNEL)
    VTA_CL_ERR(CL_INVALID_ARG_INDEX)
    VTA_CL_ERR(CL_INVALID_ARG_VALUE)
    VTA_CL_ERR(CL_INVALID_ARG_SIZE)
    VTA_CL_ERR(CL_INVALID_KERNEL_ARGS)
    VTA_CL_ERR(CL_INVALID_WORK_DIMENSION)
    VTA_CL_ERR(CL_INVALID_WORK_GROUP_SIZE)
    VTA_CL_ERR(CL_INVALID_WORK_ITEM_SIZE)
    VTA_CL_ERR(CL_INVALID_EVENT)
    VTA_CL_ERR(CL_INVALID_OPERATION)
    VTA_CL_ERR(CL_INVALID_BUFFER_SIZE)
    VTA_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE)
#undef VTA_CL_ERR
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return fmt::format("error {}", err);
  }
}

std::string cl_error_message(int err, std::string_view what, std::string_view device) {
  switch (err) {
    case CL_OUT_OF_RESOURCES:
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST:
    case -9999:  // NVIDIA: illegal access / launch failure
      return fmt::format(
          "OpenCL device '{}' stopped working during {}: {} ({}); the device was lost or reset, or the kernel "
          "faulted (check the driver log, e.g. dmesg or nvidia-smi, and run `vta bringup`)",
          device, what, error_name(err), err);
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
      return fmt::format("OpenCL device '{}' could not allocate memory for {}: {} ({})", device, what, error_name(err),
                         err);
    default:
      return fmt::format("OpenCL {} failed on device '{}': {} ({})", what, device, error_name(err), err);
  }
}

void fail_cl(cl_int err, std::string_view what, std::string_view device) {
  throw DeviceError(cl_error_message(err, what, device));
}

std::string platform_string(cl_platform_id p, cl_platform_info what) {
  size_t n = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetPlatformInfo(p, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string device_string(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return "";
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace vta::opencl
