// Import of an upstream VTA vta_config.json (hardware version 0.0.2) as YAML.
#include <nlohmann/json.hpp>

#include "vta/isa/config.h"
#include "vta/isa/error.h"

namespace vta {

std::string import_upstream_json(const std::string& json_text, const std::string& source) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    fail("{}: not valid JSON: {}", source, e.what());
  }
  if (!j.is_object()) fail("{}: expected a JSON object of upstream VTA parameters", source);
  static const char* kKnown[] = {"TARGET", "HW_VER", "LOG_INP_WIDTH", "LOG_WGT_WIDTH", "LOG_ACC_WIDTH",
                                 "LOG_BATCH", "LOG_BLOCK", "LOG_BLOCK_IN", "LOG_BLOCK_OUT", "LOG_UOP_BUFF_SIZE",
                                 "LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE", "LOG_OUT_WIDTH",
                                 "LOG_BUS_WIDTH"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known |= it.key() == k;
    if (!known) fail("{}: unknown upstream VTA key '{}'", source, it.key());
  }
  auto get_log = [&](const char* key, int def, int lo, int hi) -> int64_t {
    if (!j.contains(key)) return int64_t{1} << def;
    if (!j[key].is_number_integer()) fail("{}: {} must be an integer", source, key);
    int v = j[key].get<int>();
    if (v < lo || v > hi) fail("{}: {} = {} is out of range [{}, {}]", source, key, v, lo, hi);
    return int64_t{1} << v;
  };
  if (j.contains("HW_VER") && j["HW_VER"] != "0.0.2")
    fail("{}: HW_VER = {} is not supported; vta-lab is bit-compatible with upstream hardware version 0.0.2", source,
         j["HW_VER"].dump());
  int64_t inp = get_log("LOG_INP_WIDTH", 3, 0, 6), wgt = get_log("LOG_WGT_WIDTH", 3, 0, 6);
  int64_t acc = get_log("LOG_ACC_WIDTH", 5, 0, 6), out = get_log("LOG_OUT_WIDTH", 3, 0, 6);
  int64_t batch = get_log("LOG_BATCH", 0, 0, 6);
  int64_t block = get_log("LOG_BLOCK", 4, 0, 8);
  int64_t block_in = j.contains("LOG_BLOCK_IN") ? get_log("LOG_BLOCK_IN", 4, 0, 8) : block;
  int64_t block_out = j.contains("LOG_BLOCK_OUT") ? get_log("LOG_BLOCK_OUT", 4, 0, 8) : block;
  std::string target = j.value("TARGET", std::string("sim"));
  std::string yaml = fmt::format(
      "# Imported from upstream VTA {} by `vta config import`.\n"
      "name: upstream-{}-{}x{}x{}\n"
      "gemm:\n  batch: {}\n  block_in: {}\n  block_out: {}\n"
      "dtype:\n  inp_bits: {}\n  wgt_bits: {}\n  acc_bits: {}\n  out_bits: {}\n"
      "buffers:\n  uop: {}\n  inp: {}\n  wgt: {}\n  acc: {}\n"
      "alu:\n  lanes: {}\n",
      source, target, batch, block_in, block_out, batch, block_in, block_out, inp, wgt, acc, out,
      format_size(get_log("LOG_UOP_BUFF_SIZE", 15, 2, 30)), format_size(get_log("LOG_INP_BUFF_SIZE", 15, 0, 30)),
      format_size(get_log("LOG_WGT_BUFF_SIZE", 18, 0, 30)), format_size(get_log("LOG_ACC_BUFF_SIZE", 17, 0, 30)),
      std::min<int64_t>(16, batch * block_out));
  if (j.contains("LOG_BUS_WIDTH")) yaml += fmt::format("memory:\n  bus_bits: {}\n", get_log("LOG_BUS_WIDTH", 6, 3, 12));
  load_config_text(yaml, source);  // the imported design must itself be valid
  return yaml;
}

}  // namespace vta
