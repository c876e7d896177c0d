#include "test_support.h"

#include <filesystem>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include "vta/isa/error.h"

namespace vta::test {

using isa::Insn;
using isa::Member;
using isa::MemId;
using isa::Opcode;

Config preset(const std::string& name, const std::vector<Override>& overrides) {
  return load_config(resolve_config_path(name), overrides);
}

std::vector<std::string> preset_names() { return {"vta-1x16x16", "vta-1x32x32", "vta-4x16x16", "vta-1x16x16-pcie"}; }

uint32_t ProgramBuilder::buffer(MemId mem, uint32_t count, const std::vector<uint8_t>& bytes) {
  const auto e = static_cast<uint64_t>(backend_.config().elem_bytes(static_cast<int>(mem)));
  std::vector<uint8_t> data(count * e, 0);
  if (bytes.size() > data.size()) fail("ProgramBuilder::buffer: {} bytes for {} elements", bytes.size(), count);
  std::copy(bytes.begin(), bytes.end(), data.begin());
  uint64_t addr = backend_.dram().alloc(data.size());
  backend_.dram().write(addr, data);
  if (addr % e != 0) fail("ProgramBuilder::buffer: address 0x{:x} not aligned to {}", addr, e);
  return static_cast<uint32_t>(addr / e);
}

uint32_t ProgramBuilder::uops(const std::vector<Insn>& u) {
  std::vector<uint8_t> bytes(u.size() * 4);
  for (size_t i = 0; i < u.size(); ++i) {
    uint32_t w = layout_.encode_uop(u[i]);
    std::memcpy(bytes.data() + 4 * i, &w, 4);
  }
  return buffer(MemId::UOP, static_cast<uint32_t>(u.size()), bytes);
}

Launch ProgramBuilder::install() {
  std::vector<uint8_t> bytes(insns_.size() * isa::kInsnBytes);
  for (size_t i = 0; i < insns_.size(); ++i) {
    isa::Raw128 r = layout_.encode(insns_[i]);
    std::memcpy(bytes.data() + i * isa::kInsnBytes, r.w, isa::kInsnBytes);
  }
  uint64_t addr = backend_.dram().alloc(bytes.size());
  backend_.dram().write(addr, bytes);
  return Launch{addr, static_cast<uint32_t>(insns_.size()), {}};
}

void ProgramBuilder::run() { backend_.run(install()); }

void ProgramBuilder::add_image(const ProgramImage& image) {
  for (const auto& b : image.buffers) {
    const uint64_t at = backend_.dram().alloc(b.bytes());
    backend_.dram().write(at, b.init);
  }
  for (const auto& raw : image.insns) insns_.push_back(layout_.decode(raw));
}

std::vector<uint8_t> ProgramBuilder::read(MemId mem, uint32_t at, uint32_t count) const {
  const auto e = static_cast<uint64_t>(backend_.config().elem_bytes(static_cast<int>(mem)));
  return backend_.dram().read(at * e, count * e);
}

std::string test_backend() {
  const char* b = std::getenv("VTA_TEST_BACKEND");
  return b && *b ? b : "golden";
}

void use_test_rtl_cache() { ::setenv("VTA_RTL_CACHE", VTA_BINARY_DIR "/test-tmp/rtl-cache-tests", 0); }

std::string conformance_dir() {
  if (const char* d = std::getenv("VTA_CONFORMANCE_DIR"); d && *d) return d;
  const std::string shipped = std::string(VTA_SOURCE_DIR) + "/tests/data/conformance/vectors";
  return std::filesystem::is_directory(shipped) ? shipped : "";
}

}  // namespace vta::test
