# Turns the OpenCL kernel source into a C++ translation unit, so that the
# library carries the kernel and never reads the source tree at run time.
# cmake -DIN=vta.cl -DOUT=vta_cl_source.cpp -P embed.cmake
file(READ "${IN}" text)
string(FIND "${text}" ")vta_cl\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw-string delimiter )vta_cl\"")
endif()
file(WRITE "${OUT}.tmp"
  "// GENERATED at build time from kernels/vta.cl by kernels/embed.cmake; do not edit.\n"
  "#include \"vta/kernels/opencl.h\"\n"
  "namespace vta::opencl {\n"
  "std::string_view embedded_kernel_source() {\n"
  "  static const char text[] = R\"vta_cl(${text})vta_cl\";\n"
  "  return {text, sizeof(text) - 1};\n"
  "}\n"
  "}  // namespace vta::opencl\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
