// SPDX-License-Identifier: MIT
// The C interface (include/dfft/dfft.h) over dfft::Plan. Every entry point catches every
// exception, turns it into a dfft_status and keeps the message for dfft_error_message().
#include "dfft/dfft.h"

#include <algorithm>
#include <cstddef>
#include <complex>
#include <cstring>
#include <new>
#include <string>
#include <variant>

#include "capi/options_from_c.hpp"
#include "dfft/dfft.hpp"
#include "dfft/halo.hpp"
#include "dfft/io.hpp"
#include "dfft/option_fields.hpp"
#include "util/check.hpp"
#include "util/names.hpp"

// include/dfft/dfft.f90 declares the same fields as a bind(c) type: size, 44 ints, the 8-byte
// fields up to `stream`, 2 ints, DFFT_MAX_DIMS doubles, DFFT_MAX_DIMS ints, with no padding between.
// A field added to one must be added to the other, and DFFT_OPTIONS_VERSION raised.
// Fields added later go after `stream`, so that a struct of an older dfft.h is this one cut short.
static_assert(offsetof(dfft_options, user_workspace) ==
                  sizeof(int64_t) + 44 * sizeof(int) + 2 * sizeof(int64_t) + 2 * sizeof(double) + 3 * sizeof(void*),
              "dfft_options layout changed: update include/dfft/dfft.f90 and DFFT_OPTIONS_VERSION");
static_assert(offsetof(dfft_options, transposed_out) == offsetof(dfft_options, user_workspace) + 2 * sizeof(int) +
                                          DFFT_MAX_DIMS * sizeof(double) + DFFT_MAX_DIMS * sizeof(int),
              "dfft_options layout changed: update include/dfft/dfft.f90 and DFFT_OPTIONS_VERSION");

namespace {

// The older layouts this library still reads: `size` is that struct's sizeof, `fields` the bytes
// of its fields (a version-3 struct ends with user_workspace and 4 bytes of tail padding).
struct OlderOptions {
  int version;
  std::size_t size, fields;
};
constexpr OlderOptions kOlderOptions[] = {
    {2, offsetof(dfft_options, user_workspace), offsetof(dfft_options, user_workspace)},
    {3, offsetof(dfft_options, padding), offsetof(dfft_options, n_axes)},
    {4, offsetof(dfft_options, transposed_out), offsetof(dfft_options, transposed_out)},
    {5, offsetof(dfft_options, input_halo_lo), offsetof(dfft_options, transposed_out) + sizeof(int)},
    {6, offsetof(dfft_options, destroy_input), offsetof(dfft_options, destroy_input)},
};
// A version-6 struct ends with output_halo_hi (8-byte fields: no tail padding), where
// destroy_input starts.
static_assert(offsetof(dfft_options, destroy_input) ==
                  offsetof(dfft_options, output_halo_hi) + DFFT_MAX_DIMS * sizeof(int64_t),
              "a version-6 dfft_options no longer ends where destroy_input starts");
// A version-5 struct ends with transposed_out and 4 bytes of tail padding, where input_halo_lo
// starts.
static_assert(offsetof(dfft_options, input_halo_lo) == offsetof(dfft_options, transposed_out) + 2 * sizeof(int),
              "a version-5 dfft_options no longer ends where input_halo_lo starts");

// A version-4 struct ends with axes, on the struct's alignment (an even DFFT_MAX_DIMS of ints).
static_assert(offsetof(dfft_options, transposed_out) % alignof(dfft_options) == 0,
              "a version-4 dfft_options no longer ends where transposed_out starts");
// A version-3 struct's sizeof: user_workspace's end rounded up to the struct's alignment.
static_assert(offsetof(dfft_options, padding) ==
                  (offsetof(dfft_options, n_axes) + alignof(dfft_options) - 1) / alignof(dfft_options) *
                      alignof(dfft_options),
              "a version-3 dfft_options no longer ends where padding starts");

const OlderOptions* older_options(const dfft_options* o) {
  for (const OlderOptions& v : kOlderOptions)
    if (o->version == v.version && o->size == static_cast<int64_t>(v.size)) return &v;
  return nullptr;
}

}  // namespace

// dfft_status and dfft::Status are the same codes.
static_assert(DFFT_ERROR_INVALID_ARGUMENT == static_cast<int>(dfft::Status::invalid_argument) &&
              DFFT_ERROR_MPI == static_cast<int>(dfft::Status::mpi_error) &&
              DFFT_ERROR_LIBRARY == static_cast<int>(dfft::Status::library_error) &&
              DFFT_ERROR_OUT_OF_MEMORY == static_cast<int>(dfft::Status::out_of_memory) &&
              DFFT_ERROR_INTERNAL == static_cast<int>(dfft::Status::internal) &&
              DFFT_ERROR_UNSUPPORTED == static_cast<int>(dfft::Status::unsupported),
              "dfft_status and dfft::Status differ");

struct dfft_plan_s {
  std::variant<dfft::Plan<double>, dfft::Plan<float>> plan;
  dfft::Transform transform;
};

namespace {

thread_local std::string last_error;

// Records the message (the status survives even if the copy cannot be made).
int fail(int status, const char* what) noexcept {
  try {
    last_error = what;
  } catch (...) {
    last_error.clear();
  }
  return status;
}

// The one place where exceptions become statuses: call inside a catch block. Each dfft::Error
// class carries its status; the standard library's allocation failure is out-of-memory.
int status_of_current_exception() noexcept {
  try {
    throw;
  } catch (const dfft::Error& e) {
    return fail(static_cast<int>(e.status()), e.what());
  } catch (const std::bad_alloc&) {
    return fail(DFFT_ERROR_OUT_OF_MEMORY, "dfft: host memory allocation failed");
  } catch (const std::exception& e) {
    return fail(DFFT_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(DFFT_ERROR_INTERNAL, "dfft: unknown exception");
  }
}

// Runs f, mapping exceptions to statuses; nothing escapes (extern "C" callers).
template <class F>
int guarded(F&& f) noexcept {
  try {
    f();
    last_error.clear();
    return DFFT_SUCCESS;
  } catch (...) {
    return status_of_current_exception();
  }
}

[[noreturn]] void bad(const std::string& what) {
  throw dfft::InvalidArgument("plan", dfft::detail::world_rank(), "dfft C API: " + what);
}

// Every field with C members, read as its row of the option table says (OptionField::from_c);
// the others keep their defaults.
dfft::Options to_options(const dfft_options* o, int ndims) {
  dfft_options def;
  dfft_options_init(&def);
  // An older struct is read as this one with its missing fields at their defaults.
  if (const OlderOptions* v = o ? older_options(o) : nullptr) {
    std::memcpy(&def, o, v->fields);
    o = nullptr;
  }
  if (!o) o = &def;
  dfft::Options r;
  for (const auto& f : dfft::option_fields())
    if (f.from_c) f.from_c(f, r, *o, ndims);
  return r;
}

std::vector<std::int64_t> to_shape(int ndims, const int64_t* shape) {
  if (ndims < 2 || ndims > DFFT_MAX_DIMS)
    bad("ndims = " + std::to_string(ndims) + " (2 to " + std::to_string(DFFT_MAX_DIMS) + ")");
  if (!shape) bad("shape is NULL");
  return {shape, shape + ndims};
}

dfft::Layout to_layout(int ndims, const int64_t* lo, const int64_t* hi, const int* order, const char* side) {
  if (!lo || !hi) bad(std::string(side) + " box: lo or hi is NULL");
  dfft::Layout l;
  l.box.lo.assign(lo, lo + ndims);
  l.box.hi.assign(hi, hi + ndims);
  if (order) {
    l.order.assign(order, order + ndims);
  } else {
    for (int a = 0; a < ndims; ++a) l.order.push_back(a);
  }
  return l;
}

// The C-side checks run on every rank and the ranks agree on their outcome before any collective
// work, so that a refusal on one rank (an empty-box rank passing NULL, options differing across
// ranks) is a refusal on all of them instead of a hang in the plan's first collective.
int agree(MPI_Comm comm, int local_status) {
  int ok = local_status == DFFT_SUCCESS, all = 0;
  const int rc = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS) return fail(DFFT_ERROR_MPI, "dfft C API: MPI_Allreduce failed while checking the arguments");
  if (all) return DFFT_SUCCESS;
  if (local_status != DFFT_SUCCESS) return local_status;
  return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: another rank's arguments were refused (see that rank's message)");
}

// A struct from another dfft.h has other fields at other offsets: refuse it before reading any.
int check_version(const dfft_options* o) {
  if (!o || (o->size == static_cast<int64_t>(sizeof(dfft_options)) && o->version == DFFT_OPTIONS_VERSION) ||
      older_options(o))
    return DFFT_SUCCESS;
  const std::string m = "dfft C API: dfft_options has size " + std::to_string(o->size) + " and version " +
                        std::to_string(o->version) + " but this library's are " +
                        std::to_string(sizeof(dfft_options)) + " and " + std::to_string(DFFT_OPTIONS_VERSION) +
                        ": compile against this library's dfft.h and start from dfft_options_init()";
  return fail(DFFT_ERROR_OPTIONS_VERSION, m.c_str());
}

int create_checked(MPI_Comm comm, int ndims, const int64_t* shape, int precision, const dfft::Layout* in,
                   const dfft::Layout* out, const dfft_options* options, dfft_plan* plan, int local_status) {
  // Without a communicator there is nobody to agree with (MPI would abort on it).
  if (comm == MPI_COMM_NULL) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: the communicator is MPI_COMM_NULL");
  if (local_status == DFFT_SUCCESS && !plan)
    local_status = fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan (the output pointer) is NULL");
  if (local_status == DFFT_SUCCESS) local_status = check_version(options);
  std::vector<std::int64_t> s;
  dfft::Options o;
  if (local_status == DFFT_SUCCESS) {
    local_status = guarded([&] {
      s = to_shape(ndims, shape);
      o = to_options(options, ndims);
      if (precision != DFFT_DOUBLE && precision != DFFT_FLOAT)
        bad("precision = " + std::to_string(precision) + " (DFFT_DOUBLE or DFFT_FLOAT)");
    });
  }
  const int st = agree(comm, local_status);
  if (st != DFFT_SUCCESS) return st;
  return guarded([&] {
    auto make = [&](auto tag) {
      using T = decltype(tag);
      return in ? new dfft_plan_s{dfft::Plan<T>(comm, s, *in, *out, o), o.transform}
                : new dfft_plan_s{dfft::Plan<T>(comm, s, o), o.transform};
    };
    *plan = precision == DFFT_DOUBLE ? make(double{}) : make(float{});
  });
}

int create(MPI_Comm comm, int ndims, const int64_t* shape, int precision, const dfft::Layout* in,
           const dfft::Layout* out, const dfft_options* options, dfft_plan* plan, int local_status) noexcept {
  if (plan) *plan = nullptr;
  try {  // the containers built before the guarded parts allocate
    return create_checked(comm, ndims, shape, precision, in, out, options, plan, local_status);
  } catch (...) {
    return status_of_current_exception();
  }
}

int create_boxes(MPI_Comm comm, int ndims, const int64_t* shape, int precision, const int64_t* in_lo,
                 const int64_t* in_hi, const int* in_order, const int64_t* out_lo, const int64_t* out_hi,
                 const int* out_order, const dfft_options* options, dfft_plan* plan) noexcept {
  try {
    dfft::Layout in, out;
    const int st = guarded([&] {
      to_shape(ndims, shape);
      in = to_layout(ndims, in_lo, in_hi, in_order, "input");
      out = to_layout(ndims, out_lo, out_hi, out_order, "output");
    });
    return create(comm, ndims, shape, precision, &in, &out, options, plan, st);
  } catch (...) {
    if (plan) *plan = nullptr;
    return status_of_current_exception();
  }
}

// forward/inverse with the element types of the plan's transform and precision.
int execute(dfft_plan plan, bool fwd, int batch, const void* in, void* out, dfft::Workspace work = {}) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  return guarded([&] {
    if (batch < 1) bad("batch = " + std::to_string(batch) + " (>= 1)");
    if (work.bytes < 0) bad("work_bytes = " + std::to_string(work.bytes) + " (>= 0)");
    std::visit(
        [&](auto& p) {
          using T = typename std::decay_t<decltype(p)>::real_type;
          using C = std::complex<T>;
          // One array: the plan itself; several: the C++ batch overloads (a plan per batch size).
          auto fwd_run = [&](auto* src, auto* dst) {
            if (batch == 1) p.forward(src, dst, work);
            else p.forward(batch, src, dst);
          };
          auto inv_run = [&](auto* src, auto* dst) {
            if (batch == 1) p.inverse(src, dst, work);
            else p.inverse(batch, src, dst);
          };
          switch (plan->transform) {
            case dfft::Transform::r2c:
              if (fwd) fwd_run(static_cast<const T*>(in), static_cast<C*>(out));
              else inv_run(static_cast<const C*>(in), static_cast<T*>(out));
              break;
            case dfft::Transform::c2c:
              if (fwd) fwd_run(static_cast<const C*>(in), static_cast<C*>(out));
              else inv_run(static_cast<const C*>(in), static_cast<C*>(out));
              break;
            case dfft::Transform::r2r:
              if (fwd) fwd_run(static_cast<const T*>(in), static_cast<T*>(out));
              else inv_run(static_cast<const T*>(in), static_cast<T*>(out));
              break;
          }
        },
        plan->plan);
  });
}

template <class F>
auto with_plan(dfft_plan plan, F&& f) {
  return std::visit([&](auto& p) { return f(p); }, plan->plan);
}

int box_of(dfft_plan plan, bool input, int64_t* lo, int64_t* hi, int* order, int64_t* strides) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      const dfft::Layout& l = input ? p.input_layout() : p.output_layout();
      const auto st = l.strides();
      for (int a = 0; a < l.box.dims(); ++a) {
        if (lo) lo[a] = l.box.lo[a];
        if (hi) hi[a] = l.box.hi[a];
        if (order) order[a] = l.order[a];
        if (strides) strides[a] = st[a];
      }
      return 0;
    });
  });
}

// The C-side checks are agreed before the collective I/O, like plan creation's.
int npy_file(dfft_plan plan, int side, const char* path, bool writing, void* data) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  const MPI_Comm comm = with_plan(plan, [](auto& p) { return p.comm(); });
  int st = DFFT_SUCCESS;
  if (side != DFFT_INPUT && side != DFFT_OUTPUT)
    st = fail(DFFT_ERROR_INVALID_ARGUMENT,
              ("dfft C API: side = " + std::to_string(side) + " (DFFT_INPUT or DFFT_OUTPUT)").c_str());
  else if (!path)
    st = fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: path is NULL");
  st = agree(comm, st);
  if (st != DFFT_SUCCESS) return st;
  const auto s = side == DFFT_INPUT ? dfft::io::Side::input : dfft::io::Side::output;
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      if (writing)
        dfft::io::write_npy(p, s, path, data);
      else
        dfft::io::read_npy(p, s, path, data);
      return 0;
    });
  });
}

}  // namespace

namespace dfft::capi {
dfft::Options options_from_c(const dfft_options* o, int ndims) { return to_options(o, ndims); }
}  // namespace dfft::capi

struct dfft_halo_s {
  std::variant<dfft::Halo<double>, dfft::Halo<float>, dfft::Halo<std::complex<double>>,
               dfft::Halo<std::complex<float>>>
      halo;
};

namespace {

dfft::HaloSpec to_halo_spec(int ndims, const int64_t* width_lo, const int64_t* width_hi,
                            const int* periodic, int corners) {
  if (!width_lo) bad("width_lo is NULL");
  dfft::HaloSpec s;
  s.lo.assign(width_lo, width_lo + ndims);
  if (width_hi) s.hi.assign(width_hi, width_hi + ndims);
  if (periodic)
    for (int a = 0; a < ndims; ++a) s.periodic.push_back(periodic[a] != 0);
  s.corners = corners != 0;
  return s;
}

// The C-side checks are agreed across ranks before the collective construction.
template <class Make>
int halo_create(MPI_Comm comm, int precision, int complex_values, dfft_halo* halo, int local_status,
                Make&& make) {
  if (halo) *halo = nullptr;
  if (comm == MPI_COMM_NULL)
    return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: the communicator is MPI_COMM_NULL");
  if (local_status == DFFT_SUCCESS)
    local_status = guarded([&] {
      if (!halo) bad("halo (the output pointer) is NULL");
      if (precision != DFFT_DOUBLE && precision != DFFT_FLOAT)
        bad("precision = " + std::to_string(precision) + " (DFFT_DOUBLE or DFFT_FLOAT)");
      if (complex_values != 0 && complex_values != 1)
        bad("complex_values = " + std::to_string(complex_values) + " (0 or 1)");
    });
  const int st = agree(comm, local_status);
  if (st != DFFT_SUCCESS) return st;
  return guarded([&] {
    auto with = [&](auto tag) {
      using T = decltype(tag);
      return new dfft_halo_s{
          decltype(dfft_halo_s::halo)(std::in_place_type<dfft::Halo<T>>, make(tag))};
    };
    if (precision == DFFT_DOUBLE)
      *halo = complex_values ? with(std::complex<double>{}) : with(double{});
    else
      *halo = complex_values ? with(std::complex<float>{}) : with(float{});
  });
}

int halo_create_boxes(MPI_Comm comm, int ndims, const int64_t* lo, const int64_t* hi,
                      const int* order, const int64_t* width_lo, const int64_t* width_hi,
                      const int* periodic, int corners, int precision, int complex_values,
                      dfft_halo* halo) noexcept {
  try {
    dfft::Layout l;
    dfft::HaloSpec s;
    const int st = guarded([&] {
      if (ndims < 1 || ndims > DFFT_MAX_DIMS)
        bad("ndims = " + std::to_string(ndims) + " (1 to " + std::to_string(DFFT_MAX_DIMS) + ")");
      l = to_layout(ndims, lo, hi, order, "halo");
      s = to_halo_spec(ndims, width_lo, width_hi, periodic, corners);
    });
    return halo_create(comm, precision, complex_values, halo, st,
                       [&](auto tag) { return dfft::Halo<decltype(tag)>(comm, l, s); });
  } catch (...) {
    return status_of_current_exception();
  }
}

}  // namespace

extern "C" {

int dfft_halo_create(MPI_Comm comm, int ndims, const int64_t* lo, const int64_t* hi,
                     const int* order, const int64_t* width_lo, const int64_t* width_hi,
                     const int* periodic, int corners, int precision, int complex_values,
                     dfft_halo* halo) {
  return halo_create_boxes(comm, ndims, lo, hi, order, width_lo, width_hi, periodic, corners,
                           precision, complex_values, halo);
}

int dfft_halo_create_f(MPI_Fint comm, int ndims, const int64_t* lo, const int64_t* hi,
                       const int* order, const int64_t* width_lo, const int64_t* width_hi,
                       const int* periodic, int corners, int precision, int complex_values,
                       dfft_halo* halo) {
  return halo_create_boxes(MPI_Comm_f2c(comm), ndims, lo, hi, order, width_lo, width_hi, periodic,
                           corners, precision, complex_values, halo);
}

int dfft_halo_create_plan(dfft_plan plan, int side, const int64_t* width_lo,
                          const int64_t* width_hi, const int* periodic, int corners,
                          int complex_values, dfft_halo* halo) {
  if (halo) *halo = nullptr;
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  try {
    const MPI_Comm comm = with_plan(plan, [](auto& p) { return p.comm(); });
    const int precision =
        std::holds_alternative<dfft::Plan<double>>(plan->plan) ? DFFT_DOUBLE : DFFT_FLOAT;
    dfft::HaloSpec s;
    const int st = guarded([&] {
      if (side != DFFT_INPUT && side != DFFT_OUTPUT)
        bad("side = " + std::to_string(side) + " (DFFT_INPUT or DFFT_OUTPUT)");
      s = to_halo_spec(with_plan(plan, [](auto& p) { return static_cast<int>(p.shape().size()); }),
                       width_lo, width_hi, periodic, corners);
    });
    const auto where = side == DFFT_INPUT ? dfft::Side::input : dfft::Side::output;
    return halo_create(comm, precision, complex_values, halo, st, [&](auto tag) {
      return with_plan(plan, [&](auto& p) { return dfft::Halo<decltype(tag)>(p, where, s); });
    });
  } catch (...) {
    return status_of_current_exception();
  }
}

int dfft_halo_exchange(dfft_halo halo, void* data, int64_t count) {
  if (!halo) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: halo is NULL");
  return guarded([&] {
    std::visit(
        [&](auto& h) {
          using T = typename std::decay_t<decltype(h)>::value_type;
          h.exchange(std::span<T>(static_cast<T*>(data),
                                  static_cast<std::size_t>(std::max<int64_t>(count, 0))));
        },
        halo->halo);
  });
}

int64_t dfft_halo_count(dfft_halo halo) {
  if (!halo) return 0;
  return std::visit([](auto& h) { return h.count(); }, halo->halo);
}

int dfft_halo_box(dfft_halo halo, int64_t* lo, int64_t* hi, int64_t* strides) {
  if (!halo) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: halo is NULL");
  return guarded([&] {
    const dfft::Layout& l =
        std::visit([](auto& h) -> const dfft::Layout& { return h.layout(); }, halo->halo);
    const auto st = l.strides();
    for (int a = 0; a < l.box.dims(); ++a) {
      if (lo) lo[a] = l.box.lo[a];
      if (hi) hi[a] = l.box.hi[a];
      if (strides) strides[a] = st[a];
    }
  });
}

int dfft_halo_destroy(dfft_halo* halo) {
  if (!halo || !*halo) return DFFT_SUCCESS;
  const int st = guarded([&] { delete *halo; });
  *halo = nullptr;
  return st;
}

void dfft_options_init(dfft_options* o) {
  if (!o) return;
  std::memset(o, 0, sizeof *o);
  o->size = static_cast<int64_t>(sizeof *o);
  o->version = DFFT_OPTIONS_VERSION;
  for (double& f : o->padding) f = 1.0;
  const dfft::Options d;
  o->decomposition = static_cast<int>(d.decomposition);
  o->variant = static_cast<int>(d.variant);
  o->transform = static_cast<int>(d.transform);
  o->backend = static_cast<int>(d.backend);
  o->effort = static_cast<int>(d.effort);
  o->norm = static_cast<int>(d.norm);
  o->fftw_wisdom = d.fftw_wisdom;
  o->codec = static_cast<int>(d.codec);
  o->onesided_sync = static_cast<int>(d.onesided_sync);
  o->staging = static_cast<int>(d.staging);
  o->tune = static_cast<int>(d.tune);
  o->n_methods = static_cast<int>(d.methods.size());
  for (int i = 0; i < o->n_methods && i < DFFT_MAX_EXCHANGES; ++i) o->methods[i] = static_cast<int>(d.methods[i]);
  o->chunks = d.chunks;
  o->in_flight = d.in_flight;
  o->overlap = d.overlap;
  o->adapt = d.adapt;
  o->device = d.device;
  o->batch = d.batch;
  o->in_place = d.in_place;
  o->destroy_input = d.destroy_input;
  o->transposed_out = d.transposed_out;
  o->threads = d.threads;
  o->max_message_bytes = d.max_message_bytes;
  o->memory_limit_bytes = d.memory_limit_bytes;
  o->tolerance = d.tolerance;
  o->tune_budget_s = d.tune_budget_s;
  o->wisdom_file = nullptr;
}

int dfft_plan_create(MPI_Comm comm, int ndims, const int64_t* shape, int precision,
                     const dfft_options* options, dfft_plan* plan) {
  return create(comm, ndims, shape, precision, nullptr, nullptr, options, plan, DFFT_SUCCESS);
}

int dfft_plan_create_boxes(MPI_Comm comm, int ndims, const int64_t* shape, int precision,
                           const int64_t* in_lo, const int64_t* in_hi, const int* in_order,
                           const int64_t* out_lo, const int64_t* out_hi, const int* out_order,
                           const dfft_options* options, dfft_plan* plan) {
  return create_boxes(comm, ndims, shape, precision, in_lo, in_hi, in_order, out_lo, out_hi, out_order,
                      options, plan);
}

int dfft_plan_create_f(MPI_Fint comm, int ndims, const int64_t* shape, int precision,
                       const dfft_options* options, dfft_plan* plan) {
  return create(MPI_Comm_f2c(comm), ndims, shape, precision, nullptr, nullptr, options, plan, DFFT_SUCCESS);
}

int dfft_plan_create_boxes_f(MPI_Fint comm, int ndims, const int64_t* shape, int precision,
                             const int64_t* in_lo, const int64_t* in_hi, const int* in_order,
                             const int64_t* out_lo, const int64_t* out_hi, const int* out_order,
                             const dfft_options* options, dfft_plan* plan) {
  return create_boxes(MPI_Comm_f2c(comm), ndims, shape, precision, in_lo, in_hi, in_order, out_lo, out_hi,
                      out_order, options, plan);
}

int dfft_plan_destroy(dfft_plan* plan) {
  if (!plan || !*plan) return DFFT_SUCCESS;
  const int st = guarded([&] { delete *plan; });
  *plan = nullptr;
  return st;
}

int dfft_forward(dfft_plan plan, const void* in, void* out) { return execute(plan, true, 1, in, out); }
int dfft_inverse(dfft_plan plan, const void* in, void* out) { return execute(plan, false, 1, in, out); }
int dfft_forward_work(dfft_plan plan, const void* in, void* out, void* work, int64_t work_bytes) {
  return execute(plan, true, 1, in, out, {work, work_bytes});
}
int dfft_inverse_work(dfft_plan plan, const void* in, void* out, void* work, int64_t work_bytes) {
  return execute(plan, false, 1, in, out, {work, work_bytes});
}
int64_t dfft_workspace_bytes(dfft_plan plan) {
  std::int64_t n = 0;
  if (plan) guarded([&] { n = with_plan(plan, [](auto& p) { return p.workspace_bytes(); }); });
  return n;
}
int dfft_forward_batch(dfft_plan plan, int batch, const void* in, void* out) {
  return execute(plan, true, batch, in, out);
}
int dfft_inverse_batch(dfft_plan plan, int batch, const void* in, void* out) {
  return execute(plan, false, batch, in, out);
}

int dfft_plan_ndims(dfft_plan plan) {
  int n = 0;
  if (plan) guarded([&] { n = with_plan(plan, [](auto& p) { return static_cast<int>(p.shape().size()); }); });
  return n;
}
int64_t dfft_plan_input_count(dfft_plan plan) {
  int64_t n = 0;
  if (plan) guarded([&] { n = with_plan(plan, [](auto& p) { return p.input_count(); }); });
  return n;
}
int64_t dfft_plan_output_count(dfft_plan plan) {
  int64_t n = 0;
  if (plan) guarded([&] { n = with_plan(plan, [](auto& p) { return p.output_count(); }); });
  return n;
}
static int64_t box_start(dfft_plan plan, bool input) {
  int64_t n = 0;
  if (plan)
    guarded([&] {
      n = with_plan(plan, [&](auto& p) {
        const dfft::Layout& l = input ? p.input_layout() : p.output_layout();
        return l.box.empty() ? 0 : l.offset_of(l.box.lo);
      });
    });
  return n;
}
int64_t dfft_plan_input_start(dfft_plan plan) { return box_start(plan, true); }
int64_t dfft_plan_output_start(dfft_plan plan) { return box_start(plan, false); }

static int plan_shape(dfft_plan plan, int64_t* shape, bool spectral) {
  if (!plan || !shape) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan or shape is NULL");
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      const auto s = spectral ? p.spectral_shape() : p.physical_shape();
      std::copy(s.begin(), s.end(), shape);
      return 0;
    });
  });
}

int dfft_plan_spectral_shape(dfft_plan plan, int64_t* shape) { return plan_shape(plan, shape, true); }
int dfft_plan_physical_shape(dfft_plan plan, int64_t* shape) { return plan_shape(plan, shape, false); }

int dfft_plan_input_box(dfft_plan plan, int64_t* lo, int64_t* hi, int* order, int64_t* strides) {
  return box_of(plan, true, lo, hi, order, strides);
}
int dfft_plan_output_box(dfft_plan plan, int64_t* lo, int64_t* hi, int* order, int64_t* strides) {
  return box_of(plan, false, lo, hi, order, strides);
}

int dfft_plan_grid(dfft_plan plan, int* grid) {
  int n = 0;
  if (plan)
    guarded([&] {
      n = with_plan(plan, [&](auto& p) {
        const auto& g = p.grid();
        if (grid) std::copy(g.begin(), g.end(), grid);
        return static_cast<int>(g.size());
      });
    });
  return n;
}

int dfft_plan_timings(dfft_plan plan, dfft_timings* t) {
  if (!plan || !t) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan or timings is NULL");
  return guarded([&] {
    *t = dfft_timings{0, 0, 0, 0, 0};
    with_plan(plan, [&](auto& p) {
      for (const auto& s : p.timings()) {
        t->fft += s.fft;
        t->pack += s.pack;
        t->comm += s.comm;
        t->unpack += s.unpack;
      }
      return 0;
    });
    t->total = t->fft + t->pack + t->comm + t->unpack;
  });
}

size_t dfft_plan_describe(dfft_plan plan, char* buffer, size_t size) {
  std::string d;
  if (plan && guarded([&] { d = with_plan(plan, [](auto& p) { return p.describe(); }); }) != DFFT_SUCCESS)
    d = std::string();
  if (buffer && size > 0) {
    const size_t n = std::min(size - 1, d.size());
    std::memcpy(buffer, d.data(), n);
    buffer[n] = '\0';
  }
  return d.size();
}

int dfft_plan_allocate(dfft_plan plan, size_t bytes, void** pointer) {
  if (!plan || !pointer) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan or pointer is NULL");
  *pointer = nullptr;
  return guarded([&] { *pointer = with_plan(plan, [&](auto& p) { return p.allocate(bytes); }); });
}

int dfft_plan_deallocate(dfft_plan plan, void* pointer) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      p.deallocate(pointer);
      return 0;
    });
  });
}

int dfft_plan_upload(dfft_plan plan, void* dst, const void* host_src, size_t bytes) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      p.upload(dst, host_src, bytes);
      return 0;
    });
  });
}

int dfft_plan_download(dfft_plan plan, void* host_dst, const void* src, size_t bytes) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      p.download(host_dst, src, bytes);
      return 0;
    });
  });
}

int dfft_plan_prepare_batch(dfft_plan plan, int batch) {
  if (!plan) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan is NULL");
  return guarded([&] {
    with_plan(plan, [&](auto& p) {
      p.prepare_batch(batch);
      return 0;
    });
  });
}

int dfft_plan_memory(dfft_plan plan, dfft_memory* m) {
  if (!plan || !m) return fail(DFFT_ERROR_INVALID_ARGUMENT, "dfft C API: plan or memory is NULL");
  return guarded([&] {
    const dfft::Memory mem = with_plan(plan, [](auto& p) { return p.memory(); });
    *m = dfft_memory{mem.host_bytes, mem.device_bytes};
  });
}

int dfft_write_npy(dfft_plan plan, int side, const char* path, const void* data) {
  return npy_file(plan, side, path, true, const_cast<void*>(data));
}
int dfft_read_npy(dfft_plan plan, int side, const char* path, void* data) {
  return npy_file(plan, side, path, false, data);
}

const char* dfft_error_message(void) { return last_error.c_str(); }

}  // extern "C"
