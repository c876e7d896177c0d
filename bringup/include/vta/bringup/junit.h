#pragma once
// The battery's results as JUnit XML (one testsuite per battery part, the
// backend, device and design as properties) for CI dashboards.
#include <string>

#include "vta/bringup/battery.h"

namespace vta::bringup {

std::string junit_xml(const Report& r);

}  // namespace vta::bringup
