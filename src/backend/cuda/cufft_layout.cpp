// SPDX-License-Identifier: MIT
#include "backend/cuda/cufft_layout.hpp"

#include <algorithm>

#include "util/check.hpp"

namespace dfft::detail {

namespace {

struct Axis {
  std::int64_t ext, is, os;
};

int position(const std::vector<int>& order, int axis) {
  return static_cast<int>(std::find(order.begin(), order.end(), axis) - order.begin());
}

}  // namespace

CufftMapping map_layouts(const FftDesc& d, const Layout& in, const Layout& out) {
  CufftMapping m;
  const bool halved = d.kind == FftDesc::Kind::r2c || d.kind == FftDesc::Kind::c2r;
  std::vector<int> fft = d.axes;
  auto by_pos = [](const Layout& l) {
    return [&l](int a, int b) { return position(l.order, a) < position(l.order, b); };
  };
  std::sort(fft.begin(), fft.end(), by_pos(in));
  std::vector<int> fft_out = d.axes;
  std::sort(fft_out.begin(), fft_out.end(), by_pos(out));
  if (fft != fft_out) return m;
  if (halved && fft.back() != d.axes.back()) return m;
  const auto is = in.strides(), os = out.strides();
  for (std::size_t k = 0; k < fft.size(); ++k) {
    const int a = fft[k];
    m.n.push_back(d.kind == FftDesc::Kind::c2r ? out.box.extent(a) : in.box.extent(a));
    m.inembed.push_back(k == 0 ? 1 : is[fft[k - 1]] / is[a]);
    m.onembed.push_back(k == 0 ? 1 : os[fft[k - 1]] / os[a]);
  }
  m.inembed[0] = m.n[0];
  m.onembed[0] = m.n[0];
  m.istride = is[fft.back()];
  m.ostride = os[fft.back()];
  // Batch axes in input order, merged where contiguous one into the other on both sides.
  std::vector<Axis> batch;
  for (int a : in.order)
    if (std::find(fft.begin(), fft.end(), a) == fft.end() && in.box.extent(a) > 1)
      batch.push_back({in.box.extent(a), is[a], os[a]});
  for (bool merged = true; merged;) {
    merged = false;
    for (std::size_t i = 0; i < batch.size() && !merged; ++i)
      for (std::size_t j = 0; j < batch.size() && !merged; ++j)
        if (i != j && batch[i].is == batch[j].is * batch[j].ext &&
            batch[i].os == batch[j].os * batch[j].ext) {
          batch[j].ext *= batch[i].ext;
          batch.erase(batch.begin() + static_cast<std::ptrdiff_t>(i));
          merged = true;
        }
  }
  std::int64_t per = 1;
  for (auto v : m.n) per *= v;
  m.idist = m.odist = per;
  if (!batch.empty()) {
    // The plan's batch: the longest merged axis, except that a strided transform reads and
    // writes coalesced only when consecutive batch members are adjacent in memory. A batch
    // axis of distance 1 on either side therefore wins whenever it has at least a warp's
    // worth of members (32), however long the others are: e.g. the y-step of a pencil
    // (z, y, x) runs batched over x and looped over z (docs/gpu.md has the measurement).
    auto big = std::max_element(batch.begin(), batch.end(), [](const Axis& x, const Axis& y) {
      return x.ext != y.ext ? x.ext < y.ext : x.is > y.is;
    });
    for (auto it = batch.begin(); it != batch.end(); ++it)
      if ((it->is == 1 || it->os == 1) && it->ext >= 32) big = it;
    m.batch = big->ext;
    m.idist = big->is;
    m.odist = big->os;
    batch.erase(big);
  }
  m.loops = {{0, 0}};
  for (const auto& b : batch) {
    std::vector<std::pair<std::int64_t, std::int64_t>> next;
    for (const auto& [i0, o0] : m.loops)
      for (std::int64_t k = 0; k < b.ext; ++k) next.push_back({i0 + k * b.is, o0 + k * b.os});
    m.loops.swap(next);
  }
  m.ok = true;
  return m;
}

std::vector<std::array<Layout, 2>> layout_candidates(const FftDesc& d) {
  std::vector<int> canon;
  for (int a : d.in.order)
    if (std::find(d.axes.begin(), d.axes.end(), a) == d.axes.end()) canon.push_back(a);
  canon.insert(canon.end(), d.axes.begin(), d.axes.end());
  return {{d.in, d.out},
          {d.in, Layout{d.out.box, d.in.order, {}}},
          {Layout{d.in.box, d.out.order, {}}, d.out},
          {Layout{d.in.box, canon, {}}, Layout{d.out.box, canon, {}}}};
}

ChosenLayouts choose_layouts(const FftDesc& d) {
  for (const auto& c : layout_candidates(d)) {
    CufftMapping m = map_layouts(d, c[0], c[1]);
    if (!m.ok) continue;
    const bool aligned = std::none_of(m.loops.begin(), m.loops.end(), [&](const auto& io) {
      return (d.kind == FftDesc::Kind::r2c && io.first % 2 != 0) || (d.kind == FftDesc::Kind::c2r && io.second % 2 != 0);
    });
    if (aligned) return {c, std::move(m)};
  }
  fail_internal("no cuFFT layout for this step");
}

}  // namespace dfft::detail
