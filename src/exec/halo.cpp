// SPDX-License-Identifier: MIT
// Halo exchange in one round: each halo cell is fetched straight from the rank whose box holds it
// (its periodic image), corners included, so that any tiling (slabs, pencils, user boxes) and any
// width (several blocks deep, several wraps) take the same path. Every rank knows every layout,
// so the sender and the receiver of a block list the same pieces in the same order; the pieces
// between two ranks travel as one message: an MPI struct of box datatypes made here once
// (p2p-type, host arrays), or packed by the device's box copy into one buffer per peer
// (p2p-sync; on GPUs packed on the device and staged through host memory).
#include "dfft/halo.hpp"

#include <algorithm>
#include <climits>

#include "backend/device.hpp"
#include "exec/gather.hpp"
#include "plan/geometry.hpp"
#include "transport/box_types.hpp"
#include "transport/pack_common.hpp"
#include "transport/stage.hpp"
#include "util/check.hpp"

namespace dfft {

using namespace detail;

namespace {

using Shape = std::vector<std::int64_t>;

/// One block of a rank's halo held by rank `owner`: the cells `at` (unwrapped global indices,
/// inside the receiver's grown box) hold the owner's cells `at - shift`.
struct Piece {
  Box at;
  Shape shift;
  int owner;
};

/// Both ends agree on the spec: a mismatch would leave messages unmatched.
bool same_everywhere(MPI_Comm comm, const Shape& v) {
  std::int64_t n = static_cast<std::int64_t>(v.size()), lo = 0, hi = 0;
  DFFT_MPI(MPI_Allreduce(&n, &lo, 1, MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(&n, &hi, 1, MPI_INT64_T, MPI_MAX, comm));
  if (lo != hi) return false;
  Shape vlo(v.size()), vhi(v.size());
  DFFT_MPI(MPI_Allreduce(v.data(), vlo.data(), static_cast<int>(n), MPI_INT64_T, MPI_MIN, comm));
  DFFT_MPI(MPI_Allreduce(v.data(), vhi.data(), static_cast<int>(n), MPI_INT64_T, MPI_MAX, comm));
  return vlo == vhi;
}

/// The spec with hi and periodic filled in, checked against `d` axes (local check).
HaloSpec complete(const HaloSpec& s, int d) {
  HaloSpec c = s;
  if (c.hi.empty()) c.hi = c.lo;
  if (c.periodic.empty()) c.periodic.assign(d, true);
  if (static_cast<int>(c.lo.size()) != d || static_cast<int>(c.hi.size()) != d ||
      static_cast<int>(c.periodic.size()) != d)
    fail("halo: lo, hi and periodic need one entry per axis (", d, "), got ", s.lo.size(), ", ",
         s.hi.size(), " and ", s.periodic.size());
  for (int a = 0; a < d; ++a)
    if (c.lo[a] < 0 || c.hi[a] < 0)
      fail("halo: widths must be >= 0 (axis ", a, ": lo ", c.lo[a], ", hi ", c.hi[a], ")");
  return c;
}

Shape flatten(const HaloSpec& s) {
  Shape v{static_cast<std::int64_t>(s.lo.size()), std::int64_t{s.corners}};
  v.insert(v.end(), s.lo.begin(), s.lo.end());
  v.insert(v.end(), s.hi.begin(), s.hi.end());
  for (bool p : s.periodic) v.push_back(p);
  return v;
}

Shape flatten(const std::vector<Layout>& ls) {
  Shape v{static_cast<std::int64_t>(ls.size())};
  for (const auto& l : ls) {
    v.push_back(l.box.dims());
    v.insert(v.end(), l.box.lo.begin(), l.box.lo.end());
    v.insert(v.end(), l.box.hi.begin(), l.box.hi.end());
    v.insert(v.end(), l.order.begin(), l.order.end());
    v.push_back(static_cast<std::int64_t>(l.padded.size()));
    v.insert(v.end(), l.padded.begin(), l.padded.end());
    v.push_back(static_cast<std::int64_t>(l.offset.size()));
    v.insert(v.end(), l.offset.begin(), l.offset.end());
  }
  return v;
}

/// The halo of the rank with box `b`: faces (and edges and corners with spec.corners) cut at the
/// periodic images of the global array and at the owners' boxes (only rank `only`'s, if >= 0:
/// a sender needs its own pieces of every other rank's halo, not all of them). Cells beyond a
/// non-periodic end belong to nobody and are left out.
std::vector<Piece> pieces_of(const Box& b, const HaloSpec& spec, const Shape& shape,
                             const std::vector<Layout>& ls, int only = -1) {
  std::vector<Piece> out;
  if (b.empty()) return out;
  const int d = b.dims();
  int regions = 1;
  for (int a = 0; a < d; ++a) regions *= 3;
  for (int code = 0; code < regions; ++code) {
    // Axis a of region `code`: 0 below the box, 1 across it, 2 above it.
    Box r = b;
    int outside = 0;
    for (int a = 0, c = code; a < d; ++a, c /= 3) {
      if (c % 3 == 0) {
        r.lo[a] = b.lo[a] - spec.lo[a];
        r.hi[a] = b.lo[a];
      } else if (c % 3 == 2) {
        r.lo[a] = b.hi[a];
        r.hi[a] = b.hi[a] + spec.hi[a];
      }
      outside += c % 3 != 1;
    }
    if (outside == 0 || (outside > 1 && !spec.corners) || r.empty()) continue;
    // Per axis, the periodic images the region reaches: [k n, (k+1) n) for each k.
    std::vector<std::vector<std::int64_t>> ks(d);
    for (int a = 0; a < d; ++a) {
      const std::int64_t n = shape[a];
      if (!spec.periodic[a]) {
        if (r.lo[a] < n && r.hi[a] > 0) ks[a].push_back(0);
        continue;
      }
      auto floor_div = [](std::int64_t x, std::int64_t m) {
        return x >= 0 ? x / m : -((-x + m - 1) / m);
      };
      for (std::int64_t k = floor_div(r.lo[a], n); k <= floor_div(r.hi[a] - 1, n); ++k)
        ks[a].push_back(k);
    }
    if (std::any_of(ks.begin(), ks.end(), [](const auto& v) { return v.empty(); })) continue;
    std::vector<std::size_t> pick(d, 0);
    while (true) {
      Box wrapped = r;
      Shape shift(d);
      for (int a = 0; a < d; ++a) {
        shift[a] = ks[a][pick[a]] * shape[a];
        wrapped.lo[a] = std::max(r.lo[a], shift[a]) - shift[a];
        wrapped.hi[a] = std::min(r.hi[a], shift[a] + shape[a]) - shift[a];
      }
      for (int q = only < 0 ? 0 : only; q < (only < 0 ? static_cast<int>(ls.size()) : only + 1);
           ++q) {
        Box i = intersect(wrapped, ls[q].box);
        if (i.empty()) continue;
        for (int a = 0; a < d; ++a) i.lo[a] += shift[a], i.hi[a] += shift[a];
        out.push_back({i, shift, q});
      }
      int a = d - 1;
      for (; a >= 0; --a) {
        if (++pick[a] < ks[a].size()) break;
        pick[a] = 0;
      }
      if (a < 0) break;
    }
  }
  return out;
}

Box shifted(Box b, const Shape& by, int sign) {
  for (int a = 0; a < b.dims(); ++a) b.lo[a] += sign * by[a], b.hi[a] += sign * by[a];
  return b;
}

}  // namespace

class HaloImpl {
 public:
  HaloImpl(MPI_Comm comm, const Layout* mine, const std::vector<Layout>* all, const HaloSpec& spec,
           std::size_t elem, Method method, Backend backend, int device)
      : elem_(elem), packed_(method == Method::p2p_sync || method == Method::nccl), nccl_(method == Method::nccl) {
    DFFT_MPI(MPI_Comm_dup(comm, &comm_));
    DFFT_MPI(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    try {
      // Agreed before the device is made: making a CUDA device is collective over comm_.
      collectively(comm_, "halo", [&] {
        if (method != Method::p2p_type && method != Method::p2p_sync && method != Method::nccl)
          fail("halo: method ", to_string(method), " (p2p-type, p2p-sync or nccl)");
        if (backend == Backend::cuda && !packed_)
          unsupported("halo: p2p-type hands MPI the array itself; device arrays take p2p-sync or nccl");
        if (backend != Backend::cuda && nccl_)
          unsupported("halo: method nccl moves device memory; it needs Backend::cuda");
      });
      if (!same_everywhere(comm_, {static_cast<int>(method), static_cast<int>(backend)}))
        fail("halo: ranks disagree on the method or backend; give the same on every rank");
      dev_ = backend == Backend::cuda ? make_cuda_device(comm_, device) : make_cpu_device();
      // A CUDA-aware MPI reads and writes the device pack buffers itself: no staging through
      // host memory. Every rank must agree (one sends what another receives).
      int aware = dev_->on_device() && use_cuda_aware(Staging::automatic) ? 1 : 0, all_aware = 0;
      DFFT_MPI(MPI_Allreduce(&aware, &all_aware, 1, MPI_INT, MPI_MIN, comm_));
      mpi_reads_device_ = all_aware == 1;
      // NCCL's communicator, made once (collective; refuses ranks that share a GPU).
      if (nccl_) dev_->nccl_prepare(comm_);
      build(mine, all, spec);
    } catch (...) {
      free_buffers();
      dev_.reset();
      MPI_Comm_free(&comm_);
      throw;
    }
  }
  ~HaloImpl() {
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) return;
    free_buffers();
    dev_.reset();
    MPI_Comm_free(&comm_);
  }

  void exchange(void* data, std::int64_t given) {
    t_ = StageTiming{"halo"};
    if (given >= 0) {
      collectively(comm_, "halo exchange", [&] {
        if (given < count_)
          fail("halo exchange: the local array has ", given,
               " elements but its box with the halo needs ", count_, " (", describe_extent(), ")");
        if (!data && count_ > 0) fail("halo exchange: the local array is NULL");
      });
    }
    if (packed_) return exchange_packed(data);
    PhaseTimer pt(t_.comm);
    std::vector<MPI_Request> req(recv_.size() + send_.size(), MPI_REQUEST_NULL);
    std::size_t k = 0;
    for (const auto& [peer, type] : recv_)
      DFFT_MPI(MPI_Irecv(data, 1, type, peer, kTag, comm_, &req[k++]));
    for (const auto& [peer, type] : send_)
      DFFT_MPI(MPI_Isend(data, 1, type, peer, kTag, comm_, &req[k++]));
    copy_self(data);
    DFFT_MPI(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
  }

  /// p2p-sync and nccl: every piece to a peer packed into that peer's part of one send buffer
  /// (in the owner's memory order: both ends read a piece as its dense box in that order); MPI
  /// moves the buffers, staged through host memory where it cannot read the device's, or NCCL
  /// in one group.
  void exchange_packed(void* data) {
    const auto e = static_cast<std::int64_t>(elem_);
    const bool staged = dev_->on_device() && !mpi_reads_device_ && !nccl_;
    char* sb = staged ? send_host_.data() : send_dev_;
    char* rb = staged ? recv_host_.data() : recv_dev_;
    {
      PhaseTimer pt(t_.pack);
      for (const Link& l : send_packed_)
        for (std::size_t i = 0; i < l.pieces.size(); ++i)
          dev_->copy_box(data, grown_, send_dev_ + l.off[i] * e, l.dense[i], l.dense[i].box, elem_);
      if (staged && send_bytes_) dev_->download(sb, send_dev_, send_bytes_);
    }
    if (nccl_) {
      PhaseTimer pt(t_.comm);
      std::vector<Device::Message> sends, recvs;
      for (const Link& l : recv_packed_)
        recvs.push_back({l.peer, rb + l.start * e, static_cast<std::size_t>(l.cells * e)});
      for (const Link& l : send_packed_)
        sends.push_back({l.peer, sb + l.start * e, static_cast<std::size_t>(l.cells * e)});
      dev_->nccl_send_recv(comm_, sends, recvs);
      copy_self(data);
    } else {
      PhaseTimer pt(t_.comm);
      std::vector<MPI_Request> req(recv_packed_.size() + send_packed_.size(), MPI_REQUEST_NULL);
      std::size_t k = 0;
      for (const Link& l : recv_packed_)
        DFFT_MPI(MPI_Irecv(rb + l.start * e, static_cast<int>(l.cells * e), MPI_BYTE, l.peer, kTag,
                           comm_, &req[k++]));
      for (const Link& l : send_packed_)
        DFFT_MPI(MPI_Isend(sb + l.start * e, static_cast<int>(l.cells * e), MPI_BYTE, l.peer, kTag,
                           comm_, &req[k++]));
      copy_self(data);
      DFFT_MPI(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE));
    }
    PhaseTimer pt(t_.unpack);
    if (staged && recv_bytes_) dev_->upload(recv_dev_, rb, recv_bytes_);
    for (const Link& l : recv_packed_)
      for (std::size_t i = 0; i < l.pieces.size(); ++i)
        dev_->copy_box(recv_dev_ + l.off[i] * e, l.dense[i], data, grown_, l.pieces[i].at, elem_);
  }

  /// The pieces a rank owns itself (periodic images of its own box).
  void copy_self(void* data) {
    for (std::size_t i = 0; i < self_.size(); ++i)
      dev_->copy_box(data, self_src_[i], data, grown_, self_[i].at, elem_);
  }

  std::int64_t count() const { return count_; }
  const Layout& layout() const { return grown_; }
  const Shape& shape() const { return shape_; }
  int messages() const { return static_cast<int>(send_.size()); }
  std::int64_t sent_elements() const { return sent_; }
  std::int64_t self_elements() const { return self_elems_; }
  const StageTiming& timing() const { return t_; }
  /// The device buffers move as they are (a CUDA-aware MPI, or NCCL).
  bool device_direct() const { return mpi_reads_device_ || nccl_; }

 private:
  bool mpi_reads_device_ = false;  // device pack buffers handed to a CUDA-aware MPI
  static constexpr int kTag = 7301;

  void build(const Layout* mine, const std::vector<Layout>* all, const HaloSpec& given) {
    int me = 0, size = 0;
    DFFT_MPI(MPI_Comm_rank(comm_, &me));
    DFFT_MPI(MPI_Comm_size(comm_, &size));
    const int d =
        common_dims(comm_, mine ? mine->box.dims() : (all->empty() ? 0 : (*all)[0].box.dims()));
    HaloSpec spec;
    collectively(comm_, "halo", [&] {
      spec = complete(given, d);
      if (all && static_cast<int>(all->size()) != size)
        fail("halo: ", all->size(), " layouts given for a communicator of ", size, " ranks");
    });
    if (!same_everywhere(comm_, flatten(spec)))
      fail("halo: ranks disagree on the widths, periodic axes or corners; give the same on every rank");
    std::vector<Layout> ls;
    if (mine) {
      ls = allgather_layouts(comm_, *mine, d);
    } else {
      if (!same_everywhere(comm_, flatten(*all)))
        fail("halo: ranks disagree on the list of layouts; give every rank the same list");
      ls = *all;
    }
    shape_ = tiled_shape(ls, "halo");
    for (std::size_t r = 0; r < ls.size(); ++r) {
      if (has_offset(ls[r]))
        fail("halo: the layout of rank ", r, " has an offset; the halo'd array starts at the box's lo minus "
             "the widths (give the layout without offset)");
      for (int a = 0; a < d && !ls[r].padded.empty(); ++a)
        if (ls[r].padded[a] != ls[r].box.extent(a))
          fail("halo: the layout of rank ", r, " is padded on axis ", a,
               "; the halo'd array's extent is the box extent plus the widths (give the layout "
               "without padding)");
    }
    lo_ = spec.lo;
    hi_ = spec.hi;

    // This rank's halo'd array.
    grown_ = ls[me];
    grown_.padded.clear();
    if (!grown_.box.empty())
      for (int a = 0; a < d; ++a) grown_.box.lo[a] -= spec.lo[a], grown_.box.hi[a] += spec.hi[a];
    count_ = grown_.alloc_count();

    MPI_Datatype elem = make_elem_type(elem_);
    types_.push_back(elem);
    // Receives: my halo's pieces, grouped by owner; traversed in the owner's memory order.
    std::vector<std::vector<Piece>> from(size), to(size);
    for (Piece& p : pieces_of(ls[me].box, spec, shape_, ls)) {
      if (p.owner == me) {
        self_elems_ += p.at.count();
        self_src_.push_back(shifted_layout(p.shift));
        self_.push_back(std::move(p));
      } else {
        from[p.owner].push_back(std::move(p));
      }
    }
    // Sends: the pieces of every other rank's halo that my box holds.
    for (int r = 0; r < size; ++r)
      if (r != me) to[r] = pieces_of(ls[r].box, spec, shape_, ls, me);
    for (int q = 0; q < size; ++q)
      for (const Piece& p : to[q]) sent_ += p.at.count();
    if (packed_) {
      for (int q = 0; q < size; ++q) {
        if (!from[q].empty())
          recv_packed_.push_back(link(q, std::move(from[q]), ls[q].order, false, recv_bytes_));
        if (!to[q].empty())
          send_packed_.push_back(link(q, std::move(to[q]), ls[me].order, true, send_bytes_));
      }
      if (send_bytes_) send_dev_ = static_cast<char*>(dev_->alloc(send_bytes_));
      if (recv_bytes_) recv_dev_ = static_cast<char*>(dev_->alloc(recv_bytes_));
      if (dev_->on_device() && !mpi_reads_device_ && !nccl_) {
        send_host_.resize(send_bytes_);
        recv_host_.resize(recv_bytes_);
      }
      return;
    }
    for (int q = 0; q < size; ++q) {
      if (!from[q].empty()) recv_.emplace_back(q, struct_of(from[q], ls[q].order, false, elem));
      if (!to[q].empty()) send_.emplace_back(q, struct_of(to[q], ls[me].order, true, elem));
    }
  }

  /// The pieces to or from one peer in one packed buffer; `bytes` (the buffer so far) grows by
  /// the link's size.
  struct Link {
    int peer;
    std::int64_t start, cells;  // elements: where the link starts in the buffer, how many
    std::vector<Piece> pieces;
    std::vector<std::int64_t> off;  // element offset of each piece in the buffer
    std::vector<Layout> dense;      // each piece as a dense box in the owner's memory order
  };
  Link link(int peer, std::vector<Piece> ps, const std::vector<int>& order, bool sending,
            std::size_t& bytes) const {
    Link l{peer, static_cast<std::int64_t>(bytes / elem_), 0, std::move(ps), {}, {}};
    for (const Piece& p : l.pieces) {
      l.off.push_back(l.start + l.cells);
      l.dense.push_back(Layout{sending ? shifted(p.at, p.shift, -1) : p.at, order, {}});
      l.cells += p.at.count();
    }
    check_message(l.cells);
    bytes += static_cast<std::size_t>(l.cells) * elem_;
    return l;
  }

  void check_message(std::int64_t cells) const {
    if (cells * static_cast<std::int64_t>(elem_) > INT_MAX)
      unsupported("halo: a message of ", cells * static_cast<std::int64_t>(elem_),
                  " bytes (more than 2^31 - 1; use narrower halos or more ranks)");
  }

  /// One datatype for all pieces to or from one peer, relative to the array's base address.
  MPI_Datatype struct_of(const std::vector<Piece>& ps, const std::vector<int>& traversal,
                         bool sending, MPI_Datatype elem) {
    std::int64_t cells = 0;
    std::vector<MPI_Datatype> parts;
    for (const Piece& p : ps) {
      cells += p.at.count();
      const Box at = sending ? shifted(p.at, p.shift, -1) : p.at;
      parts.push_back(make_box_type(at, traversal, grown_, elem, elem_));
      types_.push_back(parts.back());
    }
    check_message(cells);
    if (parts.size() == 1) return parts[0];
    std::vector<int> ones(parts.size(), 1);
    std::vector<MPI_Aint> zero(parts.size(), 0);
    MPI_Datatype t;
    DFFT_MPI(MPI_Type_create_struct(static_cast<int>(parts.size()), ones.data(), zero.data(),
                                    parts.data(), &t));
    DFFT_MPI(MPI_Type_commit(&t));
    types_.push_back(t);
    return t;
  }

  /// The halo'd array seen at cells shifted by one periodic image: its cell g holds global g -
  /// shift.
  Layout shifted_layout(const Shape& shift) const {
    Layout l = grown_;
    l.box = shifted(l.box, shift, 1);
    return l;
  }

  std::string describe_extent() const {
    std::string s;
    for (int a = 0; a < grown_.box.dims(); ++a)
      s += concat(a ? " x " : "", grown_.box.extent(a) - lo_[a] - hi_[a], "+", lo_[a], "+", hi_[a]);
    return s;
  }

  void free_buffers() {
    for (auto& t : types_) MPI_Type_free(&t);
    types_.clear();
    if (dev_ && send_dev_) dev_->release(send_dev_);
    if (dev_ && recv_dev_) dev_->release(recv_dev_);
    send_dev_ = recv_dev_ = nullptr;
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t elem_;
  bool packed_, nccl_;
  std::unique_ptr<Device> dev_;
  // p2p-sync: links and buffers (the device's memory; host images where MPI cannot read it).
  std::vector<Link> send_packed_, recv_packed_;
  std::size_t send_bytes_ = 0, recv_bytes_ = 0;
  char* send_dev_ = nullptr;
  char* recv_dev_ = nullptr;
  std::vector<char> send_host_, recv_host_;
  Shape shape_, lo_, hi_;
  Layout grown_;
  std::int64_t count_ = 0, sent_ = 0, self_elems_ = 0;
  std::vector<std::pair<int, MPI_Datatype>> recv_, send_;
  std::vector<Piece> self_;
  std::vector<Layout> self_src_;  // per self piece: the array seen from the periodic image it reads
  std::vector<MPI_Datatype> types_;  // every datatype made, freed together
  StageTiming t_{"halo"};
};

template <class T>
Halo<T>::Halo(MPI_Comm comm, const Layout& mine, const HaloSpec& spec, Method method,
              Backend backend, int device)
    : impl_(std::make_unique<HaloImpl>(comm, &mine, nullptr, spec, sizeof(T), method, backend,
                                       device)) {}
template <class T>
Halo<T>::Halo(MPI_Comm comm, const std::vector<Layout>& all, const HaloSpec& spec, Method method,
              Backend backend, int device)
    : impl_(std::make_unique<HaloImpl>(comm, nullptr, &all, spec, sizeof(T), method, backend,
                                       device)) {}
template <class T>
Halo<T>::~Halo() = default;
template <class T>
Halo<T>::Halo(Halo&&) noexcept = default;
template <class T>
Halo<T>& Halo<T>::operator=(Halo&&) noexcept = default;
template <class T>
void Halo<T>::exchange(T* data) const {
  impl_->exchange(data, -1);
}
template <class T>
void Halo<T>::exchange(std::span<T> data) const {
  impl_->exchange(data.data(), static_cast<std::int64_t>(data.size()));
}
template <class T>
std::int64_t Halo<T>::count() const {
  return impl_->count();
}
template <class T>
const Layout& Halo<T>::layout() const {
  return impl_->layout();
}
template <class T>
const std::vector<std::int64_t>& Halo<T>::shape() const {
  return impl_->shape();
}
template <class T>
int Halo<T>::messages() const {
  return impl_->messages();
}
template <class T>
std::int64_t Halo<T>::sent_elements() const {
  return impl_->sent_elements();
}
template <class T>
std::int64_t Halo<T>::self_elements() const {
  return impl_->self_elements();
}
template <class T>
const StageTiming& Halo<T>::timing() const {
  return impl_->timing();
}
template <class T>
Staging Halo<T>::staging() const {
  return impl_->device_direct() ? Staging::cuda_aware : Staging::host;
}

template class Halo<float>;
template class Halo<double>;
template class Halo<std::complex<float>>;
template class Halo<std::complex<double>>;

}  // namespace dfft
