// Program images: conformance folders, the .vasm assembler, installation.
#include "vta/model/image.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string_view>

#include "vta/isa/error.h"
#include "vta/isa/parse_int.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"

namespace vta {

namespace fs = std::filesystem;
using isa::MemId;

namespace {

std::vector<uint8_t> read_bytes(const fs::path& p, std::string_view what = {}) {
  const std::string s = read_file(p.string(), what, kDataReadLimit);
  return std::vector<uint8_t>(s.begin(), s.end());
}

std::vector<isa::Raw128> to_insns(const std::vector<uint8_t>& bytes, const std::string& what) {
  if (bytes.size() % isa::kInsnBytes != 0)
    fail("{}: {} bytes is not a whole number of 16-byte instructions", what, bytes.size());
  if (bytes.empty()) fail("{}: no instructions (the file is empty)", what);
  std::vector<isa::Raw128> v(bytes.size() / isa::kInsnBytes);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream ss(line);
  std::vector<std::string> w;
  for (std::string t; ss >> t;) w.push_back(t);
  return w;
}

}  // namespace

const ImageBuffer* ProgramImage::buffer(const std::string& name) const {
  for (const auto& b : buffers)
    if (b.name == name) return &b;
  return nullptr;
}

ProgramImage read_conformance_dir(const std::string& dir) {
  if (!path_is_dir(dir)) fail("{}: not a conformance-vector folder", dir);
  ConformanceFiles f;
  for (const char* name : ConformanceFiles::kNames) {
    fs::path p = fs::path(dir) / name;
    if (!path_exists(p)) fail("{}: missing {} (see tests/data/conformance/README.md)", dir, name);
    f.file(name) = read_bytes(p);
  }
  return conformance_image(f, dir);
}

std::vector<uint8_t>& ConformanceFiles::file(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (name == kNames[i]) return bytes[i];
  fail("no conformance file '{}'", name);
}

ProgramImage conformance_image(ConformanceFiles files, const std::string& dir) {
  ProgramImage img;
  img.source = dir;
  // Layout order fixed by the conformance README.
  const std::pair<const char*, MemId> order[] = {{"input", MemId::INP},
                                                 {"weight", MemId::WGT},
                                                 {"out", MemId::OUT},
                                                 {"uop", MemId::UOP},
                                                 {"accumulator", MemId::ACC}};
  for (const auto& [name, mem] : order) {
    ImageBuffer b{name, mem, std::move(files.file(std::string(name) + ".bin")), 0};
    if (mem == MemId::UOP && b.init.size() % 4 != 0)
      fail("{}: uop.bin has {} bytes, not a whole number of 4-byte uops", dir, b.init.size());
    // The README places each file "rounded up to whole pages", and vectors
    // read past their files' ends into that zero fill (smm loads 256 input
    // bytes from a 16-byte input.bin): the pages are the buffer. out.bin is
    // the exception, "its size is the area's size", so a STORE past it is
    // an error. DRAM bounds are per buffer (Dram::contains).
    if (mem != MemId::OUT)
      b.size = (std::max<uint64_t>(b.init.size(), 1) + Dram::kPageBytes - 1) / Dram::kPageBytes * Dram::kPageBytes;
    img.buffers.push_back(std::move(b));
  }
  img.insns = to_insns(files.file("instructions.bin"), dir + "/instructions.bin");
  Expectation e;
  e.bytes = std::move(files.file("expected_out.bin"));
  if (e.bytes.empty()) fail("{}: expected_out.bin is empty (nothing would be checked)", dir);
  // A program with no STORE is checked on the OUT buffer (the `relu` vector).
  bool has_store = false;
  for (const auto& r : img.insns) has_store |= (r.w[0] & 7) == static_cast<uint64_t>(isa::Opcode::STORE);
  if (has_store) {
    e.where = Expectation::Where::DRAM;
    e.buffer = "out";
    if (const size_t out = img.buffer("out")->init.size(); e.bytes.size() > out)
      fail("{}: expected_out.bin has {} bytes, more than out.bin's {}", dir, e.bytes.size(), out);
  } else {
    e.where = Expectation::Where::SRAM;
    e.mem = MemId::OUT;
    e.index = 0;
  }
  img.expect.push_back(std::move(e));
  return img;
}

ProgramImage assemble_program(const std::string& text, const std::string& source, const Config& c) {
  // A binary file (instructions.bin) given as a program: say so, rather than
  // echo its bytes as an unknown mnemonic.
  if (const auto nul = text.find('\0'); nul != std::string::npos)
    fail(
        "{}: binary data (a zero byte at offset {}), not .vasm text; raw instructions run as part of a "
        "conformance-vector folder (tests/data/conformance/README.md)",
        source, nul);
  ProgramImage img;
  img.source = source;
  isa::Layout layout(c);
  const fs::path base = fs::path(source).parent_path();
  std::vector<uint8_t> uops;
  struct Pending {
    isa::Insn insn;
    std::string symbol;  // dram_base=@symbol
    int64_t offset = 0;
    std::string where;
  };
  std::vector<Pending> code;
  std::string region;
  uint32_t region_begin = 0;
  auto close_region = [&]() {
    if (!region.empty()) img.regions.push_back(Region{region, region_begin, static_cast<uint32_t>(code.size())});
    region.clear();
  };
  // Fills `n` bytes for memory `mem` from a fill spec starting at w[k]:
  // the bytes up to the last one a spec gives (`random`: all n), the rest
  // zero and left out, so that a huge buffer costs the memory of its
  // contents, not of its size (a `zero` fill: none).
  auto fill = [&](const std::vector<std::string>& w, size_t k, MemId mem, uint64_t n, const std::string& where) {
    std::vector<uint8_t> data;
    if (k >= w.size() || w[k] == "zero") return data;
    const int scalar = mem == MemId::ACC ? 4 : mem == MemId::UOP ? 4 : 1;
    if (w[k] == "random") {
      int64_t seed = 1;
      if (k + 1 < w.size() && !parse_int(w[k + 1], seed)) fail("{}: random needs an integer seed", where);
      std::mt19937 rng(static_cast<uint32_t>(seed));
      data.resize(n);
      for (auto& b : data) b = static_cast<uint8_t>(rng());
      return data;
    }
    if (w[k] == "file") {
      if (k + 1 >= w.size()) fail("{}: file needs a path", where);
      fs::path p = fs::path(w[k + 1]).is_absolute() ? fs::path(w[k + 1]) : base / w[k + 1];
      auto f = read_bytes(p, fmt::format("{}: file", where));
      if (f.size() > n) fail("{}: {} has {} bytes, more than the buffer's {}", where, p.string(), f.size(), n);
      data.assign(f.begin(), f.end());
      return data;
    }
    if (w[k] == "values") {
      uint64_t at = 0;
      for (size_t i = k + 1; i < w.size(); ++i) {
        int64_t v = 0;
        if (!parse_int(w[i], v)) fail("{}: '{}' is not an integer", where, w[i]);
        int64_t lo = scalar == 1 ? -128 : INT32_MIN, hi = scalar == 1 ? 255 : UINT32_MAX;
        if (v < lo || v > hi) fail("{}: value {} does not fit a {}-byte element", where, v, scalar);
        if (at + scalar > n) fail("{}: more values than the buffer holds ({} bytes)", where, n);
        auto u = static_cast<uint32_t>(v);
        data.resize(at + scalar);
        std::memcpy(data.data() + at, &u, static_cast<size_t>(scalar));
        at += static_cast<uint64_t>(scalar);
      }
      return data;
    }
    fail("{}: unknown fill '{}' (zero, random SEED, file PATH, values ...)", where, w[k]);
  };

  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string where = fmt::format("{}:{}", source, lineno);
    auto hash = line.find('#');
    std::string body = hash == std::string::npos ? line : line.substr(0, hash);
    auto w = words(body);
    if (w.empty()) continue;
    if (w[0] == ".buffer") {
      // .buffer NAME MEM COUNT [fill...]
      if (w.size() < 4) fail("{}: expected '.buffer NAME MEM COUNT [fill]'", where);
      auto mem = isa::mem_from_name(w[2]);
      if (!mem) fail("{}: '{}' is not a memory type (UOP WGT INP ACC OUT ACC_8BIT)", where, w[2]);
      int64_t count = 0;
      if (!parse_int(w[3], count) || count <= 0) fail("{}: element count '{}' must be a positive integer", where, w[3]);
      if (img.buffer(w[1]) || w[1] == "uop")
        fail("{}: buffer '{}' is defined twice (or uses the reserved name 'uop')", where, w[1]);
      const auto elem = static_cast<uint64_t>(c.elem_bytes(static_cast<int>(*mem)));
      if (static_cast<uint64_t>(count) > static_cast<uint64_t>(c.memory.dram_size) / elem)
        fail("{}: {} elements of {} bytes do not fit memory.dram_size ({} bytes)", where, count, elem,
             c.memory.dram_size);
      auto bytes = static_cast<uint64_t>(count) * elem;
      img.buffers.push_back(ImageBuffer{w[1], *mem, fill(w, 4, *mem, bytes, where), 0, bytes});
    } else if (w[0] == ".uop") {
      isa::Insn u = layout.assemble_uop("UOP " + body.substr(body.find(".uop") + 4), where);
      uint32_t word = layout.encode_uop(u);
      uops.insert(uops.end(), reinterpret_cast<uint8_t*>(&word), reinterpret_cast<uint8_t*>(&word) + 4);
    } else if (w[0] == ".region") {
      if (w.size() != 2) fail("{}: expected '.region NAME'", where);
      close_region();
      region = w[1];
      region_begin = static_cast<uint32_t>(code.size());
    } else if (w[0] == ".endregion") {
      close_region();
    } else if (w[0] == ".expect") {
      // .expect NAME fill...   |   .expect sram MEM INDEX fill...
      Expectation e;
      if (w.size() >= 2 && w[1] == "sram") {
        if (w.size() < 5) fail("{}: expected '.expect sram MEM INDEX values ...'", where);
        auto mem = isa::mem_from_name(w[2]);
        int64_t idx = 0;
        if (!mem || !parse_int(w[3], idx) || idx < 0 || idx > UINT32_MAX)
          fail("{}: bad '.expect sram' memory or index '{}' (0..{})", where, w[3], UINT32_MAX);
        e.where = Expectation::Where::SRAM;
        e.mem = *mem;
        e.index = static_cast<uint32_t>(idx);
        if (w[4] == "values" && w.size() == 5)
          fail("{}: .expect sram {} {} values: no values given", where, w[2], w[3]);
        int64_t count = w[4] == "values" ? static_cast<int64_t>(w.size() - 5) : 1;
        int scalar = *mem == MemId::ACC ? 4 : 1;
        e.bytes = fill(w, 4, *mem, static_cast<uint64_t>(count * scalar), where);
        e.bytes.resize(static_cast<size_t>(count * scalar));
      } else {
        if (w.size() < 3) fail("{}: expected '.expect NAME values ...' or '.expect NAME file PATH'", where);
        const ImageBuffer* b = img.buffer(w[1]);
        if (!b) fail("{}: .expect names unknown buffer '{}'", where, w[1]);
        e.buffer = w[1];
        if (w[2] == "values" && w.size() == 3) fail("{}: .expect {} values: no values given", where, w[1]);
        uint64_t n = w[2] == "values" ? (w.size() - 3) * (b->mem == MemId::ACC ? 4 : 1) : b->bytes();
        e.bytes = fill(w, 2, b->mem, n, where);
        e.bytes.resize(n);
        if (w[2] == "file") {
          fs::path p = fs::path(w[3]).is_absolute() ? fs::path(w[3]) : base / w[3];
          e.bytes.resize(read_bytes(p, fmt::format("{}: file", where)).size());
        }
      }
      img.expect.push_back(std::move(e));
    } else if (w[0][0] == '.') {
      fail("{}: unknown directive '{}' (.buffer .uop .region .endregion .expect)", where, w[0]);
    } else {
      // An instruction; dram_base may name a buffer: dram_base=@NAME[+K]
      Pending p;
      p.where = where;
      std::string text_line = body;
      auto at = text_line.find("dram_base=@");
      if (at != std::string::npos) {
        size_t s = at + 11, e = s;
        while (e < text_line.size() && !std::isspace(static_cast<unsigned char>(text_line[e]))) ++e;
        std::string sym = text_line.substr(s, e - s);
        auto plus = sym.find('+');
        if (plus != std::string::npos) {
          if (!parse_int(sym.substr(plus + 1), p.offset)) fail("{}: bad offset in '@{}'", where, sym);
          sym = sym.substr(0, plus);
        }
        p.symbol = sym;
        text_line.replace(at, e - at, "dram_base=0");
      }
      p.insn = layout.assemble(text_line, where);
      code.push_back(std::move(p));
    }
  }
  close_region();
  if (!uops.empty()) img.buffers.push_back(ImageBuffer{"uop", MemId::UOP, std::move(uops), 0});
  // Resolve symbols against the addresses install() will give (sequential pages from 0x1000).
  std::vector<std::pair<std::string, uint64_t>> addr;
  uint64_t next = Dram::kBase;
  for (const auto& b : img.buffers) {
    addr.emplace_back(b.name, next);
    next += (std::max<uint64_t>(b.bytes(), 1) + Dram::kPageBytes - 1) / Dram::kPageBytes * Dram::kPageBytes;
  }
  for (auto& p : code) {
    if (!p.symbol.empty()) {
      auto it = std::find_if(addr.begin(), addr.end(), [&](auto& a) { return a.first == p.symbol; });
      if (it == addr.end()) fail("{}: dram_base names unknown buffer '@{}'", p.where, p.symbol);
      auto e = static_cast<uint64_t>(c.elem_bytes(static_cast<int>(p.insn.mem())));
      if (it->second % e != 0)
        fail("{}: buffer '{}' at 0x{:x} is not aligned to the {}-byte {} element", p.where, p.symbol, it->second, e,
             isa::mem_name(p.insn.mem()));
      int64_t v = static_cast<int64_t>(it->second / e) + p.offset;
      if (v < 0 || v > UINT32_MAX) fail("{}: dram_base @{}{:+} is out of range", p.where, p.symbol, p.offset);
      p.insn[isa::Member::dram_base] = static_cast<uint32_t>(v);
    }
    img.insns.push_back(layout.encode(p.insn));
  }
  if (img.insns.empty()) fail("{}: no instructions", source);
  return img;
}

ProgramImage read_program(const std::string& path, const Config& c) {
  if (path_is_dir(path)) return read_conformance_dir(path);
  return assemble_program(read_file(path, "program"), path, c);
}

Launch install(ProgramImage& image, Backend& backend) {
  Dram& dram = backend.dram();
  // An allocation that does not fit names the program and the buffer.
  auto alloc = [&](uint64_t bytes, const std::string& what, uint64_t align) {
    try {
      return dram.alloc(bytes, align);
    } catch (const Error& e) {
      fail("{}: {}: {}", image.source, what, e.what());
    }
  };
  const uint64_t dram_size = static_cast<uint64_t>(backend.config().memory.dram_size);
  for (const auto& b : image.buffers)
    if (const uint64_t n = b.bytes(); n > dram_size)
      fail("{}: buffer '{}' has {} bytes, more than memory.dram_size ({} bytes)", image.source, b.name, n, dram_size);
  for (auto& b : image.buffers) {
    b.addr = alloc(b.bytes(), fmt::format("buffer '{}'", b.name),
                   Dram::align_for(static_cast<uint64_t>(backend.config().elem_bytes(static_cast<int>(b.mem)))));
    dram.write(b.addr, b.init);
  }
  const uint64_t bytes = image.insns.size() * isa::kInsnBytes;
  uint64_t at = alloc(bytes, "the instructions", Dram::kPageBytes);
  dram.write(at, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(image.insns.data()), bytes));
  return Launch{at, static_cast<uint32_t>(image.insns.size()), image.regions};
}

std::vector<Mismatch> check_expectations(const ProgramImage& image, const Backend& backend) {
  std::vector<Mismatch> out;
  for (const auto& e : image.expect) {
    std::vector<uint8_t> actual;
    std::string what;
    if (e.where == Expectation::Where::DRAM) {
      const ImageBuffer* b = image.buffer(e.buffer);
      actual = backend.dram().read(b->addr, e.bytes.size());
      what = "buffer " + e.buffer;
    } else {
      int64_t elem = e.mem == MemId::ACC ? backend.config().derived.acc_elem_bytes
                                         : backend.config().elem_bytes(static_cast<int>(e.mem));
      auto count = static_cast<uint32_t>((e.bytes.size() + static_cast<size_t>(elem) - 1) / static_cast<size_t>(elem));
      actual = backend.read_sram(e.mem, e.index, count);
      actual.resize(e.bytes.size());
      what = fmt::format("{} buffer from element {}", isa::mem_name(e.mem), e.index);
    }
    Mismatch m;
    for (size_t i = 0; i < e.bytes.size(); ++i) {
      if (actual[i] == e.bytes[i]) continue;
      if (m.total_diffs++ == 0) {
        m.what = what;
        m.offset = i;
        m.expected = static_cast<int8_t>(e.bytes[i]);
        m.actual = static_cast<int8_t>(actual[i]);
      }
    }
    if (m.total_diffs) out.push_back(m);
  }
  return out;
}

std::string disassemble_image(const ProgramImage& image, const Config& c) {
  isa::Layout layout(c);
  std::string out = fmt::format("# {} ({} instructions)\n", image.source, image.insns.size());
  for (const auto& b : image.buffers) {
    if (b.mem == MemId::UOP) {
      for (size_t i = 0; i + 4 <= b.bytes(); i += 4) {
        uint32_t w = 0;  // past init: the zero fill
        if (i + 4 <= b.init.size()) std::memcpy(&w, b.init.data() + i, 4);
        out += fmt::format("# {}[{}]: {}\n", b.name, i / 4, layout.disasm_uop(layout.decode_uop(w)));
      }
    }
  }
  for (size_t i = 0; i < image.insns.size(); ++i) {
    std::string text;
    try {
      text = layout.disasm(layout.decode(image.insns[i], static_cast<int64_t>(i)));
    } catch (const Error& e) {
      text = fmt::format("# cannot decode: {}", e.what());
    }
    out += text + fmt::format("  # {}\n", i);
  }
  return out;
}

}  // namespace vta
