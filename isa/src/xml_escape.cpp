#include "vta/isa/xml_escape.h"

namespace vta {

std::string xml_escape(std::string_view text) {
  std::string o;
  o.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        o += "&amp;";
        break;
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '"':
        o += "&quot;";
        break;
      case '\'':
        o += "&#39;";  // &apos; is not an HTML 4 entity
        break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t')
          o += ' ';
        else
          o += ch;
    }
  }
  return o;
}

}  // namespace vta
