// `vta`: the vta-lab command-line program.
// Exit codes: 0 success, 1 result mismatch, 2 bad input or program error.
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "bringup_command.h"
#include "compare.h"
#include "estimate_command.h"
#include "opencl_commands.h"
#include "rtl_command.h"
#include "run_and_exit.h"
#include "run_network.h"
#include "sweep_command.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/onnx.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/passes/pin_host_ops.h"
#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/io_guard.h"
#include "vta/isa/path_probe.h"
#include "vta/isa/read_file.h"
#include "vta/isa/write_file.h"
#include "vta/model/backend.h"
#include "vta/model/image.h"

#ifndef VTA_VERSION
#define VTA_VERSION "0.0.0"
#endif

namespace {

constexpr int kOk = 0, kMismatch = 1, kBadInput = 2;

// A repeatable option (--set, --dump, --input, ...) takes one value each
// time it is given: CLI11's default for a list would also take the words
// after it, so `run --set memory.bus_bits=128 FOLDER` lost its program.
void one_value_per_occurrence(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->nonpositional() && o->get_items_expected_max() > 1) o->allow_extra_args(false);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) one_value_per_occurrence(*sub);
}

std::string slurp(const std::string& path) { return vta::read_file(path); }

void write_or_print(const std::string& text, const std::string& out) {
  if (out.empty() || out == "-") {
    std::cout << text;
    return;
  }
  vta::write_file(out, text);
}

// Options shared by every command that needs a design.
struct ConfigOpts {
  std::string config = "vta-1x16x16";
  std::vector<std::string> sets;
  void add(CLI::App* app) {
    app->add_option("-c,--config", config, "preset name or YAML file")->capture_default_str();
    app->add_option("--set", sets, "override a knob: --set gemm.block_out=32 (repeatable)");
  }
  vta::Config load() const {
    std::vector<vta::Override> ov;
    for (const auto& s : sets) ov.push_back(vta::parse_override(s));
    return vta::load_config(vta::resolve_config_path(config), ov);
  }
};

struct Dump {
  vta::isa::MemId mem;
  uint32_t index, count;
};

Dump parse_dump(const std::string& s) {
  // MEM:INDEX:COUNT, INDEX and COUNT decimal and whole (no trailing junk)
  auto a = s.find(':'), b = s.rfind(':');
  if (a == std::string::npos || a == b) vta::fail("--dump {}: expected MEM:INDEX:COUNT (e.g. OUT:0:4)", s);
  auto mem = vta::isa::mem_from_name(s.substr(0, a));
  if (!mem) vta::fail("--dump {}: '{}' is not a memory type", s, s.substr(0, a));
  auto number = [&](std::string_view t) {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || p != t.data() + t.size())
      vta::fail("--dump {}: INDEX and COUNT must be decimal integers below 2^32, not '{}'", s, t);
    return v;
  };
  const std::string_view sv(s);
  return Dump{*mem, number(sv.substr(a + 1, b - a - 1)), number(sv.substr(b + 1))};
}

std::string hex_rows(const std::vector<uint8_t>& bytes, size_t row) {
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += row) {
    out += "   ";
    for (size_t j = i; j < std::min(bytes.size(), i + row); ++j)
      out += fmt::format(" {:4d}", static_cast<int8_t>(bytes[j]));
    out += "\n";
  }
  return out;
}

struct RunOpts {
  std::vector<std::string> programs;
  std::string backend = "golden";
  std::string compare;
  std::string stats = "text";
  std::string stats_out;
  std::vector<std::string> dumps;
  std::vector<std::string> dump_buffers;
  vta::BackendOptions backend_options;
};

// Runs one program; returns its exit code and appends its JSON record.
int run_one(const std::string& path, const vta::Config& cfg, const RunOpts& o, nlohmann::ordered_json& records) {
  for (const auto& d : o.dumps) parse_dump(d);  // a bad --dump is named before anything runs
  vta::ProgramImage image = vta::read_program(path, cfg);
  vta::BackendOptions bo = o.backend_options;
  if (!bo.trace_path.empty() && o.programs.size() > 1) {
    // One trace per program: FILE.json -> FILE.<n>.json
    auto dot = bo.trace_path.rfind('.');
    std::string stem = dot == std::string::npos ? bo.trace_path : bo.trace_path.substr(0, dot);
    std::string ext = dot == std::string::npos ? ".json" : bo.trace_path.substr(dot);
    bo.trace_path = fmt::format("{}.{}{}", stem, records.size(), ext);
  }
  if (!bo.wave_path.empty() && o.programs.size() > 1) {
    // One waveform per program: FILE.vcd -> FILE.<n>.vcd
    auto dot = bo.wave_path.rfind('.');
    std::string stem = dot == std::string::npos ? bo.wave_path : bo.wave_path.substr(0, dot);
    std::string ext = dot == std::string::npos ? ".vcd" : bo.wave_path.substr(dot);
    bo.wave_path = fmt::format("{}.{}{}", stem, records.size(), ext);
  }
  auto backend = vta::make_backend(o.backend, cfg, bo);
  vta::Launch launch = vta::install(image, *backend);
  auto t0 = std::chrono::steady_clock::now();
  backend->run(launch);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<vta::Mismatch> mismatches;
  if (!o.backend_options.timing_only) mismatches = vta::check_expectations(image, *backend);
  int code = mismatches.empty() ? kOk : kMismatch;

  // Comparison with a second backend: every DRAM buffer must match.
  std::string compare_result;
  if (!o.compare.empty()) {
    vta::ProgramImage ref_image = vta::read_program(path, cfg);
    auto ref = vta::make_backend(o.compare, cfg);
    ref->run(vta::install(ref_image, *ref));
    size_t diffs = 0;
    std::string first;
    for (size_t i = 0; i < image.buffers.size(); ++i) {
      // In place, not copied: a buffer may be gigabytes of untouched zero pages.
      const uint64_t n = image.buffers[i].bytes();
      const uint8_t* a = std::as_const(*backend).dram().find(image.buffers[i].addr, n);
      const uint8_t* b = std::as_const(*ref).dram().find(ref_image.buffers[i].addr, n);
      if (a == nullptr || b == nullptr) vta::fail("--compare: buffer {} is not in DRAM", image.buffers[i].name);
      constexpr uint64_t kChunk = 1 << 16;
      for (uint64_t k = 0; k < n; ++k)
        if (k % kChunk == 0 && std::memcmp(a + k, b + k, std::min(kChunk, n - k)) == 0)
          k += std::min(kChunk, n - k) - 1;  // an equal chunk
        else if (a[k] != b[k] && diffs++ == 0)
          first = fmt::format("buffer {} byte {}: {} gives {}, {} gives {}", image.buffers[i].name, k, o.backend,
                              static_cast<int8_t>(a[k]), o.compare, static_cast<int8_t>(b[k]));
    }
    compare_result = diffs == 0 ? fmt::format("identical to {}", o.compare)
                                : fmt::format("{} bytes differ from {}; first: {}", diffs, o.compare, first);
    if (diffs) code = kMismatch;
  }

  const vta::RunStats st = backend->stats();
  nlohmann::ordered_json rec;
  rec["program"] = path;
  rec["backend"] = o.backend;
  rec["instructions"] = image.insns.size();
  rec["wall_seconds"] = secs;
  rec["check"] = o.backend_options.timing_only ? "skipped (timing-only)"
                 : image.expect.empty()        ? "none"
                 : mismatches.empty()          ? "pass"
                                               : "FAIL";
  if (!compare_result.empty()) rec["compare"] = compare_result;
  rec["stats"] = st.to_json();
  records.push_back(rec);

  if (o.stats == "text") {
    std::cout << fmt::format("{}: {} instructions on {} ({}, config {} hash {}) in {:.3f} ms\n", path,
                             image.insns.size(), o.backend, cfg.name, cfg.source, cfg.hash(), secs * 1e3);
    std::cout << st.to_text();
    for (const auto& [name, s] : st.regions) {
      std::cout << fmt::format("  region {}: {} instructions, {} MACs", name, s.get("insn.total"), s.get("gemm.macs"));
      if (s.has("cycles.total"))
        std::cout << fmt::format(", {} cycles (GEMM active {}, ALU active {})", s.get("cycles.total"),
                                 s.get("gemm.active_cycles"), s.get("alu.active_cycles"));
      std::cout << "\n";
    }
    if (o.backend_options.timing_only)
      std::cout << "  check: skipped (timing-only mode computes no tensors)\n";
    else if (image.expect.empty())
      std::cout << "  check: no expected results in this program\n";
    else if (mismatches.empty())
      std::cout << fmt::format("  check: PASS ({} expected result{} bit-exact)\n", image.expect.size(),
                               image.expect.size() == 1 ? "" : "s");
    for (const auto& m : mismatches)
      std::cout << fmt::format("  check: FAIL {}: {} bytes differ; first at byte {}: expected {}, got {}\n", m.what,
                               m.total_diffs, m.offset, m.expected, m.actual);
    if (!compare_result.empty()) std::cout << "  compare: " << compare_result << "\n";
  } else if (code != kOk) {
    // No text report (--stats json or none): a failure still says what
    // failed, on stderr so that JSON on stdout stays JSON.
    for (const auto& m : mismatches)
      std::cerr << fmt::format("{}: check FAIL {}: {} bytes differ\n", path, m.what, m.total_diffs);
    if (code == kMismatch && mismatches.empty()) std::cerr << fmt::format("{}: compare: {}\n", path, compare_result);
  }
  for (const auto& d : o.dumps) {
    Dump dump = parse_dump(d);
    std::vector<uint8_t> bytes;
    try {
      bytes = backend->read_sram(dump.mem, dump.index, dump.count);
    } catch (const vta::Error& e) {
      vta::fail("--dump {}: {}", d, e.what());
    }
    std::cout << fmt::format("  {}[{}..{}):\n", vta::isa::mem_name(dump.mem), dump.index, dump.index + dump.count)
              << hex_rows(bytes, static_cast<size_t>(cfg.elem_bytes(static_cast<int>(dump.mem))));
  }
  for (const auto& name : o.dump_buffers) {
    const vta::ImageBuffer* b = image.buffer(name);
    if (!b) vta::fail("--dump-buffer {}: no such buffer in {}", name, path);
    std::cout << fmt::format("  buffer {} at 0x{:x}:\n", name, b->addr)
              << hex_rows(backend->dram().read(b->addr, b->init.size()),
                          static_cast<size_t>(cfg.elem_bytes(static_cast<int>(b->mem))));
  }
  return code;
}

}  // namespace

static int run_cli(int argc, char** argv) {
  CLI::App app{"vta-lab: a cycle-accurate simulator and co-design lab for the VTA tensor accelerator"};
  app.set_version_flag("--version", VTA_VERSION);
  app.require_subcommand(1);

  // vta config ...
  auto* config = app.add_subcommand("config", "show, validate and import design configs");
  config->require_subcommand(1);
  ConfigOpts show_opts;
  auto* show = config->add_subcommand("show", "print the resolved config with every derived width and depth");
  show_opts.add(show);
  std::vector<std::string> validate_files;
  auto* validate = config->add_subcommand("validate", "check config files strictly");
  validate->add_option("files", validate_files, "YAML files or preset names")->required();
  std::string import_file, import_out;
  auto* import = config->add_subcommand("import", "convert an upstream vta_config.json to YAML");
  import->add_option("file", import_file, "upstream vta_config.json")->required();
  import->add_option("-o,--output", import_out, "output YAML file (default: stdout)");
  std::string schema_out;
  auto* schema = config->add_subcommand("schema", "print the config reference (docs/config.md)");
  schema->add_option("-o,--output", schema_out, "output file");

  // vta gen sv|cl
  auto* gen = app.add_subcommand("gen", "generate the SystemVerilog package or OpenCL defines for a config");
  std::string gen_what, gen_out;
  ConfigOpts gen_opts;
  gen->add_option("what", gen_what, "sv or cl")->required()->check(CLI::IsMember({"sv", "cl"}));
  gen->add_option("-o,--output", gen_out, "output file (default: stdout)");
  gen_opts.add(gen);

  // vta asm / disasm
  auto* as = app.add_subcommand("asm", "assemble a .vasm program to raw 128-bit instructions");
  std::string asm_in, asm_out, asm_uops;
  ConfigOpts asm_opts;
  as->add_option("file", asm_in, ".vasm program")->required();
  as->add_option("-o,--output", asm_out, "instruction binary")->required();
  as->add_option("--uops", asm_uops, "also write the uop binary here");
  asm_opts.add(as);
  auto* dis =
      app.add_subcommand("disasm", "disassemble a raw instruction file, a .vasm program or a conformance folder");
  std::string dis_in;
  ConfigOpts dis_opts;
  dis->add_option("input", dis_in, "instructions.bin, program.vasm or a conformance-vector folder")->required();
  dis_opts.add(dis);

  // vta run
  auto* run = app.add_subcommand("run", "run programs (.vasm or conformance folders) on a backend and check results");
  RunOpts run_opts;
  ConfigOpts run_cfg;
  run->add_option("programs", run_opts.programs, "program files (.vasm) or conformance folders");
  vta::app::NetworkRunOptions net_opts;
  run->add_option("--model", net_opts.model, "compile and run a zoo network (see `vta zoo list`)");
  run->add_option(
      "--onnx", net_opts.onnx,
      "compile and run a quantized ONNX model (QDQ form, docs in compiler/include/vta/compiler/frontend/onnx.h)");
  run->add_option(
      "--input", net_opts.inputs,
      "--onnx: NAME=FILE (.npy or .pb TensorProto), repeatable: the input, or operands given as graph inputs");
  run->add_option("--expect", net_opts.expect, "--onnx: expected output (.npy or .pb); exit 1 when it differs");
  run->add_option("--output-dir", net_opts.output_dir, "--onnx: write the output there as NAME.npy");
  run->add_option("--onnx-test", net_opts.onnx_test,
                  "run an ONNX test folder (model.onnx + test_data_set_N/) and report each set");
  run->add_option("--seed", net_opts.seed, "--model: weight and input seed")->capture_default_str();
  run->add_option("--batch", net_opts.batch, "--model: batch size")->capture_default_str();
  run->add_option("--image", net_opts.image, "--model: input height/width (0: the network's standard)");
  run->add_flag("--no-cache", net_opts.no_cache,
                "--model: build and calibrate the network afresh instead of reading the zoo cache "
                "($VTA_CACHE_DIR, else $XDG_CACHE_HOME/vta-lab, else ~/.cache/vta-lab), and write no entry");
  run->add_option("--report-csv", net_opts.report_csv, "--model/--onnx: write the per-layer report as CSV");
  run->add_option("--report-json", net_opts.report_json, "--model/--onnx: write the per-layer report as JSON");
  run->add_option("--report-html", net_opts.report_html,
                  "--model/--onnx: write the per-layer report as HTML with plots");
  run->add_flag("--why-host", net_opts.why_host,
                "--model/--onnx: list each node that runs on the host and why (which operand, value and limit)");
  run->add_option("--accuracy", net_opts.accuracy,
                  "--model/--onnx: compare the integer network with the float network on N inputs drawn like the "
                  "calibration input (top-1 agreement, SQNR of the output and of each layer)");
  std::string passes;
  for (const auto& p : vta::compiler::pass_names()) passes += (passes.empty() ? "" : ", ") + p;
  run->add_option("--dump-after", net_opts.dump_after,
                  "--model: print the network after this compiler pass (" + passes + ")");
  std::string vta_kinds;
  for (auto k : vta::compiler::vta_op_kinds())
    vta_kinds += (vta_kinds.empty() ? "" : ",") + std::string(vta::compiler::op_name(k));
  run->add_option("--host-ops", net_opts.host_ops,
                  "--model/--onnx: run these op kinds on the host although VTA could (" + vta_kinds +
                      "), to see what a CPU fallback costs")
      ->delimiter(',');
  run->add_option("--tune", net_opts.tune,
                  "--model/--onnx: measure the cost model's best N tiles of each distinct conv/dense layer on the "
                  "timing-only SystemC model and keep the fastest (cached, see --tune-cache)");
  run->add_option("--tune-cache", net_opts.tune_cache,
                  "--tune: the tuning cache file (default $VTA_CACHE_DIR/tune.json, else "
                  "$XDG_CACHE_HOME/vta-lab/tune.json, else ~/.cache/vta-lab/tune.json)");
  run->add_option("-b,--backend", run_opts.backend, "backend to run on")->capture_default_str();
  run->add_option("--compare", run_opts.compare, "also run on this backend and require identical DRAM");
  run->add_option("--stats", run_opts.stats, "stats on stdout: text, json or none")
      ->check(CLI::IsMember({"text", "json", "none"}))
      ->capture_default_str();
  run->add_option("--stats-out", run_opts.stats_out, "write stats JSON (with the resolved config) to this file");
  run->add_option("--dump", run_opts.dumps, "print on-chip buffer elements after the run: MEM:INDEX:COUNT");
  run->add_option("--dump-buffer", run_opts.dump_buffers, "print a named DRAM buffer after the run");
  run->add_option("--max-steps", run_opts.backend_options.max_steps,
                  "most steps one device run may take (instructions + uop iterations + SRAM elements moved); a "
                  "program over it is refused before it runs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);  // "-5" would otherwise wrap to 2^64 - 5
  run->add_flag("--no-race-check", run_opts.backend_options.skip_race_check,
                "golden: skip the data-race check (faster; a program whose result depends on timing then passes)");
  run->add_flag("--timing-only", run_opts.backend_options.timing_only,
                "cycle models: skip the datapath (same cycles, no tensors, no result check)");
  run->add_option("--trace", run_opts.backend_options.trace_path,
                  "cycle models: write a Chrome/Perfetto trace JSON (FILE.N.json for several programs)");
  run->add_option("--trace-limit", run_opts.backend_options.trace_limit, "most events per trace file")
      ->capture_default_str();
  run->add_option("--wave", run_opts.backend_options.wave_path,
                  "verilator: write a VCD waveform of the RTL (FILE.N.vcd for several programs)");
  run->add_option_function<std::string>(
      "--wave-window",
      [&run_opts](const std::string& w) {
        // FROM:CYCLES, both decimal.
        auto& bo = run_opts.backend_options;
        const auto colon = w.find(':');
        try {
          size_t a = 0, b = 0;
          if (colon == std::string::npos) throw std::invalid_argument(w);
          bo.wave_from = std::stoull(w.substr(0, colon), &a);
          bo.wave_cycles = std::stoull(w.substr(colon + 1), &b);
          if (a != colon || b != w.size() - colon - 1 || w[0] == '-' || w[colon + 1] == '-' ||
              bo.wave_cycles == 0)  // an empty window would write no file at all
            throw std::invalid_argument(w);
        } catch (const std::exception&) {
          throw CLI::ValidationError("--wave-window",
                                     "expected FROM:CYCLES with CYCLES at least 1 (e.g. 0:100000), got '" + w + "'");
        }
      },
      "--wave: the cycles to record, FROM:CYCLES (default 0:100000)");
  run_cfg.add(run);

  app.add_subcommand("backends", "list the backends built into this binary");
  auto* zoo = app.add_subcommand("zoo", "the built-in model zoo");
  zoo->require_subcommand(1);
  zoo->add_subcommand("list", "list the zoo networks");
  auto* zoo_export = zoo->add_subcommand("export", "write a zoo network as an ONNX file (QDQ form)");
  std::string export_name, export_out;
  vta::compiler::ZooOptions export_opts;
  zoo_export->add_option("name", export_name, "zoo network")->required();
  zoo_export->add_option("-o,--output", export_out, "ONNX file to write")->required();
  zoo_export->add_option("--seed", export_opts.seed, "weight seed")->capture_default_str();
  zoo_export->add_option("--batch", export_opts.batch, "batch size")->capture_default_str();
  bool export_exact = false;
  zoo_export->add_flag("--exact-only", export_exact,
                       "refuse (exit 2) a network with a layer whose accumulator can reach 2^22 (beyond which "
                       "float32 may round otherwise than vta) and that has no exact integer form (int32 overflow)");
  vta::app::add_compare_command(app);
  vta::app::add_sweep_command(app);
  vta::app::add_estimate_command(app);
  vta::app::add_bringup_command(app);
  vta::app::add_rtl_command(app);      // build, list, clean (when built with Verilator)
  vta::app::add_opencl_commands(app);  // devices, cl-source, cl-build (when built with OpenCL)
  one_value_per_occurrence(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A usage error is an error like any other: one line, exit 2.
    vta::app::print_error(std::string(e.what()) + " (run with --help for more information)");
    return kBadInput;
  }

  try {
    if (*show) {
      std::cout << vta::describe(show_opts.load());
    } else if (*validate) {
      for (const auto& f : validate_files) {
        vta::Config c = vta::load_config(vta::resolve_config_path(f));
        std::cout << fmt::format("{}: ok ({}, hash {})\n", c.source, c.name, c.hash());
      }
    } else if (*import) {
      write_or_print(vta::import_upstream_json(slurp(import_file), import_file), import_out);
    } else if (*schema) {
      write_or_print(vta::schema_markdown(), schema_out);
    } else if (*gen) {
      vta::Config c = gen_opts.load();
      write_or_print(gen_what == "sv" ? vta::isa::generate_sv_package(c) : vta::isa::generate_opencl_defines(c),
                     gen_out);
    } else if (*as) {
      vta::Config c = asm_opts.load();
      vta::ProgramImage img = vta::read_program(asm_in, c);
      std::string bin(reinterpret_cast<const char*>(img.insns.data()), img.insns.size() * vta::isa::kInsnBytes);
      write_or_print(bin, asm_out);
      if (!asm_uops.empty()) {
        const vta::ImageBuffer* u = img.buffer("uop");
        write_or_print(u ? std::string(u->init.begin(), u->init.end()) : std::string(), asm_uops);
      }
    } else if (*dis) {
      vta::Config c = dis_opts.load();
      vta::ProgramImage img;
      if (vta::path_is_dir(dis_in) || dis_in.ends_with(".vasm")) {
        img = vta::read_program(dis_in, c);
      } else {
        std::string bin = slurp(dis_in);
        if (bin.size() % vta::isa::kInsnBytes != 0)
          vta::fail("{}: {} bytes is not a whole number of 16-byte instructions", dis_in, bin.size());
        img.source = dis_in;
        img.insns.resize(bin.size() / vta::isa::kInsnBytes);
        std::memcpy(img.insns.data(), bin.data(), bin.size());
      }
      std::cout << vta::disassemble_image(img, c);
    } else if (*run && (!net_opts.model.empty() || !net_opts.onnx.empty() || !net_opts.onnx_test.empty())) {
      if (!net_opts.model.empty() + !net_opts.onnx.empty() + !net_opts.onnx_test.empty() > 1)
        vta::fail("run: give one of --model, --onnx and --onnx-test");
      if ((!net_opts.inputs.empty() || !net_opts.expect.empty() || !net_opts.output_dir.empty()) &&
          net_opts.onnx.empty())
        vta::fail("run: --input, --expect and --output-dir apply to --onnx");
      // Options of program runs would be ignored here: name them instead.
      for (const char* opt : {"--compare", "--stats", "--stats-out", "--dump", "--dump-buffer"})
        if (run->count(opt)) vta::fail("run: {} applies to program runs, not to --model or --onnx", opt);
      if (!run_opts.programs.empty()) vta::fail("run: give either programs or --model, not both");
      net_opts.backend = run_opts.backend;
      net_opts.backend_options = run_opts.backend_options;
      net_opts.tool = std::string("vta-lab ") + VTA_VERSION;
      return vta::app::run_network_command(net_opts, run_cfg.load());
    } else if (*run) {
      if (run_opts.programs.empty()) vta::fail("run: give program files, conformance folders or --model NAME");
      // A timing-only run computes no tensors: a comparison of them would
      // report the zeros it left as differences.
      if (run_opts.backend_options.timing_only)
        for (const char* opt : {"--compare", "--dump", "--dump-buffer"})
          if (run->count(opt))
            vta::fail("run: {} compares or prints tensors, and --timing-only computes none (leave one out)", opt);
      // Options of network runs would be ignored here: name them instead.
      for (const char* opt : {"--seed", "--batch", "--image", "--report-csv", "--report-json", "--report-html",
                              "--dump-after", "--no-cache", "--host-ops", "--tune", "--tune-cache", "--accuracy"})
        if (run->count(opt)) vta::fail("run: {} applies to --model or --onnx, not to program runs", opt);
      vta::Config c = run_cfg.load();
      // No output may replace a program: checked before anything runs.
      for (const auto& p : run_opts.programs) vta::note_input(p, "program");
      for (const auto& [opt, path] :
           {std::pair{"--stats-out", run_opts.stats_out}, std::pair{"--trace", run_opts.backend_options.trace_path},
            std::pair{"--wave", run_opts.backend_options.wave_path}})
        if (!path.empty()) vta::check_output(path, opt);
      nlohmann::ordered_json records = nlohmann::ordered_json::array();
      int worst = kOk;
      for (const auto& p : run_opts.programs) {
        // A bad program is reported, named, and recorded; the others still run.
        try {
          worst = std::max(worst, run_one(p, c, run_opts, records));
        } catch (const vta::Error& e) {
          const std::string what = std::string_view(e.what()).find(p) == std::string_view::npos
                                       ? fmt::format("{}: {}", p, e.what())
                                       : std::string(e.what());
          vta::app::print_error(what);
          records.push_back({{"program", p}, {"backend", run_opts.backend}, {"check", "error"}, {"error", what}});
          worst = kBadInput;
        }
      }
      nlohmann::ordered_json doc;
      doc["tool"] = std::string("vta-lab ") + VTA_VERSION;
      doc["config_name"] = c.name;
      doc["config_hash"] = c.hash();
      doc["config"] = vta::to_yaml(c);
      doc["runs"] = records;
      if (run_opts.stats == "json") std::cout << doc.dump(2) << "\n";
      if (!run_opts.stats_out.empty()) write_or_print(doc.dump(2) + "\n", run_opts.stats_out);
      if (run_opts.programs.size() > 1 && run_opts.stats == "text") {
        size_t pass = 0;
        for (const auto& r : records) pass += r["check"] == "pass";
        std::cout << fmt::format("{} of {} programs passed their result check\n", pass, records.size());
      }
      return worst;
    } else if (*zoo_export) {
      const vta::compiler::Graph g = vta::compiler::build_zoo(export_name, export_opts);
      // Layers at or above 2^22 go in the exact integer form; those left in
      // float (the form does not fit int32) are named, or refused with --exact-only.
      std::vector<vta::compiler::ExportLimit> inexact;
      std::set<std::string> in_integer;
      for (const auto& l : vta::compiler::export_limits(g))
        if (l.integer)
          in_integer.insert(l.node);
        else
          inexact.push_back(l);
      std::vector<std::string> integer;  // in graph order
      for (const auto& n : g.nodes)
        if (in_integer.count(n.name)) integer.push_back(n.name);
      if (export_exact && !inexact.empty())
        vta::fail(
            "zoo export {} --exact-only: layer '{}' can reach {} (2^22 = 4194304 or more, where float32 with "
            "the tie offset is not exact) and its integer form does not fit int32; {} layers in all",
            export_name, inexact[0].node, inexact[0].bound, inexact.size());
      vta::compiler::export_onnx(g, export_out);
      std::cout << fmt::format("wrote {} ({}){}\n", export_out, export_name,
                               integer.empty() ? ""
                                               : fmt::format(": {} layers in the exact integer form ({})",
                                                             integer.size(), fmt::join(integer, ", ")));
      if (!inexact.empty())
        std::cout << fmt::format(
            "note: the file computes exactly what vta does while every accumulator stays below 2^22 (float32 with "
            "the tie offset); {} layers can exceed that for some int8 input and have no integer form (largest: "
            "'{}', up to {})\n",
            inexact.size(), inexact[0].node, inexact[0].bound);
    } else if (app.got_subcommand("zoo")) {
      for (const auto& z : vta::compiler::zoo_names()) std::cout << z << "\n";
    } else if (app.got_subcommand("backends")) {
      size_t width = 0;
      for (const auto& [n, d] : vta::backends()) width = std::max(width, n.size());
      for (const auto& [n, d] : vta::backends()) std::cout << fmt::format("{:<{}}  {}\n", n, width, d);
    }
  } catch (const std::exception& e) {  // vta::Error and anything else: one line, exit 2
    vta::app::print_error(e.what());
    return kBadInput;
  }
  return kOk;
}

int main(int argc, char** argv) { return vta::app::checked_stdout(run_cli(argc, argv)); }
