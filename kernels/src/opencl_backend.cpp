// The "opencl" backend: builds or loads kernels/vta.cl for a device and runs
// programs on it with the golden model's semantics (see opencl.h).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "cl_util.h"
#include "vta/isa/elem_pack.h"
#include "vta/isa/error.h"
#include "vta/isa/read_file.h"
#include "vta/kernels/opencl.h"
#include "vta/model/datapath.h"
#include "vta/model/golden.h"
#include "vta/model/program.h"
#include "vta/model/race.h"

namespace vta::opencl {

using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

namespace {

// Error codes of status[0] (kernels/vta.cl).
enum KernelError : uint32_t { kNone = 0, kUopBounds = 1, kUopEnd = 2, kSramRange = 3, kDramRange = 4, kBadInsn = 5 };

// Largest total of on-chip buffers the single variant keeps in private
// arrays (PoCL runs a work-item with about 1 MiB of private arrays; beyond it
// the buffers stay in global memory).
constexpr uint64_t kOnChipBudget = uint64_t{1} << 20;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char ch : s) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
  return h;
}

std::string read_file(const std::string& path, std::string_view what) {
  return vta::read_file(path, what, kDataReadLimit);
}

/// How the kernel is compiled: its variant and where the on-chip buffers live.
struct Flavor {
  bool workgroup = false, onchip = false;
  uint32_t stage = 0;  // work-group variant: most uops of a GEMM staged in local memory
  auto operator<=>(const Flavor&) const = default;
};

/// Whether a "#define NAME..." line defines a function-like macro.
bool function_like(const std::string& line) {
  const size_t end = line.find_first_of(" (", 8);
  return end != std::string::npos && line[end] == '(';
}

/// The text prepended to the kernel: the generated defines, the flavor, and a
/// hash of both (the object-like defines lines only: names and comments do not
/// count, nor do the function-like macros of the ALU ops' semantics, which are
/// kernel code like vta.cl itself, not numbers of the design).
std::string kernel_prefix(const Config& c, const Flavor& f) {
  std::string s = isa::generate_opencl_defines(c);
  s += fmt::format("#define VTA_VARIANT_WORKGROUP {}\n#define VTA_SRAM_ONCHIP {}\n#define VTA_WG_STAGE {}\n",
                   f.workgroup ? 1 : 0, f.onchip ? 1 : 0, f.stage);
  std::string defines;
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("#define VTA_") && !function_like(line)) defines += line + "\n";
  s += fmt::format("#define VTA_DEFINES_HASH 0x{:08x}u\n", fnv1a(defines));
  return s;
}

uint32_t prefix_hash(const Config& c, const Flavor& f) {
  const std::string p = kernel_prefix(c, f);
  const auto at = p.rfind("0x");
  return static_cast<uint32_t>(std::stoul(p.substr(at + 2, 8), nullptr, 16));
}

/// Bytes the kernel holds one value of `bits` bits in (kernels/vta.cl: char
/// for 4 and 8 bits, short for 16, int for 32; sign-extended).
uint64_t storage_bytes(int64_t bits) { return bits <= 8 ? 1 : bits <= 16 ? 2 : 4; }

/// How the kernel holds the elements of each on-chip buffer: values per
/// element, bytes per value, and the width the values are packed at.
struct SramElem {
  uint64_t values = 0, value_bytes = 0, depth = 0;
  int bits = 0;
  uint64_t bytes() const { return values * value_bytes; }
};
SramElem sram_elem(const Config& c, MemId mem) {
  const auto& d = c.derived;
  const auto lanes = static_cast<uint64_t>(c.gemm.batch * c.gemm.block_out);
  auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  switch (mem) {
    case MemId::UOP:
      return {1, 4, u(d.uop_depth), 32};
    case MemId::INP:
      return {u(c.gemm.batch * c.gemm.block_in), storage_bytes(c.dtype.inp_bits), u(d.inp_depth),
              static_cast<int>(c.dtype.inp_bits)};
    case MemId::WGT:
      return {u(c.gemm.block_out * c.gemm.block_in), storage_bytes(c.dtype.wgt_bits), u(d.wgt_depth),
              static_cast<int>(c.dtype.wgt_bits)};
    case MemId::ACC:
    case MemId::ACC_8BIT:
      return {lanes, 4, u(d.acc_depth), static_cast<int>(c.dtype.acc_bits)};
    case MemId::OUT:
      return {lanes, storage_bytes(c.dtype.out_bits), u(d.out_depth), static_cast<int>(c.dtype.out_bits)};
  }
  fail("read_sram: unknown memory type {}", static_cast<int>(mem));
}

// Bytes of each on-chip buffer as the kernel holds it (rounded up to 16).
struct SramSizes {
  uint64_t bytes[5];  // UOP, INP, WGT, ACC, OUT
  uint64_t total() const { return bytes[0] + bytes[1] + bytes[2] + bytes[3] + bytes[4]; }
};
SramSizes sram_sizes(const Config& c) {
  auto r16 = [](uint64_t b) { return std::max<uint64_t>(16, (b + 15) / 16 * 16); };
  SramSizes s{};
  const MemId mems[5] = {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT};
  for (int k = 0; k < 5; ++k) {
    const SramElem e = sram_elem(c, mems[k]);
    s.bytes[k] = r16(e.depth * e.bytes());
  }
  return s;
}

std::string variant_of(const Config& c) {
  std::string v = env("VTA_OPENCL_VARIANT");
  if (v.empty()) v = c.opencl.variant;
  if (v != "single" && v != "workgroup")
    fail("VTA_OPENCL_VARIANT '{}' is not an OpenCL kernel variant (single or workgroup)", v);
  return v;
}

Flavor choose_flavor(const Config& c, const DeviceInfo& dev) {
  Flavor f;
  f.workgroup = variant_of(c) == "workgroup";
  if (!f.workgroup) {
    const std::string force = env("VTA_OPENCL_ONCHIP");
    const bool gpu = dev.type.find("GPU") != std::string::npos;
    f.onchip = force.empty() ? !gpu && sram_sizes(c).total() <= kOnChipBudget : force != "0";
  } else {
    f.stage = static_cast<uint32_t>(
        std::min<uint64_t>({static_cast<uint64_t>(c.derived.uop_depth), 4096, dev.local_mem / 8}));
  }
  return f;
}

/// A built (or loaded) program, shared by every backend of the same device,
/// config and flavor in this process. Never released: OpenCL objects are
/// left to the process exit (releasing them from static destructors races
/// with the ICD's own teardown).
struct Built {
  Found dev;
  cl_context context = nullptr;
  cl_program program = nullptr;
  Flavor flavor;
  double build_ms = 0;  // program build, plus the first launch (where the device compiles for its work-group size)
  std::once_flag first_launch;
  std::string origin;  // "source" or "binary FILE"
};

std::mutex cache_mutex;
std::map<std::string, std::shared_ptr<Built>>& cache() {
  static auto* c = new std::map<std::string, std::shared_ptr<Built>>();
  return *c;
}

std::string build_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n);
  std::string log(n, '\0');
  if (n) clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log.data(), nullptr);
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n' || log.back() == ' ')) log.pop_back();
  return log;
}

/// Runs vta_info and returns what the program was built for.
std::vector<uint32_t> kernel_info(const Built& b) {
  const std::string& dn = b.dev.info.name;
  cl_int err = CL_SUCCESS;
  cl_command_queue q = clCreateCommandQueue(b.context, b.dev.device, 0, &err);
  if (err != CL_SUCCESS) fail_cl(err, "creating a command queue", dn);
  cl_kernel k = clCreateKernel(b.program, "vta_info", &err);
  if (err != CL_SUCCESS) {
    clReleaseCommandQueue(q);
    fail("the OpenCL program ({}) has no kernel vta_info: {} (is it a VTA kernel binary?)", b.origin, error_name(err));
  }
  std::vector<uint32_t> info(16, 0);
  cl_mem buf = clCreateBuffer(b.context, CL_MEM_READ_WRITE, info.size() * 4, nullptr, &err);
  if (err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof(cl_mem), &buf);
  const size_t one = 1;
  if (err == CL_SUCCESS) err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &one, &one, 0, nullptr, nullptr);
  if (err == CL_SUCCESS)
    err = clEnqueueReadBuffer(q, buf, CL_TRUE, 0, info.size() * 4, info.data(), 0, nullptr, nullptr);
  if (buf) clReleaseMemObject(buf);
  clReleaseKernel(k);
  clReleaseCommandQueue(q);
  if (err != CL_SUCCESS) fail_cl(err, "running vta_info", dn);
  return info;
}

std::shared_ptr<Built> build(const Config& c, const Found& dev, const Flavor& want) {
  const std::string binary_path = c.opencl.binary;
  const std::string kernel_override = binary_path.empty() ? env("VTA_OPENCL_KERNEL") : "";
  std::string source;
  std::string key = fmt::format("{}\n", static_cast<const void*>(dev.device));
  if (binary_path.empty()) {
    source = kernel_prefix(c, want) + (kernel_override.empty() ? std::string(embedded_kernel_source())
                                                               : read_file(kernel_override, "VTA_OPENCL_KERNEL"));
    key += source;
  } else {
    key += "binary\n" + binary_path + "\n" + isa::generate_opencl_defines(c);
  }
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (auto it = cache().find(key); it != cache().end()) return it->second;

  auto b = std::make_shared<Built>();
  b->dev = dev;
  b->flavor = want;
  const std::string& dn = dev.info.name;
  const auto t0 = std::chrono::steady_clock::now();
  cl_int err = CL_SUCCESS;
  b->context = clCreateContext(nullptr, 1, &dev.device, nullptr, nullptr, &err);
  if (err != CL_SUCCESS) fail_cl(err, "creating a context", dn);
  if (binary_path.empty()) {
    b->origin = kernel_override.empty() ? "kernels/vta.cl (embedded)" : "VTA_OPENCL_KERNEL " + kernel_override;
    const char* text = source.c_str();
    const size_t len = source.size();
    b->program = clCreateProgramWithSource(b->context, 1, &text, &len, &err);
    if (err != CL_SUCCESS) fail_cl(err, "creating the program", dn);
  } else {
    b->origin = "opencl.binary " + binary_path;
    const std::string bin = read_file(binary_path, "opencl.binary");
    const auto* bytes = reinterpret_cast<const unsigned char*>(bin.data());
    const size_t len = bin.size();
    cl_int status = CL_SUCCESS;
    b->program = clCreateProgramWithBinary(b->context, 1, &dev.device, &len, &bytes, &status, &err);
    if (err != CL_SUCCESS || status != CL_SUCCESS)
      fail("opencl.binary '{}' is not a valid program binary for device '{}': {}", binary_path, dn,
           error_name(err != CL_SUCCESS ? err : status));
  }
  err = clBuildProgram(b->program, 1, &dev.device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(b->program, dev.device);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_INVALID_BINARY)
      fail("OpenCL kernel build failed on device '{}' ({}, {}); build log:\n{}", dn, b->origin, error_name(err),
           log.empty() ? "(empty)" : log);
    fail_cl(err, "building the kernel (" + b->origin + ")", dn);
  }
  b->build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  // Whatever its origin, the program must have been built for this config.
  const std::vector<uint32_t> info = kernel_info(*b);
  if (!binary_path.empty()) {
    b->flavor = Flavor{info[1] != 0, info[2] != 0, info[3]};
    if (b->flavor.workgroup != want.workgroup)
      fail("opencl.binary '{}' holds the {} kernel variant but opencl.variant is {}", binary_path,
           b->flavor.workgroup ? "workgroup" : "single", want.workgroup ? "workgroup" : "single");
  }
  const uint32_t expect = prefix_hash(c, b->flavor);
  if (info[0] != expect)
    fail(
        "{} was built for a different config: batch {} block_in {} block_out {}, depths uop {} inp {} wgt {} acc {}, "
        "dtype {}/{}/{}/{}, defines hash {:08x}; config '{}' needs batch {} block_in {} block_out {}, depths uop {} "
        "inp {} wgt {} acc {}, dtype {}/{}/{}/{}, hash {:08x} (rebuild it for this config)",
        b->origin, info[4], info[5], info[6], info[7], info[8], info[9], info[10], info[11], info[12], info[13],
        info[14], info[0], c.name, c.gemm.batch, c.gemm.block_in, c.gemm.block_out, c.derived.uop_depth,
        c.derived.inp_depth, c.derived.wgt_depth, c.derived.acc_depth, c.dtype.inp_bits, c.dtype.wgt_bits,
        c.dtype.acc_bits, c.dtype.out_bits, expect);
  cache().emplace(key, b);
  return b;
}

uint64_t max_alloc_of(const DeviceInfo& d) {
  uint64_t m = d.max_alloc;
  // A lower limit for tests of the over-limit error (no device needs it).
  if (const std::string e = env("VTA_OPENCL_MAX_ALLOC"); !e.empty()) m = std::min<uint64_t>(m, std::stoull(e));
  return m;
}

}  // namespace

// ---------------------------------------------------------------------------
// The backend's device state.
// ---------------------------------------------------------------------------
struct OpenclBackend::Impl {
  explicit Impl(const Config& c) : layout(c) {}
  ~Impl() {
    if (queue) clFinish(queue);
    for (cl_mem m : sram)
      if (m) clReleaseMemObject(m);
    for (cl_mem m : {status, order_buf, mirror})
      if (m) clReleaseMemObject(m);
    if (kernel) clReleaseKernel(kernel);
    if (queue) clReleaseCommandQueue(queue);
  }

  isa::Layout layout;
  std::shared_ptr<Built> built;
  cl_command_queue queue = nullptr;
  cl_kernel kernel = nullptr;
  cl_mem sram[5] = {};
  SramSizes sizes{};
  cl_mem status = nullptr, order_buf = nullptr, mirror = nullptr;
  uint64_t order_cap = 0, mirror_cap = 0;
  size_t wg = 1;
  uint64_t max_alloc = 0;
  uint64_t max_steps = 0;                      // BackendOptions::max_steps
  bool race_check = true;                      // !BackendOptions::skip_race_check (off in timing-only runs)
  std::unique_ptr<model::Datapath> race_uops;  // the uop buffer as the race checker sees it
  RunStats stats;
  // Host memory the non-blocking transfers of one batch read or write.
  std::vector<uint32_t> order_host;
  uint32_t status_host[4] = {};
  const uint32_t zeros[4] = {};

  const std::string& dev_name() const { return built->dev.info.name; }
  void check(cl_int err, std::string_view what) const {
    if (err != CL_SUCCESS) fail_cl(err, what, dev_name());
  }
  cl_mem create(uint64_t bytes, std::string_view what) {
    if (bytes > max_alloc)
      fail(
          "{} needs a device buffer of {} bytes but OpenCL device '{}' allows at most {} bytes in one allocation "
          "(CL_DEVICE_MAX_MEM_ALLOC_SIZE)",
          what, bytes, dev_name(), max_alloc);
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(built->context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    check(err, fmt::format("allocating {} bytes for {}", bytes, what));
    return m;
  }
  /// Queues the kernel over positions [pb, pe) of the order buffer.
  void enqueue_run(uint64_t dram_lo, uint64_t dram_bytes, uint64_t insn_off, uint32_t pb, uint32_t pe, cl_event* ev) {
    const cl_ulong lo = dram_lo, bytes = dram_bytes, off = insn_off;
    const cl_uint b = pb, e = pe;
    int a = 0;
    cl_int err = clSetKernelArg(kernel, a++, sizeof(cl_mem), &mirror);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_ulong), &lo);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_ulong), &bytes);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_ulong), &off);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_mem), &order_buf);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_uint), &b);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_uint), &e);
    for (cl_mem& m : sram) err |= clSetKernelArg(kernel, a++, sizeof(cl_mem), &m);
    err |= clSetKernelArg(kernel, a++, sizeof(cl_mem), &status);
    check(err, "setting the kernel arguments");
    check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &wg, &wg, 0, nullptr, ev), "launching the kernel");
  }
  /// The SRAM buffer behind memory type `mem`, with its element size and depth.
  int sram_slot(MemId mem) const {
    switch (mem) {
      case MemId::UOP:
        return 0;
      case MemId::INP:
        return 1;
      case MemId::WGT:
        return 2;
      case MemId::ACC:
      case MemId::ACC_8BIT:
        return 3;
      case MemId::OUT:
        return 4;
    }
    return -1;
  }
};

OpenclBackend::OpenclBackend(const Config& c, const BackendOptions& options)
    : Backend(c), impl_(std::make_unique<Impl>(config())) {
  if (options.timing_only) fail("the opencl backend is untimed: timing-only mode needs a cycle model (systemc)");
  if (!options.trace_path.empty()) fail("the opencl backend is untimed: --trace needs a cycle model (systemc)");
  if (!options.wave_path.empty()) fail("the opencl backend has no RTL: --wave needs the verilator backend");
  Impl& m = *impl_;
  const Found dev = select_device(config());
  m.built = build(config(), dev, choose_flavor(config(), dev.info));
  m.max_alloc = max_alloc_of(dev.info);
  m.max_steps = options.max_steps;
  m.race_check = !options.skip_race_check && !options.timing_only;
  cl_int err = CL_SUCCESS;
  m.queue = clCreateCommandQueue(m.built->context, dev.device, CL_QUEUE_PROFILING_ENABLE, &err);
  m.check(err, "creating a command queue");
  m.kernel = clCreateKernel(m.built->program, "vta_run", &err);
  m.check(err, "creating kernel vta_run");
  if (m.built->flavor.workgroup) {
    size_t kmax = 0;
    m.check(clGetKernelWorkGroupInfo(m.kernel, dev.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(kmax), &kmax, nullptr),
            "querying the kernel's work-group size");
    const auto lanes = static_cast<size_t>(c.gemm.batch * c.gemm.block_out);
    // A GPU runs a whole work-group of 1024 at once; a CPU pays for every
    // work-item at each barrier.
    size_t want = dev.info.type.find("GPU") != std::string::npos ? 1024 : 64;
    while (want < lanes && want < 256) want *= 2;
    if (const std::string e = env("VTA_OPENCL_WG_SIZE"); !e.empty()) want = std::stoul(e);
    m.wg = std::max<size_t>(1, std::min(want, kmax));
  }
  // The on-chip buffers: zero, as on a freshly configured device.
  m.sizes = sram_sizes(config());
  static const char* names[5] = {"the UOP buffer", "the INP buffer", "the WGT buffer", "the ACC buffer",
                                 "the OUT buffer"};
  const uint32_t zero = 0;
  for (int k = 0; k < 5; ++k) {
    m.sram[k] = m.create(m.sizes.bytes[k], names[k]);
    m.check(clEnqueueFillBuffer(m.queue, m.sram[k], &zero, 4, 0, m.sizes.bytes[k], 0, nullptr, nullptr),
            "clearing the on-chip buffers");
  }
  m.status = m.create(16, "the status record");
  m.check(clEnqueueFillBuffer(m.queue, m.status, &zero, 4, 0, 16, 0, nullptr, nullptr), "clearing the status record");
  m.order_buf = m.create(m.order_cap = 4096, "the instruction order");
  m.mirror = m.create(m.mirror_cap = 4096, "DRAM");
  m.check(clFinish(m.queue), "clearing the on-chip buffers");
  // The first launch of a program compiles it for its work-group size on
  // some platforms (PoCL): do it here, with nothing to run, and count it as
  // building.
  std::call_once(m.built->first_launch, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    m.enqueue_run(Dram::kBase, 16, 0, 0, 0, nullptr);
    m.check(clFinish(m.queue), "the first launch of the kernel");
    m.built->build_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  });
}

OpenclBackend::~OpenclBackend() = default;

const DeviceInfo& OpenclBackend::device() const { return impl_->built->dev.info; }
std::string OpenclBackend::variant() const { return impl_->built->flavor.workgroup ? "workgroup" : "single"; }
std::string OpenclBackend::describe() const {
  return fmt::format("device '{}' ({}), {} variant", device().name, device().platform, variant());
}
uint64_t OpenclBackend::work_group_size() const { return impl_->wg; }
double OpenclBackend::build_ms() const { return impl_->built->build_ms; }
bool OpenclBackend::sram_on_chip() const { return impl_->built->flavor.onchip; }
RunStats OpenclBackend::stats() const { return impl_->stats; }

std::vector<uint8_t> OpenclBackend::read_sram(MemId mem, uint32_t index, uint32_t count) const {
  const Impl& m = *impl_;
  const SramElem e = sram_elem(config(), mem);
  if (uint64_t{index} + count > e.depth)
    fail("read_sram: {} elements [{}, {}) are outside the {} buffer of {} elements", isa::mem_name(mem), index,
         uint64_t{index} + count, isa::mem_name(mem), e.depth);
  // The device holds one value per storage unit; the contract's bytes are
  // the values packed at their width (isa/include/vta/isa/elem_pack.h).
  std::vector<uint8_t> raw(count * e.bytes());
  if (!raw.empty())
    m.check(clEnqueueReadBuffer(m.queue, m.sram[m.sram_slot(mem)], CL_TRUE, index * e.bytes(), raw.size(), raw.data(),
                                0, nullptr, nullptr),
            "reading an on-chip buffer");
  const uint64_t n = count * e.values;
  if (static_cast<uint64_t>(e.bits) == 8 * e.value_bytes) return raw;  // already packed (upstream's widths)
  std::vector<uint8_t> out(isa::packed_bytes(e.bits, n));
  if (e.value_bytes == 1) {
    isa::pack_elems(reinterpret_cast<const int8_t*>(raw.data()), e.bits, out.data(), n);
  } else if (e.value_bytes == 2) {
    std::vector<int16_t> v(n);
    std::memcpy(v.data(), raw.data(), raw.size());
    isa::pack_elems(v.data(), e.bits, out.data(), n);
  } else {
    std::vector<int32_t> v(n);
    std::memcpy(v.data(), raw.data(), raw.size());
    isa::pack_elems(v.data(), e.bits, out.data(), n);
  }
  return out;
}

// ---------------------------------------------------------------------------
// Runs.
// ---------------------------------------------------------------------------
namespace {

/// One launch of a batch, planned on the host.
struct Plan {
  model::Program prog;
  model::Schedule sched;
  uint32_t exec = 0;         // positions of sched.order that run on the device
  bool static_fail = false;  // the instruction at position `exec` fails a static check
  uint64_t insn_off = 0;     // byte offset of the instructions in the mirror
  uint32_t order_off = 0;    // first position in the batch's order buffer
};

/// False when the golden datapath would reject `insn` for a reason that does
/// not depend on data (SRAM or DRAM range of LOAD/STORE, uop_end).
bool passes_static_checks(const Config& c, const Insn& insn, const Dram& dram) {
  const auto& d = c.derived;
  switch (insn.opcode()) {
    case Opcode::LOAD:
    case Opcode::STORE: {
      const uint64_t x = insn[Member::x_size], y = insn[Member::y_size];
      if (x == 0) return true;
      const bool load = insn.opcode() == Opcode::LOAD;
      const uint64_t xt = load ? uint64_t{insn[Member::x_pad_0]} + x + insn[Member::x_pad_1] : x;
      const uint64_t yt = load ? uint64_t{insn[Member::y_pad_0]} + y + insn[Member::y_pad_1] : y;
      int64_t depth = d.out_depth;
      if (load) switch (insn.mem()) {
          case MemId::UOP:
            depth = d.uop_depth;
            break;
          case MemId::INP:
            depth = d.inp_depth;
            break;
          case MemId::WGT:
            depth = d.wgt_depth;
            break;
          case MemId::ACC:
          case MemId::ACC_8BIT:
            depth = d.acc_depth;
            break;
          default:
            return false;
        }
      if (insn[Member::sram_base] + yt * xt > static_cast<uint64_t>(depth)) return false;
      const auto e = static_cast<uint64_t>(c.elem_bytes(static_cast<int>(insn.mem())));
      for (uint64_t r = 0; r < y; ++r)
        if (!dram.contains((insn[Member::dram_base] + r * insn[Member::x_stride]) * e, x * e)) return false;
      return true;
    }
    case Opcode::GEMM:
    case Opcode::ALU: {
      const uint32_t bgn = insn[Member::uop_bgn], end = insn[Member::uop_end];
      if (bgn >= end || insn[Member::iter_out] == 0 || insn[Member::iter_in] == 0) return true;
      return end <= static_cast<uint64_t>(d.uop_depth);
    }
    case Opcode::FINISH:
      return true;
  }
  return false;
}

/// The allocations (by address) that STORE `insn` writes.
void stored_allocations(const Config& c, const Insn& insn, const Dram& dram, std::set<uint64_t>& out) {
  const uint64_t x = insn[Member::x_size], y = insn[Member::y_size];
  if (x == 0 || y == 0) return;
  const auto e = static_cast<uint64_t>(c.elem_bytes(static_cast<int>(MemId::OUT)));
  auto alloc_of = [&](uint64_t addr) {
    const auto& a = dram.allocations();
    auto it = a.upper_bound(addr);
    return std::prev(it)->first;  // the row is inside an allocation (checked before)
  };
  const uint64_t first = insn[Member::dram_base] * e,
                 last = (insn[Member::dram_base] + (y - 1) * insn[Member::x_stride]) * e;
  const uint64_t a0 = alloc_of(first), a1 = alloc_of(last);
  out.insert(a0);
  if (a0 != a1)  // rows grow with the stride: the ones between may sit in other allocations
    for (uint64_t r = 1; r < y; ++r) out.insert(alloc_of((insn[Member::dram_base] + r * insn[Member::x_stride]) * e));
}

uint64_t event_ns(cl_event ev) {
  cl_ulong t0 = 0, t1 = 0;
  if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t0), &t0, nullptr) != CL_SUCCESS ||
      clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t1), &t1, nullptr) != CL_SUCCESS)
    return 0;
  return t1 > t0 ? t1 - t0 : 0;
}

/// Events of one batch, released when it ends however it ends.
struct Events {
  std::vector<cl_event> upload, download;
  std::vector<std::pair<cl_event, int64_t>> kernels;  // event, region index in its plan (-1: none)
  std::vector<size_t> kernel_plan;
  ~Events() {
    for (cl_event e : upload) clReleaseEvent(e);
    for (cl_event e : download) clReleaseEvent(e);
    for (auto& [e, r] : kernels) clReleaseEvent(e);
  }
};

}  // namespace

void OpenclBackend::run_batch(const std::vector<Launch>& launches) {
  Impl& m = *impl_;
  const Config& c = config();
  Dram& dr = dram();
  const auto wall0 = std::chrono::steady_clock::now();

  // 1. Plan every launch on the host: fetch and check, schedule, and find the
  //    first position a static check stops (the device runs the ones before).
  std::vector<Plan> plans;
  std::optional<Error> fetch_error;
  for (const Launch& l : launches) {
    Plan p;
    try {
      p.prog = model::fetch_program(c, m.layout, dr, l);
      model::check_step_budget(c, m.layout, p.prog, m.max_steps);
      // A race met before any other error is refused as the other models
      // refuse it; the device's run raises every other error itself.
      if (m.race_check) {
        if (!m.race_uops) m.race_uops = std::make_unique<model::Datapath>(c);
        model::check_races_before_other_errors(c, p.prog, dr, *m.race_uops);
      }
    } catch (const Error& e) {
      fetch_error = e;
      break;
    }
    p.sched = model::schedule(c, p.prog);
    const auto n = static_cast<uint32_t>(p.sched.order.size());
    while (p.exec < n && passes_static_checks(c, p.prog.insns[p.sched.order[p.exec]], dr)) ++p.exec;
    p.static_fail = p.exec < n;
    const bool stops = p.static_fail || p.sched.deadlock;
    plans.push_back(std::move(p));
    if (stops) break;
  }

  if (plans.empty()) throw *fetch_error;

  // 2. The DRAM mirror covers every allocation; the order buffer holds the
  //    executed positions of every plan back to back.
  const auto& allocs = dr.allocations();
  const uint64_t lo = allocs.empty() ? Dram::kBase : allocs.begin()->first;
  const uint64_t hi =
      allocs.empty() ? lo + 16 : std::prev(allocs.end())->first + std::prev(allocs.end())->second.data.size();
  const uint64_t span = hi - lo;
  if (span > m.mirror_cap) {
    if (m.mirror) clReleaseMemObject(m.mirror), m.mirror = nullptr, m.mirror_cap = 0;
    m.mirror = m.create(span, fmt::format("DRAM {} (the allocations in use)", Dram::range(lo, span)));
    m.mirror_cap = span;
  }
  m.order_host.clear();
  for (Plan& p : plans) {
    p.order_off = static_cast<uint32_t>(m.order_host.size());
    p.insn_off = launches[static_cast<size_t>(&p - plans.data())].insn_addr - lo;
    m.order_host.insert(m.order_host.end(), p.sched.order.begin(), p.sched.order.begin() + p.exec);
  }
  const uint64_t order_bytes = std::max<uint64_t>(4, m.order_host.size() * 4);
  if (order_bytes > m.order_cap) {
    if (m.order_buf) clReleaseMemObject(m.order_buf), m.order_buf = nullptr, m.order_cap = 0;
    m.order_buf = m.create(std::max<uint64_t>(order_bytes, 4096), "the instruction order");
    m.order_cap = std::max<uint64_t>(order_bytes, 4096);
  }

  // 3. Queue: uploads, the kernels (one per region segment), read-backs.
  //    Whatever happens, nothing is left in flight on host memory.
  struct FinishOnExit {
    cl_command_queue q;
    ~FinishOnExit() { clFinish(q); }
  } finish_on_exit{m.queue};
  Events ev;
  cl_event e = nullptr;
  m.check(clEnqueueWriteBuffer(m.queue, m.status, CL_FALSE, 0, sizeof(m.zeros), m.zeros, 0, nullptr, nullptr),
          "writing the status record");
  if (!m.order_host.empty())
    m.check(clEnqueueWriteBuffer(m.queue, m.order_buf, CL_FALSE, 0, m.order_host.size() * 4, m.order_host.data(), 0,
                                 nullptr, &e),
            "writing the instruction order"),
        ev.upload.push_back(e);
  for (const auto& [addr, a] : allocs) {
    m.check(clEnqueueWriteBuffer(m.queue, m.mirror, CL_FALSE, addr - lo, a.data.size(), a.data.data(), 0, nullptr, &e),
            "copying DRAM to the device");
    ev.upload.push_back(e);
  }
  std::set<uint64_t> written;
  for (size_t pi = 0; pi < plans.size(); ++pi) {
    const Plan& p = plans[pi];
    // Segments of consecutive positions in one region, so that device time
    // is known per region; a program whose regions interleave finely runs as one.
    std::vector<std::pair<uint32_t, uint32_t>> segs;
    for (uint32_t pos = 0; pos < p.exec; ++pos) {
      const uint16_t r = p.prog.region[p.sched.order[pos]];
      if (segs.empty() || p.prog.region[p.sched.order[segs.back().first]] != r) segs.emplace_back(pos, pos);
      segs.back().second = pos + 1;
    }
    const bool merged = segs.size() > 256;
    if (merged) segs = {{0, p.exec}};
    for (const auto& [b, en] : segs) {
      m.enqueue_run(lo, span, p.insn_off, p.order_off + b, p.order_off + en, &e);
      const uint16_t r = p.prog.region[p.sched.order[b]];
      ev.kernels.emplace_back(e, !merged && r != model::Program::kNoRegion ? int64_t{r} : -1);
      ev.kernel_plan.push_back(pi);
    }
    for (uint32_t pos = 0; pos < p.exec; ++pos) {
      const Insn& insn = p.prog.insns[p.sched.order[pos]];
      if (insn.opcode() == Opcode::STORE) stored_allocations(c, insn, dr, written);
    }
  }
  for (uint64_t addr : written) {
    uint8_t* data = dr.find(addr, 1);
    const uint64_t bytes = allocs.at(addr).data.size();
    m.check(clEnqueueReadBuffer(m.queue, m.mirror, CL_FALSE, addr - lo, bytes, data, 0, nullptr, &e),
            "copying DRAM back from the device");
    ev.download.push_back(e);
  }
  m.check(
      clEnqueueReadBuffer(m.queue, m.status, CL_FALSE, 0, sizeof(m.status_host), m.status_host, 0, nullptr, nullptr),
      "reading the status record");

  // 4. The one synchronisation.
  m.check(clFinish(m.queue), "running the program");
  for (const auto& [ke, r] : ev.kernels) {
    cl_int st = CL_COMPLETE;
    clGetEventInfo(ke, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st, nullptr);
    if (st < 0) fail_cl(st, "running the kernel", m.dev_name());
  }

  // 5. Errors, in the order the golden model meets them.
  auto reproduce = [&](const Plan& p, uint32_t i, bool needs_uops) {
    // The golden datapath, given the uop buffer as the device held it when
    // it stopped, gives the exact message.
    model::Datapath dp(c);
    if (needs_uops) {
      const auto depth = static_cast<uint32_t>(c.derived.uop_depth);
      std::vector<uint8_t> words = read_sram(MemId::UOP, 0, depth);
      Dram scratch(words.size() + 2 * Dram::kPageBytes + Dram::kBase);
      const uint64_t at = scratch.alloc(words.size());
      scratch.write(at, words);
      Insn ld;
      ld[Member::opcode] = static_cast<uint32_t>(Opcode::LOAD);
      ld[Member::memory_type] = static_cast<uint32_t>(MemId::UOP);
      ld[Member::dram_base] = static_cast<uint32_t>(at / 4);
      ld[Member::y_size] = 1;
      ld[Member::x_size] = depth;
      ld[Member::x_stride] = depth;
      dp.load(ld, -1, scratch);
    }
    const Insn& insn = p.prog.insns[i];
    switch (insn.opcode()) {
      case Opcode::LOAD:
        dp.load(insn, i, dr);
        break;
      case Opcode::STORE:
        dp.store(insn, i, dr);
        break;
      case Opcode::GEMM:
        dp.gemm(insn, i);
        break;
      case Opcode::ALU:
        dp.alu(insn, i);
        break;
      case Opcode::FINISH:
        break;
    }
    fail("internal error: the OpenCL kernel stopped at {} but the golden model accepts it",
         model::insn_label(m.layout, insn, i));
  };
  if (m.status_host[0] != kNone) {
    const uint32_t pos = m.status_host[1], i = m.status_host[2];
    const Plan* p = &plans.front();
    for (const Plan& q : plans)
      if (pos >= q.order_off) p = &q;
    if (m.status_host[0] > kBadInsn || i >= p->prog.insns.size())
      fail("internal error: the OpenCL kernel reported error {} at position {} (instruction {})", m.status_host[0], pos,
           i);
    reproduce(*p, i, m.status_host[0] == kUopBounds || m.status_host[0] == kUopEnd);
  }
  const Plan* last = plans.empty() ? nullptr : &plans.back();
  if (last && last->static_fail) reproduce(*last, last->sched.order[last->exec], false);
  if (last && last->sched.deadlock) model::check_deadlock(c, m.layout, last->prog, last->sched);
  if (fetch_error) throw *fetch_error;

  // 6. Stats: the golden counters of what ran, plus device figures.
  m.stats = RunStats{};
  model::Counters total;
  uint64_t device_ns = 0, upload_ns = 0, download_ns = 0;
  for (cl_event u : ev.upload) upload_ns += event_ns(u);
  for (cl_event d : ev.download) download_ns += event_ns(d);
  for (size_t pi = 0; pi < plans.size(); ++pi) {
    const Plan& p = plans[pi];
    std::vector<model::Counters> per_region(p.prog.regions.size());
    std::vector<uint64_t> region_ns(p.prog.regions.size(), 0);
    for (size_t k = 0; k < ev.kernels.size(); ++k) {
      if (ev.kernel_plan[k] != pi) continue;
      const uint64_t ns = event_ns(ev.kernels[k].first);
      device_ns += ns;
      if (ev.kernels[k].second >= 0) region_ns[static_cast<size_t>(ev.kernels[k].second)] += ns;
    }
    model::TokenCounts tokens{};
    for (const uint32_t i : p.sched.order) {
      const Insn& insn = p.prog.insns[i];
      model::pop_tokens(p.prog, i, tokens);
      model::Counters* rc = p.prog.region[i] != model::Program::kNoRegion ? &per_region[p.prog.region[i]] : nullptr;
      const model::TokenCounts before = tokens;
      model::push_tokens(p.prog, i, tokens, total.tokens_pushed);
      if (rc)
        for (size_t q = 0; q < 4; ++q) rc->tokens_pushed[q] += tokens[q] - before[q];
      total.add(c, insn);
      if (rc) rc->add(c, insn);
    }
    for (size_t r = 0; r < p.prog.regions.size(); ++r) {
      Stats s;
      per_region[r].publish(s);
      if (region_ns[r]) s.set("opencl.device_ns", region_ns[r]);
      m.stats.regions.emplace_back(p.prog.regions[r].name, std::move(s));
    }
  }
  total.publish(m.stats.total);
  Stats& s = m.stats.total;
  s.set("opencl.device_ns", device_ns);
  s.set("opencl.upload_ns", upload_ns);
  s.set("opencl.download_ns", download_ns);
  s.set("opencl.launches", ev.kernels.size());
  s.set("opencl.work_items", m.wg);
  s.set("opencl.build_ms", static_cast<uint64_t>(m.built->build_ms + 0.5));
  s.set("opencl.host_ns",
        static_cast<uint64_t>(
            std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count()));
}

// ---------------------------------------------------------------------------
// Offline compilation.
// ---------------------------------------------------------------------------
std::string kernel_source(const Config& c, const std::string& variant, bool onchip) {
  if (variant != "single" && variant != "workgroup")
    fail("kernel variant '{}' does not exist (single or workgroup)", variant);
  Flavor f;
  f.workgroup = variant == "workgroup";
  f.onchip = !f.workgroup && onchip;
  f.stage = f.workgroup ? static_cast<uint32_t>(std::min<int64_t>(c.derived.uop_depth, 4096)) : 0;
  return kernel_prefix(c, f) + std::string(embedded_kernel_source());
}

std::vector<uint8_t> build_binary(const Config& c) {
  Config src = c;
  src.opencl.binary.clear();
  const Found dev = select_device(src);
  const auto b = build(src, dev, choose_flavor(src, dev.info));
  size_t size = 0;
  cl_int err = clGetProgramInfo(b->program, CL_PROGRAM_BINARY_SIZES, sizeof(size), &size, nullptr);
  if (err != CL_SUCCESS) fail_cl(err, "reading the program binary size", dev.info.name);
  std::vector<uint8_t> bin(size);
  unsigned char* ptr = bin.data();
  err = clGetProgramInfo(b->program, CL_PROGRAM_BINARIES, sizeof(ptr), &ptr, nullptr);
  if (err != CL_SUCCESS) fail_cl(err, "reading the program binary", dev.info.name);
  if (bin.empty()) fail("OpenCL device '{}' gives no program binary", dev.info.name);
  return bin;
}

}  // namespace vta::opencl
