#include "base/config.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/error.hpp"

namespace rmpl::base {

std::uint64_t env_size(const char* name, std::uint64_t fallback, std::uint64_t min,
                       std::uint64_t max) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = std::strtoull(text, &end, 10);
  bool ok = errno == 0 && end != text && text[0] != '-';
  if (ok) {
    std::uint64_t scale = 1;
    switch (*end) {
      case 'k':
      case 'K':
        scale = 1ull << 10;
        ++end;
        break;
      case 'm':
      case 'M':
        scale = 1ull << 20;
        ++end;
        break;
      case 'g':
      case 'G':
        scale = 1ull << 30;
        ++end;
        break;
      default:
        break;
    }
    ok = *end == '\0' && value <= max / scale;
    value *= scale;
  }
  if (!ok || value < min || value > max) {
    fail(errc::invalid_argument,
         "{}={} is not a valid size (expected a whole number from {} to {})", name, text, min, max);
  }
  return value;
}

int env_tristate(const char* name) {
  std::string value = env_string(name, "auto");
  if (value == "auto" || value.empty()) return -1;
  if (value == "0" || value == "off" || value == "no" || value == "false") return 0;
  if (value == "1" || value == "on" || value == "yes" || value == "true") return 1;
  fail(errc::invalid_argument, "{}={} is not valid (expected auto, 0 or 1)", name, value);
}

std::string env_string(const char* name, const std::string& fallback) {
  const char* text = std::getenv(name);
  return text ? std::string(text) : fallback;
}

}  // namespace rmpl::base
