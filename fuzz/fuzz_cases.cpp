// SPDX-License-Identifier: MIT
// libFuzzer target: the JSON test-case reader (docs/cases.md) on arbitrary text. Only CaseError
// may escape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cases.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)dfftapp::parse_cases_json(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const dfftapp::CaseError&) {
  }
  return 0;
}
