// Device placement (partition.cpp), explicit device copies (copies.cpp),
// batch-queue synchronisation (runtime.cpp), the user's annotation
// (`--host-ops`, pin_host_ops.cpp) and the deterministic host model (host_cost.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "test_support.h"
#include "vta/compiler/analytic.h"
#include "vta/compiler/compile.h"
#include "vta/compiler/frontend/calibrate.h"
#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/reference.h"
#include "vta/compiler/passes/pin_host_ops.h"
#include "vta/compiler/run/report.h"
#include "vta/compiler/run/runtime.h"
#include "vta/compiler/schedule/host_cost.h"
#include "vta/isa/error.h"

namespace {

using namespace vta::compiler;
using vta::test::preset;

std::vector<int16_t> random_i8(std::mt19937& rng, size_t n) {
  std::vector<int16_t> v(n);
  for (auto& x : v) x = static_cast<int16_t>(static_cast<int>(rng() % 255) - 127);
  return v;
}

// input -> conv (VTA) -> global avg pool (host) -> flatten (host) -> dense (VTA).
Graph small_net() {
  std::mt19937 rng(3);
  Calibrator cal("small");
  int x = cal.input({1, 16, 8, 8}, -7, Tensor{Shape{1, 16, 8, 8}, random_i8(rng, 1024)});
  x = cal.conv(x, random_i8(rng, 16 * 16 * 9), std::vector<int32_t>(16, 0), -7, 16, 3, 1, 1, true, 1, "conv");
  x = cal.global_avg_pool(x, "gap");
  x = cal.flatten(x, "flat");
  x = cal.dense(x, random_i8(rng, 10 * 16), std::vector<int32_t>(10, 0), -7, 10, false, "fc");
  return cal.take(x);
}

// Two branches of the input: a VTA conv, and a max pool (pinned to the host)
// feeding a VTA conv; their VTA sum is the output.
Graph two_branches() {
  std::mt19937 rng(5);
  Calibrator cal("branches");
  const int in = cal.input({1, 16, 8, 8}, -7, Tensor{Shape{1, 16, 8, 8}, random_i8(rng, 1024)});
  const int a = cal.conv(in, random_i8(rng, 16 * 16), std::vector<int32_t>(16, 0), -7, 16, 1, 1, 0, false, 1, "a");
  const int p = cal.max_pool(in, 3, 1, 1, "pool");
  const int b = cal.conv(p, random_i8(rng, 16 * 16), std::vector<int32_t>(16, 0), -7, 16, 1, 1, 0, false, 1, "b");
  return cal.take(cal.add(a, b, true, "sum"));
}

int find(const Graph& g, const std::string& name) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name) return static_cast<int>(i);
  ADD_FAILURE() << "no node " << name << " in\n" << g.dump();
  return 0;
}

// The nodes of ResNet-50's first residual block: every ancestor of the first
// Add down to (not including) the stem's max pool.
std::set<std::string> first_block(const Graph& g) {
  int add = -1;
  for (size_t i = 0; i < g.nodes.size() && add < 0; ++i)
    if (g.nodes[i].op == Op::Add) add = static_cast<int>(i);
  std::set<std::string> names;
  std::vector<int> pending = {add};
  while (!pending.empty()) {
    const Node& n = g.at(pending.back());
    pending.pop_back();
    if (n.op == Op::MaxPool || !names.insert(n.name).second) continue;
    for (int k : n.inputs) pending.push_back(k);
  }
  return names;
}

// `g` with its nodes in the order `order` (a topological order of them).
Graph reorder(const Graph& g, const std::vector<int>& order) {
  Graph out;
  out.name = g.name;
  std::vector<int> id(g.nodes.size(), -1);
  for (int i : order) {
    Node n = g.at(i);
    for (int& k : n.inputs) k = id[static_cast<size_t>(k)];
    id[static_cast<size_t>(i)] = out.add(std::move(n));
  }
  out.output = id[static_cast<size_t>(g.output)];
  return out;
}

const Graph& resnet50() {
  static const Graph g = build_zoo("resnet50", ZooOptions{1, 1, 64});
  return g;
}

// The TVM heterogeneous-execution RFC: post-DFS-order propagation of device
// annotations put a conv of ResNet-50's first residual block on the wrong
// device. Here every conv of that block, the 1x1 downsampling conv of the
// shortcut included, is on VTA: as built, with the stem's max pool pinned to
// the host (the annotation the RFC's example starts from), and with the
// shortcut branch moved after the main branch in the node order.
TEST(Placement, ResNet50FirstBlockOnVta) {
  const Graph& g = resnet50();
  const std::set<std::string> block = first_block(g);
  int convs = 0;
  for (const auto& name : block) convs += g.at(find(g, name)).op == Op::Conv2d;
  ASSERT_EQ(convs, 4) << "the first bottleneck: 1x1, 3x3, 1x1 and the 1x1 downsampling conv";

  // The shortcut conv (the block's conv that reads the max pool directly and
  // feeds the add) moved to just before the add.
  const int add = find(g, *std::find_if(block.begin(), block.end(),
                                        [&](const std::string& s) { return g.at(find(g, s)).op == Op::Add; }));
  int shortcut = -1;
  for (int k : g.at(add).inputs)
    if (g.at(g.at(k).inputs[0]).op == Op::MaxPool) shortcut = k;
  ASSERT_GE(shortcut, 0);
  std::vector<int> order;
  for (int i = 0; i < static_cast<int>(g.nodes.size()); ++i)
    if (i != shortcut) {
      if (i == add) order.push_back(shortcut);
      order.push_back(i);
    }

  const vta::Config c = preset("vta-1x16x16");
  for (const Graph& variant : {g, pin_host_ops(g, {"max_pool"}), reorder(g, order)}) {
    const CompiledNetwork net = compile(variant, c, "");
    for (const auto& name : block) {
      const Node& n = net.graph.at(find(net.graph, name));
      if (n.op == Op::Conv2d || n.op == Op::Add) {
        EXPECT_EQ(n.device, Device::Vta) << name;
      }
    }
  }
  // With the max pool on the host, both branches read its value through one copy to VTA.
  const CompiledNetwork pinned = compile(pin_host_ops(g, {"max_pool"}), c, "");
  const int pool = [&] {
    for (size_t i = 0; i < pinned.graph.nodes.size(); ++i)
      if (pinned.graph.nodes[i].op == Op::MaxPool) return static_cast<int>(i);
    return -1;
  }();
  ASSERT_GE(pool, 0);
  EXPECT_EQ(pinned.graph.at(pool).device, Device::Host);
  int readers = 0, copies = 0;
  for (const auto& n : pinned.graph.nodes) {
    for (int k : n.inputs) readers += k == pool;
    if (n.op == Op::DeviceCopy && n.inputs[0] == pool) {
      ++copies;
      int conv_readers = 0;
      for (const auto& m : pinned.graph.nodes)
        for (int k : m.inputs) conv_readers += k == pool + 1 && m.op == Op::Conv2d && m.device == Device::Vta;
      EXPECT_EQ(conv_readers, 2) << "the shortcut and the main branch share the copy";
    }
  }
  EXPECT_EQ(readers, 1);
  EXPECT_EQ(copies, 1);
}

// Copies exactly where the device changes, one per value and direction, with
// the bytes of the value's DRAM buffer; a graph output on VTA ends with a copy.
TEST(Copies, ExactlyWhereDevicesChange) {
  const vta::Config c = preset("vta-1x16x16");
  const CompiledNetwork net = compile(small_net(), c, "");
  const Graph& g = net.graph;
  std::vector<std::string> names;
  for (const auto& n : g.nodes) names.push_back(n.name + (n.op == Op::DeviceCopy ? "*" : ""));
  const std::vector<std::string> want = {"input", "input.to_vta*", "conv", "conv.to_host*", "gap",
                                         "flat",  "flat.to_vta*",  "fc",   "fc.to_host*"};
  EXPECT_EQ(names, want) << g.dump();
  EXPECT_EQ(g.output, find(g, "fc.to_host"));
  for (const auto& n : g.nodes) {
    for (int k : n.inputs) {
      const Node& in = g.at(k);
      if (n.op == Op::DeviceCopy) {
        EXPECT_EQ(n.out, in.out);
      } else {
        // every edge joins one device, or a copy to its consumer's device
        EXPECT_TRUE(in.device == n.device || (in.op == Op::DeviceCopy && copy_target(g, in) == n.device)) << n.name;
      }
    }
  }
  // Bytes: the blocked buffers (1x16x8x8 is 64 positions of 16 bytes; 10 logits pad to a 16-byte block).
  EXPECT_EQ(value_bytes(g.at(find(g, "input.to_vta")), c), 1024u);
  EXPECT_EQ(value_bytes(g.at(find(g, "conv.to_host")), c), 1024u);
  EXPECT_EQ(value_bytes(g.at(find(g, "flat.to_vta")), c), 16u);
  EXPECT_EQ(value_bytes(g.at(find(g, "fc.to_host")), c), 16u);

  auto backend = vta::make_backend("golden", c);
  const Tensor input = zoo_input(small_net(), 9);
  const NetworkResult res = run_network(net, *backend, input);
  EXPECT_EQ(res.output.data, run_graph(small_net(), input)[static_cast<size_t>(small_net().output)].data);
  const Report r = make_report(net, res, c, "golden");
  std::map<std::string, const ReportRow*> rows;
  for (const auto& w : r.rows) rows[w.layer] = &w;
  ASSERT_TRUE(rows.count("conv.to_host"));
  EXPECT_EQ(rows["conv.to_host"]->copy, "vta->host");
  EXPECT_EQ(rows["input.to_vta"]->copy, "host->vta");
  EXPECT_EQ(rows["conv.to_host"]->copy_bytes, 1024u);
  EXPECT_EQ(rows["conv"]->copy_bytes, 0u);
  EXPECT_EQ(r.total.copy_bytes, 1024u + 1024u + 16u + 16u);
  EXPECT_EQ(r.device_runs, 2u);
  EXPECT_EQ(r.syncs, 2u);
  const auto j = report_json(r);
  EXPECT_EQ(j["device_runs"], 2);
  EXPECT_EQ(j["syncs"], 2);
  EXPECT_NE(report_table(r).find("2 device runs, 2 host-device synchronisations, 4 device copies"), std::string::npos)
      << report_table(r);
}

// A host node that needs no device result does not make the host wait: two
// device runs, one synchronisation (at the copy of the output).
TEST(Copies, BatchQueueSynchronisesOnlyForDeviceResults) {
  const vta::Config c = preset("vta-1x16x16");
  const Graph g = pin_host_ops(two_branches(), {"max_pool"});
  const CompiledNetwork net = compile(g, c, "");
  EXPECT_EQ(net.graph.at(find(net.graph, "pool")).device, Device::Host);
  ASSERT_EQ(net.segments.size(), 2u) << net.graph.dump();
  auto backend = vta::make_backend("golden", c);
  const Tensor input = zoo_input(g, 4);
  const NetworkResult res = run_network(net, *backend, input);
  EXPECT_EQ(res.output.data, run_graph(g, input)[static_cast<size_t>(g.output)].data);
  EXPECT_EQ(res.segments_run, 2u);
  EXPECT_EQ(res.syncs, 1u);
}

// The host link: PCIe is setup + bytes / bandwidth; shared DRAM a cache flush of the bytes only.
// Hand-derived from the host knobs' defaults, so on host.cpu custom (no preset's figures).
TEST(HostCost, CopiesOnTheConfigsLink) {
  const vta::Config pcie =
      preset("vta-1x16x16",
             {{"host.cpu", "custom"}, {"host.link", "pcie"}, {"host.bandwidth_gbps", "2"}, {"host.setup_us", "10"}});
  const vta::Config shared = preset("vta-1x16x16", {{"host.cpu", "custom"}, {"host.flush_gbps", "4"}});
  EXPECT_DOUBLE_EQ(link_copy_us(pcie, 1000000), 10.0 + 500.0);
  EXPECT_DOUBLE_EQ(link_copy_us(shared, 1000000), 250.0);
  EXPECT_DOUBLE_EQ(link_copy_us(pcie, 0), 0.0);
  const CompiledNetwork net = compile(small_net(), pcie, "");
  EXPECT_DOUBLE_EQ(host_model_us(net.graph, find(net.graph, "conv.to_host"), pcie), 10.0 + 1024.0 / 2e3);
  EXPECT_DOUBLE_EQ(host_model_us(net.graph, find(net.graph, "conv"), pcie), 0.0);
  // gap: reads 1024 bytes, writes 16, 1024 input elements at op_ns 1, mem 4 GB/s
  EXPECT_DOUBLE_EQ(host_model_us(net.graph, find(net.graph, "gap"), pcie), (1024.0 + 16.0) / 4e3 + 1024.0 / 1e3);
}

// `--host-ops conv2d`: every conv on the host, the output still bit-exact, and the
// host model charges the convs' MACs (the CPU fallback's cost).
TEST(HostOps, ConvsOnTheHostStayBitExact) {
  const vta::Config c = preset("vta-1x16x16", {{"host.cpu", "custom"}});  // mac_ns 0.5, the default
  const Graph g = build_zoo("resnet18", ZooOptions{1, 1, 32});
  const Tensor input = zoo_input(g, 2);
  const Tensor want = run_graph(g, input)[static_cast<size_t>(g.output)];
  const CompiledNetwork base = compile(g, c, ""), pinned = compile(pin_host_ops(g, {"conv2d"}), c, "");
  int convs = 0;
  for (const auto& n : pinned.graph.nodes)
    if (n.op == Op::Conv2d) {
      EXPECT_EQ(n.device, Device::Host) << n.name;
      ++convs;
    }
  EXPECT_EQ(convs, 20);
  auto run = [&](const CompiledNetwork& net) {
    auto backend = vta::make_backend("golden", c);
    const NetworkResult res = run_network(net, *backend, input);
    EXPECT_EQ(res.output.data, want.data);
    return make_report(net, res, c, "golden");
  };
  const Report rb = run(base), rp = run(pinned);
  double conv_us = 0;
  for (size_t i = 0; i < pinned.graph.nodes.size(); ++i)
    if (pinned.graph.nodes[i].op == Op::Conv2d) conv_us += host_model_us(pinned.graph, static_cast<int>(i), c);
  EXPECT_GT(conv_us, 0.5e-3 * static_cast<double>(rb.total.macs) * 0.9);  // mac_ns 0.5 per MAC, most MACs are convs
  EXPECT_GT(rp.total.host_model_ms, rb.total.host_model_ms + conv_us / 1e3 * 0.99);
  EXPECT_GT(rp.device_runs, rb.device_runs);  // the adds between host convs are runs of their own
  // The model against the measured host time: model / measured per host
  // layer (copies excluded), its median and the ratio farthest from 1.
  std::vector<double> ratios;
  for (const auto& w : rp.rows)
    if (w.device == "host" && w.copy.empty() && w.host_ms > 0) ratios.push_back(w.host_model_ms / w.host_ms);
  ASSERT_GE(ratios.size(), 20u);
  EXPECT_EQ(rp.host_ratio.layers, static_cast<int>(ratios.size()));
  std::sort(ratios.begin(), ratios.end());
  const size_t m = ratios.size() / 2;
  EXPECT_DOUBLE_EQ(rp.host_ratio.median, ratios.size() % 2 ? ratios[m] : (ratios[m - 1] + ratios[m]) / 2);
  EXPECT_TRUE(rp.host_ratio.worst == ratios.front() || rp.host_ratio.worst == ratios.back());
  EXPECT_EQ(rp.host_cpu, "host.cpu custom: mem_gbps 4, flush_gbps 8, op_ns 1, mac_ns 0.5 as configured");
  EXPECT_NE(report_table(rp).find("host model against this machine's measured host time over"), std::string::npos);
}

// --host-ops is the pipeline's first pass (CompileOptions::host_ops): the
// same program as pinning the graph before compile(), and the analytic
// estimate, which runs the same list's graph passes, places the network as
// compile() does.
TEST(HostOps, ThePinHostOpsPassOfThePipeline) {
  const vta::Config c = preset("vta-1x16x16");
  const Graph g = build_zoo("resnet18", ZooOptions{1, 1, 32});
  CompileOptions o;
  o.host_ops = {"max_pool", "add"};
  const CompiledNetwork by_pass = compile(g, c, o), before = compile(pin_host_ops(g, o.host_ops), c, "");
  EXPECT_EQ(by_pass.graph, before.graph);
  ASSERT_EQ(by_pass.buffers.size(), before.buffers.size());
  for (size_t i = 0; i < by_pass.buffers.size(); ++i) {
    EXPECT_EQ(by_pass.buffers[i].addr, before.buffers[i].addr) << by_pass.buffers[i].name;
    EXPECT_EQ(by_pass.buffers[i].init, before.buffers[i].init) << by_pass.buffers[i].name;
  }
  EXPECT_EQ(run_graph_passes(g, c, o), by_pass.graph);
  const NetworkEstimate e = estimate_network(g, c, o);
  ASSERT_EQ(e.layers.size(), by_pass.graph.nodes.size() - 1);
  for (const LayerEstimate& l : e.layers) {
    EXPECT_EQ(l.device, by_pass.graph.at(l.node).device) << l.name;
    if (l.op == "max_pool" || l.op == "add") {
      EXPECT_EQ(l.device, Device::Host) << l.name;
    }
  }
}

TEST(HostOps, UnknownKindIsAnErrorListingTheKinds) {
  try {
    pin_host_ops(resnet50(), {"conv2d", "convolution"});
    FAIL() << "accepted";
  } catch (const vta::Error& e) {
    EXPECT_NE(std::string(e.what()).find("--host-ops convolution: not an op kind VTA runs (the kinds: conv2d, dense, "
                                         "add, max_pool, avg_pool)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
