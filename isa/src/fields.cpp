// The field table placed for a config: encode, decode, check_fit.
#include "vta/isa/fields.h"

#include <algorithm>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fuzz_coverage.h"

namespace vta::isa {

// opcodes.def's extension column: BASE, or ISA(knob) (a boolean isa.* knob),
// as two initialisers of Code (extension's name, and the reader of the knob).
#define BASE nullptr, nullptr
#define ISA(knob) #knob, [](const Config& c) { return c.isa.knob; }

// Function-local tables: other files' static initialisers may name codes.
const std::vector<Code>& opcodes() {
  static const std::vector<Code> codes = {
#define VTA_OPCODE(name, value, format, doc) {#name, value, Format::format, nullptr, nullptr, nullptr, doc, nullptr},
#define VTA_MEMORY(...)
#define VTA_ALU_OP(...)
#include "vta/isa/opcodes.def"
#undef VTA_OPCODE
#undef VTA_MEMORY
#undef VTA_ALU_OP
  };
  return codes;
}

namespace {
Code memory_code(const char* name, uint8_t value, const char* ext, bool (*on)(const Config&), const char* doc) {
  return Code{name, value, Format::MEM, ext, nullptr, nullptr, doc, on};
}
Code alu_code(const char* name, uint8_t value, const char* ext, bool (*on)(const Config&), const char* c_expr,
              const char* sv_expr, const char* doc) {
  return Code{name, value, Format::ALU, ext, c_expr, sv_expr, doc, on};
}

}  // namespace

const std::vector<Code>& memories() {
  static const std::vector<Code> codes = {
#define VTA_OPCODE(...)
#define VTA_MEMORY(name, value, ext, doc) memory_code(#name, value, ext, doc),
#define VTA_ALU_OP(...)
#include "vta/isa/opcodes.def"
#undef VTA_OPCODE
#undef VTA_MEMORY
#undef VTA_ALU_OP
  };
  return codes;
}

const std::vector<Code>& alu_ops() {
  static const std::vector<Code> codes = {
#define VTA_OPCODE(...)
#define VTA_MEMORY(...)
#define VTA_ALU_OP(name, value, ext, c_expr, sv_expr, doc) alu_code(#name, value, ext, #c_expr, sv_expr, doc),
#include "vta/isa/opcodes.def"
#undef VTA_OPCODE
#undef VTA_MEMORY
#undef VTA_ALU_OP
  };
  return codes;
}
#undef BASE
#undef ISA

namespace {

const Code* find_code(const std::vector<Code>& codes, uint32_t value) {
  for (const Code& c : codes)
    if (c.value == value) return &c;
  return nullptr;
}
const Code* code_named(const std::vector<Code>& codes, std::string_view s) {
  for (const Code& c : codes)
    if (s == c.name) return &c;
  return nullptr;
}

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

const Code* find_opcode(uint32_t value) { return find_code(opcodes(), value); }
const Code* find_memory(uint32_t value) { return find_code(memories(), value); }
const Code* find_alu_op(uint32_t value) { return find_code(alu_ops(), value); }

std::string code_list(const std::vector<Code>& codes) {
  std::string s;
  for (const Code& c : codes) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", c.name, c.value);
  return s;
}

const char* opcode_name(Opcode op) {
  const Code* c = find_opcode(static_cast<uint32_t>(op));
  return c ? c->name : "?";
}
const char* mem_name(MemId m) {
  const Code* c = find_memory(static_cast<uint32_t>(m));
  return c ? c->name : "?";
}
const char* alu_name(AluOp a) {
  const Code* c = find_alu_op(static_cast<uint32_t>(a));
  return c ? c->name : "?";
}
const char* member_name(Member m) { return kMemberNames[static_cast<size_t>(m)]; }

std::optional<Opcode> opcode_from_name(std::string_view s) {
  if (const Code* c = code_named(opcodes(), s)) return static_cast<Opcode>(c->value);
  return std::nullopt;
}
std::optional<MemId> mem_from_name(std::string_view s) {
  if (const Code* c = code_named(memories(), s)) return static_cast<MemId>(c->value);
  return std::nullopt;
}
std::optional<AluOp> alu_from_name(std::string_view s) {
  if (const Code* c = code_named(alu_ops(), s)) return static_cast<AluOp>(c->value);
  return std::nullopt;
}
std::optional<Member> member_from_name(std::string_view s) {
  if (auto i = index_of(kMemberNames, s)) return static_cast<Member>(*i);
  return std::nullopt;
}

Format format_of(Opcode op) {
  if (const Code* c = find_opcode(static_cast<uint32_t>(op))) return c->format;
  fail("opcode {} does not exist ({})", static_cast<int>(op), code_list(opcodes()));
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
  // Every format starts with the opcode, at the same place.
  const FieldPos& at = *find(Format::GEMM, Member::opcode);
  const auto op = static_cast<uint32_t>((raw.w[0] >> at.lsb) & mask(at.width));
  if (!find_opcode(op)) {
    if (index >= 0) fail("instruction {}: unknown opcode {} ({})", index, op, code_list(opcodes()));
    fail("unknown opcode {} ({})", op, code_list(opcodes()));
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
