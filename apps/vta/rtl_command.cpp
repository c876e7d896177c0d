// `vta rtl` (see rtl_command.h).
#include "rtl_command.h"

#include <cstdlib>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "design_options.h"
#include "run_and_exit.h"
#include "vta/rtl/model_cache.h"

namespace vta::app {

namespace {

struct RtlCli {
  DesignOptions design;
  std::string cache;
  std::string backend = "verilator";
  int jobs = 0;
};

void use_cache(const RtlCli& o) {
  if (!o.cache.empty()) ::setenv("VTA_RTL_CACHE", o.cache.c_str(), 1);
}

int build(const RtlCli& o) {
  use_cache(o);
  const Config c = o.design.load();
  const rtl::CachedModel m =
      rtl::build_model(c, o.jobs, o.backend == "systemc-rtl" ? rtl::ModelKind::systemc_rtl : rtl::ModelKind::verilator);
  std::cout << fmt::format("{} {} ({})\n", m.key, m.path,
                           m.built ? fmt::format("built in {:.0f} s", m.build_s) : "already in the cache");
  return kExitOk;
}

int list(const RtlCli& o) {
  use_cache(o);
  const auto models = rtl::cached_models();
  std::cout << fmt::format("{} model{} in {}\n", models.size(), models.size() == 1 ? "" : "s", rtl::cache_dir());
  for (const auto& m : models)
    std::cout << fmt::format("{}  {:>7.1f} MB  {:>5.0f} s  {:<11}  {}\n", m.key, static_cast<double>(m.bytes) / 1e6,
                             m.build_s, m.kind, m.config);
  return kExitOk;
}

int clean(const RtlCli& o) {
  use_cache(o);
  const size_t n = rtl::clean_cache();
  std::cout << fmt::format("removed {} entr{} from {}\n", n, n == 1 ? "y" : "ies", rtl::cache_dir());
  return kExitOk;
}

}  // namespace

void add_rtl_command(CLI::App& app) {
  auto* rtl =
      app.add_subcommand("rtl", "the cache of RTL models built on demand for the verilator and systemc-rtl backends");
  rtl->require_subcommand(1);
  auto o = std::make_shared<RtlCli>();
  auto* b = rtl->add_subcommand("build", "build a config's verilated model into the cache ahead of time");
  o->design.add(b, false);
  b->add_option("-j,--jobs", o->jobs, "compiles at a time (default: one per core)")->check(CLI::Range(1, 256));
  b->add_option("-b,--backend", o->backend, "the backend the model is for")
      ->check(CLI::IsMember({"verilator", "systemc-rtl"}))
      ->capture_default_str();
  auto* l = rtl->add_subcommand("list", "list the models in the cache");
  auto* c = rtl->add_subcommand("clean", "remove every model and kept failed build from the cache");
  for (auto* s : {b, l, c})
    s->add_option("--cache", o->cache, "the cache folder (default: $VTA_RTL_CACHE, else ~/.cache/vta/rtl)");
  b->callback([o] { run_and_exit([o] { return build(*o); }); });
  l->callback([o] { run_and_exit([o] { return list(*o); }); });
  c->callback([o] { run_and_exit([o] { return clean(*o); }); });
}

}  // namespace vta::app
