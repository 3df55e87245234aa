// SPDX-License-Identifier: MIT
// libFuzzer target: the .npy header parser on arbitrary bytes. Only dfft::InvalidArgument may
// escape; any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>

#include "dfft/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto h = dfft::io::parse_npy_header(reinterpret_cast<const char*>(data), size);
    // A header that parsed must describe itself consistently.
    if (h.data_offset < 0 || static_cast<std::size_t>(h.data_offset) > size) __builtin_trap();
    (void)dfft::io::to_string(h.dtype);
  } catch (const dfft::InvalidArgument&) {
  }
  return 0;
}
