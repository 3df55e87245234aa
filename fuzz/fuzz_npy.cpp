// SPDX-License-Identifier: MIT
// libFuzzer target: the .npy header parser on arbitrary bytes. Only NpyError may escape; any
// other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>

#include "npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto h = dfftapp::parse_npy_header(reinterpret_cast<const char*>(data), size);
    // A header that parsed must describe itself consistently.
    if (h.data_offset > size) __builtin_trap();
    (void)dfftapp::npy_describe(h);
  } catch (const dfftapp::NpyError&) {
  }
  return 0;
}
