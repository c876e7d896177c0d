// The field table placed for a config: encode, decode, check_fit.
#include "vta/isa/fields.h"

#include <algorithm>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fuzz_coverage.h"

namespace vta::isa {

namespace {
constexpr const char* kOpcodeNames[] = {"LOAD", "STORE", "GEMM", "FINISH", "ALU"};
constexpr const char* kMemNames[] = {"UOP", "WGT", "INP", "ACC", "OUT", "ACC_8BIT"};
constexpr const char* kAluNames[] = {"MIN", "MAX", "ADD", "SHR", "MUL"};
constexpr const char* kMemberNames[] = {
#define VTA_MEMBER(name, doc) #name,
#define VTA_FIELD(...)
#include "vta/isa/fields.def"
#undef VTA_MEMBER
#undef VTA_FIELD
};
constexpr const char* kFormatNames[] = {"LOAD/STORE", "GEMM/FINISH", "ALU", "uop"};

template <size_t N>
std::optional<size_t> index_of(const char* const (&names)[N], std::string_view s) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return i;
  return std::nullopt;
}

int width_of(WidthSrc src, const Config& c) {
  const auto& d = c.derived;
  switch (src) {
    case WidthSrc::ZERO:
      return 0;
    case WidthSrc::LOG_UOP:
      return d.log_uop_depth;
    case WidthSrc::LOG_INP:
      return d.log_inp_depth;
    case WidthSrc::LOG_WGT:
      return d.log_wgt_depth;
    case WidthSrc::LOG_ACC:
      return d.log_acc_depth;
    case WidthSrc::LOG_SRC:
      return std::max(d.log_acc_depth, d.log_inp_depth);
  }
  return 0;
}

uint64_t mask(int width) { return width >= 64 ? ~0ull : ((1ull << width) - 1); }
}  // namespace

const char* opcode_name(Opcode op) {
  auto i = static_cast<size_t>(op);
  return i < 5 ? kOpcodeNames[i] : "?";
}
const char* mem_name(MemId m) {
  auto i = static_cast<size_t>(m);
  return i < 6 ? kMemNames[i] : "?";
}
const char* alu_name(AluOp a) {
  auto i = static_cast<size_t>(a);
  return i < 5 ? kAluNames[i] : "?";
}
const char* member_name(Member m) { return kMemberNames[static_cast<size_t>(m)]; }

std::optional<Opcode> opcode_from_name(std::string_view s) {
  if (auto i = index_of(kOpcodeNames, s)) return static_cast<Opcode>(*i);
  return std::nullopt;
}
std::optional<MemId> mem_from_name(std::string_view s) {
  if (auto i = index_of(kMemNames, s)) return static_cast<MemId>(*i);
  return std::nullopt;
}
std::optional<AluOp> alu_from_name(std::string_view s) {
  if (auto i = index_of(kAluNames, s)) return static_cast<AluOp>(*i);
  return std::nullopt;
}
std::optional<Member> member_from_name(std::string_view s) {
  if (auto i = index_of(kMemberNames, s)) return static_cast<Member>(*i);
  return std::nullopt;
}

Format format_of(Opcode op) {
  switch (op) {
    case Opcode::LOAD:
    case Opcode::STORE:
      return Format::MEM;
    case Opcode::GEMM:
    case Opcode::FINISH:
      return Format::GEMM;
    case Opcode::ALU:
      return Format::ALU;
  }
  fail("opcode {} does not exist (LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4)", static_cast<int>(op));
}

const std::vector<FieldSpec>& field_specs() {
  static const std::vector<FieldSpec> specs = {
#define VTA_MEMBER(name, doc)
#define VTA_FIELD(format, member, word, src, add, render) \
  {Format::format, Member::member, word, WidthSrc::src, add, Render::render},
#include "vta/isa/fields.def"
#undef VTA_MEMBER
#undef VTA_FIELD
  };
  return specs;
}

Layout::Layout(const Config& c) {
  int next[4][2] = {};
  for (const auto& s : field_specs()) {
    auto fi = static_cast<size_t>(s.format);
    int width = s.width_add + width_of(s.width_src, c);
    int& pos = next[fi][s.word];
    by_format_[fi].push_back(
        FieldPos{s.format, s.member, s.word, s.word * 64 + pos, width, s.render, s.width_src, s.width_add});
    pos += width;
  }
}

const FieldPos* Layout::find(Format f, Member m) const {
  for (const auto& p : fields(f))
    if (p.member == m) return &p;
  return nullptr;
}

int Layout::used_bits(Format f, int word) const {
  int n = 0;
  for (const auto& p : fields(f))
    if (p.word == word) n += p.width;
  return n;
}

// encode / encode_uop pack fields with no decision to cover: out of the
// fuzzers' coverage (vta/isa/fuzz_coverage.h; they were a fifth of fuzz_onnx).
VTA_NO_FUZZ_COVERAGE Raw128 Layout::encode(const Insn& insn) const {
  Raw128 r;
  for (const auto& p : fields(format_of(insn.opcode()))) {
    uint64_t v = insn[p.member] & mask(p.width);
    r.w[p.word] |= v << (p.lsb - 64 * p.word);
  }
  return r;
}

Insn Layout::decode(const Raw128& raw, int64_t index) const {
  auto op = static_cast<uint32_t>(raw.w[0] & 7);
  if (op > 4) {
    if (index >= 0) fail("instruction {}: unknown opcode {} (LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4)", index, op);
    fail("unknown opcode {} (LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4)", op);
  }
  Insn insn;
  for (const auto& p : fields(format_of(static_cast<Opcode>(op))))
    insn[p.member] = static_cast<uint32_t>((raw.w[p.word] >> (p.lsb - 64 * p.word)) & mask(p.width));
  return insn;
}

VTA_NO_FUZZ_COVERAGE uint32_t Layout::encode_uop(const Insn& uop) const {
  uint64_t w = 0;
  for (const auto& p : fields(Format::UOP)) w |= (uint64_t{uop[p.member]} & mask(p.width)) << p.lsb;
  return static_cast<uint32_t>(w);
}

Insn Layout::decode_uop(uint32_t word) const {
  Insn u;
  for (const auto& p : fields(Format::UOP)) u[p.member] = static_cast<uint32_t>((word >> p.lsb) & mask(p.width));
  return u;
}

std::optional<std::string> check_fit(const Config& c) {
  Layout l(c);
  for (Format f : {Format::MEM, Format::GEMM, Format::ALU, Format::UOP}) {
    int limit = f == Format::UOP ? 32 : 64;
    for (int word = 0; word < (f == Format::UOP ? 1 : 2); ++word) {
      int used = l.used_bits(f, word);
      if (used <= limit) continue;
      std::string parts;
      for (const auto& p : l.fields(f))
        if (p.word == word && p.width_src != WidthSrc::ZERO)
          parts += fmt::format("{}{}={} bits", parts.empty() ? "" : ", ", member_name(p.member), p.width);
      return fmt::format(
          "this config cannot be encoded: {} {} needs {} bits but has {} (depth-derived fields: {}; "
          "depths: UOP {} INP {} WGT {} ACC {}); shrink the buffers or the GEMM shape",
          kFormatNames[static_cast<size_t>(f)], f == Format::UOP ? "word" : (word == 0 ? "word 0" : "word 1"), used,
          limit, parts, c.derived.uop_depth, c.derived.inp_depth, c.derived.wgt_depth, c.derived.acc_depth);
    }
  }
  return std::nullopt;
}

std::string describe_layout(const Config& c) {
  Layout l(c);
  std::string out = "# instruction fields (bit offset LSB first, width)\n";
  for (Format f : {Format::MEM, Format::GEMM, Format::ALU, Format::UOP}) {
    out += fmt::format("#   {:<12}", kFormatNames[static_cast<size_t>(f)]);
    for (const auto& p : l.fields(f))
      out += fmt::format(" {}[{}:{}]", member_name(p.member), p.lsb + p.width - 1, p.lsb);
    out += "\n";
  }
  return out;
}

}  // namespace vta::isa
