// SPDX-License-Identifier: MIT
// The Python binding's view of dfft::Options and of what a plan reports: every Options field
// has a Python keyword of dfft.Plan (the option table's rows, dfft/option_fields.hpp), read back
// from the plan as a dict, and the plan's run-time choices (codec, chunks,
// overlap slices, exchange bytes, node traffic, tuner report) as another.
#pragma once

#include <mpi.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "dfft/dfft.hpp"
#include "dfft/tune.hpp"

namespace dfft_python {

/// The MPI_Comm of an mpi4py communicator, through its Fortran handle (Comm.py2f()) and
/// MPI_Comm_f2c. mpi4py's C API would tie the module to the mpi4py it was compiled against (its
/// exported functions change between releases); py2f() is the same in every mpi4py and
/// MPI_Comm_f2c the same in every MPI, so any mpi4py on dfft's MPI library works. TypeError for
/// an object without py2f().
MPI_Comm comm_of(const pybind11::handle& comm);

/// Sets the Options fields named by the keys of `extra` (the C++ field names; values as
/// dfft.Plan documents them). Unknown keys and values of the wrong type raise ValueError or
/// TypeError before any collective call.
void apply_options(dfft::Options& o, const pybind11::dict& extra);

/// Every Options field (named as in C++) and its value, enums as their dfft names.
pybind11::dict options_dict(const dfft::Options& o);

/// dfft._dfft.option_fields(): the rows of the option table (dfft/option_fields.hpp) as dicts.
pybind11::list option_fields_list();

pybind11::dict traffic_dict(const dfft::NodeTraffic& t);
pybind11::object tune_dict(const dfft::TuneReport* r);

/// What a built plan chose and reports beyond its options.
template <class T>
pybind11::dict plan_info(const dfft::Plan<T>& p) {
  pybind11::dict d;
  d["codec"] = dfft::to_string(p.codec());
  d["overlap_slices"] = p.overlap_slices();
  d["chunks"] = p.chunks();
  d["in_flight"] = p.in_flight();
  d["adapting"] = p.adapting();
  d["exchange_bytes"] = p.exchange_bytes();
  d["node_traffic"] = traffic_dict(p.node_traffic());
  d["tune_report"] = tune_dict(p.tune_report());
  return d;
}

/// dfft._dfft._Reshape: dfft::Reshape over numpy data addresses (python/dfft/distarray.py).
void bind_reshape(pybind11::module_& m);

/// dfft._dfft._Halo: dfft::Halo over numpy data addresses (python/dfft/halo.py).
void bind_halo(pybind11::module_& m);

}  // namespace dfft_python
