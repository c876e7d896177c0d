#pragma once
// The Fmax estimate of a design on a family (internal; see fmax.cpp).
#include "vta/estimate/estimate.h"

namespace vta::estimate {

Fmax estimate_fmax(const Config& c, Family f);

}  // namespace vta::estimate
