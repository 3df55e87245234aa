// SPDX-License-Identifier: MIT
// dfft.io's native part: dfft::io::write_npy / read_npy / read_npy_header on raw addresses.
// dfft/io.py checks the numpy arrays and agrees on that check across ranks before it calls these;
// the communicator arrives as its Fortran handle (mpi4py's Comm.py2f()).
#include <mpi.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "dfft/io.hpp"

namespace py = pybind11;

namespace {

using Shape = std::vector<std::int64_t>;

dfft::io::Dtype parse_dtype(const std::string& name) {
  for (auto t : {dfft::io::Dtype::float32, dfft::io::Dtype::float64, dfft::io::Dtype::complex64,
                 dfft::io::Dtype::complex128})
    if (to_string(t) == name) return t;
  throw py::value_error("dtype must be float32, float64, complex64 or complex128, got " + name);
}

dfft::Layout layout(const Shape& lo, const Shape& hi, const std::vector<int>& order, const Shape& padded) {
  dfft::Layout l;
  l.box.lo = lo;
  l.box.hi = hi;
  l.order = order;
  l.padded = padded;
  return l;
}

void npy_write(MPI_Fint comm, const std::string& path, const Shape& shape, const std::string& dtype, const Shape& lo,
               const Shape& hi, const std::vector<int>& order, const Shape& padded, std::uintptr_t data, bool atomic) {
  const auto t = parse_dtype(dtype);
  const auto l = layout(lo, hi, order, padded);
  dfft::io::WriteOptions w;
  w.atomic = atomic;
  py::gil_scoped_release unlocked;  // collective
  dfft::io::write_npy(MPI_Comm_f2c(comm), path, shape, t, l, reinterpret_cast<const void*>(data), w);
}

void npy_read(MPI_Fint comm, const std::string& path, const Shape& shape, const std::string& dtype, const Shape& lo,
          const Shape& hi, const std::vector<int>& order, const Shape& padded, std::uintptr_t data) {
  const auto t = parse_dtype(dtype);
  const auto l = layout(lo, hi, order, padded);
  py::gil_scoped_release unlocked;
  dfft::io::read_npy(MPI_Comm_f2c(comm), path, shape, t, l, reinterpret_cast<void*>(data));
}

std::tuple<Shape, std::string, bool> npy_header(MPI_Fint comm, const std::string& path) {
  dfft::io::NpyHeader h;
  {
    py::gil_scoped_release unlocked;
    h = dfft::io::read_npy_header(MPI_Comm_f2c(comm), path);
  }
  return {h.shape, to_string(h.dtype), h.fortran_order};
}

}  // namespace

void bind_io(py::module_& m) {
  m.def("_npy_write", &npy_write, py::arg("comm"), py::arg("path"), py::arg("shape"), py::arg("dtype"), py::arg("lo"),
        py::arg("hi"), py::arg("order"), py::arg("padded"), py::arg("data"), py::arg("atomic"));
  m.def("_npy_read", &npy_read, py::arg("comm"), py::arg("path"), py::arg("shape"), py::arg("dtype"), py::arg("lo"),
        py::arg("hi"), py::arg("order"), py::arg("padded"), py::arg("data"));
  m.def("_npy_header", &npy_header, py::arg("comm"), py::arg("path"));
}
