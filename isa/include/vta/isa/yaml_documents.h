#pragma once
// Loading YAML text as documents without yaml-cpp 0.7's YAML::LoadAll, which
// loops forever, allocating, when its parser reports a document without
// consuming any input (a stray ',' at the start of a line: yaml-cpp issue
// 1040, fixed upstream after 0.7). Found by tests/fuzz/fuzz_config; used by
// every YAML loader of the project (configs, sweep specs).
#include <yaml-cpp/yaml.h>

#include <string>

namespace vta {

struct YamlDocuments {
  YAML::Node first;         // the first document (null when there is none)
  size_t count = 0;         // documents found, at most two
  YAML::Mark second_start;  // where the second begins, when count == 2
};

/// The first document of `text`, and whether a second follows. Throws
/// YAML::ParserException for a syntax error, including a "document" that
/// starts where the previous one did (no input consumed).
YamlDocuments load_yaml_documents(const std::string& text);

}  // namespace vta
