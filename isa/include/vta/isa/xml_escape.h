#pragma once
// Text made safe for XML and HTML (element content and quoted attribute
// values): the five markup characters become entities, and control
// characters other than newline and tab (invalid in XML 1.0) become spaces.
// The one escape of the JUnit writer (bringup/) and the HTML reports
// (sweeps/). Tests: XmlEscape.* in tests/test_bringup.cpp.
#include <string>
#include <string_view>

namespace vta {

std::string xml_escape(std::string_view text);

}  // namespace vta
