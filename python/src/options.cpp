// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <mpi.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "dfft/halo.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/reshape.hpp"

namespace py = pybind11;

namespace dfft_python {
namespace {

template <class V>
V as(const py::handle& v, const std::string& key) {
  try {
    return v.cast<V>();
  } catch (const py::cast_error&) {
    throw py::type_error(key + ": expected " + py::type_id<V>() + ", got " +
                         std::string(py::str(py::type::of(v).attr("__name__"))));
  }
}

// One value of a field's element type as the table's text.
std::string item_text(std::string_view type, const py::handle& v, const std::string& key) {
  if (type == "int" || type == "int64") return std::to_string(as<long long>(v, key));
  if (type == "pointer") return std::to_string(as<std::uintptr_t>(v, key));
  if (type == "bool") return as<bool>(v, key) ? "true" : "false";
  if (type == "number") return std::string(py::repr(py::float_(as<double>(v, key))));
  if (type == "halo") {
    // (below, above) per axis, as the table's text "lo,lo,lo/hi,hi,hi".
    const auto [lo, hi] = as<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>>(v, key);
    std::string t;
    for (std::size_t i = 0; i < lo.size(); ++i) t += (i ? "," : "") + std::to_string(lo[i]);
    t += "/";
    for (std::size_t i = 0; i < hi.size(); ++i) t += (i ? "," : "") + std::to_string(hi[i]);
    return t;
  }
  return as<std::string>(v, key);
}

// One item of the table's text as a Python value of the field's element type.
py::object item_object(std::string_view type, const std::string& text) {
  if (type == "int" || type == "int64") return py::int_(std::stoll(text));
  if (type == "pointer") return py::int_(static_cast<std::uintptr_t>(std::stoull(text)));
  if (type == "bool") return py::bool_(text == "true");
  if (type == "number") return py::float_(std::stod(text));
  if (type == "halo") {
    // (below, above) per axis; ((), ()) for a dense array.
    const std::size_t slash = text.find('/');
    py::list sides[2];
    for (int side = 0; side < 2; ++side) {
      const std::string part = slash == std::string::npos ? text : side ? text.substr(slash + 1) : text.substr(0, slash);
      std::size_t start = 0;
      while (start < part.size()) {
        const std::size_t end = std::min(part.find(',', start), part.size());
        sides[side].append(py::int_(std::stoll(part.substr(start, end - start))));
        start = end + 1;
      }
    }
    return py::make_tuple(sides[0], sides[1]);
  }
  return py::str(text);
}

}  // namespace

void apply_options(dfft::Options& o, const py::dict& extra) {
  for (const auto& [key, value] : extra) {
    const std::string k = py::str(key);
    const auto& fields = dfft::option_fields();
    const auto f = std::find_if(fields.begin(), fields.end(), [&](const auto& x) { return x.name == k; });
    if (f == fields.end()) throw py::value_error("unknown plan option '" + k + "'");
    std::string text;
    if (f->is_list()) {
      if (py::isinstance<py::str>(value) || !py::isinstance<py::iterable>(value))
        throw py::type_error(k + ": expected a sequence of " + std::string(f->element_type()) + ", got " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
      for (const auto& item : value)
        text += (text.empty() ? "" : std::string(1, f->separator)) + item_text(f->element_type(), item, k);
    } else {
      text = item_text(f->type, value, k);
    }
    dfft::set_option(o, k, text);
  }
}

py::dict options_dict(const dfft::Options& o) {
  py::dict d;
  for (const auto& f : dfft::option_fields()) {
    const std::string text = f.get(o);
    if (f.is_list()) {
      py::list items;
      for (const auto& item : dfft::option_items(f, text)) items.append(item_object(f.element_type(), item));
      d[py::str(std::string(f.name))] = items;
    } else {
      d[py::str(std::string(f.name))] = item_object(f.type, text);
    }
  }
  return d;
}

py::list option_fields_list() {
  py::list rows;
  for (const auto& f : dfft::option_fields()) {
    py::dict r;
    r["name"] = std::string(f.name);
    r["group"] = std::string(f.group);
    r["type"] = std::string(f.type);
    r["allowed"] = std::string(f.allowed);
    r["doc"] = std::string(f.doc);
    r["flag"] = std::string(f.flag);
    r["wisdom_key"] = f.wisdom_key;
    r["wisdom_key_resolved"] = std::string(f.wisdom_key_resolved);
    r["c_field"] = std::string(f.c_field);
    r["c_absent"] = std::string(f.c_absent);
    r["record"] = std::string(f.record);
    r["default"] = f.default_text();
    rows.append(r);
  }
  return rows;
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
  d["wisdom_file"] = r->wisdom_file;
  d["warnings"] = r->warnings;
  d["seconds"] = r->seconds;
  d["summary"] = dfft::describe(*r);
  return d;
}

MPI_Comm comm_of(const py::handle& comm) {
  if (!py::hasattr(comm, "py2f"))
    throw py::type_error("expected an mpi4py communicator, got " +
                         std::string(py::str(py::type::handle_of(comm).attr("__name__"))));
  return MPI_Comm_f2c(comm.attr("py2f")().cast<MPI_Fint>());
}

namespace {

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
         const std::string& dtype, const std::string& method, const std::string& backend, int device)
      : comm_(comm_of(comm)) {
    const dfft::Layout l = layout_of(std::get<0>(box), std::get<1>(box), std::get<2>(box));
    const dfft::HaloSpec spec{lo, hi, periodic, corners};
    const dfft::Method m = dfft::parse_method(method);
    const dfft::Backend b = dfft::parse_backend(backend);
    py::gil_scoped_release unlocked;  // collective
    if (dtype == "float32")
      h_ = std::make_unique<dfft::Halo<float>>(comm_, l, spec, m, b, device);
    else if (dtype == "float64")
      h_ = std::make_unique<dfft::Halo<double>>(comm_, l, spec, m, b, device);
    else if (dtype == "complex64")
      h_ = std::make_unique<dfft::Halo<std::complex<float>>>(comm_, l, spec, m, b, device);
    else if (dtype == "complex128")
      h_ = std::make_unique<dfft::Halo<std::complex<double>>>(comm_, l, spec, m, b, device);
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
          d["staging"] = dfft::to_string(h->staging());
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
                    const std::string&, const std::string&, const std::string&, int>(),
           py::arg("comm"), py::arg("box"), py::arg("lo"), py::arg("hi"), py::arg("periodic"),
           py::arg("corners"), py::arg("dtype"), py::arg("method"), py::arg("backend") = "cpu",
           py::arg("device") = -1)
      .def("exchange", &PyHalo::exchange, py::arg("data"), py::arg("count"), py::arg("problem"))
      .def("layout", &PyHalo::layout);
}

}  // namespace dfft_python
