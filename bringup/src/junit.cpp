// JUnit XML of a bring-up report (see junit.h).
#include "vta/bringup/junit.h"

#include <algorithm>

#include <fmt/format.h>

#include "vta/isa/xml_escape.h"

namespace vta::bringup {

using Status = CaseResult::Status;

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
    for (const auto& [k, v] : {std::pair<const char*, std::string>{"backend", r.backend},
                               {"device", r.device},
                               {"config", r.config},
                               {"config_hash", r.config_hash},
                               {"race_check", r.race_text()}})
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
