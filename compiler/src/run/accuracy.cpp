#include "vta/compiler/run/accuracy.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "vta/compiler/frontend/zoo.h"
#include "vta/compiler/ops/float_reference.h"
#include "vta/compiler/ops/reference.h"
#include "vta/isa/error.h"

namespace vta::compiler {

namespace {

struct Energy {
  double signal = 0, noise = 0;
  void add(const std::vector<double>& ref, const std::vector<double>& test) {
    for (size_t i = 0; i < ref.size(); ++i) {
      signal += ref[i] * ref[i];
      noise += (ref[i] - test[i]) * (ref[i] - test[i]);
    }
  }
  double db() const {
    if (noise == 0) return std::numeric_limits<double>::infinity();
    if (signal == 0) return -std::numeric_limits<double>::infinity();
    return 10.0 * std::log10(signal / noise);
  }
};

bool is_layer(Op op) {
  return op == Op::Conv2d || op == Op::Dense || op == Op::Add || op == Op::MaxPool || op == Op::AvgPool ||
         op == Op::GlobalAvgPool;
}

// The channel of the largest value at each (n, h, w) position; the first on ties.
std::vector<int64_t> top1(const Shape& s, const std::vector<double>& v) {
  std::vector<int64_t> out;
  const int64_t hw = s.h * s.w;
  for (int64_t b = 0; b < s.n; ++b)
    for (int64_t q = 0; q < hw; ++q) {
      int64_t best = 0;
      for (int64_t c = 1; c < s.c; ++c)
        if (v[static_cast<size_t>((b * s.c + c) * hw + q)] > v[static_cast<size_t>((b * s.c + best) * hw + q)])
          best = c;
      out.push_back(best);
    }
  return out;
}

std::string db_text(double db) {
  return std::isinf(db) ? (db > 0 ? "exact" : "-inf dB") : fmt::format("{:.1f} dB", db);
}

nlohmann::json db_json(double db) {
  return std::isinf(db) ? nlohmann::json(db > 0 ? "exact" : "-inf") : nlohmann::json(db);
}

}  // namespace

double sqnr_db(const std::vector<double>& ref, const std::vector<double>& test) {
  Energy e;
  e.add(ref, test);
  return e.db();
}

Accuracy measure_accuracy(const Graph& g, int inputs, uint32_t first_seed) {
  if (inputs < 1 || inputs > 10000) fail("accuracy: {} inputs: give 1 to 10000", inputs);
  if (const std::string why = float_form_problem(g); !why.empty())
    fail("accuracy of {}: no float network to compare with: {}", g.name, why);
  Accuracy a;
  a.inputs = inputs;
  a.first_seed = first_seed;
  a.worst_input_sqnr_db = std::numeric_limits<double>::infinity();
  std::vector<Energy> per_node(g.nodes.size());
  Energy output;
  const auto out = static_cast<size_t>(g.output);
  for (int k = 0; k < inputs; ++k) {
    const Tensor x = zoo_input(g, first_seed + static_cast<uint32_t>(k));
    const std::vector<Tensor> q = run_graph(g, x);
    // The float network reads the real input: the 8-bit draw, which an A-bit
    // input holds shifted (A = 16) or rounded (A = 4).
    Graph probe;
    probe.nodes.push_back(g.nodes[0]);
    Node& in = probe.nodes[0];
    in.exp += in.bits - 8;
    in.bits = 8;
    const Tensor x8 = in.real ? x : zoo_input(probe, first_seed + static_cast<uint32_t>(k));
    const std::vector<RealTensor> f = run_float(g, dequantize(in, x8, in));
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const Node& n = g.nodes[i];
      if (!is_layer(n.op) && i != out) continue;
      const Node& producer = n.inputs.empty() ? n : g.at(n.inputs[0]);
      const RealTensor r = dequantize(n, q[i], producer);
      per_node[i].add(f[i].data, r.data);
      if (i == out) {
        Energy one;
        one.add(f[i].data, r.data);
        output.add(f[i].data, r.data);
        a.worst_input_sqnr_db = std::min(a.worst_input_sqnr_db, one.db());
        const auto tf = top1(n.out, f[i].data), tq = top1(n.out, r.data);
        for (size_t p = 0; p < tf.size(); ++p) a.agree += tf[p] == tq[p];
        a.rows += static_cast<int64_t>(tf.size());
      }
    }
  }
  a.output_sqnr_db = output.db();
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (is_layer(g.nodes[i].op)) a.layers.push_back({g.nodes[i].name, op_name(g.nodes[i].op), per_node[i].db()});
  return a;
}

std::string accuracy_text(const Accuracy& a, size_t worst) {
  std::string s = fmt::format(
      "accuracy against the float network (the real weights in real arithmetic) over {} input{} (seeds {}..{}): "
      "top-1 agreement {}/{} ({:.1f} %), output SQNR {} (worst input {})\n",
      a.inputs, a.inputs == 1 ? "" : "s", a.first_seed, a.first_seed + static_cast<uint32_t>(a.inputs) - 1, a.agree,
      a.rows, 100.0 * a.top1_agree(), db_text(a.output_sqnr_db), db_text(a.worst_input_sqnr_db));
  std::vector<LayerAccuracy> l = a.layers;
  std::stable_sort(l.begin(), l.end(), [](const auto& x, const auto& y) { return x.sqnr_db < y.sqnr_db; });
  if (!l.empty()) {
    s += "lowest layer SQNR:";
    for (size_t i = 0; i < l.size() && i < worst; ++i)
      s += fmt::format("{} {} {}", i ? "," : "", l[i].name, db_text(l[i].sqnr_db));
    s += "\n";
  }
  return s;
}

nlohmann::ordered_json accuracy_json(const Accuracy& a) {
  nlohmann::ordered_json j;
  j["reference"] = "float network: the real weights in real arithmetic, no activation quantization";
  j["inputs"] = a.inputs;
  j["first_seed"] = a.first_seed;
  j["top1_agree"] = a.top1_agree();
  j["top1_rows"] = a.rows;
  j["sqnr_db"] = db_json(a.output_sqnr_db);
  j["worst_input_sqnr_db"] = db_json(a.worst_input_sqnr_db);
  nlohmann::ordered_json layers = nlohmann::ordered_json::array();
  for (const auto& l : a.layers) layers.push_back({{"name", l.name}, {"op", l.op}, {"sqnr_db", db_json(l.sqnr_db)}});
  j["layers"] = std::move(layers);
  return j;
}

}  // namespace vta::compiler
