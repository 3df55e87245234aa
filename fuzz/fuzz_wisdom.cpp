// SPDX-License-Identifier: MIT
// libFuzzer target: the wisdom reader on arbitrary text. Only dfft::Error may escape; entries
// that are malformed are skipped, never trusted.
#include <cstddef>
#include <cstdint>
#include <string>

#include "dfft/tune.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto w = dfft::parse_wisdom(std::string(reinterpret_cast<const char*>(data), size));
    (void)dfft::to_json(w);  // what was accepted must also be writable
  } catch (const dfft::Error&) {
  }
  return 0;
}
