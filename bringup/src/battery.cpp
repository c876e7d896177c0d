// The bring-up battery (see battery.h).
#include "vta/bringup/battery.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "vta/bringup/diagnose.h"
#include "vta/bringup/programs.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/placement.h"
#include "vta/isa/error.h"
#include "vta/isa/path_probe.h"
#include "vta/model/random_program.h"

namespace vta::bringup {

using Status = CaseResult::Status;

namespace {

std::string conformance_folder(const std::string& given) {
  namespace fs = std::filesystem;
  if (!given.empty()) return given;
  if (const char* e = std::getenv("VTA_CONFORMANCE_DIR"); e && *e) return e;
  for (std::string p : {
#ifdef VTA_SOURCE_DIR
           std::string(VTA_SOURCE_DIR) + "/tests/data/conformance/vectors",
#endif
           std::string("tests/data/conformance/vectors"), std::string("../shared/conformance/vectors")})
    if (path_is_dir(p)) return p;
  return "";
}

bool default_shape(const Config& c) {
  const Config d = default_config();
  return c.gemm.batch == d.gemm.batch && c.gemm.block_in == d.gemm.block_in && c.gemm.block_out == d.gemm.block_out &&
         c.derived.uop_depth == d.derived.uop_depth && c.derived.inp_depth == d.derived.inp_depth &&
         c.derived.wgt_depth == d.derived.wgt_depth && c.derived.acc_depth == d.derived.acc_depth &&
         nondefault_widths(c).empty();
}

}  // namespace

size_t Report::count(Status s) const {
  return static_cast<size_t>(
      std::count_if(cases.begin(), cases.end(), [s](const CaseResult& r) { return r.status == s; }));
}

Report run(const Options& o, std::ostream* progress) {
  const auto t0 = std::chrono::steady_clock::now();
  Report r;
  const Config& c = o.config;
  // The backend must work at all for this design: an OpenCL backend builds
  // (or loads) its kernel here once, an RTL backend checks the design fits.
  r.backend = o.backend;
  r.device = make_backend(o.backend, c)->describe();
  r.config = c.name;
  r.config_hash = c.hash();
  if (progress)
    *progress << fmt::format("vta bringup: backend {} ({}), design {} (config hash {})\n", r.backend, r.device,
                             r.config, r.config_hash);

  auto one = [&](const std::string& suite, const std::string& name, auto&& body) {
    CaseResult cr;
    cr.suite = suite;
    cr.name = name;
    const auto s0 = std::chrono::steady_clock::now();
    try {
      body(cr);
    } catch (const DeviceError&) {
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
  // Every program is compared through this one function.
  auto check = [&](CaseResult& cr, const ProgramImage& img) {
    // Race check first: a racy program gives a
    // timing-dependent answer, so a difference would blame the device for
    // the program's fault. It is reported as such and not run.
    if (const std::string race = race_in(c, img); !race.empty()) {
      cr.status = Status::FAIL;
      cr.message = "racy program (the program's fault, not the device's; not compared): " + race;
      ++r.racy;
      return;
    }
    const std::string wave = o.wave_dir.empty() ? "" : fmt::format("{}/{}-{}.vcd", o.wave_dir, cr.suite, cr.name);
    cr.message = compare_with_golden(o.backend, c, img, wave);
    cr.status = cr.message.empty() ? Status::PASS : Status::FAIL;
  };
  auto compare = [&](const ProgramImage& img) { return [&check, &img](CaseResult& cr) { check(cr, img); }; };

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
    } else if (!path_is_dir(dir)) {
      fail("conformance vectors: '{}' is not a folder", dir);
    } else {
      std::vector<std::string> names;
      for (const auto& e : list_dir(dir))
        if (path_is_dir(e.path())) names.push_back(e.path().filename().string());
      std::sort(names.begin(), names.end());
      for (const auto& n : names) {
        one("conformance", n, [&](CaseResult& cr) {
          if (!default_shape(c)) {
            cr.status = Status::SKIP;
            cr.message = "the vectors are made for the default 1x16x16 shape, buffers and 8/8/32/8 widths";
            return;
          }
          ProgramImage img = read_conformance_dir(dir + "/" + n);
          // Bit-exact with the expected results in the folder...
          auto dev = make_backend(o.backend, c);
          ProgramImage mine = img;
          dev->run(install(mine, *dev));
          std::string msg;
          for (const auto& m : check_expectations(mine, *dev))
            msg += fmt::format("{}{}: {} bytes differ, first at byte {}: expected {}, actual {}",
                               msg.empty() ? "" : "; ", m.what, m.total_diffs, m.offset, m.expected, m.actual);
          // ... and with the golden model everywhere.
          check(cr, img);
          if (!cr.message.empty()) msg += (msg.empty() ? "" : "; ") + cr.message;
          cr.status = msg.empty() ? Status::PASS : Status::FAIL;
          cr.message = msg;
        });
      }
    }
    suite_line("conformance");
  }
  for (uint32_t k = 0; k < o.random; ++k) {
    const uint32_t seed = o.seed + k;
    one("random", fmt::format("seed_{}", seed), [&](CaseResult& cr) { check(cr, random_program(c, seed)); });
  }
  if (o.random) suite_line("random");
  for (const auto& name : o.networks) {
    one("networks", name, [&](CaseResult& cr) {
      namespace cc = vta::compiler;
      // A network the compiler cannot lower to this design (docs/status.md:
      // 16-bit accumulators, buffers too small for a layer) is a limit of
      // the compiler, not of the backend: the case is skipped, saying why.
      cc::ZooOptions zo;  // the zoo quantizes to the design's widths
      zo.act_bits = static_cast<int>(c.dtype.inp_bits);
      zo.wgt_bits = static_cast<int>(c.dtype.wgt_bits);
      cc::Graph g;
      cc::CompiledNetwork net;
      try {
        cc::check_compilable(c);
        g = cc::build_zoo(name, zo);
        net = cc::compile(g, c);
      } catch (const Error& e) {
        cr.status = Status::SKIP;
        cr.message = fmt::format("the compiler does not lower {} to this design: {}", name, e.what());
        return;
      }
      const cc::Tensor input = cc::zoo_input(g, o.seed + 1000);
      auto gold = make_backend("golden", c);
      auto dev = make_backend(o.backend, c);
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
              "{}; run them with `vta run --model {} --backend {}` for per-layer figures)",
              gi->first, k, k < x.size() ? static_cast<int8_t>(x[k]) : 0, k < y.size() ? static_cast<int8_t>(y[k]) : 0,
              name, name, o.backend);
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
  r.race_checked = true;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

std::string Report::race_text() const {
  if (!race_checked) return "not run";
  return racy ? fmt::format("{} racy program{}", racy, racy == 1 ? "" : "s") : "passed";
}

std::string summary(const Report& r) {
  std::string s = fmt::format("bring-up of backend {} ({}), design {} (config hash {}), race check: {}: ", r.backend,
                              r.device, r.config, r.config_hash, r.race_text());
  s += fmt::format("{} ({} passed, {} failed, {} skipped of {} in {:.1f} s)\n", r.passed() ? "PASS" : "FAIL",
                   r.count(Status::PASS), r.count(Status::FAIL), r.count(Status::SKIP), r.cases.size(), r.seconds);
  std::string failed;
  for (const auto& cr : r.cases)
    if (cr.status == Status::FAIL) failed += fmt::format(" {}/{}", cr.suite, cr.name);
  if (!failed.empty()) s += "  failed:" + failed + "\n";
  return s;
}

}  // namespace vta::bringup
