// SPDX-License-Identifier: MIT
// The Python extension `dfft._dfft`: a thin layer over dfft::Plan<T>. It takes an mpi4py
// communicator (through its Fortran handle, so that building it needs no mpi4py), option names
// as strings (parsed by dfft itself, so the errors are dfft's), and runs transforms on raw data
// addresses. dfft/__init__.py checks the arrays (numpy, or __cuda_array_interface__ objects on
// the cuda backend) before it passes their addresses here; nothing in this file sees numpy or
// cupy. With the CUDA backend it also answers which GPU a pointer is on and waits for a consumer
// stream (cudart).
#include <mpi.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "dfft/build_info.hpp"
#include "dfft/dfft.hpp"
#include "dfft/option_fields.hpp"
#include "options.hpp"

#if defined(DFFT_HAS_CUDA)
#include <cuda_runtime.h>
#endif

namespace py = pybind11;

namespace {

using Shape = std::vector<std::int64_t>;
/// A user layout from Python: (lo, hi, order); an empty order means natural.
using PyLayout = std::tuple<Shape, Shape, std::vector<int>>;

dfft::Layout to_layout(const PyLayout& l) {
  dfft::Layout out;
  out.box.lo = std::get<0>(l);
  out.box.hi = std::get<1>(l);
  out.order = std::get<2>(l);
  if (out.order.empty())
    for (int a = 0; a < static_cast<int>(out.box.lo.size()); ++a) out.order.push_back(a);
  return out;
}

py::dict describe_layout(const dfft::Layout& l) {
  Shape alloc;  // allocated extent per global axis (padding included)
  for (int a = 0; a < l.box.dims(); ++a) alloc.push_back(l.alloc_extent(a));
  py::dict d;
  d["lo"] = l.box.lo;
  d["hi"] = l.box.hi;
  d["order"] = l.order;
  d["alloc"] = alloc;
  Shape offset;  // cells before the box per global axis (Options::input_halo)
  for (int a = 0; a < l.box.dims(); ++a) offset.push_back(l.offset_on(a));
  d["offset"] = offset;
  return d;
}

class PyPlan {
 public:
  PyPlan(const py::object& comm, const Shape& shape, const dfft::Options& opt, bool dbl,
         const std::optional<PyLayout>& in, const std::optional<PyLayout>& out) {
    MPI_Comm c = dfft_python::comm_of(comm);
    if (in.has_value() != out.has_value())
      throw py::value_error("give both input_layout and output_layout, or neither");
    py::gil_scoped_release unlocked;  // planning is collective: other Python threads may run
    if (in) {
      if (dbl)
        plan_ =
            std::make_unique<dfft::Plan<double>>(c, shape, to_layout(*in), to_layout(*out), opt);
      else
        plan_ = std::make_unique<dfft::Plan<float>>(c, shape, to_layout(*in), to_layout(*out), opt);
    } else {
      if (dbl)
        plan_ = std::make_unique<dfft::Plan<double>>(c, shape, opt);
      else
        plan_ = std::make_unique<dfft::Plan<float>>(c, shape, opt);
    }
  }

  // work: the caller's workspace (0: the plan's own buffers) of work_bytes bytes.
  void execute(bool forward, std::uintptr_t in, std::uintptr_t out, int batch, std::uintptr_t work,
               std::int64_t work_bytes) {
    open_or_throw();
    py::gil_scoped_release unlocked;
    const dfft::Workspace w{reinterpret_cast<void*>(work), work_bytes};
    if (w.data && batch != 1) throw py::value_error("work: a workspace is for one array, not a batch");
    std::visit([&](auto& p) { run(*p, forward, in, out, batch, w); }, plan_);
  }

  void prepare_batch(int batch) {
    open_or_throw();
    py::gil_scoped_release unlocked;  // collective
    std::visit([&](auto& p) { p->prepare_batch(batch); }, plan_);
  }

  // Frees the plan now, on every rank together (collective: one-sided windows and NCCL
  // communicators are freed collectively). Python's garbage collector may free a plan at
  // different moments on different ranks, so a program that drops plans with such resources
  // closes them instead. Closing twice does nothing.
  void close() {
    py::gil_scoped_release unlocked;
    std::visit([](auto& p) { p.reset(); }, plan_);
  }
  bool closed() const {
    return std::visit([](const auto& p) { return !p; }, plan_);
  }

  template <class F>
  auto with(F&& f) const {
    open_or_throw();
    return std::visit([&](const auto& p) { return f(*p); }, plan_);
  }

 private:
  void open_or_throw() const {
    if (closed()) throw py::value_error("this dfft plan was closed (Plan.close())");
  }

 public:

  // Plan memory (device memory on the cuda backend), for numpy arrays handed to a cuda plan.
  std::uintptr_t allocate(std::size_t bytes) const {
    return with([&](auto& q) { return reinterpret_cast<std::uintptr_t>(q.allocate(bytes)); });
  }
  void deallocate(std::uintptr_t p) const {
    with([&](auto& q) { q.deallocate(reinterpret_cast<void*>(p)); });
  }
  void upload(std::uintptr_t dst, std::uintptr_t host_src, std::size_t bytes) const {
    py::gil_scoped_release unlocked;
    with([&](auto& q) {
      q.upload(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(host_src), bytes);
    });
  }
  void download(std::uintptr_t host_dst, std::uintptr_t src, std::size_t bytes) const {
    py::gil_scoped_release unlocked;
    with([&](auto& q) {
      q.download(reinterpret_cast<void*>(host_dst), reinterpret_cast<const void*>(src), bytes);
    });
  }

 private:
  template <class T>
  static void run(dfft::Plan<T>& p, bool forward, std::uintptr_t i, std::uintptr_t o, int batch,
                  dfft::Workspace w) {
    using C = std::complex<T>;
    auto fwd = [&](auto* a, auto* b) {
      if (batch == p.options().batch)
        p.forward(a, b, w);
      else
        p.forward(batch, a, b);
    };
    auto inv = [&](auto* a, auto* b) {
      if (batch == p.options().batch)
        p.inverse(a, b, w);
      else
        p.inverse(batch, a, b);
    };
    auto* ri = reinterpret_cast<T*>(i);
    auto* ro = reinterpret_cast<T*>(o);
    auto* ci = reinterpret_cast<C*>(i);
    auto* co = reinterpret_cast<C*>(o);
    switch (p.options().transform) {
      case dfft::Transform::r2c: forward ? fwd(ri, co) : inv(ci, ro); break;
      case dfft::Transform::c2c: forward ? fwd(ci, co) : inv(ci, co); break;
      case dfft::Transform::r2r: forward ? fwd(ri, ro) : inv(ri, ro); break;
    }
  }

  std::variant<std::unique_ptr<dfft::Plan<float>>, std::unique_ptr<dfft::Plan<double>>> plan_;
};

dfft::Options make_options(const std::string& decomposition, const std::string& variant,
                           const std::vector<std::string>& methods, const std::string& transform,
                           const std::vector<int>& grid, const std::string& norm,
                           const std::vector<std::string>& r2r, const std::string& backend,
                           const std::string& effort, const std::optional<std::string>& fftw_wisdom,
                           int device) {
  dfft::Options o;
  o.decomposition = dfft::parse_decomposition(decomposition);
  o.variant = dfft::parse_variant(variant);
  o.methods.clear();
  for (const auto& m : methods) o.methods.push_back(dfft::parse_method(m));
  o.transform = dfft::parse_transform(transform);
  o.grid = grid;
  o.norm = dfft::parse_norm(norm);
  o.fftw_wisdom = fftw_wisdom.has_value();  // None: off; "": the default directory
  o.fftw_wisdom_dir = fftw_wisdom.value_or("");
  for (const auto& k : r2r) o.r2r.push_back(dfft::parse_r2r(k));
  o.backend = dfft::parse_backend(backend);
  dfft::set_option(o, "effort", effort);  // the option table's names; InvalidArgument lists them
  o.device = device;
  return o;
}

#if defined(DFFT_HAS_CUDA)
[[noreturn]] void cuda_failed(const char* call, cudaError_t e) {
  cudaGetLastError();  // a failed runtime call stays the "last error" until read: clear it
  throw std::runtime_error(std::string(call) + " failed: " + cudaGetErrorString(e));
}
#endif

/// The device ordinal of device (or managed) memory at `ptr`; ValueError for anything else.
int pointer_device(std::uintptr_t ptr) {
#if defined(DFFT_HAS_CUDA)
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(ptr));
  if (e != cudaSuccess) cuda_failed("cudaPointerGetAttributes", e);
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    throw py::value_error("the array's data are not in CUDA device memory");
  return a.device;
#else
  (void)ptr;
  throw py::value_error("dfft was built without the CUDA backend");
#endif
}

/// Wait for a __cuda_array_interface__ stream (1: legacy default stream, 2: per-thread default
/// stream, else a cudaStream_t; the runtime takes the same values) of GPU `device`.
void stream_synchronize(std::uintptr_t stream, int device) {
#if defined(DFFT_HAS_CUDA)
  py::gil_scoped_release unlocked;
  int previous = 0;
  cudaError_t e = cudaGetDevice(&previous);
  if (e != cudaSuccess) cuda_failed("cudaGetDevice", e);
  if ((e = cudaSetDevice(device)) != cudaSuccess) cuda_failed("cudaSetDevice", e);
  e = cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream));
  cudaSetDevice(previous);
  if (e != cudaSuccess) cuda_failed("cudaStreamSynchronize", e);
#else
  (void)stream;
  (void)device;
  throw py::value_error("dfft was built without the CUDA backend");
#endif
}

/// Visible CUDA devices; 0 without a driver or device, or without the CUDA backend.
int cuda_device_count() {
#if defined(DFFT_HAS_CUDA)
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
#else
  return 0;
#endif
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find_first_of(std::string("\n\0", 2)));  // as dfft::mpi_library_version()
}

/// mpi4py's binary wheels choose an MPI library when mpi4py.MPI is first imported (libmpi.so,
/// then MPICH's libmpi.so.12, then Open MPI's libmpi.so.40), so a process can hold mpi4py on one
/// MPI and dfft on another; mpi4py's handles then mean nothing to dfft's MPI and the first
/// collective would crash. Two copies of one library version differ in their MPI_COMM_WORLD only.
void check_same_mpi() {
  std::string built_with = "(not recorded)";
  try {
    built_with = py::str(py::module_::import("dfft._mpi_library").attr("MPI_LIBRARY"));
  } catch (const py::error_already_set&) {
  }
  const py::module_ mpi = py::module_::import("mpi4py.MPI");
  const std::string theirs = first_line(py::str(mpi.attr("Get_library_version")()));
  const std::string ours = dfft::mpi_library_version();
  if (theirs == ours && dfft_python::comm_of(mpi.attr("COMM_WORLD")) == MPI_COMM_WORLD) return;
  throw py::import_error(
      "dfft and mpi4py use different MPI libraries in this process (dfft: " + ours + ", built with " +
      built_with + "; mpi4py " + std::string(py::str(py::module_::import("mpi4py").attr("__version__"))) +
      ": " + theirs +
      "). Import dfft before mpi4py (dfft then makes mpi4py load its MPI), set MPI4PY_LIBMPI to "
      "that library, use an mpi4py built against it (e.g. Debian's python3-mpi4py in a venv made "
      "with --system-site-packages), or rebuild dfft against mpi4py's MPI (docs/python.md).");
}

}  // namespace

void bind_io(py::module_& m);  // io.cpp: dfft.io's native part

PYBIND11_MODULE(_dfft, m) {
  m.doc() = "dfft extension module; use the dfft package (dfft.Plan), not this directly";
  check_same_mpi();
  // dfft.Error and one subclass per dfft::Error class: pybind11 tries the translators last
  // registered first, so a subclass is raised as itself and anything else as Error.
  const auto error = py::register_exception<dfft::Error>(m, "Error", PyExc_RuntimeError);
  py::register_exception<dfft::InvalidArgument>(m, "InvalidArgument", error.ptr());
  py::register_exception<dfft::Unsupported>(m, "Unsupported", error.ptr());
  py::register_exception<dfft::OutOfMemory>(m, "OutOfMemory", error.ptr());
  py::register_exception<dfft::MpiError>(m, "MpiError", error.ptr());
  py::register_exception<dfft::LibraryError>(m, "LibraryError", error.ptr());
#if defined(DFFT_HAS_CUDA)
  m.attr("has_cuda") = true;
#else
  m.attr("has_cuda") = false;
#endif
  m.def("cuda_device_count", &cuda_device_count);
  m.def("option_fields", &dfft_python::option_fields_list,
        "The rows of dfft's option table: name, group, type, allowed, doc, flag, wisdom_key, "
        "wisdom_key_resolved, c_field, c_absent, record, default (docs/options.md)");
  m.def("build_info", [] {
    const dfft::BuildInfo b = dfft::build_info();
    py::dict d;
    d["version"] = b.version;
    d["cuda"] = b.cuda;
    d["nccl"] = b.nccl;
    d["nccl_version"] = b.nccl_version;
    d["mpi_library"] = b.mpi_library;
    d["mpi_cuda_aware"] = b.mpi_cuda_aware;
    d["fftw_version"] = b.fftw_version;
    d["wisdom_dir"] = b.wisdom_dir;
    d["wisdom_file"] = b.wisdom_file;
    d["fftw_wisdom_file"] = b.fftw_wisdom_file;
    d["fftwf_wisdom_file"] = b.fftwf_wisdom_file;
    return d;
  });
  dfft_python::bind_reshape(m);
  dfft_python::bind_halo(m);
  m.def("pointer_device", &pointer_device, py::arg("ptr"));
  m.def("stream_synchronize", &stream_synchronize, py::arg("stream"), py::arg("device"));
  bind_io(m);

  py::class_<PyPlan>(m, "_Plan")
      .def(py::init([](const py::object& comm, const Shape& shape, const std::string& decomposition,
                       const std::string& variant, const std::vector<std::string>& methods,
                       const std::string& transform, const std::string& precision,
                       const std::vector<int>& grid, const std::string& norm,
                       const std::vector<std::string>& r2r, const std::string& backend,
                       const std::string& effort, const std::optional<std::string>& fftw_wisdom,
                       int device, const std::optional<PyLayout>& in,
                       const std::optional<PyLayout>& out, std::int64_t memory_limit_bytes,
                       const py::dict& extra) {
             if (precision != "double" && precision != "float")
               throw py::value_error("precision must be 'double' or 'float', got '" + precision +
                                     "'");
             auto o = make_options(decomposition, variant, methods, transform, grid, norm, r2r,
                                   backend, effort, fftw_wisdom, device);
             o.memory_limit_bytes = memory_limit_bytes;
             dfft_python::apply_options(o, extra);
             return std::make_unique<PyPlan>(comm, shape, o, precision == "double", in, out);
           }),
           py::arg("comm"), py::arg("shape"), py::arg("decomposition"), py::arg("variant"),
           py::arg("methods"), py::arg("transform"), py::arg("precision"), py::arg("grid"),
           py::arg("norm"), py::arg("r2r"), py::arg("backend"), py::arg("effort"),
           py::arg("fftw_wisdom"), py::arg("device"), py::arg("input_layout"), py::arg("output_layout"),
           py::arg("memory_limit_bytes"), py::arg("extra") = py::dict())
      .def("execute", &PyPlan::execute, py::arg("forward"), py::arg("src"), py::arg("dst"),
           py::arg("batch"), py::arg("work"), py::arg("work_bytes"))
      .def("workspace_bytes", [](const PyPlan& p) { return p.with([](auto& q) { return q.workspace_bytes(); }); })
      .def("prepare_batch", &PyPlan::prepare_batch, py::arg("batch"))
      .def("close", &PyPlan::close)
      .def_property_readonly("closed", &PyPlan::closed)
      .def("allocate", &PyPlan::allocate, py::arg("bytes"))
      .def("deallocate", &PyPlan::deallocate, py::arg("ptr"))
      .def("upload", &PyPlan::upload, py::arg("dst"), py::arg("host_src"), py::arg("bytes"))
      .def("download", &PyPlan::download, py::arg("host_dst"), py::arg("src"), py::arg("bytes"))
      .def("input_layout",
           [](const PyPlan& p) {
             return p.with([](auto& q) { return describe_layout(q.input_layout()); });
           })
      .def("output_layout",
           [](const PyPlan& p) {
             return p.with([](auto& q) { return describe_layout(q.output_layout()); });
           })
      .def("shape", [](const PyPlan& p) { return p.with([](auto& q) { return q.shape(); }); })
      .def("spectral_shape",
           [](const PyPlan& p) { return p.with([](auto& q) { return q.spectral_shape(); }); })
      .def("physical_shape",
           [](const PyPlan& p) { return p.with([](auto& q) { return q.physical_shape(); }); })
      .def("grid", [](const PyPlan& p) { return p.with([](auto& q) { return q.grid(); }); })
      .def("describe", [](const PyPlan& p) { return p.with([](auto& q) { return q.describe(); }); })
      .def("options",
           [](const PyPlan& p) {
             return p.with([](auto& q) { return dfft_python::options_dict(q.options()); });
           })
      .def("info",
           [](const PyPlan& p) { return p.with([](auto& q) { return dfft_python::plan_info(q); }); })
      .def("device", [](const PyPlan& p) { return p.with([](auto& q) { return q.device(); }); })
      .def("memory",
           [](const PyPlan& p) {
             return p.with([](auto& q) {
               const dfft::Memory mem = q.memory();
               return std::pair{mem.host_bytes, mem.device_bytes};
             });
           })
      .def("timings", [](const PyPlan& p) {
        return p.with([](auto& q) {
          py::list out;
          for (const auto& t : q.timings()) {
            py::dict d;
            d["name"] = t.name;
            d["fft"] = t.fft;
            d["pack"] = t.pack;
            d["comm"] = t.comm;
            d["unpack"] = t.unpack;
            d["wall"] = t.wall;
            d["slices"] = t.slices;
            out.append(d);
          }
          return out;
        });
      });
}
