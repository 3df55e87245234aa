// SPDX-License-Identifier: MIT
// cuda-ipc transport: every decomposition x variant x transform x precision on odd sizes (alone
// and mixed with nccl per exchange; per-peer, which runs cuda-ipc inside emulated nodes) against
// the serial reference; the box API, whose reshapes
// write user memory (plain cudaMalloc, an offset into it, and cudaMallocAsync pool memory that
// CUDA IPC cannot export, which takes the fallback receive buffer); and repeated round trips on
// one plan (event reuse across executes).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
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

const char* kShareGpu = "share a GPU";  // nccl's refusal with more ranks than GPUs

dfft::Options ipc_options(Decomposition dec, std::vector<Method> methods, Transform tr) {
  dfft::Options o;
  o.decomposition = dec;
  o.methods = std::move(methods);
  o.transform = tr;
  o.backend = dfft::Backend::cuda;
  return o;
}

bool has_nccl(const std::vector<Method>& ms) {
  return std::find(ms.begin(), ms.end(), Method::nccl) != ms.end();
}

// ---- The sweep -------------------------------------------------------------------------------

struct IpcCase {
  Decomposition dec;
  Variant var;
  std::vector<Method> methods;
  bool dbl;
  Transform tr;
  Shape shape;
  std::vector<int> nodes = {};  // emulated node layout (Options::ranks_per_node); empty: detected
};

std::string ipc_name(const ::testing::TestParamInfo<IpcCase>& i) {
  const IpcCase& c = i.param;
  std::ostringstream s;
  s << to_string(c.dec) << "_" << to_string(c.var);
  for (auto m : c.methods) s << "_" << to_string(m);
  s << "_" << (c.dbl ? "double" : "float") << "_" << to_string(c.tr) << "_";
  for (std::size_t k = 0; k < c.shape.size(); ++k) s << (k ? "x" : "") << c.shape[k];
  if (!c.nodes.empty()) s << "_nodes";
  for (std::size_t k = 0; k < c.nodes.size(); ++k) s << "_" << c.nodes[k];
  std::string n = s.str();
  for (auto& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

std::vector<IpcCase> ipc_cases() {
  std::vector<IpcCase> v;
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    std::vector<std::vector<Method>> sets{{Method::cuda_ipc}};
    if (dec == Decomposition::pencil) {
      sets.push_back({Method::cuda_ipc, Method::nccl});
      sets.push_back({Method::nccl, Method::cuda_ipc});
    }
    for (auto var : {Variant::Default, Variant::Realigned})
      for (const auto& ms : sets)
        for (bool dbl : {true, false})
          for (auto tr : {Transform::r2c, Transform::c2c})
            for (const Shape& sh : {Shape{17, 12, 10}, Shape{15, 14, 9}})
              v.push_back({dec, var, ms, dbl, tr, sh});
    // per-peer on emulated nodes: one rank per node (every block between nodes, over nccl or,
    // where ranks share a GPU, MPI), and nodes of two ranks (cuda-ipc inside, the rest between).
    // cuda-ipc's part needs the ranks of an emulated node on one host, as they are here.
    std::vector<std::vector<int>> layouts{{1}};
    if (world_size() >= 2) layouts.push_back({world_size() % 2 == 0 && world_size() >= 4 ? 2 : world_size()});
    for (const auto& nodes : layouts)
      for (auto var : {Variant::Default, Variant::Realigned})
        for (bool dbl : {true, false})
          for (auto tr : {Transform::r2c, Transform::c2c})
            v.push_back({dec, var, {Method::per_peer}, dbl, tr, Shape{17, 12, 10}, nodes});
  }
  return v;
}

template <class T>
void run_ipc_case(const IpcCase& c) {
  auto o = ipc_options(c.dec, c.methods, c.tr);
  o.variant = c.var;
  o.ranks_per_node = c.nodes;
  std::unique_ptr<dfft::Plan<T>> plan;
  const Outcome made =
      run_collective([&] { plan = std::make_unique<dfft::Plan<T>>(MPI_COMM_WORLD, c.shape, o); });
  if (made.ranks_with_error > 0 && has_nccl(c.methods) &&
      made.what.find(kShareGpu) != std::string::npos) {
    EXPECT_EQ(made.ranks_with_error, world_size()) << made.what;
    return dfft_test::skip_shared_gpu(made.what);
  }
  ASSERT_EQ(made.ranks_with_error, 0) << made.what;
  const double ref = max_over_ranks(dfft::validate::reference_error(*plan, MPI_COMM_WORLD));
  const double rt = max_over_ranks(dfft::validate::roundtrip_error(*plan, MPI_COMM_WORLD));
  EXPECT_LE(ref, ref_tol<T>()) << "reference error\n" << plan->describe();
  EXPECT_LE(rt, ref_tol<T>()) << "round-trip error\n" << plan->describe();
}

class GpuIpcSweep : public GpuTest, public ::testing::WithParamInterface<IpcCase> {};

TEST_P(GpuIpcSweep, MatchesSerialReference) {
  if (GetParam().dbl)
    run_ipc_case<double>(GetParam());
  else
    run_ipc_case<float>(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Ipc, GpuIpcSweep, ::testing::ValuesIn(ipc_cases()), ipc_name);

// ---- Box API: user buffers -------------------------------------------------------------------

/// A share of `shape` split along `axis` (uneven splits), in memory order `order`, with two
/// padding elements on the fastest axis when `pad`. Rank r takes block p-1-r: with more than one
/// rank the boxes differ from every decomposition's, so the plan reshapes into user memory.
dfft::Layout split_layout(const Shape& shape, int axis, std::vector<int> order, bool pad) {
  const int p = world_size(), r = p - 1 - world_rank();
  dfft::Layout l;
  l.box.lo.assign(shape.size(), 0);
  l.box.hi = shape;
  l.box.lo[axis] = shape[axis] * r / p;
  l.box.hi[axis] = shape[axis] * (r + 1) / p;
  l.order = std::move(order);
  if (pad) {
    for (std::size_t a = 0; a < shape.size(); ++a)
      l.padded.push_back(l.box.extent(static_cast<int>(a)));
    l.padded[l.order.back()] += 2;
  }
  return l;
}

/// Elements of `l`'s box as found in a host copy of its local array (padding skipped).
template <class V>
std::vector<V> box_values(const dfft::Layout& l, const std::vector<V>& a) {
  std::vector<V> v;
  if (l.box.empty()) return v;
  std::vector<std::int64_t> idx = l.box.lo;
  const int d = l.box.dims();
  while (true) {
    v.push_back(a[static_cast<std::size_t>(l.offset_of(idx))]);
    int k = d - 1;
    while (k >= 0 && ++idx[k] == l.box.hi[k]) idx[k] = l.box.lo[k], --k;
    if (k < 0) return v;
  }
}

/// Device memory from cudaMalloc (`pool` false) or from the stream-ordered pool (`pool` true),
/// which legacy CUDA IPC cannot export.
class DeviceArray {
 public:
  DeviceArray(std::size_t bytes, bool pool) : pool_(pool) {
    if (pool) {
      EXPECT_EQ(cudaMallocAsync(&p_, bytes, nullptr), cudaSuccess);
      EXPECT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    } else {
      EXPECT_EQ(cudaMalloc(&p_, bytes), cudaSuccess);
    }
    EXPECT_EQ(cudaMemset(p_, 0, bytes), cudaSuccess);
  }
  ~DeviceArray() {
    cudaDeviceSynchronize();
    if (pool_)
      cudaFreeAsync(p_, nullptr);
    else
      cudaFree(p_);
    cudaDeviceSynchronize();
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  char* get() const { return static_cast<char*>(p_); }

 private:
  void* p_ = nullptr;
  bool pool_;
};

bool pools_supported() {
  int dev = 0, yes = 0;
  return cudaGetDevice(&dev) == cudaSuccess &&
         cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, dev) == cudaSuccess &&
         yes == 1;
}

/// Forward transform of the same input with `plan` (output at `out_offset` elements into a
/// buffer from cudaMalloc or the pool) and with `ref`; returns the largest relative difference
/// over the output box and the unpack time of the plan's last step (the final reshape).
template <class T, class In>
std::pair<double, double> compare_forward(dfft::Plan<T>& plan, dfft::Plan<T>& ref, bool pool,
                                          std::size_t out_offset) {
  using C = std::complex<T>;
  const auto nin = static_cast<std::size_t>(plan.input_count());
  const auto nout = static_cast<std::size_t>(plan.output_count());
  std::vector<In> host_in(nin);
  for (std::size_t i = 0; i < nin; ++i)
    host_in[i] = static_cast<In>(dfft::validate::random_value(i + 1000 * world_rank(), 7));
  DeviceArray in(nin * sizeof(In) + 1, false), out((nout + out_offset) * sizeof(C), pool);
  DeviceArray ref_out(nout * sizeof(C) + 1, false);
  std::vector<C> a(nout), b(nout);
  EXPECT_EQ(cudaMemcpy(in.get(), host_in.data(), nin * sizeof(In), cudaMemcpyHostToDevice),
            cudaSuccess);
  C* o = reinterpret_cast<C*>(out.get()) + out_offset;
  plan.forward(reinterpret_cast<const In*>(in.get()), o);
  const double unpack = plan.timings().back().unpack;
  EXPECT_EQ(cudaMemcpy(a.data(), o, nout * sizeof(C), cudaMemcpyDeviceToHost), cudaSuccess);
  ref.forward(reinterpret_cast<const In*>(in.get()), reinterpret_cast<C*>(ref_out.get()));
  EXPECT_EQ(cudaMemcpy(b.data(), ref_out.get(), nout * sizeof(C), cudaMemcpyDeviceToHost),
            cudaSuccess);
  const auto va = box_values(plan.output_layout(), a), vb = box_values(plan.output_layout(), b);
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < va.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(va[i] - vb[i])));
    norm = std::max(norm, static_cast<double>(std::abs(vb[i])));
  }
  norm = std::max(max_over_ranks(norm), 1e-300);
  return {max_over_ranks(diff) / norm, unpack};
}

template <class T, class In>
void run_box_case(Decomposition dec, Transform tr) {
  const Shape shape{17, 12, 10};
  Shape spec = shape;
  if (tr == Transform::r2c) spec.back() = spec.back() / 2 + 1;
  // Boxes unlike any decomposition's, so that both ends get a reshape into user memory.
  const auto uin = split_layout(shape, 2, {2, 0, 1}, true);
  const auto uout = split_layout(spec, 1, {1, 2, 0}, true);
  auto o = ipc_options(dec, {Method::cuda_ipc}, tr);
  std::unique_ptr<dfft::Plan<T>> plan, ref;
  const Outcome made = run_collective([&] {
    plan = std::make_unique<dfft::Plan<T>>(MPI_COMM_WORLD, shape, uin, uout, o);
    auto ro = o;
    ro.methods = {Method::a2a_sync};
    ref = std::make_unique<dfft::Plan<T>>(MPI_COMM_WORLD, shape, uin, uout, ro);
  });
  ASSERT_EQ(made.ranks_with_error, 0) << made.what;
  if (world_size() > 1) {
    ASSERT_NE(plan->describe().find("reshape"), std::string::npos) << plan->describe();
  }
  // validate:: allocates fresh buffers per call: mappings of freed user memory must not be
  // reused (a new allocation may get the same address).
  for (int rep = 0; rep < 3; ++rep) {
    EXPECT_LE(max_over_ranks(dfft::validate::reference_error(*plan, MPI_COMM_WORLD)), ref_tol<T>())
        << plan->describe();
    EXPECT_LE(max_over_ranks(dfft::validate::roundtrip_error(*plan, MPI_COMM_WORLD)), ref_tol<T>());
  }
  // Plain cudaMalloc output, at an offset into its allocation: written directly.
  const auto [d_direct, unpack_direct] = compare_forward<T, In>(*plan, *ref, false, 3);
  EXPECT_LE(d_direct, ref_tol<T>());
  EXPECT_EQ(max_over_ranks(unpack_direct), 0.0) << "cudaMalloc output took the fallback";
  if (!all_ranks(pools_supported())) {
    if (world_rank() == 0) std::printf("    (no memory pools: fallback not tested)\n");
    return;
  }
  // Pool memory cannot be exported: the fallback buffer and a local unpack.
  const auto [d_pool, unpack_pool] = compare_forward<T, In>(*plan, *ref, true, 0);
  EXPECT_LE(d_pool, ref_tol<T>());
  const double pool_unpack = max_over_ranks(unpack_pool);
  if (world_size() > 1) {
    EXPECT_GT(pool_unpack, 0.0) << "cudaMallocAsync output did not take the fallback";
  }
}

class GpuIpc : public GpuTest {};

TEST_F(GpuIpc, BoxApiUserBuffers) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::slab_1d2d, Decomposition::pencil}) {
    SCOPED_TRACE(to_string(dec));
    run_box_case<double, double>(dec, Transform::r2c);
    run_box_case<float, std::complex<float>>(dec, Transform::c2c);
  }
}

// ---- Repeated executes on one plan -----------------------------------------------------------

template <class T, class In>
void round_trips(Decomposition dec, Transform tr, int reps) {
  using C = std::complex<T>;
  const Shape shape{15, 14, 9};
  Shape spec = shape;
  if (tr == Transform::r2c) spec.back() = spec.back() / 2 + 1;
  auto o = ipc_options(dec, {Method::cuda_ipc}, tr);
  // Unpadded user boxes: every element is data, so the round trip must give back everything.
  dfft::Plan<T> plan(MPI_COMM_WORLD, shape, split_layout(shape, 1, {0, 1, 2}, false),
                     split_layout(spec, 0, {2, 1, 0}, false), o);
  const auto nin = static_cast<std::size_t>(plan.input_count());
  const auto nout = static_cast<std::size_t>(plan.output_count());
  std::vector<In> x(nin), back(nin);
  for (std::size_t i = 0; i < nin; ++i)
    x[i] = static_cast<In>(dfft::validate::random_value(i + 7919 * world_rank(), 3));
  DeviceArray din(nin * sizeof(In) + 1, false), dout(nout * sizeof(C) + 1, false);
  auto* in = reinterpret_cast<In*>(din.get());
  auto* out = reinterpret_cast<C*>(dout.get());
  std::vector<C> first(nout), now(nout);
  double worst_fwd = 0, worst_rt = 0;
  for (int r = 0; r < reps; ++r) {
    plan.upload(in, x.data(), nin * sizeof(In));
    plan.forward(in, out);
    plan.download(r == 0 ? first.data() : now.data(), out, nout * sizeof(C));
    for (std::size_t i = 0; r > 0 && i < nout; ++i)
      worst_fwd = std::max(worst_fwd, static_cast<double>(std::abs(now[i] - first[i])));
    plan.inverse(out, in);
    plan.download(back.data(), in, nin * sizeof(In));
    for (std::size_t i = 0; i < nin; ++i)
      worst_rt = std::max(worst_rt, static_cast<double>(std::abs(back[i] - x[i])));
  }
  // The same plan on the same data gives the same spectrum every time (a race would not).
  EXPECT_LE(max_over_ranks(worst_fwd), ref_tol<T>() * static_cast<double>(shape[0] * shape[1]));
  EXPECT_LE(max_over_ranks(worst_rt), 10 * ref_tol<T>());
}

TEST_F(GpuIpc, RepeatedRoundTrips) {
  for (auto dec : {Decomposition::slab_2d1d, Decomposition::pencil}) {
    SCOPED_TRACE(to_string(dec));
    round_trips<double, std::complex<double>>(dec, Transform::c2c, 20);
    round_trips<float, float>(dec, Transform::r2c, 20);
  }
}

TEST_F(GpuIpc, RefusesCodec) {
  auto o = ipc_options(Decomposition::slab_2d1d, {Method::cuda_ipc}, Transform::r2c);
  o.codec = dfft::Codec::fp16;
  const Outcome r = run_collective([&] { dfft::Plan<float> p(MPI_COMM_WORLD, {16, 12, 10}, o); });
  if (world_size() == 1) return;  // no exchange between ranks, nothing to refuse
  EXPECT_EQ(r.ranks_with_error, world_size());
  EXPECT_NE(r.what.find("working-precision"), std::string::npos) << r.what;
}

}  // namespace

}  // namespace dfft_gpu
