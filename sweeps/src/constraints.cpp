#include "vta/sweeps/constraints.h"

#include <muParser.h>

#include <string_view>

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>

#include "vta/isa/error.h"
#include "vta/sweeps/metrics.h"

namespace vta::sweeps {

namespace {

// The metrics of metrics.def exist only after stage 1 (or need a network's
// run, as gops_per_dsp does): constraints see the design and its estimate.
bool is_metric_of_network(const std::string& k) { return find_metric(k) != nullptr; }

double kib(double v) { return v * 1024.0; }
double mib(double v) { return v * 1024.0 * 1024.0; }
double gib(double v) { return v * 1024.0 * 1024.0 * 1024.0; }

// The variables of a config, by name.
std::vector<std::pair<std::string, double>> config_vars(const Config& c) {
  std::vector<std::pair<std::string, double>> v;
  Config scratch = c;  // KnobInfo::ref needs a mutable config
  for (const auto& k : knobs()) {
    const auto ref = k.ref(scratch);
    if (auto* i = std::get_if<int64_t*>(&ref)) v.emplace_back(k.key(), static_cast<double>(**i));
    if (auto* d = std::get_if<double*>(&ref)) v.emplace_back(k.key(), **d);
    if (auto* b = std::get_if<bool*>(&ref)) v.emplace_back(k.key(), **b ? 1.0 : 0.0);
  }
  const auto& d = c.derived;
  for (const auto& [name, val] : std::vector<std::pair<const char*, int64_t>>{{"uop_depth", d.uop_depth},
                                                                              {"inp_depth", d.inp_depth},
                                                                              {"wgt_depth", d.wgt_depth},
                                                                              {"acc_depth", d.acc_depth}})
    v.emplace_back(std::string("derived.") + name, static_cast<double>(val));
  v.emplace_back("mac_units", static_cast<double>(c.gemm.batch * c.gemm.block_in * c.gemm.block_out));
  return v;
}

}  // namespace

struct ConstraintSet::Impl {
  std::vector<Constraint> constraints;
  std::string source;
  std::deque<mu::Parser> parsers;
  std::map<std::string, double> storage;  // node-based: addresses stay valid
  std::vector<std::string> used;          // variable names of each constraint, for messages

  // Defines every variable a config has, and `extra`, on parser `p`.
  void define(mu::Parser& p, const std::vector<std::pair<std::string, double>>& extra) {
    p.DefineNameChars("0123456789_.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
    p.DefinePostfixOprt("KiB", kib);
    p.DefinePostfixOprt("MiB", mib);
    p.DefinePostfixOprt("GiB", gib);
    for (const auto& [k, v] : config_vars(default_config())) p.DefineVar(k, &storage[k]);
    // The estimate's resource columns (stage 0), e.g. "dsp <= 220".
    for (const auto& k : known_metrics())
      if (!is_metric_of_network(k)) p.DefineVar(k, &storage[k]);
    for (const auto& [k, v] : extra) p.DefineVar(k, &storage[k]);
  }
};

namespace {

// A constraint is a test: muParser would also take an assignment
// ("clock.mhz = 100" sets the variable and is always true), a bare value
// ("buffers.inp", true whenever it is not 0) or a list ("a < 1, b < 2", of
// which only the last counts). Each is refused, naming the constraint.
// Before muParser reads it: an assignment, named as such.
void check_no_assignment(const Constraint& c, const std::string& source) {
  const std::string& e = c.expr;
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] != '=') continue;
    const bool paired = (i + 1 < e.size() && e[i + 1] == '=') ||
                        (i > 0 && std::string_view("<>!=").find(e[i - 1]) != std::string_view::npos);
    if (!paired)
      fail("{}:{}: constraint '{}': '{}=' assigns a value; a constraint compares (write == to test equality)", source,
           c.line, e,
           i > 0 && std::string_view("+-*/").find(e[i - 1]) != std::string_view::npos ? e.substr(i - 1, 1) : "");
  }
}

// After muParser read it: one value, and a comparison.
void check_is_a_test(const Constraint& c, const std::string& source, const mu::Parser& p) {
  const std::string& e = c.expr;
  bool compares = false;
  for (size_t i = 0; i < e.size(); ++i) {
    if (e[i] == '<' || e[i] == '>') compares = true;
    if (e[i] == '!' && i + 1 < e.size() && e[i + 1] == '=') compares = true;
    if (e[i] == '=') compares = true;
  }
  if (p.GetNumResults() != 1)
    fail("{}:{}: constraint '{}': one comparison per constraint (give each as its own list item)", source, c.line, e);
  if (!compares)
    fail("{}:{}: constraint '{}': compares nothing (a constraint is a comparison such as 'dsp <= 220')", source, c.line,
         e);
}

}  // namespace

ConstraintSet::ConstraintSet(const std::vector<Constraint>& cs, const std::string& source)
    : impl_(std::make_unique<Impl>()) {
  impl_->constraints = cs;
  impl_->source = source;
  for (const auto& c : cs) {
    mu::Parser& p = impl_->parsers.emplace_back();
    impl_->define(p, {});
    check_no_assignment(c, source);
    try {
      p.SetExpr(c.expr);
      p.Eval();
    } catch (const mu::Parser::exception_type& e) {
      fail("{}:{}: constraint '{}': {}", source, c.line, c.expr, e.GetMsg());
    }
    check_is_a_test(c, source, p);
  }
}

ConstraintSet::~ConstraintSet() = default;

std::string ConstraintSet::violated(const Config& c, const std::vector<std::pair<std::string, double>>& extra) {
  for (const auto& [k, v] : config_vars(c)) impl_->storage[k] = v;
  for (const auto& [k, v] : extra) impl_->storage[k] = v;
  for (size_t i = 0; i < impl_->constraints.size(); ++i) {
    const Constraint& con = impl_->constraints[i];
    double r = 0;
    try {
      r = impl_->parsers[i].Eval();
    } catch (const mu::Parser::exception_type& e) {
      return fmt::format("constraint '{}' ({}:{}) cannot be evaluated: {}", con.expr, impl_->source, con.line,
                         e.GetMsg());
    }
    if (!(r != 0) || std::isnan(r)) {
      std::string vals;
      for (const auto& [name, ptr] : impl_->parsers[i].GetUsedVar())
        vals += fmt::format("{}{} = {}", vals.empty() ? "" : ", ", name, *ptr);
      return fmt::format("constraint '{}' ({}:{}) is false{}", con.expr, impl_->source, con.line,
                         vals.empty() ? "" : " with " + vals);
    }
  }
  return "";
}

void check_constraint(const Constraint& c, const std::string& source) { ConstraintSet({c}, source); }

}  // namespace vta::sweeps
