// SPDX-License-Identifier: MIT
// .npy files of a plan's input or output side: the plan's global shape, dtype and layout.
#include "dfft/io.hpp"

namespace dfft::io {

template <class T>
std::vector<std::int64_t> side_shape(const Plan<T>& plan, Side side) {
  return side == Side::input ? plan.shape() : plan.spectral_shape();
}

template <class T>
Dtype side_dtype(const Plan<T>& plan, Side side) {
  const Transform t = plan.options().transform;
  const bool real = t == Transform::r2r || (t == Transform::r2c && side == Side::input);
  return real ? dtype_of<T>() : dtype_of<std::complex<T>>();
}

template <class T>
void write_npy(const Plan<T>& plan, Side side, const std::string& path, const void* data, const WriteOptions& options) {
  const Layout& l = side == Side::input ? plan.input_layout() : plan.output_layout();
  write_npy(plan.comm(), path, side_shape(plan, side), side_dtype(plan, side), l, data, options);
}

template <class T>
void read_npy(const Plan<T>& plan, Side side, const std::string& path, void* data) {
  const Layout& l = side == Side::input ? plan.input_layout() : plan.output_layout();
  read_npy(plan.comm(), path, side_shape(plan, side), side_dtype(plan, side), l, data);
}

#define DFFT_IO_INSTANTIATE(T)                                                                          \
  template std::vector<std::int64_t> side_shape(const Plan<T>&, Side);                                 \
  template Dtype side_dtype(const Plan<T>&, Side);                                                      \
  template void write_npy(const Plan<T>&, Side, const std::string&, const void*, const WriteOptions&); \
  template void read_npy(const Plan<T>&, Side, const std::string&, void*);
DFFT_IO_INSTANTIATE(float)
DFFT_IO_INSTANTIATE(double)
#undef DFFT_IO_INSTANTIATE

}  // namespace dfft::io
