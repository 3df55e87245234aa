// SPDX-License-Identifier: MIT
// Two cases. When source and destination share their fastest moving axis, the copy is a loop
// of memcpy runs (merged across axes that are whole in both). Otherwise it is a transpose of
// the plane spanned by the two fastest axes, done in cache-sized tiles.
#include "backend/cpu/copy_box.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "util/check.hpp"

namespace dfft::detail {

namespace {

template <std::size_t N>
struct Elem {
  unsigned char b[N];
};

// Fastest axis of `order` along which `box` has more than one element (or the fastest axis).
int fastest_moving(const std::vector<int>& order, const Box& box) {
  for (int k = static_cast<int>(order.size()) - 1; k >= 0; --k)
    if (box.extent(order[k]) > 1) return order[k];
  return order.back();
}

struct Walk {  // odometer over the outer axes, offsets kept incrementally
  std::vector<int> axes;
  std::vector<std::int64_t> ext, ss, ds, idx;
};

template <class F>
void for_each_outer(Walk& w, std::int64_t s0, std::int64_t d0, F&& f) {
  const int n = static_cast<int>(w.axes.size());
  w.idx.assign(n, 0);
  std::int64_t so = s0, doff = d0;
  while (true) {
    f(so, doff);
    int k = n - 1;
    for (; k >= 0; --k) {
      if (++w.idx[k] < w.ext[k]) {
        so += w.ss[k];
        doff += w.ds[k];
        break;
      }
      so -= w.ss[k] * (w.ext[k] - 1);
      doff -= w.ds[k] * (w.ext[k] - 1);
      w.idx[k] = 0;
    }
    if (k < 0) return;
  }
}

template <std::size_t N>
void transpose_plane(const Elem<N>* s, Elem<N>* d, std::int64_t na, std::int64_t nc,
                     std::int64_t s_a, std::int64_t s_c, std::int64_t d_a, std::int64_t d_c) {
  // a: source-fastest axis (s_a == 1), c: destination-fastest axis (d_c == 1).
  constexpr std::int64_t T = 32;
  for (std::int64_t c0 = 0; c0 < nc; c0 += T)
    for (std::int64_t a0 = 0; a0 < na; a0 += T) {
      const std::int64_t c1 = std::min(nc, c0 + T), a1 = std::min(na, a0 + T);
      for (std::int64_t a = a0; a < a1; ++a)
        for (std::int64_t c = c0; c < c1; ++c) d[a * d_a + c * d_c] = s[a * s_a + c * s_c];
    }
}

template <std::size_t N>
void copy_typed(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box) {
  const int dims = box.dims();
  const auto sst = sl.strides(), dst_st = dl.strides();
  const std::int64_t s0 = sl.offset_of(box.lo), d0 = dl.offset_of(box.lo);
  const auto* s = static_cast<const Elem<N>*>(src);
  auto* d = static_cast<Elem<N>*>(dst);
  const int fs = fastest_moving(sl.order, box), fd = fastest_moving(dl.order, box);

  Walk w;
  if (fs == fd) {
    // Merge slower axes into the run while both arrays continue it with the same stride.
    std::int64_t run = box.extent(fd);
    std::vector<bool> inner(dims, false);
    inner[fd] = true;
    int pos = 0;
    while (dl.order[pos] != fd) ++pos;
    for (int k = pos - 1; k >= 0; --k) {
      int a = dl.order[k];
      if (box.extent(a) == 1) continue;
      if (sst[a] != sst[fd] * run || dst_st[a] != dst_st[fd] * run) break;
      run *= box.extent(a);
      inner[a] = true;
    }
    for (int a : dl.order)
      if (!inner[a] && box.extent(a) > 1) {
        w.axes.push_back(a);
        w.ext.push_back(box.extent(a));
        w.ss.push_back(sst[a]);
        w.ds.push_back(dst_st[a]);
      }
    const bool unit = sst[fd] == 1 && dst_st[fd] == 1;
    const std::int64_t st_s = sst[fd], st_d = dst_st[fd];
    for_each_outer(w, s0, d0, [&](std::int64_t so, std::int64_t doff) {
      if (unit) {
        std::memcpy(d + doff, s + so, static_cast<std::size_t>(run) * N);
      } else {
        for (std::int64_t i = 0; i < run; ++i) d[doff + i * st_d] = s[so + i * st_s];
      }
    });
    return;
  }
  for (int a : dl.order)
    if (a != fs && a != fd && box.extent(a) > 1) {
      w.axes.push_back(a);
      w.ext.push_back(box.extent(a));
      w.ss.push_back(sst[a]);
      w.ds.push_back(dst_st[a]);
    }
  for_each_outer(w, s0, d0, [&](std::int64_t so, std::int64_t doff) {
    transpose_plane<N>(s + so, d + doff, box.extent(fs), box.extent(fd), sst[fs], sst[fd],
                       dst_st[fs], dst_st[fd]);
  });
}

}  // namespace

namespace {
void copy_serial(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                 std::size_t elem_bytes) {
  switch (elem_bytes) {
    case 4: return copy_typed<4>(src, sl, dst, dl, box);
    case 8: return copy_typed<8>(src, sl, dst, dl, box);
    case 16: return copy_typed<16>(src, sl, dst, dl, box);
    default: fail_internal("unsupported element size ", elem_bytes, " in copy_box");
  }
}
}  // namespace

void host_copy_box_split(const void* src, const Layout& sl, void* dst, const Layout& dl,
                         const Box& box, std::size_t elem_bytes, WorkPool* pool, int axis, int parts) {
  if (box.empty()) return;
  if (!pool || parts <= 1) return copy_serial(src, sl, dst, dl, box, elem_bytes);
  pool->run(parts, [&](int p) {
    const Box b = box_part(box, axis, parts, p);
    if (!b.empty()) copy_serial(src, sl, dst, dl, b, elem_bytes);  // more parts than rows
  });
}

void host_copy_box(const void* src, const Layout& sl, void* dst, const Layout& dl, const Box& box,
                   std::size_t elem_bytes, WorkPool* pool) {
  if (box.empty()) return;
  // Cut along the destination's slowest moving axis: each thread writes its own contiguous range.
  const int a = slowest_moving(dl.order, box);
  const int parts = a < 0 ? 1 : parts_for(pool, box.extent(a), box.count() * static_cast<std::int64_t>(elem_bytes));
  host_copy_box_split(src, sl, dst, dl, box, elem_bytes, pool, a, parts);
}

}  // namespace dfft::detail
