// SPDX-License-Identifier: MIT
// `dfft transform IN OUT`: a distributed transform of a .npy file into a .npy file. Every rank
// reads its input box with MPI-IO, the plan runs, every rank writes its output box. The scaling
// follows numpy.fft's `norm` argument so that results compare with numpy directly.
#include <CLI/CLI.hpp>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>

#include "bench.hpp"
#include "cli_common.hpp"
#include "command.hpp"
#include "option_json.hpp"
#include "report.hpp"
#include "dfft/dfft.hpp"
#include "dfft/io.hpp"
#include "output_target.hpp"

namespace dfftapp {

namespace {

struct TransformArgs {
  std::string in, out;
  OptionValues items;  // a list option's items given on their own (--method1, --method2), by key
  bool inverse = false, verbose = false, quiet = false, in_place = false;
  std::int64_t last_n = -1;
  OptionValues options;  // the plan options, by field name, as the table's flags gave them
  // Filled from `options` after parsing.
  std::string transform;  // r2c, c2r, c2c or r2r
  std::vector<int> axes;  // empty: every axis
};

// The table's flags as transform takes them: c2r names the inverse of the r2c plan, and --in-place
// rewrites OUT (Options::in_place, FFTW's padded r2c layout, has no use for files).
const FlagUses& transform_uses() {
  static const FlagUses uses{
      {"transform", FlagUse().also({"c2r"}).noted("c2r: the inverse of r2c")},
      {"in_place", FlagUse().owned()},
  };
  return uses;
}

// Input and output of the run as the files see them.
struct Job {
  bool real_in = false, real_out = false, forward = true, is_double = true;
  std::vector<std::int64_t> shape;      // the plan's (real-space) shape
  std::vector<std::int64_t> out_shape;  // shape of the output file
  dfft::io::Dtype out_type = dfft::io::Dtype::float64;
};

const char* kTransformFooter = R"(Transforms: r2c (real input, complex output with the last axis n/2+1, like
numpy.fft.rfftn), c2r (the inverse: complex input with the halved last axis, real output of last
axis --last-n, default 2*(m-1) like numpy.fft.irfftn), c2c (complex to complex; --inverse for
the backward transform, like numpy.fft.ifftn), r2r (real to real with --r2r naming the real
kind of every axis: a DCT/DST, like scipy.fft.dctn/dstn with orthogonalize=False, or FFTW's
r2hc, hc2r, dht; --inverse for the inverse kinds).
Element types: float32 and complex64 run in single precision, float64 and complex128 in double;
the output has the matching type. Input in C or Fortran order, output in C order; little endian.
Scaling (--norm, as numpy.fft): backward (default: inverse scaled by 1/N), ortho (both by
1/sqrt(N)), forward (forward by 1/N); none scales neither (FFTW's convention). N = product of the real shape's transformed axes.
--axes 1,2 transforms only those axes (numpy.fft's axes=); r2c and c2r halve the last listed one.
The output is written to OUT.dfft-tmp and renamed at the end: on any error no OUT is left.
OUT must be a new or a regular file: a symbolic link, a device, a FIFO, a directory or the input
file itself is refused before any work (--in-place rewrites an existing regular OUT in place).
Exit status: 0 done, 1 failed I/O or library failure, 2 bad options or OUT refused, 3 bad,
unreadable or mismatching input file (docs/cli.md). Details: docs/transform.md.)";

void add_options(CLI::App* c, TransformArgs& a) {
  c->add_option("IN", a.in, "Input .npy file (C or Fortran order)")->required();
  c->add_option("OUT", a.out, "Output .npy file")->required();
  c->add_flag("--inverse", a.inverse, "c2c, r2r: the inverse (backward) transform");
  c->add_option("--last-n", a.last_n, "c2r: length of the real halved axis (2*(m-1) or 2*(m-1)+1)")
      ->check(at_least(1, "an integer >= 1"));
  c->add_flag("--verbose", a.verbose, "Print the plan's path");
  c->add_flag("--quiet", a.quiet, "Print nothing on success");
  c->add_flag("--in-place", a.in_place,
              "Rewrite the existing regular file OUT itself (keeps its inode, owner and links; a "
              "failure leaves it partly written) instead of replacing it by a new file");
  add_plan_option_flags(c, a.options, transform_uses(), {}, &a.items);
}

// Options as the library wants them; unknown names throw dfft::Error listing the allowed ones.
dfft::Options plan_options(const TransformArgs& a) {
  dfft::Options o = options_with_defaults(transform_uses());
  set_plan_options(o, a.options, {"transform"});
  o.transform = a.transform == "c2r" ? dfft::Transform::r2c : dfft::parse_transform(a.transform);
  // A list given item by item needs every item (the plan cannot choose one and take the other).
  for (const auto& f : dfft::option_fields()) {
    if (!items_given(f, a.items)) continue;
    const auto flags = item_flags(f);
    for (const auto& flag : flags)
      if (a.items.count(flag_key(flag)) == 0 || a.items.at(flag_key(flag)).size() != 1)
        throw UsageError(flag + ": give one value to each of " + join(flags, ", ") + " (or " + std::string(f.flag) +
                         " for all)");
    dfft::set_option(o, f.name, item_lists(f, a.items, {}, flags.size()).front());
  }
  return o;
}

// A .npy shape as NumPy prints it: (17, 12, 10).
std::string numpy_shape_text(const std::vector<std::int64_t>& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + ")";
}

// What the file and the options together ask for; throws IoError for a mismatch.
Job plan_job(const TransformArgs& a, const dfft::io::NpyHeader& h) {
  using dfft::io::Dtype;
  Job j;
  const bool complex_in = h.dtype == Dtype::complex64 || h.dtype == Dtype::complex128;
  j.is_double = h.dtype == Dtype::float64 || h.dtype == Dtype::complex128;
  const std::string file = "'" + a.in + "' holds " + to_string(h.dtype);
  const bool real_transform = a.transform == "r2c" || a.transform == "r2r";
  if (real_transform && complex_in)
    throw IoError("wrong dtype: --transform " + a.transform + " needs float32 or float64 input; " + file +
                  " (use --transform c2c)");
  if (!real_transform && !complex_in)
    throw IoError("wrong dtype: --transform " + a.transform +
                  " needs complex64 or complex128 input; " + file + " (use --transform r2c)");
  if (h.shape.size() < 2)
    throw IoError("'" + a.in + "' has shape " + numpy_shape_text(h.shape) +
                  "; dfft needs at least 2 dimensions");
  for (auto n : h.shape)
    if (n < 1)
      throw IoError("'" + a.in + "' has shape " + numpy_shape_text(h.shape) +
                    "; every axis needs at least one element");
  j.shape = h.shape;
  const Dtype cplx = j.is_double ? Dtype::complex128 : Dtype::complex64,
              real = j.is_double ? Dtype::float64 : Dtype::float32;
  // The halved axis: the last of --axes (an out-of-range one is refused by the plan).
  const int d = static_cast<int>(h.shape.size());
  int hv = a.axes.empty() ? d - 1 : a.axes.back() < 0 ? a.axes.back() + d : a.axes.back();
  if (hv < 0 || hv >= d) hv = d - 1;
  const auto halved = static_cast<std::size_t>(hv);
  if (a.transform == "r2r") {
    j.forward = !a.inverse;
    j.real_in = j.real_out = true;
    j.out_shape = h.shape;
    j.out_type = real;
  } else if (a.transform == "r2c") {
    j.real_in = true;
    j.out_shape = h.shape;
    j.out_shape[halved] = h.shape[halved] / 2 + 1;
    j.out_type = cplx;
  } else if (a.transform == "c2r") {
    const std::int64_t m = h.shape[halved], n = a.last_n > 0 ? a.last_n : 2 * (m - 1);
    if (n < 1 || n / 2 + 1 != m)
      throw IoError("--last-n " + std::to_string(n) + " does not match the halved axis of '" + a.in +
                    "' (" + std::to_string(m) + " complex values hold a real axis of " +
                    std::to_string(2 * (m - 1)) + " or " + std::to_string(2 * m - 1) + ")");
    j.shape[halved] = n;
    j.forward = false;
    j.real_out = true;
    j.out_shape = j.shape;
    j.out_type = real;
  } else {
    j.forward = !a.inverse;
    j.out_shape = h.shape;
    j.out_type = cplx;
  }
  return j;
}

// Plan memory (device memory with the CUDA backend).
template <class T>
struct Buffer {
  const dfft::Plan<T>& plan;
  void* p;
  Buffer(const dfft::Plan<T>& pl, std::size_t bytes)
      : plan(pl), p(pl.allocate(std::max<std::size_t>(bytes, 1))) {}
  ~Buffer() { plan.deallocate(p); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

template <class T>
void execute(dfft::Plan<T>& plan, const Job& j, const void* in, void* out) {
  using C = std::complex<T>;
  if (j.real_in && j.real_out && j.forward)
    plan.forward(static_cast<const T*>(in), static_cast<T*>(out));
  else if (j.real_in && j.real_out)
    plan.inverse(static_cast<const T*>(in), static_cast<T*>(out));
  else if (j.real_in)
    plan.forward(static_cast<const T*>(in), static_cast<C*>(out));
  else if (j.real_out)
    plan.inverse(static_cast<const C*>(in), static_cast<T*>(out));
  else if (j.forward)
    plan.forward(static_cast<const C*>(in), static_cast<C*>(out));
  else
    plan.inverse(static_cast<const C*>(in), static_cast<C*>(out));
}

struct Timings {
  double read = 0, compute = 0, write = 0;
  std::string plan;  // the decomposition and variant the plan has (chosen where left automatic)
};

template <class T>
Timings run_typed(const TransformArgs& a, const dfft::io::NpyHeader& h, const Job& j, MPI_Comm comm,
                  std::string& path) {
  dfft::Options opt = plan_options(a);
  dfft::Plan<T> plan(comm, j.shape, opt);
  if (a.verbose) path = plan.describe();
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  // What the plan noticed (a failed FFTW wisdom write) goes to stderr, once.
  if (rank == 0)
    for (const auto& w : plan.warnings()) std::fprintf(stderr, "dfft transform: warning: %s\n", w.c_str());
  // Forward runs input layout -> output layout; the inverse the other way round.
  const dfft::Layout& src = j.forward ? plan.input_layout() : plan.output_layout();
  const dfft::Layout& dst = j.forward ? plan.output_layout() : plan.input_layout();
  const std::size_t in_elem = j.real_in ? sizeof(T) : 2 * sizeof(T),
                    out_elem = j.real_out ? sizeof(T) : 2 * sizeof(T);
  std::vector<T> host_in(static_cast<std::size_t>(src.alloc_count()) * in_elem / sizeof(T));
  std::vector<T> host_out(static_cast<std::size_t>(dst.alloc_count()) * out_elem / sizeof(T));
  Timings t;
  t.plan = dfft::to_string(plan.options().decomposition) + " " + dfft::to_string(plan.options().variant);
  double t0 = MPI_Wtime();
  dfft::io::read_npy(comm, a.in, h.shape, h.dtype, src, host_in.data());
  t.read = MPI_Wtime() - t0;
  Buffer<T> din(plan, host_in.size() * sizeof(T)), dout(plan, host_out.size() * sizeof(T));
  plan.upload(din.p, host_in.data(), host_in.size() * sizeof(T));
  t0 = MPI_Wtime();
  execute(plan, j, din.p, dout.p);
  t.compute = MPI_Wtime() - t0;
  plan.download(host_out.data(), dout.p, host_out.size() * sizeof(T));
  t0 = MPI_Wtime();
  dfft::io::WriteOptions w;
  w.atomic = !a.in_place;  // a new file renamed into place, or OUT itself rewritten
  dfft::io::write_npy(comm, a.out, j.out_shape, j.out_type, dst, host_out.data(), w);
  t.write = MPI_Wtime() - t0;
  return t;
}

std::string direction_text(const TransformArgs& a, const Job& j) {
  if (a.transform == "c2c" || a.transform == "r2r") return a.transform + (j.forward ? " forward" : " inverse");
  return a.transform == "r2c" ? "r2c forward" : "c2r inverse";
}

// Everything about the arguments that can be refused before any file is read.
void check_arguments(const TransformArgs& a, MPI_Comm comm) {
  if (a.last_n > 0 && a.transform != "c2r")
    throw UsageError("--last-n applies to --transform c2r only");
  if (a.inverse && a.transform != "c2c" && a.transform != "r2r")
    throw UsageError("--inverse applies to c2c and r2r; the inverse of r2c is --transform c2r");
  try {
    (void)plan_options(a);
  } catch (const dfft::Error& e) {  // unknown names: the library's message lists the allowed ones
    throw UsageError(e.what());
  }
  if (a.quiet && a.verbose) throw UsageError("--quiet and --verbose exclude each other; give one of them");
  check_output_target(a.in, a.out, a.in_place, comm);
  // The tuner's wisdom file is written at the end: checked now like the output.
  const dfft::Options o = plan_options(a);
  if (o.tune == dfft::Tune::measure)
    if (const std::string w = wisdom_target(o.wisdom_file, comm); !w.empty()) check_wisdom_target(w, comm);
  if (o.tune != dfft::Tune::none) {
    refuse_with_tuning([&](const std::string& n) {
      return option_value(a.options, transform_uses(), n) != "auto" || items_given(dfft::option_field(n), a.items);
    }, "--tune " + dfft::to_string(o.tune));
  }
}

int run_transform(const TransformArgs& a, MPI_Comm comm) {
  int rank = 0, size = 1;
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return exit_failure;
  auto complain = [&](const std::string& what) {
    if (rank == 0) std::fprintf(stderr, "dfft transform: %s\n", what.c_str());
  };
  check_arguments(a, comm);
  dfft::io::NpyHeader h;
  Job j;
  try {
    h = dfft::io::read_npy_header(comm, a.in);
    j = plan_job(a, h);  // the header is the same on every rank, so is this error
  } catch (const IoError& e) {
    complain(message_of(e));
    return exit_input;
  } catch (const dfft::Error& e) {  // unreadable or malformed input, agreed on every rank
    complain(message_of(e));
    return exit_input;
  }
  try {
    std::string path;
    Timings t = j.is_double ? run_typed<double>(a, h, j, comm, path)
                            : run_typed<float>(a, h, j, comm, path);
    if (rank == 0 && !path.empty()) std::printf("%s\n", path.c_str());
    if (rank == 0 && !a.quiet)
      std::printf(
          "dfft transform: %s %s %s -> %s %s %s, %s on %d rank%s (%s%s); read %.3f s, transform "
          "%.3f s, write %.3f s\n",
          a.in.c_str(), to_string(h.dtype).c_str(), numpy_shape_text(h.shape).c_str(), a.out.c_str(),
          to_string(j.out_type).c_str(), numpy_shape_text(j.out_shape).c_str(), direction_text(a, j).c_str(),
          size, size == 1 ? "" : "s", t.plan.c_str(), "", t.read, t.compute,
          t.write);
    return exit_ok;
  } catch (const dfft::Error& e) {
    // Plan creation rejects what the library cannot do (e.g. a grid that does not fit); file
    // reading and writing fail with the MPI call that failed.
    complain(message_of(e));
    return exit_status(e);
  }
}

}  // namespace

Command make_transform_command(CLI::App& parent) {
  auto args = std::make_shared<TransformArgs>();
  CLI::App* c = parent.add_subcommand(
      "transform",
      "Transform a .npy file into a .npy file (r2c, c2r, c2c or r2r), reading and writing with MPI-IO");
  add_options(c, *args);
  c->footer(kTransformFooter);
  // The transform and axes, which decide the files' shapes, from the options the flags gave.
  auto finish = [args] {
    args->transform = option_value(args->options, transform_uses(), "transform");
    try {
      args->axes = plan_options(*args).axes;
    } catch (const dfft::Error&) {  // refused with its message by check_arguments()
    }
  };
  return {c,
          [args, finish](MPI_Comm comm) {
            finish();
            return run_transform(*args, comm);
          },
          [args, finish] {
            finish();
            return plan_options(*args);
          }};
}

}  // namespace dfftapp
