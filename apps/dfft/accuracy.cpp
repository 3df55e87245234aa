// SPDX-License-Identifier: MIT
// `dfft bench --accuracy`: the accuracy table of compressed communication (as Table II of
// Cayrols et al.): forward and round-trip errors against an uncompressed double-precision
// transform, for FP64, FP32 (all in float), FP64->FP32, FP64->FP16, FP64->BF16, FP32->FP16,
// FP32->BF16 wire formats, on random and on smooth data. One table per size, decomposition and
// method given.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "bench.hpp"
#include "dfft/option_fields.hpp"
#include "dfft/dfft.hpp"
#include "dfft/validate.hpp"
#include "mpi_check.hpp"

namespace dfftapp {

namespace {

// One table: the problem and the plan options every row shares.
struct AccCase {
  std::vector<std::int64_t> size;
  std::string decomp, method, backend;
  MPI_Comm comm;
};

// What an omitted option means here: the table of the compression literature (one pencil
// transform of a 64^3 cube, all-to-all exchanges), not bench's sweep.
const std::vector<std::string> kDefaultSize{"64", "64", "64"};
const char* const kDefaultDecomp = "pencil";
const char* const kDefaultMethod = "a2a-sync";

struct Row {
  const char* name;
  bool is_double;
  dfft::Codec codec;
};

// Input value at global index: pseudo-random in [-1, 1), or a smooth periodic function.
double value(const std::vector<std::int64_t>& shape, std::int64_t lin, bool smooth) {
  if (!smooth) return dfft::validate::random_value(static_cast<std::uint64_t>(lin), 21);
  double v = 0, tau = 2 * std::numbers::pi;
  for (int a = static_cast<int>(shape.size()) - 1; a >= 0; --a) {
    double x = tau * static_cast<double>(lin % shape[a]) / static_cast<double>(shape[a]);
    lin /= shape[a];
    v += std::sin(x + a) + 0.5 * std::cos(2 * x);
  }
  return std::exp(0.3 * v);
}

template <class T>
std::vector<T> input_for(const dfft::Plan<T>& p, bool smooth) {
  std::vector<T> in(static_cast<std::size_t>(p.input_count()));
  const auto& l = p.input_layout();
  const auto& s = p.shape();
  const int d = static_cast<int>(s.size());
  std::vector<std::int64_t> idx = l.box.lo;
  for (std::size_t n = 0; n < in.size(); ++n) {  // natural order inside the box
    std::int64_t lin = 0;
    for (int a = 0; a < d; ++a) lin = lin * s[a] + idx[a];
    in[n] = static_cast<T>(value(s, lin, smooth));
    for (int a = d - 1; a >= 0; --a) {
      if (++idx[a] < l.box.hi[a]) break;
      idx[a] = l.box.lo[a];
    }
  }
  return in;
}

double rel_l2(double num, double den, MPI_Comm comm) {
  double l[2] = {num, den}, g[2];
  APP_MPI(MPI_Allreduce(l, g, 2, MPI_DOUBLE, MPI_SUM, comm));
  return std::sqrt(g[0] / g[1]);
}

// Forward into `out`, then inverse into `back`, through the plan's memory (device memory with
// the CUDA backend: the transforms run where the plan runs, the host arrays are copies).
template <class T>
void round_trip(dfft::Plan<T>& p, const std::vector<T>& in, std::vector<std::complex<T>>& out,
                std::vector<T>& back) {
  const std::size_t ib = in.size() * sizeof(T), ob = out.size() * sizeof(std::complex<T>);
  void* din = p.allocate(std::max<std::size_t>(ib, 1));
  void* dout = p.allocate(std::max<std::size_t>(ob, 1));
  p.upload(din, in.data(), ib);
  p.forward(static_cast<const T*>(din), static_cast<std::complex<T>*>(dout));
  p.download(out.data(), dout, ob);
  p.inverse(static_cast<const std::complex<T>*>(dout), static_cast<T*>(din));
  p.download(back.data(), din, ib);
  p.deallocate(din);
  p.deallocate(dout);
}

template <class T>
std::pair<double, double> errors(const AccCase& a, dfft::Options o, bool smooth,
                                 const std::vector<std::complex<double>>& exact) {
  dfft::Plan<T> p(a.comm, a.size, o);
  auto in = input_for(p, smooth);
  std::vector<std::complex<T>> out(static_cast<std::size_t>(p.output_count()));
  std::vector<T> back(in.size());
  round_trip(p, in, out, back);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    num += std::norm(std::complex<double>(out[i]) - exact[i]);
    den += std::norm(exact[i]);
  }
  const double fwd = rel_l2(num, den, a.comm);
  dfft::Options lo = o;  // the same distribution, on the host, for the input in double
  lo.backend = dfft::Backend::cpu;
  lo.methods = {dfft::Method::a2a_sync};  // the method does not change the distribution; the
                                          // GPU-only ones (nccl, cuda-ipc) cannot run on the host
  lo.codec = dfft::Codec::none;
  auto ref = input_for(*std::make_unique<dfft::Plan<double>>(a.comm, a.size, lo).get(), smooth);
  num = den = 0;
  for (std::size_t i = 0; i < back.size(); ++i) {
    // The inverse already scales by 1/N (Norm::backward): back should equal the input.
    num += std::pow(static_cast<double>(back[i]) - ref[i], 2);
    den += ref[i] * ref[i];
  }
  return {fwd, rel_l2(num, den, a.comm)};
}

void table(const AccCase& a) {
  int rank = 0, size = 1;
  APP_MPI(MPI_Comm_rank(a.comm, &rank));
  APP_MPI(MPI_Comm_size(a.comm, &size));
  dfft::Options base;
  base.decomposition = dfft::parse_decomposition(a.decomp);
  base.methods = dfft::parse_methods(a.method);
  base.backend = dfft::parse_backend(a.backend);
  // The exact reference: uncompressed double on the CPU (FFTW), the same distribution.
  dfft::Options exact_opt;
  exact_opt.decomposition = base.decomposition;
  const Row rows[] = {{"FP64", true, dfft::Codec::none},      {"FP32", false, dfft::Codec::none},
                      {"FP64->FP32", true, dfft::Codec::fp32}, {"FP64->FP16", true, dfft::Codec::fp16},
                      {"FP64->BF16", true, dfft::Codec::bf16}, {"FP32->FP16", false, dfft::Codec::fp16},
                      {"FP32->BF16", false, dfft::Codec::bf16}};
  if (rank == 0) {
    std::printf("accuracy: size");
    for (auto v : a.size) std::printf(" %lld", static_cast<long long>(v));
    std::printf(", %d ranks, %s, %s, backend %s; errors are relative L2 vs an uncompressed FP64 "
                "transform (FFTW)\n", size, a.decomp.c_str(), a.method.c_str(), a.backend.c_str());
    if (size == 1)
      std::printf("note: on one rank there is no exchange, so the wire formats never apply: the "
                  "compressed rows equal their uncompressed ones\n");
    std::printf("\n");
    std::printf("| data | format | forward error | round-trip error |\n|---|---|---|---|\n");
  }
  for (bool smooth : {false, true}) {
    dfft::Plan<double> exact_plan(a.comm, a.size, exact_opt);
    auto in = input_for(exact_plan, smooth);
    std::vector<std::complex<double>> exact(static_cast<std::size_t>(exact_plan.output_count()));
    exact_plan.forward(in.data(), exact.data());
    for (const Row& r : rows) {
      dfft::Options o = base;
      o.codec = r.codec;
      auto e = r.is_double ? errors<double>(a, o, smooth, exact) : errors<float>(a, o, smooth, exact);
      if (rank == 0)
        std::printf("| %s | %s | %.2e | %.2e |\n", smooth ? "smooth" : "random", r.name, e.first, e.second);
    }
  }
}

}  // namespace

void refuse_outside_accuracy(const CLI::App& bench) {
  std::vector<std::string> applies{"--accuracy", "--size"};
  for (const char* field : {"decomposition", "methods", "backend"}) applies.emplace_back(dfft::option_field(field).flag);
  for (const CLI::Option* o : bench.get_options()) {
    if (o->count() == 0 || std::find(applies.begin(), applies.end(), o->get_name()) != applies.end()) continue;
    std::string names;  // every spelling: the flag given may be the negative one (--no-validate)
    for (const auto& n : o->get_lnames()) names += (names.empty() ? "--" : "/--") + n;
    std::string takes;
    for (std::size_t i = 1; i < applies.size(); ++i) takes += (i > 1 ? ", " : "") + applies[i];
    throw UsageError(names + " does not apply to --accuracy (it takes " + takes + ")");
  }
}

int run_accuracy(const BenchArgs& a, MPI_Comm comm) {
  const auto sizes = a.sizes.empty() ? std::vector<std::vector<std::string>>{kDefaultSize} : a.sizes;
  const auto given = [&](const std::string& name, const std::string& otherwise) {
    const auto v = a.option_sweeps.find(name);
    return v == a.option_sweeps.end() || v->second.empty() ? std::vector<std::string>{otherwise} : v->second;
  };
  const auto decomps = given("decomposition", kDefaultDecomp);
  const auto methods = given("methods", kDefaultMethod);
  std::vector<AccCase> cases;
  for (const auto& size : sizes)
    for (const auto& d : decomps)
      for (const auto& m : methods) cases.push_back({parse_shape(size), d, m, a.option("backend"), comm});
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (i > 0) {
      int rank = 0;
      APP_MPI(MPI_Comm_rank(comm, &rank));
      if (rank == 0) std::printf("\n");
    }
    table(cases[i]);
  }
  return exit_ok;
}

}  // namespace dfftapp
