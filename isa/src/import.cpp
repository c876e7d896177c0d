// Import of an upstream VTA vta_config.json (hardware version 0.0.2) as YAML.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

#include "vta/isa/config.h"
#include "vta/isa/error.h"
#include "vta/isa/json_error.h"

namespace vta {

std::string import_upstream_json(const std::string& json_text, const std::string& source) {
  nlohmann::json j;
  std::string duplicate;                       // the first key given twice in one object (JSON keeps the last silently)
  std::vector<std::vector<std::string>> keys;  // the keys of each open object
  auto watch = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (ev == E::object_start) keys.emplace_back();
    if (ev == E::object_end && !keys.empty()) keys.pop_back();
    if (ev == E::key && !keys.empty()) {
      const std::string k = parsed.get<std::string>();
      auto& open = keys.back();
      if (duplicate.empty() && std::find(open.begin(), open.end(), k) != open.end()) duplicate = k;
      open.push_back(k);
    }
    return true;
  };
  // nlohmann reads a std::string up to its first NUL: the bytes after one
  // would be ignored, and a JSON text has none.
  if (const auto nul = json_text.find('\0'); nul != std::string::npos)
    fail("{}:{}: a NUL byte; not a JSON text file", source,
         1 + std::count(json_text.begin(), json_text.begin() + static_cast<std::ptrdiff_t>(nul), '\n'));
  try {
    j = nlohmann::json::parse(json_text, watch);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e3001
    fail_json(source, e);
  }
  if (!duplicate.empty()) fail("{}: key '{}' is given twice", source, duplicate);
  if (!j.is_object()) fail("{}: expected a JSON object of upstream VTA parameters", source);
  static const char* kKnown[] = {"TARGET",
                                 "HW_VER",
                                 "LOG_INP_WIDTH",
                                 "LOG_WGT_WIDTH",
                                 "LOG_ACC_WIDTH",
                                 "LOG_BATCH",
                                 "LOG_BLOCK",
                                 "LOG_BLOCK_IN",
                                 "LOG_BLOCK_OUT",
                                 "LOG_UOP_BUFF_SIZE",
                                 "LOG_INP_BUFF_SIZE",
                                 "LOG_WGT_BUFF_SIZE",
                                 "LOG_ACC_BUFF_SIZE",
                                 "LOG_OUT_WIDTH",
                                 "LOG_BUS_WIDTH"};
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* k : kKnown) known |= it.key() == k;
    if (!known) fail("{}: unknown upstream VTA key '{}'", source, it.key());
  }
  auto get_log = [&](const char* key, int def, int lo, int hi) -> int64_t {
    if (!j.contains(key)) return int64_t{1} << def;
    if (!j[key].is_number_integer()) fail("{}: {} must be an integer", source, key);
    // Compared as written: 4294967296 must not wrap to 0 on the way to an int.
    if (j[key].is_number_unsigned() ? j[key].get<uint64_t>() > static_cast<uint64_t>(hi)
                                    : j[key].get<int64_t>() < lo || j[key].get<int64_t>() > hi)
      fail("{}: {} = {} is out of range [{}, {}]", source, key, j[key].dump(), lo, hi);
    return int64_t{1} << j[key].get<int64_t>();
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
  // TARGET becomes part of the design name in the YAML written below: a
  // plain word, so that nothing in it can end the line or add a key.
  if (j.contains("TARGET") && !j["TARGET"].is_string()) fail("{}: TARGET must be a string", source);
  const std::string target = j.value("TARGET", std::string("sim"));
  if (target.empty() || target.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
                            std::string::npos)
    fail("{}: TARGET {} must be a word of letters, digits, '_', '.' or '-'", source, j["TARGET"].dump());
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
  // The imported design must itself be valid; the error names the JSON file
  // and the key, not a line of the YAML it was turned into.
  static const std::string kYaml = "<imported>";
  try {
    load_config_text(yaml, kYaml);
  } catch (const Error& e) {
    std::string msg = e.what();
    if (msg.rfind(kYaml, 0) == 0) msg = msg.substr(std::min(msg.size(), msg.find(": ") + 2));
    fail("{}: the imported design is not valid: {}", source, msg);
  }
  return yaml;
}

}  // namespace vta
