// The bring-up battery (see bringup.h).
#include "vta/kernels/bringup.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>

#include "vta/compiler/compile.h"
#include "vta/compiler/runtime.h"
#include "vta/compiler/zoo.h"
#include "vta/isa/error.h"
#include "vta/kernels/opencl.h"
#include "vta/kernels/programs.h"
#include "vta/model/program.h"

namespace vta::bringup {

using isa::Insn;
using isa::Member;
using isa::MemId;
using Status = CaseResult::Status;

namespace {

constexpr MemId kSrams[] = {MemId::UOP, MemId::INP, MemId::WGT, MemId::ACC, MemId::OUT};

/// Everything a program leaves behind on one backend.
struct State {
  std::vector<std::vector<uint8_t>> dram;  // per image buffer
  std::vector<std::vector<uint8_t>> sram;  // per kSrams entry
  std::string error;                       // the run's vta::Error, if any
};

uint32_t depth_of(const Config& c, MemId m) {
  switch (m) {
    case MemId::UOP:
      return static_cast<uint32_t>(c.derived.uop_depth);
    case MemId::INP:
      return static_cast<uint32_t>(c.derived.inp_depth);
    case MemId::WGT:
      return static_cast<uint32_t>(c.derived.wgt_depth);
    case MemId::OUT:
      return static_cast<uint32_t>(c.derived.out_depth);
    default:
      return static_cast<uint32_t>(c.derived.acc_depth);
  }
}

uint64_t sram_elem(const Config& c, MemId m) {
  return m == MemId::ACC   ? static_cast<uint64_t>(c.gemm.batch * c.gemm.block_out) * 4
         : m == MemId::UOP ? 4
                           : static_cast<uint64_t>(c.elem_bytes(static_cast<int>(m)));
}

State run_on(const std::string& backend, const Config& c, ProgramImage image) {
  State s;
  auto b = make_backend(backend, c);
  const Launch l = install(image, *b);
  try {
    b->run(l);
  } catch (const opencl::DeviceError&) {
    throw;  // the device itself failed: no comparison means anything now
  } catch (const Error& e) {
    s.error = e.what();
  }
  for (const auto& buf : image.buffers) s.dram.push_back(b->dram().read(buf.addr, buf.init.size()));
  for (MemId m : kSrams) s.sram.push_back(b->read_sram(m, 0, depth_of(c, m)));
  return s;
}

/// The first difference between the golden state `g` and the device state
/// `d`, or "" when they are equal.
std::string first_difference(const Config& c, const ProgramImage& image, const State& g, const State& d) {
  if (g.error != d.error)
    return fmt::format("golden {} but opencl {}", g.error.empty() ? "runs" : "fails: " + g.error,
                       d.error.empty() ? "runs" : "fails: " + d.error);
  for (size_t i = 0; i < g.dram.size(); ++i) {
    const auto& a = g.dram[i];
    const auto& b = d.dram[i];
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] == b[k]) continue;
      const auto e = static_cast<size_t>(c.elem_bytes(static_cast<int>(image.buffers[i].mem)));
      size_t diffs = 0;
      for (size_t j = k; j < a.size(); ++j) diffs += a[j] != b[j];
      return fmt::format("DRAM buffer '{}' byte {} (element {}, byte {}): expected {}, actual {} ({} bytes differ)",
                         image.buffers[i].name, k, k / e, k % e, static_cast<int8_t>(a[k]), static_cast<int8_t>(b[k]),
                         diffs);
    }
  }
  for (size_t s = 0; s < g.sram.size(); ++s) {
    const auto& a = g.sram[s];
    const auto& b = d.sram[s];
    const MemId m = kSrams[s];
    const uint64_t e = sram_elem(c, m);
    for (size_t k = 0; k < a.size(); ++k) {
      if (a[k] == b[k]) continue;
      size_t diffs = 0;
      for (size_t j = k; j < a.size(); ++j) diffs += a[j] != b[j];
      if (m == MemId::ACC || m == MemId::UOP) {  // 32-bit words
        const size_t w = k / 4 * 4;
        int32_t x = 0, y = 0;
        std::memcpy(&x, a.data() + w, 4);
        std::memcpy(&y, b.data() + w, 4);
        return fmt::format("{} buffer element {} {} {}: expected {}, actual {} ({} bytes differ)", isa::mem_name(m),
                           k / e, m == MemId::ACC ? "lane" : "word", (k % e) / 4, x, y, diffs);
      }
      return fmt::format("{} buffer element {} byte {}: expected {}, actual {} ({} bytes differ)", isa::mem_name(m),
                         k / e, k % e, static_cast<int8_t>(a[k]), static_cast<int8_t>(b[k]), diffs);
    }
  }
  return "";
}

/// Localises a mismatch: prefixes of the golden execution order (tokens
/// cleared, so that they run in that order) are run on both backends, and a
/// binary search finds an instruction after which the states first differ.
std::string localise(const Config& c, const ProgramImage& image) {
  const isa::Layout layout(c);
  model::Program prog;
  model::Schedule sched;
  try {
    auto g = make_backend("golden", c);
    ProgramImage copy = image;
    const Launch l = install(copy, *g);
    prog = model::fetch_program(c, layout, g->dram(), l);
    sched = model::schedule(c, prog);
  } catch (const Error&) {
    return "";
  }
  auto prefix = [&](size_t k) {
    ProgramImage p = image;
    p.insns.clear();
    p.regions.clear();
    p.expect.clear();
    for (size_t i = 0; i < k; ++i) {
      Insn insn = prog.insns[sched.order[i]];
      if (insn.opcode() == isa::Opcode::FINISH) continue;
      insn[Member::pop_prev] = insn[Member::pop_next] = insn[Member::push_prev] = insn[Member::push_next] = 0;
      p.insns.push_back(layout.encode(insn));
    }
    p.insns.push_back(layout.encode(programs::finish()));
    return p;
  };
  auto differs = [&](size_t k, std::string* what) {
    const ProgramImage p = prefix(k);
    const std::string d = first_difference(c, p, run_on("golden", c, p), run_on("opencl", c, p));
    if (what) *what = d;
    return !d.empty();
  };
  size_t lo = 0, hi = sched.order.size();
  std::string what;
  if (!differs(hi, &what)) return " (the prefixes of its execution order all match: the difference needs the tokens)";
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    std::string w;
    if (differs(mid, &w))
      hi = mid, what = w;
    else
      lo = mid;
  }
  const uint32_t i = sched.order[hi - 1];
  return fmt::format("; first differing instruction: {} (position {} of the execution order), after which {}",
                     model::insn_label(layout, prog.insns[i], i), hi - 1, what);
}

std::string conformance_folder(const std::string& given) {
  namespace fs = std::filesystem;
  if (!given.empty()) return given;
  if (const char* e = std::getenv("VTA_CONFORMANCE_DIR"); e && *e) return e;
  for (std::string p : {
#ifdef VTA_SOURCE_DIR
           std::string(VTA_SOURCE_DIR) + "/tests/data/conformance/vectors",
#endif
           std::string("tests/data/conformance/vectors"), std::string("../shared/conformance/vectors")})
    if (fs::is_directory(p)) return p;
  return "";
}

bool default_shape(const Config& c) {
  const Config d = default_config();
  return c.gemm.batch == d.gemm.batch && c.gemm.block_in == d.gemm.block_in && c.gemm.block_out == d.gemm.block_out &&
         c.derived.uop_depth == d.derived.uop_depth && c.derived.inp_depth == d.derived.inp_depth &&
         c.derived.wgt_depth == d.derived.wgt_depth && c.derived.acc_depth == d.derived.acc_depth;
}

std::string xml_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    switch (ch) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&apos;";
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t')
          o += ' ';
        else
          o += ch;
    }
  }
  return o;
}

}  // namespace

size_t Report::count(Status s) const {
  return static_cast<size_t>(
      std::count_if(cases.begin(), cases.end(), [s](const CaseResult& r) { return r.status == s; }));
}

std::string compare_with_golden(const Config& c, const ProgramImage& image) {
  const std::string d = first_difference(c, image, run_on("golden", c, image), run_on("opencl", c, image));
  if (d.empty()) return "";
  return d + localise(c, image);
}

Report run(const Options& o, std::ostream* progress) {
  const auto t0 = std::chrono::steady_clock::now();
  Report r;
  const Config& c = o.config;
  {
    // The device must work at all: this builds (or loads) the kernel once.
    opencl::OpenclBackend probe(c, {});
    r.device = probe.device().name;
    r.platform = probe.device().platform;
    r.variant = probe.variant();
  }
  r.config = c.name;
  if (progress)
    *progress << fmt::format("vta bringup: device '{}' ({}), {} variant, config {} (hash {})\n", r.device, r.platform,
                             r.variant, c.name, c.hash());

  auto one = [&](const std::string& suite, const std::string& name, auto&& body) {
    CaseResult cr;
    cr.suite = suite;
    cr.name = name;
    const auto s0 = std::chrono::steady_clock::now();
    try {
      body(cr);
    } catch (const opencl::DeviceError&) {
      throw;  // ends the battery (exit code 2 from the CLI)
    } catch (const Error& e) {
      cr.status = Status::FAIL;
      cr.message = e.what();
    }
    cr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - s0).count();
    if (progress && cr.status == Status::FAIL) *progress << fmt::format("  FAIL {}/{}: {}\n", suite, name, cr.message);
    r.cases.push_back(std::move(cr));
  };
  auto suite_line = [&](const std::string& suite) {
    if (!progress) return;
    size_t n[3] = {};
    for (const auto& cr : r.cases)
      if (cr.suite == suite) ++n[static_cast<int>(cr.status)];
    *progress << fmt::format("  {:<12} {} passed, {} failed{}\n", suite, n[0], n[1],
                             n[2] ? fmt::format(", {} skipped", n[2]) : "");
  };
  auto compare = [&](const ProgramImage& img) {
    return [&c, &img](CaseResult& cr) {
      cr.message = compare_with_golden(c, img);
      cr.status = cr.message.empty() ? Status::PASS : Status::FAIL;
    };
  };

  if (o.corners) {
    for (const auto& p : programs::corner_programs(c, o.seed)) one("corners", p.name, compare(p.image));
    suite_line("corners");
  }
  if (o.conformance) {
    const std::string dir = conformance_folder(o.vectors);
    if (dir.empty()) {
      one("conformance", "vectors", [](CaseResult& cr) {
        cr.status = Status::SKIP;
        cr.message = "no conformance folder (give --vectors or set VTA_CONFORMANCE_DIR)";
      });
    } else if (!std::filesystem::is_directory(dir)) {
      fail("conformance vectors: '{}' is not a folder", dir);
    } else {
      std::vector<std::string> names;
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.is_directory()) names.push_back(e.path().filename().string());
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        one("conformance", n, [&](CaseResult& cr) {
          if (!default_shape(c)) {
            cr.status = Status::SKIP;
            cr.message = "the vectors are made for the default 1x16x16 shape and buffers";
            return;
          }
          ProgramImage img = read_conformance_dir(dir + "/" + n);
          // Bit-exact with the expected results in the folder...
          auto dev = make_backend("opencl", c);
          ProgramImage mine = img;
          dev->run(install(mine, *dev));
          std::string msg;
          for (const auto& m : check_expectations(mine, *dev))
            msg += fmt::format("{}{}: {} bytes differ, first at byte {}: expected {}, actual {}",
                               msg.empty() ? "" : "; ", m.what, m.total_diffs, m.offset, m.expected, m.actual);
          // ... and with the golden model everywhere.
          const std::string g = compare_with_golden(c, img);
          if (!g.empty()) msg += (msg.empty() ? "" : "; ") + g;
          cr.status = msg.empty() ? Status::PASS : Status::FAIL;
          cr.message = msg;
        });
      }
    }
    suite_line("conformance");
  }
  for (uint32_t k = 0; k < o.random; ++k) {
    const uint32_t seed = o.seed + k;
    one("random", fmt::format("seed_{}", seed), [&](CaseResult& cr) {
      const ProgramImage img = programs::random_program(c, seed);
      cr.message = compare_with_golden(c, img);
      cr.status = cr.message.empty() ? Status::PASS : Status::FAIL;
    });
  }
  if (o.random) suite_line("random");
  for (const auto& name : o.networks) {
    one("networks", name, [&](CaseResult& cr) {
      namespace cc = vta::compiler;
      const cc::Graph g = cc::build_zoo(name);
      const cc::Tensor input = cc::zoo_input(g, o.seed + 1000);
      const cc::CompiledNetwork net = cc::compile(g, c);
      auto gold = make_backend("golden", c);
      auto dev = make_backend("opencl", c);
      const cc::NetworkResult a = cc::run_network(net, *gold, input);
      const cc::NetworkResult b = cc::run_network(net, *dev, input);
      cr.status = Status::FAIL;
      const auto& ga = gold->dram().allocations();
      const auto& da = dev->dram().allocations();
      for (auto gi = ga.begin(), di = da.begin(); gi != ga.end() && di != da.end(); ++gi, ++di) {
        const auto& x = gi->second.data;
        const auto& y = di->second.data;
        const auto m = std::mismatch(x.begin(), x.end(), y.begin(), y.end());
        if (m.first != x.end() || m.second != y.end()) {
          const auto k = static_cast<size_t>(m.first - x.begin());
          cr.message = fmt::format(
              "DRAM allocation at 0x{:x} byte {}: expected {}, actual {} (the VTA segments of "
              "{}; run them with `vta run --model {} --backend opencl` for per-layer figures)",
              gi->first, k, k < x.size() ? static_cast<int8_t>(x[k]) : 0, k < y.size() ? static_cast<int8_t>(y[k]) : 0,
              name, name);
          return;
        }
      }
      if (a.output.data != b.output.data) {
        cr.message = "the network output differs from the golden model's";
        return;
      }
      cr.status = Status::PASS;
    });
  }
  if (!o.networks.empty()) suite_line("networks");
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string summary(const Report& r) {
  std::string s =
      fmt::format("bring-up of '{}' ({}), {} variant, config {}: ", r.device, r.platform, r.variant, r.config);
  s += fmt::format("{} ({} passed, {} failed, {} skipped of {} in {:.1f} s)\n", r.passed() ? "PASS" : "FAIL",
                   r.count(Status::PASS), r.count(Status::FAIL), r.count(Status::SKIP), r.cases.size(), r.seconds);
  std::string failed;
  for (const auto& cr : r.cases)
    if (cr.status == Status::FAIL) failed += fmt::format(" {}/{}", cr.suite, cr.name);
  if (!failed.empty()) s += "  failed:" + failed + "\n";
  return s;
}

std::string junit_xml(const Report& r) {
  std::vector<std::string> suites;
  for (const auto& cr : r.cases)
    if (std::find(suites.begin(), suites.end(), cr.suite) == suites.end()) suites.push_back(cr.suite);
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites name=\"vta bringup\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                   r.cases.size(), r.count(Status::FAIL), r.count(Status::SKIP), r.seconds);
  for (const auto& suite : suites) {
    size_t n = 0, f = 0, sk = 0;
    double t = 0;
    for (const auto& cr : r.cases)
      if (cr.suite == suite) ++n, f += cr.status == Status::FAIL, sk += cr.status == Status::SKIP, t += cr.seconds;
    x += fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
        xml_escape(suite), n, f, sk, t);
    x += "    <properties>\n";
    for (const auto& [k, v] : {std::pair<const char*, std::string>{"device", r.device},
                               {"platform", r.platform},
                               {"variant", r.variant},
                               {"config", r.config}})
      x += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", k, xml_escape(v));
    x += "    </properties>\n";
    for (const auto& cr : r.cases) {
      if (cr.suite != suite) continue;
      x += fmt::format("    <testcase classname=\"bringup.{}\" name=\"{}\" time=\"{:.3f}\"", xml_escape(suite),
                       xml_escape(cr.name), cr.seconds);
      if (cr.status == Status::PASS) {
        x += "/>\n";
      } else if (cr.status == Status::SKIP) {
        x += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", xml_escape(cr.message));
      } else {
        x += fmt::format(">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                         xml_escape(cr.message.substr(0, 200)), xml_escape(cr.message));
      }
    }
    x += "  </testsuite>\n";
  }
  x += "</testsuites>\n";
  return x;
}

}  // namespace vta::bringup
