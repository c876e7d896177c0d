# Turns Debian's libjs-chart.js (chart.min.js) into a C++ translation unit, so
# that every HTML report the library writes is self-contained and `vta`
# never reads /usr/share at run time.
# cmake -DIN=chart.min.js -DOUT=chartjs_source.cpp -P embed_chartjs.cmake
file(READ "${IN}" text)
string(FIND "${text}" ")chartjs\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )chartjs\"")
endif()
file(WRITE "${OUT}.tmp"
  "// GENERATED at build time from ${IN} by sweeps/embed_chartjs.cmake; do not edit.\n"
  "#include <string_view>\n"
  "namespace vta::sweeps {\n"
  "std::string_view chartjs_source() {\n"
  "  static const char text[] = R\"chartjs(${text})chartjs\";\n"
  "  return {text, sizeof(text) - 1};\n"
  "}\n"
  "}  // namespace vta::sweeps\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
