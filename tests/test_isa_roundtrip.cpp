// ISA field table and the encoder / decoder / disassembler / assembler built
// from it (label: isa). The upstream bit positions are written here by hand
// from docs/design.md ("The ISA contract") and upstream VTA hw_spec.h 0.0.2, so
// that a change to fields.def that moves a bit fails here.
#include <gtest/gtest.h>

#include <cstdlib>

#include <algorithm>
#include <bitset>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "error_of.h"
#include "test_support.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/fields.h"

using vta::test::error_of;

namespace {

using vta::isa::AluOp;
using vta::isa::FieldPos;
using vta::isa::Format;
using vta::isa::Insn;
using vta::isa::Layout;
using vta::isa::Member;
using vta::isa::MemId;
using vta::isa::Opcode;
using vta::isa::Raw128;
using vta::isa::Render;
using vta::test::make_alu;
using vta::test::make_finish;
using vta::test::make_gemm;
using vta::test::make_load;
using vta::test::make_store;
using vta::test::make_uop;
using vta::test::with_deps;

constexpr Format kInsnFormats[] = {Format::MEM, Format::GEMM, Format::ALU};
constexpr Format kAllFormats[] = {Format::MEM, Format::GEMM, Format::ALU, Format::UOP};
// Every memory type and ALU op of opcodes.def (their upstream values are
// pinned by CodeTable.UpstreamValues).
template <class E>
std::vector<E> all_codes(const std::vector<vta::isa::Code>& codes) {
  std::vector<E> v;
  for (const auto& c : codes) v.push_back(static_cast<E>(c.value));
  return v;
}
const std::vector<MemId> kAllMems = all_codes<MemId>(vta::isa::memories());
const std::vector<AluOp> kAllAluOps = all_codes<AluOp>(vta::isa::alu_ops());

const char* format_name(Format f) {
  switch (f) {
    case Format::MEM:
      return "MEM";
    case Format::GEMM:
      return "GEMM";
    case Format::ALU:
      return "ALU";
    case Format::UOP:
      return "UOP";
  }
  return "?";
}

std::string hex(const Raw128& r) { return fmt::format("{:016x}_{:016x}", r.w[1], r.w[0]); }

uint32_t field_mask(int width) { return width >= 32 ? 0xffffffffu : ((1u << width) - 1u); }

// Every preset, as a gtest parameter.
class PerPreset : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    cfg_ = vta::test::preset(GetParam());
    layout_ = std::make_unique<Layout>(cfg_);
  }
  const Layout& layout() const { return *layout_; }
  vta::Config cfg_;
  std::unique_ptr<Layout> layout_;
};

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string s = info.param;
  for (auto& ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

// ---------------------------------------------------------------- field table

TEST_P(PerPreset, FieldsDoNotOverlapAndFitTheirWords) {
  for (Format f : kAllFormats) {
    const int total = f == Format::UOP ? 32 : 128;
    std::bitset<128> used;
    std::set<Member> members;
    ASSERT_FALSE(layout().fields(f).empty()) << format_name(f);
    for (const FieldPos& p : layout().fields(f)) {
      SCOPED_TRACE(fmt::format("{} {} [{}+:{}]", format_name(f), vta::isa::member_name(p.member), p.lsb, p.width));
      EXPECT_EQ(p.format, f);
      EXPECT_TRUE(members.insert(p.member).second) << "member appears twice in one format";
      EXPECT_GT(p.width, 0);
      EXPECT_LE(p.width, 32) << "Insn holds 32 bits per member";
      EXPECT_GE(p.lsb, 0);
      EXPECT_LE(p.lsb + p.width, total);
      if (f == Format::UOP) {
        EXPECT_EQ(p.word, 0);
      } else {
        // No field crosses bit 64, and `word` says which side it is on.
        EXPECT_EQ(p.lsb / 64, p.word);
        EXPECT_EQ((p.lsb + p.width - 1) / 64, p.word) << "field crosses bit 64";
      }
      for (int b = p.lsb; b < p.lsb + p.width && b < 128; ++b) {
        EXPECT_FALSE(used[static_cast<size_t>(b)]) << "bit " << b << " is used by two fields";
        used.set(static_cast<size_t>(b));
      }
    }
    EXPECT_LE(layout().used_bits(f, 0), f == Format::UOP ? 32 : 64) << format_name(f);
    if (f != Format::UOP) {
      EXPECT_LE(layout().used_bits(f, 1), 64) << format_name(f);
    }
  }
  EXPECT_FALSE(vta::isa::check_fit(cfg_).has_value());
}

TEST_P(PerPreset, FieldsArePackedLsbFirstLikeCBitfields) {
  // Upstream declares each format as a C bitfield struct: fields follow each
  // other with no gaps, word 1 starting at bit 64.
  for (Format f : kAllFormats) {
    int next[2] = {0, 64};
    for (const FieldPos& p : layout().fields(f)) {
      EXPECT_EQ(p.lsb, next[p.word]) << format_name(f) << " " << vta::isa::member_name(p.member);
      next[p.word] = p.lsb + p.width;
    }
  }
}

TEST_P(PerPreset, OpcodeAndDependencyFlagsSitAtTheSameBitsInEveryFormat) {
  // The decoder reads the opcode before it knows the format.
  const std::pair<Member, int> common[] = {{Member::opcode, 0},
                                           {Member::pop_prev, 3},
                                           {Member::pop_next, 4},
                                           {Member::push_prev, 5},
                                           {Member::push_next, 6}};
  for (Format f : kInsnFormats) {
    for (auto [m, lsb] : common) {
      const FieldPos* p = layout().find(f, m);
      ASSERT_NE(p, nullptr) << format_name(f) << " " << vta::isa::member_name(m);
      EXPECT_EQ(p->lsb, lsb) << format_name(f) << " " << vta::isa::member_name(m);
      EXPECT_EQ(p->width, m == Member::opcode ? 3 : 1);
    }
  }
}

TEST_P(PerPreset, WidthsDeriveFromTheConfigDepths) {
  const auto& d = cfg_.derived;
  auto width = [&](Format f, Member m) {
    const FieldPos* p = layout().find(f, m);
    return p ? p->width : -1;
  };
  EXPECT_EQ(width(Format::GEMM, Member::uop_bgn), d.log_uop_depth);
  EXPECT_EQ(width(Format::GEMM, Member::uop_end), d.log_uop_depth + 1);
  EXPECT_EQ(width(Format::GEMM, Member::iter_out), 14);
  EXPECT_EQ(width(Format::GEMM, Member::iter_in), 14);
  EXPECT_EQ(width(Format::GEMM, Member::dst_factor_out), d.log_acc_depth);
  EXPECT_EQ(width(Format::GEMM, Member::src_factor_in), d.log_inp_depth);
  EXPECT_EQ(width(Format::GEMM, Member::wgt_factor_in), d.log_wgt_depth);
  EXPECT_EQ(width(Format::ALU, Member::uop_bgn), d.log_uop_depth);
  EXPECT_EQ(width(Format::ALU, Member::src_factor_out), d.log_acc_depth);
  EXPECT_EQ(width(Format::ALU, Member::src_factor_in), d.log_acc_depth);
  EXPECT_EQ(width(Format::UOP, Member::dst), d.log_acc_depth);
  EXPECT_EQ(width(Format::UOP, Member::src), std::max(d.log_acc_depth, d.log_inp_depth));
  EXPECT_EQ(width(Format::UOP, Member::wgt), d.log_wgt_depth);
  // Fixed-width memory fields.
  EXPECT_EQ(width(Format::MEM, Member::sram_base), vta::isa::kSramBaseBits);
  EXPECT_EQ(width(Format::MEM, Member::dram_base), vta::isa::kDramBaseBits);
  // Formats do not carry each other's members.
  EXPECT_EQ(layout().find(Format::MEM, Member::uop_bgn), nullptr);
  EXPECT_EQ(layout().find(Format::GEMM, Member::imm), nullptr);
  EXPECT_EQ(layout().find(Format::ALU, Member::wgt_factor_out), nullptr);
  EXPECT_EQ(layout().find(Format::UOP, Member::opcode), nullptr);
}

// Upstream hw_spec.h (0.0.2) positions for the default 1x16x16 design, by hand.
struct Expected {
  Format format;
  Member member;
  int lsb, msb;
};
const Expected kUpstream1x16x16[] = {
    // VTAMemInsn
    {Format::MEM, Member::opcode, 0, 2},
    {Format::MEM, Member::pop_prev, 3, 3},
    {Format::MEM, Member::pop_next, 4, 4},
    {Format::MEM, Member::push_prev, 5, 5},
    {Format::MEM, Member::push_next, 6, 6},
    {Format::MEM, Member::memory_type, 7, 9},
    {Format::MEM, Member::sram_base, 10, 25},
    {Format::MEM, Member::dram_base, 26, 57},
    {Format::MEM, Member::y_size, 64, 79},
    {Format::MEM, Member::x_size, 80, 95},
    {Format::MEM, Member::x_stride, 96, 111},
    {Format::MEM, Member::y_pad_0, 112, 115},
    {Format::MEM, Member::y_pad_1, 116, 119},
    {Format::MEM, Member::x_pad_0, 120, 123},
    {Format::MEM, Member::x_pad_1, 124, 127},
    // VTAGemInsn (LOG_UOP 13, LOG_ACC 11, LOG_INP 11, LOG_WGT 10)
    {Format::GEMM, Member::opcode, 0, 2},
    {Format::GEMM, Member::pop_prev, 3, 3},
    {Format::GEMM, Member::push_next, 6, 6},
    {Format::GEMM, Member::reset, 7, 7},
    {Format::GEMM, Member::uop_bgn, 8, 20},
    {Format::GEMM, Member::uop_end, 21, 34},
    {Format::GEMM, Member::iter_out, 35, 48},
    {Format::GEMM, Member::iter_in, 49, 62},
    {Format::GEMM, Member::dst_factor_out, 64, 74},
    {Format::GEMM, Member::dst_factor_in, 75, 85},
    {Format::GEMM, Member::src_factor_out, 86, 96},
    {Format::GEMM, Member::src_factor_in, 97, 107},
    {Format::GEMM, Member::wgt_factor_out, 108, 117},
    {Format::GEMM, Member::wgt_factor_in, 118, 127},
    // VTAAluInsn
    {Format::ALU, Member::opcode, 0, 2},
    {Format::ALU, Member::reset, 7, 7},
    {Format::ALU, Member::uop_bgn, 8, 20},
    {Format::ALU, Member::uop_end, 21, 34},
    {Format::ALU, Member::iter_out, 35, 48},
    {Format::ALU, Member::iter_in, 49, 62},
    {Format::ALU, Member::dst_factor_out, 64, 74},
    {Format::ALU, Member::dst_factor_in, 75, 85},
    {Format::ALU, Member::src_factor_out, 86, 96},
    {Format::ALU, Member::src_factor_in, 97, 107},
    {Format::ALU, Member::alu_opcode, 108, 110},
    {Format::ALU, Member::use_imm, 111, 111},
    {Format::ALU, Member::imm, 112, 127},
    // VTAUop
    {Format::UOP, Member::dst, 0, 10},
    {Format::UOP, Member::src, 11, 21},
    {Format::UOP, Member::wgt, 22, 31},
};

TEST(IsaUpstream, BitPositionsOf1x16x16MatchHwSpec) {
  vta::Config c = vta::test::preset("vta-1x16x16");
  ASSERT_EQ(c.derived.log_uop_depth, 13);
  ASSERT_EQ(c.derived.log_inp_depth, 11);
  ASSERT_EQ(c.derived.log_wgt_depth, 10);
  ASSERT_EQ(c.derived.log_acc_depth, 11);
  Layout l(c);
  for (const auto& e : kUpstream1x16x16) {
    const FieldPos* p = l.find(e.format, e.member);
    ASSERT_NE(p, nullptr) << format_name(e.format) << " " << vta::isa::member_name(e.member);
    EXPECT_EQ(p->lsb, e.lsb) << format_name(e.format) << " " << vta::isa::member_name(e.member);
    EXPECT_EQ(p->lsb + p->width - 1, e.msb) << format_name(e.format) << " " << vta::isa::member_name(e.member);
  }
  // Word 1 of GEMM is exactly full for this design; the unused bit 63 of word 0 stays unused.
  EXPECT_EQ(l.used_bits(Format::GEMM, 1), 64);
  EXPECT_EQ(l.used_bits(Format::GEMM, 0), 63);
  EXPECT_EQ(l.used_bits(Format::MEM, 0), 58);
  EXPECT_EQ(l.used_bits(Format::UOP, 0), 32);
}

TEST(IsaUpstream, EncodesTheSameBitsAsUpstreamBitfields) {
  // Raw words computed here with literal shifts, independent of the Layout.
  Layout l(vta::test::preset("vta-1x16x16"));
  {
    Insn i = with_deps(make_load(MemId::INP, 0x123, 0x1000, 2, 16, 32, 1, 2, 3, 4), false, true, false, true);
    Raw128 r = l.encode(i);
    EXPECT_EQ(r.w[0], (1ull << 4) | (1ull << 6) | (2ull << 7) | (0x123ull << 10) | (0x1000ull << 26)) << hex(r);
    EXPECT_EQ(r.w[1], 2ull | (16ull << 16) | (32ull << 32) | (1ull << 48) | (2ull << 52) | (3ull << 56) | (4ull << 60))
        << hex(r);
  }
  {
    Insn s = make_store(7, 0xdeadbeef, 1, 1, 1);
    Raw128 r = l.encode(s);
    EXPECT_EQ(r.w[0], 1ull | (4ull << 7) | (7ull << 10) | (0xdeadbeefull << 26)) << hex(r);
    EXPECT_EQ(r.w[1], 1ull | (1ull << 16) | (1ull << 32)) << hex(r);
  }
  {
    Insn g = make_gemm(true, 5, 8191, 3, 16383, 1, 2, 3, 4, 5, 1023);
    Raw128 r = l.encode(g);
    EXPECT_EQ(r.w[0], 2ull | (1ull << 7) | (5ull << 8) | (8191ull << 21) | (3ull << 35) | (16383ull << 49)) << hex(r);
    EXPECT_EQ(r.w[1], 1ull | (2ull << 11) | (3ull << 22) | (4ull << 33) | (5ull << 44) | (1023ull << 54)) << hex(r);
  }
  {
    Insn a = make_alu(AluOp::SHR, true, -2, 0, 1, 1, 1, 0, 0, 2047, 0);
    Raw128 r = l.encode(a);
    EXPECT_EQ(r.w[0], 4ull | (1ull << 21) | (1ull << 35) | (1ull << 49)) << hex(r);
    EXPECT_EQ(r.w[1], (2047ull << 22) | (3ull << 44) | (1ull << 47) | (0xfffeull << 48)) << hex(r);
    EXPECT_EQ(l.decode(r).imm(), -2);
  }
  {
    Insn f = with_deps(make_finish(), true, false, true, false);
    Raw128 r = l.encode(f);
    EXPECT_EQ(r.w[0], 3ull | (1ull << 3) | (1ull << 5)) << hex(r);
    EXPECT_EQ(r.w[1], 0ull);
  }
  EXPECT_EQ(l.encode_uop(make_uop(5, 7, 3)), 5u | (7u << 11) | (3u << 22));
  EXPECT_EQ(l.encode_uop(make_uop(2047, 2047, 1023)), 0xffffffffu);
}

// opcodes.def's values are upstream's (hw_spec.h), written here by hand as
// the independent check; the extensions are ours.
TEST(IsaUpstream, CodeValuesMatchHwSpec) {
  const std::pair<const char*, int> opcodes[] = {{"LOAD", 0}, {"STORE", 1}, {"GEMM", 2}, {"FINISH", 3}, {"ALU", 4}};
  const std::pair<const char*, int> mems[] = {{"UOP", 0}, {"WGT", 1}, {"INP", 2},
                                              {"ACC", 3}, {"OUT", 4}, {"ACC_8BIT", 5}};
  const std::pair<const char*, int> alus[] = {{"MIN", 0}, {"MAX", 1}, {"ADD", 2}, {"SHR", 3}, {"MUL", 4}};
  for (auto [name, v] : opcodes) EXPECT_EQ(static_cast<int>(*vta::isa::opcode_from_name(name)), v) << name;
  for (auto [name, v] : mems) EXPECT_EQ(static_cast<int>(*vta::isa::mem_from_name(name)), v) << name;
  for (auto [name, v] : alus) EXPECT_EQ(static_cast<int>(*vta::isa::alu_from_name(name)), v) << name;
  EXPECT_STREQ(vta::isa::find_memory(5)->extension, "acc_8bit");
  EXPECT_STREQ(vta::isa::find_alu_op(4)->extension, "alu_mul");
  EXPECT_EQ(vta::isa::find_alu_op(2)->extension, nullptr);
}

// Each code table: values 0, 1, 2, ... in table order (the checks' "0..N"
// bounds and the generated lists rely on it), unique names, values that fit
// their field, names that round-trip, and extensions that name a BOOL knob
// of the isa section.
TEST(CodeTable, ValuesAreDenseUniqueAndFitTheirFields) {
  const Layout l(vta::default_config());
  const std::tuple<const std::vector<vta::isa::Code>*, Format, Member> tables[] = {
      {&vta::isa::opcodes(), Format::GEMM, Member::opcode},
      {&vta::isa::memories(), Format::MEM, Member::memory_type},
      {&vta::isa::alu_ops(), Format::ALU, Member::alu_opcode}};
  for (const auto& [codes, format, member] : tables) {
    const int width = l.find(format, member)->width;
    std::set<std::string> names;
    for (size_t i = 0; i < codes->size(); ++i) {
      const vta::isa::Code& c = (*codes)[i];
      EXPECT_EQ(static_cast<size_t>(c.value), i) << c.name;
      EXPECT_LT(static_cast<unsigned>(c.value), 1u << width)
          << c.name << " does not fit " << vta::isa::member_name(member);
      EXPECT_TRUE(names.insert(c.name).second) << c.name << " is named twice";
      if (c.extension) {
        const auto& k = vta::knobs();
        const auto it = std::find_if(k.begin(), k.end(), [&](const vta::KnobInfo& kn) {
          return std::string(kn.section) == "isa" && kn.name == std::string(c.extension);
        });
        ASSERT_NE(it, k.end()) << c.name << ": no knob isa." << c.extension;
        EXPECT_EQ(it->kind, vta::KnobKind::BOOL) << c.name;
      }
    }
  }
  for (const auto& c : vta::isa::opcodes())
    EXPECT_EQ(vta::isa::opcode_name(*vta::isa::opcode_from_name(c.name)), std::string(c.name));
  for (const auto& c : vta::isa::memories())
    EXPECT_EQ(vta::isa::mem_name(*vta::isa::mem_from_name(c.name)), std::string(c.name));
  for (const auto& c : vta::isa::alu_ops()) {
    EXPECT_EQ(vta::isa::alu_name(*vta::isa::alu_from_name(c.name)), std::string(c.name));
    EXPECT_TRUE(c.c_expr && *c.c_expr && c.sv_expr && *c.sv_expr) << c.name << " has no semantics";
  }
}

TEST(IsaUpstream, DecodesAnUpstreamLoadUop) {
  // The first instruction of the conformance vector 16x16 (bytes written by an
  // independent toolchain), as literal words: LOAD UOP dram_base 0x1000, 1x1.
  Layout l(vta::test::preset("vta-1x16x16"));
  Raw128 r;
  r.w[0] = 0x0000004000000000ull;
  r.w[1] = 0x0000000100010001ull;
  Insn i = l.decode(r);
  EXPECT_EQ(i.opcode(), Opcode::LOAD);
  EXPECT_EQ(i.mem(), MemId::UOP);
  EXPECT_EQ(i[Member::dram_base], 0x1000u);
  EXPECT_EQ(i[Member::sram_base], 0u);
  EXPECT_EQ(i[Member::y_size], 1u);
  EXPECT_EQ(i[Member::x_size], 1u);
  EXPECT_EQ(i[Member::x_stride], 1u);
  EXPECT_EQ(l.encode(i), r);
}

TEST(IsaConformance, FirstInstructionOf16x16IsLoadUop) {
  const std::string root = vta::test::conformance_dir();
  if (root.empty()) {
    if (std::getenv("CI")) FAIL() << "no conformance vectors (tests/data/conformance/vectors or VTA_CONFORMANCE_DIR)";
    GTEST_SKIP() << "no conformance vectors (tests/data/conformance/vectors or VTA_CONFORMANCE_DIR)";
  }
  const std::string path = root + "/16x16/instructions.bin";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GE(bytes.size(), size_t{vta::isa::kInsnBytes});
  ASSERT_EQ(bytes.size() % vta::isa::kInsnBytes, 0u);
  Raw128 r;
  std::memcpy(r.w, bytes.data(), vta::isa::kInsnBytes);
  Layout l(vta::test::preset("vta-1x16x16"));
  Insn i = l.decode(r, 0);
  EXPECT_EQ(i.opcode(), Opcode::LOAD);
  EXPECT_EQ(i.mem(), MemId::UOP);
  EXPECT_EQ(i[Member::dram_base], 0x4000u / 4) << "uop area at byte 0x4000, 4-byte elements";
  EXPECT_EQ(l.encode(i), r);
  EXPECT_EQ(l.encode(l.assemble(l.disasm(i))), r) << l.disasm(i);
}

// --------------------------------------------------------- every instruction kind

std::vector<Insn> every_kind(const Layout& l) {
  auto max_of = [&](Format f, Member m) { return field_mask(l.find(f, m)->width); };
  std::vector<Insn> v;
  for (MemId m : kAllMems) {
    v.push_back(make_load(m, 3, 0x100, 2, 16, 16));
    v.push_back(with_deps(
        make_load(m, max_of(Format::MEM, Member::sram_base), 0xffffffffu, 0xffff, 0xffff, 0xffff, 15, 15, 15, 15), true,
        true, true, true));
    v.push_back(make_load(m, 0, 0, 1, 0, 1, 1, 0, 2, 0));  // x_size 0: dependency-only
  }
  v.push_back(make_store(0, 0x80, 1, 16, 16));
  v.push_back(with_deps(make_store(12, 0x1234, 4, 4, 8), true, false, false, true));
  v.push_back(make_gemm(false, 0, 1, 1, 1));
  v.push_back(make_gemm(false, 1, 5, 2, 3, 4, 1, 16, 1, 2, 1));
  v.push_back(make_gemm(true, 0, 1, 1, 1));  // reset
  v.push_back(with_deps(make_gemm(true, 2, 9, 7, 7, 1, 1, 0, 0, 0, 0), false, true, true, false));
  v.push_back(make_gemm(false, max_of(Format::GEMM, Member::uop_bgn), max_of(Format::GEMM, Member::uop_end), 16383,
                        16383, max_of(Format::GEMM, Member::dst_factor_out),
                        max_of(Format::GEMM, Member::dst_factor_in), max_of(Format::GEMM, Member::src_factor_out),
                        max_of(Format::GEMM, Member::src_factor_in), max_of(Format::GEMM, Member::wgt_factor_out),
                        max_of(Format::GEMM, Member::wgt_factor_in)));
  for (AluOp a : kAllAluOps) {
    v.push_back(make_alu(a, true, 5, 0, 1, 1, 1));
    v.push_back(make_alu(a, true, -1, 0, 2, 3, 4, 1, 2, 3, 4));  // negative imm
    v.push_back(make_alu(a, true, -32768, 1, 2, 1, 1));
    v.push_back(make_alu(a, true, 32767, 1, 2, 1, 1));
    v.push_back(make_alu(a, false, 0, 0, 4, 2, 2, 1, 0, 1, 0));  // vector-vector
    v.push_back(with_deps(make_alu(a, false, 0, 3, 4, 1, 1), true, false, true, false));
  }
  v.push_back(make_finish());
  v.push_back(with_deps(make_finish(), false, true, false, false));
  v.push_back(with_deps(make_finish(), true, true, true, true));
  return v;
}

TEST_P(PerPreset, EncodeDecodeIsIdentityForEveryKind) {
  for (const Insn& i : every_kind(layout())) {
    Raw128 r = layout().encode(i);
    Insn d = layout().decode(r);
    EXPECT_EQ(d, i) << layout().disasm(i) << " -> " << layout().disasm(d);
    EXPECT_EQ(layout().encode(d), r) << layout().disasm(i);
  }
}

TEST_P(PerPreset, DecodeEncodeReproducesTheRawBitsForEveryKind) {
  for (const Insn& i : every_kind(layout())) {
    const Raw128 raw = layout().encode(i);
    EXPECT_EQ(raw.w[0] & 7, static_cast<uint64_t>(i.opcode()));
    EXPECT_EQ(layout().encode(layout().decode(raw, 3)), raw) << hex(raw) << " " << layout().disasm(i);
  }
}

TEST_P(PerPreset, BinaryToTextToBinaryIsExactForEveryKind) {
  for (const Insn& i : every_kind(layout())) {
    const Raw128 raw = layout().encode(i);
    const std::string text = layout().disasm(layout().decode(raw));
    Insn back;
    ASSERT_NO_THROW(back = layout().assemble(text, "roundtrip")) << text;
    EXPECT_EQ(layout().encode(back), raw) << text;
    // And the text is stable: disassembling again gives the same line.
    EXPECT_EQ(layout().disasm(back), text);
  }
}

TEST_P(PerPreset, DisassemblyShowsMnemonicsAndSignedImmediates) {
  auto starts_with = [](const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; };
  for (MemId m : kAllMems) {
    std::string t = layout().disasm(with_deps(make_load(m, 0, 0x100, 1, 16, 16), false, true, false, false));
    EXPECT_TRUE(starts_with(t, std::string("LOAD ") + vta::isa::mem_name(m) + " ")) << t;
    EXPECT_NE(t.find("dram_base=0x100"), std::string::npos) << t;
    EXPECT_NE(t.find("pop_next"), std::string::npos) << t;
  }
  EXPECT_TRUE(starts_with(layout().disasm(make_store(0, 1, 1, 1, 1)), "STORE OUT "))
      << layout().disasm(make_store(0, 1, 1, 1, 1));
  for (AluOp a : kAllAluOps) {
    std::string t = layout().disasm(with_deps(make_alu(a, true, -7, 0, 1, 1, 1), true, false, false, false));
    EXPECT_TRUE(starts_with(t, std::string("ALU ") + vta::isa::alu_name(a) + " ")) << t;
    EXPECT_NE(t.find("imm=-7"), std::string::npos) << t;
    EXPECT_NE(t.find("use_imm"), std::string::npos) << t;
  }
  std::string g = layout().disasm(make_gemm(true, 0, 1, 1, 1));
  EXPECT_TRUE(starts_with(g, "GEMM")) << g;
  EXPECT_NE(g.find("reset"), std::string::npos) << g;
  EXPECT_EQ(layout().disasm(make_finish()), "FINISH");
  EXPECT_EQ(layout().disasm(with_deps(make_finish(), false, true, false, false)), "FINISH pop_next");
  EXPECT_EQ(layout().disasm_uop(make_uop(1, 2, 3)), "UOP dst=1 src=2 wgt=3");
}

TEST_P(PerPreset, AssemblerAcceptsCommentsNumbersAndFlagsInAnyOrder) {
  Insn a = layout().assemble("  LOAD INP   x_size=16 push_next dram_base=256 y_size=0x2 sram_base=1 x_stride=16 # c");
  Insn b = with_deps(make_load(MemId::INP, 1, 256, 2, 16, 16), false, false, false, true);
  EXPECT_EQ(a, b);
  EXPECT_EQ(layout().assemble("LOAD 2 sram_base=1 dram_base=0x100 y_size=2 x_size=16 x_stride=16 push_next ; c"), b);
  EXPECT_EQ(layout().assemble("ALU ADD use_imm imm=-3 uop_end=1 iter_out=1 iter_in=1"),
            make_alu(AluOp::ADD, true, -3, 0, 1, 1, 1));
  EXPECT_EQ(layout().assemble("FINISH"), make_finish());
  EXPECT_EQ(layout().assemble_uop("UOP dst=4 wgt=2 src=3"), make_uop(4, 3, 2));
}

// ----------------------------------------------------------- randomized round trips

Insn random_insn(const Layout& l, Format f, Opcode op, std::mt19937_64& rng) {
  Insn i;
  for (const FieldPos& p : l.fields(f)) i[p.member] = static_cast<uint32_t>(rng()) & field_mask(p.width);
  if (f != Format::UOP) i[Member::opcode] = static_cast<uint32_t>(op);
  return i;
}

TEST_P(PerPreset, RandomFieldValuesRoundTripThroughBinaryAndText) {
  std::mt19937_64 rng(0x5eed0000u + std::hash<std::string>{}(GetParam()) % 1000);
  const Opcode ops[] = {Opcode::LOAD, Opcode::STORE, Opcode::GEMM, Opcode::FINISH, Opcode::ALU};
  int checked = 0;
  for (Opcode op : ops) {
    const Format f = vta::isa::format_of(op);
    for (int n = 0; n < 2000; ++n) {
      const Insn i = random_insn(layout(), f, op, rng);
      const Raw128 r = layout().encode(i);
      const Insn d = layout().decode(r, n);
      ASSERT_EQ(d, i) << vta::isa::opcode_name(op) << " #" << n << ": " << layout().disasm(i);
      ASSERT_EQ(layout().encode(d), r);
      const std::string text = layout().disasm(d);
      Insn t;
      ASSERT_NO_THROW(t = layout().assemble(text)) << text;
      ASSERT_EQ(t, i) << text;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 10000);
}

TEST_P(PerPreset, RandomRawWordsRoundTripOnTheirUsedBits) {
  std::mt19937_64 rng(42);
  for (Format f : kInsnFormats) {
    // The bits this format uses, from the field table.
    Raw128 used;
    for (const FieldPos& p : layout().fields(f))
      used.w[p.word] |= static_cast<uint64_t>(field_mask(p.width)) << (p.lsb - 64 * p.word);
    const std::vector<Opcode> ops = f == Format::MEM    ? std::vector<Opcode>{Opcode::LOAD, Opcode::STORE}
                                    : f == Format::GEMM ? std::vector<Opcode>{Opcode::GEMM, Opcode::FINISH}
                                                        : std::vector<Opcode>{Opcode::ALU};
    for (int n = 0; n < 2000; ++n) {
      Raw128 raw;
      raw.w[0] = (rng() & used.w[0] & ~uint64_t{7}) | static_cast<uint64_t>(ops[static_cast<size_t>(n) % ops.size()]);
      raw.w[1] = rng() & used.w[1];
      ASSERT_EQ(layout().encode(layout().decode(raw)), raw) << format_name(f) << " " << hex(raw);
      // Bits outside every field are ignored by the decoder and never written by the encoder.
      Raw128 noisy = raw;
      noisy.w[0] |= ~used.w[0];
      noisy.w[1] |= ~used.w[1];
      noisy.w[0] = (noisy.w[0] & ~uint64_t{7}) | (raw.w[0] & 7);
      ASSERT_EQ(layout().encode(layout().decode(noisy)), raw) << format_name(f) << " " << hex(noisy);
    }
  }
}

TEST_P(PerPreset, EachFieldOccupiesExactlyItsOwnBits) {
  // One field set to all ones (beyond its width), everything else zero: the
  // encoder must write exactly that field's bits and nothing else.
  for (Format f : kInsnFormats) {
    const Opcode op = f == Format::MEM ? Opcode::LOAD : f == Format::GEMM ? Opcode::GEMM : Opcode::ALU;
    for (const FieldPos& p : layout().fields(f)) {
      if (p.member == Member::opcode) continue;
      Insn i;
      i[Member::opcode] = static_cast<uint32_t>(op);
      i[p.member] = 0xffffffffu;
      Raw128 expect;
      expect.w[0] = static_cast<uint64_t>(op);
      expect.w[p.word] |= static_cast<uint64_t>(field_mask(p.width)) << (p.lsb - 64 * p.word);
      Raw128 r = layout().encode(i);
      EXPECT_EQ(r, expect) << format_name(f) << " " << vta::isa::member_name(p.member) << ": " << hex(r);
      EXPECT_EQ(layout().decode(r)[p.member], field_mask(p.width)) << vta::isa::member_name(p.member);
    }
  }
  for (const FieldPos& p : layout().fields(Format::UOP)) {
    Insn u;
    u[p.member] = 0xffffffffu;
    EXPECT_EQ(layout().encode_uop(u), field_mask(p.width) << p.lsb) << vta::isa::member_name(p.member);
  }
}

TEST_P(PerPreset, UopsRoundTrip) {
  std::mt19937_64 rng(7);
  uint32_t all_used = 0;
  for (const FieldPos& p : layout().fields(Format::UOP)) all_used |= field_mask(p.width) << p.lsb;
  for (int n = 0; n < 5000; ++n) {
    const Insn u = random_insn(layout(), Format::UOP, Opcode::LOAD, rng);
    const uint32_t w = layout().encode_uop(u);
    ASSERT_EQ(layout().decode_uop(w), u) << layout().disasm_uop(u);
    ASSERT_EQ(layout().assemble_uop(layout().disasm_uop(u)), u) << layout().disasm_uop(u);
    const uint32_t raw = static_cast<uint32_t>(rng()) & all_used;
    ASSERT_EQ(layout().encode_uop(layout().decode_uop(raw)), raw);
  }
  const auto& d = cfg_.derived;
  const Insn top =
      make_uop(static_cast<uint32_t>(d.acc_depth - 1), static_cast<uint32_t>(std::max(d.acc_depth, d.inp_depth) - 1),
               static_cast<uint32_t>(d.wgt_depth - 1));
  EXPECT_EQ(layout().decode_uop(layout().encode_uop(top)), top) << "the last index of every buffer is encodable";
}

TEST_P(PerPreset, LastIndexOfEveryBufferIsEncodable) {
  const auto& d = cfg_.derived;
  const auto last = [](int64_t depth) { return static_cast<uint32_t>(depth - 1); };
  Insn g = make_gemm(false, last(d.uop_depth), static_cast<uint32_t>(d.uop_depth), 1, 1, last(d.acc_depth),
                     last(d.acc_depth), last(d.inp_depth), last(d.inp_depth), last(d.wgt_depth), last(d.wgt_depth));
  EXPECT_EQ(layout().decode(layout().encode(g)), g);
  Insn a = make_alu(AluOp::ADD, false, 0, last(d.uop_depth), static_cast<uint32_t>(d.uop_depth), 1, 1,
                    last(d.acc_depth), last(d.acc_depth), last(d.acc_depth), last(d.acc_depth));
  EXPECT_EQ(layout().decode(layout().encode(a)), a);
  for (int64_t depth : {d.uop_depth, d.inp_depth, d.wgt_depth, d.acc_depth}) {
    Insn l = make_load(MemId::INP, last(depth), 0, 1, 1, 1);
    EXPECT_EQ(layout().decode(layout().encode(l)), l) << depth;
  }
}

// -------------------------------------------------------------------- errors

TEST_P(PerPreset, DecodeOfUnknownOpcodeThrows) {
  for (uint64_t op = 5; op <= 7; ++op) {
    Raw128 r;
    r.w[0] = op | (0xabcull << 20);
    std::string msg = error_of([&] { (void)layout().decode(r); });
    EXPECT_NE(msg.find("opcode"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(op)), std::string::npos) << msg;
    std::string with_index = error_of([&] { (void)layout().decode(r, 17); });
    EXPECT_NE(with_index.find("opcode"), std::string::npos) << with_index;
    EXPECT_NE(with_index.find("17"), std::string::npos) << "names the instruction index: " << with_index;
  }
}

TEST_P(PerPreset, AssemblerErrorsNameTheProblem) {
  auto expect_error = [&](const std::string& line, std::initializer_list<const char*> parts) {
    std::string msg = error_of([&] { (void)layout().assemble(line, "prog.vasm:12"); });
    ASSERT_NE(msg, vta::test::kNoError) << line;
    EXPECT_EQ(msg.rfind("not a vta::Error", 0), std::string::npos) << msg;
    EXPECT_NE(msg.find("prog.vasm:12"), std::string::npos) << msg;
    for (const char* p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  };
  expect_error("LAOD INP sram_base=0", {"mnemonic", "LAOD"});
  expect_error("", {"empty"});
  expect_error("GEMM uop_bgn=0 bogus=3", {"bogus", "GEMM"});
  expect_error("LOAD INP imm=3", {"imm", "LOAD"});  // a field of another format
  expect_error("ALU ADD wgt_factor_in=1", {"wgt_factor_in"});
  expect_error("LOAD INP sram_base=65536", {"sram_base", "16 bits"});
  expect_error("LOAD INP y_pad_0=16", {"y_pad_0", "4 bits"});
  expect_error("LOAD INP dram_base=0x100000000", {"dram_base", "32 bits"});
  expect_error("LOAD INP sram_base=-1", {"sram_base"});
  expect_error("ALU ADD use_imm imm=32768", {"imm", "16 bits"});
  expect_error("ALU ADD use_imm imm=-32769", {"imm", "16 bits"});
  expect_error("GEMM iter_out=16384", {"iter_out", "14 bits"});
  const int bgn_bits = layout().find(Format::GEMM, Member::uop_bgn)->width;
  expect_error(fmt::format("GEMM uop_bgn={}", 1u << bgn_bits), {"uop_bgn", fmt::format("{} bits", bgn_bits).c_str()});
  expect_error("GEMM uop_end=x", {"uop_end", "not a number"});
  expect_error("GEMM uop_end", {"uop_end", "needs a value"});
  expect_error("LOAD", {"memory type"});
  expect_error("STORE sram_base=0 dram_base=0", {"memory type", "sram_base=0"});
  expect_error("LOAD BUF sram_base=0", {"memory type", "BUF"});
  expect_error("ALU", {"ALU op"});
  expect_error("ALU DIV use_imm", {"ALU op", "DIV"});
  std::string uop_msg = error_of([&] { (void)layout().assemble_uop("UOP dst=0 src=0 wgt=0 acc=1", "u.vasm:3"); });
  EXPECT_NE(uop_msg.find("acc"), std::string::npos) << uop_msg;
  EXPECT_NE(uop_msg.find("u.vasm:3"), std::string::npos) << uop_msg;
  std::string wide = error_of([&] {
    (void)layout().assemble_uop(fmt::format("UOP dst={}", 1u << layout().find(Format::UOP, Member::dst)->width), "u");
  });
  EXPECT_NE(wide.find("dst"), std::string::npos) << wide;
  EXPECT_NE(wide.find("does not fit"), std::string::npos) << wide;
  EXPECT_NE(error_of([&] { (void)layout().assemble_uop("GEMM", "u"); }), vta::test::kNoError);
}

INSTANTIATE_TEST_SUITE_P(Presets, PerPreset, ::testing::ValuesIn(vta::test::preset_names()), param_name);

}  // namespace
