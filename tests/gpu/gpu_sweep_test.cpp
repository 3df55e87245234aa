// SPDX-License-Identifier: MIT
// Every decomposition x variant x method x precision x transform on the GPU, against the
// built-in serial reference (dfft::validate), with round trip and Laplacian: odd sizes fully,
// 128^3 for every method in r2c and for a few methods in c2c.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <vector>

#include "dfft/validate.hpp"
#include "gpu_util.hpp"

namespace dfft_gpu {

namespace {

using dfft::Decomposition;
using dfft::Method;
using dfft::Transform;
using dfft::Variant;
using Shape = std::vector<std::int64_t>;

struct Case {
  Decomposition dec;
  Variant var;
  std::vector<Method> methods;
  bool dbl;
  Transform tr;
  Shape shape;
};

std::string name_of(const ::testing::TestParamInfo<Case>& i) {
  const Case& c = i.param;
  auto clean = [](std::string x) {
    for (auto& ch : x)
      if (ch == '-') ch = '_';
    return x;
  };
  std::ostringstream s;
  s << clean(to_string(c.dec)) << "_" << to_string(c.var);
  for (auto m : c.methods) s << "_" << clean(to_string(m));
  s << "_" << (c.dbl ? "double" : "float") << "_" << to_string(c.tr) << "_";
  for (std::size_t k = 0; k < c.shape.size(); ++k) s << (k ? "x" : "") << c.shape[k];
  return s.str();
}

const std::vector<Method> kAll{Method::a2a_sync, Method::a2a_type,      Method::p2p_sync,
                               Method::p2p_type, Method::p2p_streams,   Method::nccl,
                               Method::cuda_ipc, Method::p2p_pipelined, Method::node_ring,
                               Method::hierarchical};

std::vector<std::vector<Method>> method_sets(Decomposition dec) {
  std::vector<std::vector<Method>> v;
  for (auto m : kAll) v.push_back({m});
  if (dec == Decomposition::pencil) {  // one method per exchange, mixed
    v.push_back({Method::nccl, Method::p2p_streams});
    v.push_back({Method::a2a_type, Method::nccl});
  }
  return v;
}

std::vector<Case> all_cases() {
  std::vector<Case> cs;
  const std::vector<Shape> odd{{17, 12, 10}, {12, 10, 9}};
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil})
    for (auto var : {Variant::Default, Variant::Realigned})
      for (const auto& ms : method_sets(dec))
        for (bool dbl : {true, false}) {
          for (const auto& sh : odd)
            for (auto tr : {Transform::r2c, Transform::c2c}) cs.push_back({dec, var, ms, dbl, tr, sh});
          cs.push_back({dec, var, ms, dbl, Transform::r2c, {128, 128, 128}});
          if (ms.size() == 1 && (ms[0] == Method::nccl || ms[0] == Method::p2p_streams ||
                                 ms[0] == Method::p2p_pipelined))
            cs.push_back({dec, var, ms, dbl, Transform::c2c, {128, 128, 128}});
        }
  return cs;
}

bool uses_nccl(const Case& c) {
  for (auto m : c.methods)
    if (m == Method::nccl) return true;
  return false;
}

template <class T>
void run_case(const Case& c) {
  dfft::Options o;
  o.decomposition = c.dec;
  o.variant = c.var;
  o.methods = c.methods;
  o.transform = c.tr;
  o.backend = dfft::Backend::cuda;
  // The node-aware methods on emulated nodes of one rank each: every message crosses nodes.
  for (auto m : c.methods)
    if (m == Method::node_ring || m == Method::hierarchical) o.ranks_per_node = {1};
  std::unique_ptr<dfft::Plan<T>> plan;
  const Outcome made = run_collective([&] { plan = std::make_unique<dfft::Plan<T>>(MPI_COMM_WORLD, c.shape, o); });
  if (made.ranks_with_error > 0 && uses_nccl(c) && made.what.find("share a GPU") != std::string::npos) {
    // More ranks than GPUs: NCCL cannot run two ranks of a communicator on one GPU. The plan
    // must say so on every rank (checked here); the transform itself cannot be tested.
    EXPECT_EQ(made.ranks_with_error, world_size()) << made.what;
    if (world_rank() == 0) std::printf("    (nccl refused, as it must: %s)\n", made.what.c_str());
    return;
  }
  ASSERT_EQ(made.ranks_with_error, 0) << made.what;
  EXPECT_GE(plan->device(), 0);
  const double ref = max_over_ranks(dfft::validate::reference_error(*plan, MPI_COMM_WORLD));
  const double rt = max_over_ranks(dfft::validate::roundtrip_error(*plan, MPI_COMM_WORLD));
  const double lap = max_over_ranks(dfft::validate::laplacian_error(*plan, MPI_COMM_WORLD));
  EXPECT_LE(ref, ref_tol<T>()) << "reference error\n" << plan->describe();
  EXPECT_LE(rt, ref_tol<T>()) << "round-trip error\n" << plan->describe();
  EXPECT_LE(lap, lap_tol<T>()) << "Laplacian error\n" << plan->describe();
  // Phase timings of a forward transform: one record per step, exchanges named by their method.
  {
    const bool r2c = c.tr == Transform::r2c;
    const auto in_bytes = static_cast<std::size_t>(plan->input_count()) * (r2c ? sizeof(T) : 2 * sizeof(T));
    void* in = plan->allocate(in_bytes);
    void* out = plan->allocate(static_cast<std::size_t>(plan->output_count()) * 2 * sizeof(T));
    cudaMemset(in, 0, in_bytes);
    if (r2c) plan->forward(static_cast<T*>(in), static_cast<std::complex<T>*>(out));
    else plan->forward(static_cast<std::complex<T>*>(in), static_cast<std::complex<T>*>(out));
    plan->deallocate(in);
    plan->deallocate(out);
  }
  const auto& t = plan->timings();
  ASSERT_EQ(t.size() % 2, 1u);
  for (std::size_t i = 1; i < t.size(); i += 2) {
    const Method m = c.methods.size() == 1 ? c.methods[0] : c.methods[i / 2];
    EXPECT_NE(t[i].name.find(to_string(m)), std::string::npos) << t[i].name;
    EXPECT_GE(t[i].comm, 0.0);
  }
}

class GpuSweep : public GpuTest, public ::testing::WithParamInterface<Case> {};

TEST_P(GpuSweep, MatchesSerialReference) {
  if (GetParam().dbl) run_case<double>(GetParam());
  else run_case<float>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(All, GpuSweep, ::testing::ValuesIn(all_cases()), name_of);

}  // namespace

}  // namespace dfft_gpu
