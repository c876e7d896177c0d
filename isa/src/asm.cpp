// Text form of instructions and uops, driven by the field table.
//
//   LOAD INP sram_base=0 dram_base=0x100 y_size=1 x_size=16 x_stride=16 x_pad_0=1 pop_next
//   GEMM reset uop_bgn=0 uop_end=1 iter_out=1 iter_in=1 dst_factor_out=0 ...
//   ALU MAX use_imm imm=0 uop_bgn=0 ...
//   FINISH pop_next
//   UOP dst=0 src=0 wgt=0
//
// The opcode, LOAD/STORE memory type and ALU opcode are positional; other
// fields are key=value (flags are bare words). Flags and pads at zero are
// omitted; FINISH shows only non-zero fields. Unlisted fields are zero, so
// text -> binary -> text -> binary is exact.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"
#include "vta/isa/parse_int.h"

namespace vta::isa {

namespace {

std::vector<std::string_view> tokenize(std::string_view line) {
  for (char c : {'#', ';'}) {
    auto p = line.find(c);
    if (p != std::string_view::npos) line = line.substr(0, p);
  }
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])) != 0) ++i;
    size_t j = i;
    while (j < line.size() && std::isspace(static_cast<unsigned char>(line[j])) == 0) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// Instruction fields: at most 2^40 in magnitude (wider than any field).
bool parse_number(std::string_view s, int64_t& v) { return parse_int(s, v, 1ull << 40); }

std::string render_field(const FieldPos& p, uint32_t v) {
  switch (p.render) {
    case Render::HEX:
      return fmt::format("{}=0x{:x}", member_name(p.member), v);
    case Render::SIGNED: {
      int64_t s = v;
      if (p.width < 32 && (v >> (p.width - 1)) != 0) s -= int64_t{1} << p.width;
      return fmt::format("{}={}", member_name(p.member), s);
    }
    case Render::FLAG:
      return v == 1 ? member_name(p.member) : fmt::format("{}={}", member_name(p.member), v);
    default:
      return fmt::format("{}={}", member_name(p.member), v);
  }
}

std::string disasm_fields(const std::vector<FieldPos>& fields, const Insn& insn, bool nonzero_only) {
  // Mnemonic, then the positional memory type / ALU op, then key=value fields.
  std::string out = fields.front().render == Render::OPCODE ? opcode_name(insn.opcode()) : "";
  for (const auto& p : fields) {
    if (p.render != Render::MEMTYPE && p.render != Render::ALUOP) continue;
    uint32_t v = insn[p.member];
    const char* name = p.render == Render::MEMTYPE ? mem_name(static_cast<MemId>(v)) : alu_name(static_cast<AluOp>(v));
    out += std::string(" ") + (name[0] == '?' ? std::to_string(v) : name);
  }
  for (const auto& p : fields) {
    uint32_t v = insn[p.member];
    if (p.render == Render::OPCODE || p.render == Render::MEMTYPE || p.render == Render::ALUOP) continue;
    if ((nonzero_only || p.render == Render::FLAG || p.render == Render::PAD) && v == 0) continue;
    out += " " + render_field(p, v);
  }
  return out;
}

// Parses the key=value / flag tokens of `toks` (from `first`) into `insn`.
void assemble_fields(const std::vector<FieldPos>& fields, const std::vector<std::string_view>& toks, size_t first,
                     Insn& insn, std::string_view where, std::string_view mnemonic) {
  std::vector<const FieldPos*> seen;  // a field given twice is a typo, not "the last one wins"
  for (size_t i = first; i < toks.size(); ++i) {
    std::string_view t = toks[i];
    auto eq = t.find('=');
    std::string_view key = eq == std::string_view::npos ? t : t.substr(0, eq);
    const FieldPos* pos = nullptr;
    for (const auto& p : fields)
      if (key == member_name(p.member) && p.render != Render::OPCODE) pos = &p;
    if (!pos) {
      std::string known;
      for (const auto& p : fields)
        if (p.render != Render::OPCODE) known += fmt::format("{}{}", known.empty() ? "" : " ", member_name(p.member));
      fail("{}: {} has no field '{}' (fields: {})", where, mnemonic, key, known);
    }
    if (std::find(seen.begin(), seen.end(), pos) != seen.end()) fail("{}: field '{}' is given twice", where, key);
    seen.push_back(pos);
    int64_t v = 1;
    if (eq == std::string_view::npos) {
      if (pos->render != Render::FLAG) fail("{}: field '{}' needs a value ({}=N)", where, key, key);
    } else if (!parse_number(t.substr(eq + 1), v)) {
      fail("{}: field '{}': '{}' is not a number", where, key, t.substr(eq + 1));
    }
    int64_t lo = pos->render == Render::SIGNED ? -(int64_t{1} << (pos->width - 1)) : 0;
    int64_t hi = pos->render == Render::SIGNED ? (int64_t{1} << (pos->width - 1)) - 1 : (int64_t{1} << pos->width) - 1;
    if (v < lo || v > hi)
      fail("{}: field '{}' = {} does not fit its {} bits (range {}..{})", where, key, v, pos->width, lo, hi);
    insn[pos->member] = static_cast<uint32_t>(v & ((int64_t{1} << pos->width) - 1));
  }
}

}  // namespace

std::string Layout::disasm(const Insn& insn) const {
  return disasm_fields(fields(format_of(insn.opcode())), insn, insn.opcode() == Opcode::FINISH);
}

std::string Layout::disasm_uop(const Insn& uop) const { return "UOP" + disasm_fields(fields(Format::UOP), uop, false); }

Insn Layout::assemble(std::string_view line, std::string_view where) const {
  auto toks = tokenize(line);
  if (toks.empty()) fail("{}: empty instruction", where);
  auto op = opcode_from_name(toks[0]);
  if (!op) fail("{}: unknown mnemonic '{}' (LOAD, STORE, GEMM, ALU, FINISH)", where, toks[0]);
  Insn insn;
  insn[Member::opcode] = static_cast<uint32_t>(*op);
  size_t next = 1;
  Format f = format_of(*op);
  if (f == Format::MEM || f == Format::ALU) {
    const char* what =
        f == Format::MEM ? "a memory type (UOP WGT INP ACC OUT ACC_8BIT)" : "an ALU op (MIN MAX ADD SHR MUL)";
    if (toks.size() < 2) fail("{}: {} needs {}", where, toks[0], what);
    std::optional<uint32_t> v;
    if (f == Format::MEM) {
      if (auto m = mem_from_name(toks[1])) v = static_cast<uint32_t>(*m);
    } else if (auto a = alu_from_name(toks[1])) {
      v = static_cast<uint32_t>(*a);
    }
    int64_t n = 0;
    if (!v && parse_number(toks[1], n) && n >= 0 && n < 8) v = static_cast<uint32_t>(n);
    if (!v) fail("{}: '{}' is not {}", where, toks[1], what);
    insn[f == Format::MEM ? Member::memory_type : Member::alu_opcode] = *v;
    next = 2;
  }
  assemble_fields(fields(f), toks, next, insn, where, toks[0]);
  return insn;
}

Insn Layout::assemble_uop(std::string_view line, std::string_view where) const {
  auto toks = tokenize(line);
  if (toks.empty() || toks[0] != "UOP") fail("{}: expected 'UOP dst=.. src=.. wgt=..'", where);
  Insn u;
  assemble_fields(fields(Format::UOP), toks, 1, u, where, "UOP");
  return u;
}

}  // namespace vta::isa
