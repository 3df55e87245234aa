// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <mpi.h>
#include <mpi4py/mpi4py.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "dfft/halo.hpp"
#include "dfft/reshape.hpp"

namespace py = pybind11;

namespace dfft_python {
namespace {

using Setter = std::function<void(dfft::Options&, const py::handle&)>;

template <class V>
V as(const py::handle& v, const std::string& key) {
  try {
    return v.cast<V>();
  } catch (const py::cast_error&) {
    throw py::type_error(key + ": expected " + py::type_id<V>() + ", got " +
                         std::string(py::str(py::type::of(v).attr("__name__"))));
  }
}

/// One setter per Options field that the core keywords of _Plan (module.cpp) do not set.
const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> s = {
      {"codec", [](dfft::Options& o, const py::handle& v) {
         o.codec = dfft::parse_codec(as<std::string>(v, "codec"));
       }},
      {"tolerance", [](dfft::Options& o, const py::handle& v) { o.tolerance = as<double>(v, "tolerance"); }},
      {"onesided_sync", [](dfft::Options& o, const py::handle& v) {
         o.onesided_sync = dfft::parse_onesided_sync(as<std::string>(v, "onesided_sync"));
       }},
      {"chunks", [](dfft::Options& o, const py::handle& v) { o.chunks = as<int>(v, "chunks"); }},
      {"in_flight", [](dfft::Options& o, const py::handle& v) { o.in_flight = as<int>(v, "in_flight"); }},
      {"overlap", [](dfft::Options& o, const py::handle& v) { o.overlap = as<int>(v, "overlap"); }},
      {"adapt", [](dfft::Options& o, const py::handle& v) { o.adapt = as<bool>(v, "adapt"); }},
      {"threads", [](dfft::Options& o, const py::handle& v) { o.threads = as<int>(v, "threads"); }},
      {"max_message_bytes", [](dfft::Options& o, const py::handle& v) {
         o.max_message_bytes = as<std::int64_t>(v, "max_message_bytes");
       }},
      {"staging", [](dfft::Options& o, const py::handle& v) {
         o.staging = dfft::parse_staging(as<std::string>(v, "staging"));
       }},
      {"batch", [](dfft::Options& o, const py::handle& v) { o.batch = as<int>(v, "batch"); }},
      {"in_place", [](dfft::Options& o, const py::handle& v) { o.in_place = as<bool>(v, "in_place"); }},
      {"transposed_out", [](dfft::Options& o, const py::handle& v) {
         o.transposed_out = as<bool>(v, "transposed_out");
       }},
      {"tune", [](dfft::Options& o, const py::handle& v) {
         o.tune = dfft::parse_tune(as<std::string>(v, "tune"));
       }},
      {"wisdom_file", [](dfft::Options& o, const py::handle& v) {
         o.wisdom_file = as<std::string>(v, "wisdom_file");
       }},
      {"tune_budget_s", [](dfft::Options& o, const py::handle& v) {
         o.tune_budget_s = as<double>(v, "tune_budget_s");
       }},
      {"ranks_per_node", [](dfft::Options& o, const py::handle& v) {
         o.ranks_per_node = as<std::vector<int>>(v, "ranks_per_node");
       }},
      {"batches", [](dfft::Options& o, const py::handle& v) {
         o.batches = as<std::vector<int>>(v, "batches");
       }},
      {"stream", [](dfft::Options& o, const py::handle& v) {
         o.stream = reinterpret_cast<void*>(as<std::uintptr_t>(v, "stream"));
       }},
      {"user_workspace", [](dfft::Options& o, const py::handle& v) {
         o.user_workspace = as<bool>(v, "user_workspace");
       }},
      {"axes", [](dfft::Options& o, const py::handle& v) { o.axes = as<std::vector<int>>(v, "axes"); }},
      {"padding", [](dfft::Options& o, const py::handle& v) {
         o.padding = as<std::vector<double>>(v, "padding");
       }},
      {"input_halo", [](dfft::Options& o, const py::handle& v) {
         auto [lo, hi] = as<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>(v, "input_halo");
         o.input_halo = {lo, hi};
       }},
      {"output_halo", [](dfft::Options& o, const py::handle& v) {
         auto [lo, hi] = as<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>(v, "output_halo");
         o.output_halo = {lo, hi};
       }},
  };
  return s;
}

template <class E>
std::vector<std::string> names(const std::vector<E>& v) {
  std::vector<std::string> out;
  for (const E& e : v) out.push_back(dfft::to_string(e));
  return out;
}

}  // namespace

void apply_options(dfft::Options& o, const py::dict& extra) {
  for (const auto& [key, value] : extra) {
    const std::string k = py::str(key);
    const auto it = setters().find(k);
    if (it == setters().end()) throw py::value_error("unknown plan option '" + k + "'");
    it->second(o, value);
  }
}

py::dict options_dict(const dfft::Options& o) {
  py::dict d;
  d["decomposition"] = dfft::to_string(o.decomposition);
  d["variant"] = dfft::to_string(o.variant);
  d["transform"] = dfft::to_string(o.transform);
  d["r2r"] = names(o.r2r);
  d["grid"] = o.grid;
  d["methods"] = names(o.methods);
  d["effort"] = o.effort == dfft::Effort::measure ? "measure" : "estimate";
  d["fftw_wisdom"] = o.fftw_wisdom;
  d["fftw_wisdom_dir"] = o.fftw_wisdom_dir;
  d["backend"] = dfft::to_string(o.backend);
  d["norm"] = dfft::to_string(o.norm);
  d["codec"] = dfft::to_string(o.codec);
  d["tolerance"] = o.tolerance;
  d["onesided_sync"] = dfft::to_string(o.onesided_sync);
  d["chunks"] = o.chunks;
  d["in_flight"] = o.in_flight;
  d["overlap"] = o.overlap;
  d["adapt"] = o.adapt;
  d["threads"] = o.threads;
  d["max_message_bytes"] = o.max_message_bytes;
  d["device"] = o.device;
  d["staging"] = dfft::to_string(o.staging);
  d["batch"] = o.batch;
  d["in_place"] = o.in_place;
  d["transposed_out"] = o.transposed_out;
  // (below, above) per axis, hi spelled out; ((), ()) for a dense array.
  for (auto [key, w] : {std::pair{"input_halo", &o.input_halo}, std::pair{"output_halo", &o.output_halo}})
    d[key] = py::make_tuple(w->lo, w->hi.empty() ? w->lo : w->hi);
  d["tune"] = dfft::to_string(o.tune);
  d["wisdom_file"] = o.wisdom_file;
  d["tune_budget_s"] = o.tune_budget_s;
  d["ranks_per_node"] = o.ranks_per_node;
  d["memory_limit_bytes"] = o.memory_limit_bytes;
  d["batches"] = o.batches;
  d["stream"] = reinterpret_cast<std::uintptr_t>(o.stream);
  d["user_workspace"] = o.user_workspace;
  d["axes"] = o.axes;
  d["padding"] = o.padding;
  return d;
}

py::dict traffic_dict(const dfft::NodeTraffic& t) {
  py::dict d;
  d["intra_node_messages"] = t.intra_node_messages;
  d["intra_node_bytes"] = t.intra_node_bytes;
  d["inter_node_messages"] = t.inter_node_messages;
  d["inter_node_bytes"] = t.inter_node_bytes;
  return d;
}

py::object tune_dict(const dfft::TuneReport* r) {
  if (!r) return py::none();
  py::dict d;
  d["mode"] = dfft::to_string(r->mode);
  d["chosen"] = dfft::tune_label(r->chosen);
  d["winner"] = r->winner;
  py::list cands;
  for (const auto& c : r->candidates) {
    py::dict cd;
    cd["label"] = c.label;
    cd["status"] = dfft::to_string(c.status);
    cd["median"] = c.median;
    cands.append(cd);
  }
  d["candidates"] = cands;
  d["wisdom_hit"] = r->wisdom_hit;
  d["wisdom_written"] = r->wisdom_written;
  d["warnings"] = r->warnings;
  d["seconds"] = r->seconds;
  d["summary"] = dfft::describe(*r);
  return d;
}

namespace {

MPI_Comm comm_of(const py::object& comm);

dfft::Layout layout_of(const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi,
                       std::vector<int> order) {
  dfft::Layout l;
  l.box.lo = lo;
  l.box.hi = hi;
  if (order.empty())
    for (int a = 0; a < static_cast<int>(lo.size()); ++a) order.push_back(a);
  l.order = std::move(order);
  return l;
}

/// One Reshape of any of the four element types, chosen by its byte size and complexity.
class PyReshape {
 public:
  using Side = std::tuple<std::vector<std::int64_t>, std::vector<std::int64_t>, std::vector<int>>;
  PyReshape(const py::object& comm, const Side& in, const Side& out, const std::string& dtype,
            const std::string& method) {
    const MPI_Comm c = comm_of(comm);
    const dfft::Layout li = layout_of(std::get<0>(in), std::get<1>(in), std::get<2>(in));
    const dfft::Layout lo = layout_of(std::get<0>(out), std::get<1>(out), std::get<2>(out));
    const dfft::Method m = dfft::parse_method(method);
    py::gil_scoped_release unlocked;  // collective
    if (dtype == "float32")
      r_ = std::make_unique<dfft::Reshape<float>>(c, li, lo, m);
    else if (dtype == "float64")
      r_ = std::make_unique<dfft::Reshape<double>>(c, li, lo, m);
    else if (dtype == "complex64")
      r_ = std::make_unique<dfft::Reshape<std::complex<float>>>(c, li, lo, m);
    else if (dtype == "complex128")
      r_ = std::make_unique<dfft::Reshape<std::complex<double>>>(c, li, lo, m);
    else
      throw py::value_error("redistribute: dtype must be float32, float64, complex64 or "
                            "complex128, got " + dtype);
  }
  void execute(std::uintptr_t in, std::uintptr_t out) {
    py::gil_scoped_release unlocked;
    std::visit([&](auto& r) { run(*r, in, out); }, r_);
  }

 private:
  template <class T>
  static void run(dfft::Reshape<T>& r, std::uintptr_t in, std::uintptr_t out) {
    r.execute(reinterpret_cast<const T*>(in), reinterpret_cast<T*>(out));
  }
  std::variant<std::unique_ptr<dfft::Reshape<float>>, std::unique_ptr<dfft::Reshape<double>>,
               std::unique_ptr<dfft::Reshape<std::complex<float>>>,
               std::unique_ptr<dfft::Reshape<std::complex<double>>>>
      r_;
};

/// One Halo of any of the four element types (dfft.Halo in python/dfft/halo.py).
class PyHalo {
 public:
  using Side = PyReshape::Side;
  PyHalo(const py::object& comm, const Side& box, const std::vector<std::int64_t>& lo,
         const std::vector<std::int64_t>& hi, const std::vector<bool>& periodic, bool corners,
         const std::string& dtype, const std::string& method)
      : comm_(comm_of(comm)) {
    const dfft::Layout l = layout_of(std::get<0>(box), std::get<1>(box), std::get<2>(box));
    const dfft::HaloSpec spec{lo, hi, periodic, corners};
    const dfft::Method m = dfft::parse_method(method);
    py::gil_scoped_release unlocked;  // collective
    if (dtype == "float32")
      h_ = std::make_unique<dfft::Halo<float>>(comm_, l, spec, m);
    else if (dtype == "float64")
      h_ = std::make_unique<dfft::Halo<double>>(comm_, l, spec, m);
    else if (dtype == "complex64")
      h_ = std::make_unique<dfft::Halo<std::complex<float>>>(comm_, l, spec, m);
    else if (dtype == "complex128")
      h_ = std::make_unique<dfft::Halo<std::complex<double>>>(comm_, l, spec, m);
    else
      throw py::value_error("Halo: dtype must be float32, float64, complex64 or complex128, got " +
                            dtype);
  }
  /// `problem`: why this rank's array cannot be used (wrong dtype, not contiguous), or empty.
  /// The ranks agree on it first, so that a refusal on one rank is a refusal on all, not a hang.
  void exchange(std::uintptr_t data, std::int64_t count, const std::string& problem) {
    py::gil_scoped_release unlocked;
    int ok = problem.empty(), all = 0, rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
    if (rc != MPI_SUCCESS)
      throw dfft::MpiError("MPI_Allreduce", rc, rank,
                           "dfft: halo exchange: MPI_Allreduce failed while checking the arrays");
    if (!all)
      throw dfft::InvalidArgument(
          "halo exchange", rank,
          ok ? "dfft: halo exchange: another rank's array was refused (that rank says why)"
             : "dfft: halo exchange: " + problem);
    std::visit([&](auto& h) { run(*h, data, count); }, h_);
  }
  py::dict layout() const {
    return std::visit(
        [](auto& h) {
          const dfft::Layout& l = h->layout();
          py::dict d;
          d["lo"] = l.box.lo;
          d["hi"] = l.box.hi;
          d["order"] = l.order;
          d["count"] = h->count();
          d["shape"] = h->shape();
          return d;
        },
        h_);
  }

 private:
  template <class T>
  static void run(dfft::Halo<T>& h, std::uintptr_t data, std::int64_t count) {
    h.exchange(std::span<T>(reinterpret_cast<T*>(data), static_cast<std::size_t>(count)));
  }
  MPI_Comm comm_;
  std::variant<std::unique_ptr<dfft::Halo<float>>, std::unique_ptr<dfft::Halo<double>>,
               std::unique_ptr<dfft::Halo<std::complex<float>>>,
               std::unique_ptr<dfft::Halo<std::complex<double>>>>
      h_;
};

MPI_Comm comm_of(const py::object& comm) {
  // mpi4py's C API is imported per translation unit; module.cpp has checked that mpi4py and
  // dfft share one MPI library before this can run.
  static const bool imported = import_mpi4py() == 0;
  if (!imported) throw py::error_already_set();
  MPI_Comm* c = PyMPIComm_Get(comm.ptr());
  if (!c) throw py::error_already_set();  // not an mpi4py communicator: TypeError is set
  return *c;
}

}  // namespace

void bind_reshape(py::module_& m) {
  py::class_<PyReshape>(m, "_Reshape")
      .def(py::init<const py::object&, const PyReshape::Side&, const PyReshape::Side&,
                    const std::string&, const std::string&>(),
           py::arg("comm"), py::arg("input"), py::arg("output"), py::arg("dtype"),
           py::arg("method"))
      .def("execute", &PyReshape::execute, py::arg("src"), py::arg("dst"));
}

void bind_halo(py::module_& m) {
  py::class_<PyHalo>(m, "_Halo")
      .def(py::init<const py::object&, const PyHalo::Side&, const std::vector<std::int64_t>&,
                    const std::vector<std::int64_t>&, const std::vector<bool>&, bool,
                    const std::string&, const std::string&>(),
           py::arg("comm"), py::arg("box"), py::arg("lo"), py::arg("hi"), py::arg("periodic"),
           py::arg("corners"), py::arg("dtype"), py::arg("method"))
      .def("exchange", &PyHalo::exchange, py::arg("data"), py::arg("count"), py::arg("problem"))
      .def("layout", &PyHalo::layout);
}

}  // namespace dfft_python
