// SPDX-License-Identifier: MIT
// onesided (Cayrols et al.): MPI_Put into a window over each rank's receive staging buffer,
// created once per plan. Ring schedule (step j puts to rank me+j). Each peer's block is cut into
// `chunks` slabs along its slowest wire axis; every slab is packed (and coded, with its own
// header) and put on its own, so packing slab k+1 overlaps the transfer of slab k. Epochs close
// by MPI_Win_fence or by a passive-target MPI_Win_flush_all plus a barrier (Options::onesided_sync).
// Window memory comes from MPI_Win_allocate (shared-memory windows within a node). Windows are
// created over the plan's whole communicator, not the exchange's sub-communicator: Open MPI 4.1
// names shared segments by communicator id, which disjoint split communicators share, and
// crashes (bus error) when several rows create windows at once.
// On a device backend the window lives in host memory and slabs are staged through the host.
#include <vector>

#include "codec/codec.hpp"
#include "plan/geometry.hpp"
#include "transport/pack_common.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

struct Slab {
  Box box;
  std::int64_t offset = 0, bytes = 0;  // in the staging buffer / window
};

std::int64_t coded(const ExchangeSpec& s, const Box& b) { return wire_bytes(s.codec, s.elem, b.count()); }

class OneSided final : public Transport {
 public:
  OneSided(MPI_Comm comm, MPI_Comm parent, const ExchangeSpec& s, Device& dev, OneSidedSync sync,
           int chunks)
      : comm_(comm), parent_(parent == MPI_COMM_NULL ? comm : parent), s_(s), dev_(dev), sync_(sync) {
    const int n = static_cast<int>(s.src.size()), me = s.me;
    unit_ = s.codec == Codec::none ? static_cast<std::int64_t>(s.elem) : 4;
    send_.resize(n);
    recv_.resize(n);
    std::int64_t so = 0, ro = 0;
    for (int k = 0; k < n; ++k) {
      if (k == me) continue;
      for (const Box& b : slabs_of(intersect(s.src[me].box, s.dst[k].box), s.src[me].order, chunks, false)) {
        send_[k].push_back({b, so, coded(s, b)});
        so += stage_span(s, coded(s, b));
      }
      for (const Box& b : slabs_of(intersect(s.src[k].box, s.dst[me].box), s.src[k].order, chunks, false)) {
        recv_[k].push_back({b, ro, coded(s, b)});
        ro += stage_span(s, coded(s, b));
      }
    }
    // Where my slabs start in each peer's window: after the slabs of the senders before me.
    target_.assign(n, 0);
    for (int q = 0; q < n; ++q)
      for (int j = 0; j < me; ++j)
        if (j != q)
          for (const Box& b : slabs_of(intersect(s.src[j].box, s.dst[q].box), s.src[j].order, chunks, false))
            target_[q] += stage_span(s, coded(s, b));
    send_stage_ = Buffer(dev, static_cast<std::size_t>(std::max<std::int64_t>(so, 1)));
    const MPI_Aint wbytes = std::max<std::int64_t>(ro, 1);
    if (dev.on_device()) {
      DFFT_MPI(MPI_Alloc_mem(std::max<std::int64_t>(so, 1), MPI_INFO_NULL, &host_send_));
      recv_dev_ = Buffer(dev, static_cast<std::size_t>(wbytes));
    }
    // MPI allocates the window memory itself so that on one node it can map it shared
    // (Open MPI's osc/sm); MPI_Win_create on user memory falls back to slower components.
    DFFT_MPI(MPI_Win_allocate(wbytes, 1, MPI_INFO_NULL, parent_, &window_mem_, &win_));
    // Errors on the window come back as codes (then dfft::Error), not as an abort of the job.
    DFFT_MPI(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN));
    // Sub-communicator member k is rank peer_[k] of the window's communicator.
    MPI_Group g_sub, g_par;
    DFFT_MPI(MPI_Comm_group(comm_, &g_sub));
    DFFT_MPI(MPI_Comm_group(parent_, &g_par));
    std::vector<int> sub_ranks(n);
    for (int k = 0; k < n; ++k) sub_ranks[k] = k;
    peer_.resize(n);
    DFFT_MPI(MPI_Group_translate_ranks(g_sub, n, sub_ranks.data(), g_par, peer_.data()));
    MPI_Group_free(&g_sub);
    MPI_Group_free(&g_par);
    window_bytes_ = ro;
    if (sync_ == OneSidedSync::flush) DFFT_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
  }
  ~OneSided() override {
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) return;
    if (sync_ == OneSidedSync::flush) MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
    if (host_send_) MPI_Free_mem(host_send_);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    const int me = s_.me, n = static_cast<int>(s_.src.size());
    {
      // Open the epoch: every target has finished unpacking its window from the last call.
      PhaseTimer pt(t.comm);
      if (sync_ == OneSidedSync::fence) DFFT_MPI(MPI_Win_fence(0, win_));
      else DFFT_MPI(MPI_Barrier(comm_));
    }
    for (int k : ring_peers(me, n))
      for (const Slab& sl : send_[k]) put_slab(k, sl, src, t);
    {
      PhaseTimer pt(t.unpack);
      Box own = intersect(s_.src[me].box, s_.dst[me].box);
      dev_.copy_box(src, s_.src[me], dst, s_.dst[me], own, s_.elem);
    }
    {
      PhaseTimer pt(t.comm);
      if (sync_ == OneSidedSync::fence) {
        DFFT_MPI(MPI_Win_fence(0, win_));
      } else {
        DFFT_MPI(MPI_Win_flush_all(win_));
        DFFT_MPI(MPI_Barrier(comm_));  // after it, every put into my window is complete
        DFFT_MPI(MPI_Win_sync(win_));
      }
    }
    PhaseTimer pt(t.unpack);
    const char* stage = static_cast<const char*>(window_mem_);
    if (dev_.on_device()) {
      dev_.upload(recv_dev_.get(), window_mem_, static_cast<std::size_t>(window_bytes_));
      stage = static_cast<const char*>(recv_dev_.get());
    }
    for (int k : ring_peers(me, n))
      for (const Slab& sl : recv_[k]) {
        if (s_.codec != Codec::none)
          dev_.decode_box(stage + sl.offset, s_.src[k].order, dst, s_.dst[me], sl.box, s_.codec, s_.is_double);
        else
          dev_.copy_box(stage + sl.offset, Layout{sl.box, s_.src[k].order, {}}, dst, s_.dst[me], sl.box, s_.elem);
      }
  }

 private:
  void put_slab(int k, const Slab& sl, const void* src, StageTiming& t) {
    char* out = static_cast<char*>(send_stage_.get()) + sl.offset;
    {
      PhaseTimer pt(t.pack);
      const Layout& mine = s_.src[s_.me];
      if (s_.codec != Codec::none)
        dev_.encode_box(src, mine, sl.box, mine.order, out, s_.codec, s_.is_double);
      else
        dev_.copy_box(src, mine, out, Layout{sl.box, mine.order, {}}, sl.box, s_.elem);
      if (dev_.on_device()) {
        char* h = static_cast<char*>(host_send_) + sl.offset;
        dev_.download(h, out, static_cast<std::size_t>(sl.bytes));
        out = h;
      }
    }
    PhaseTimer pt(t.comm);
    const std::int64_t limit = std::max(unit_, s_.max_message_bytes / unit_ * unit_);
    for (std::int64_t o = 0; o < sl.bytes; o += limit) {
      const int m = static_cast<int>(std::min(limit, sl.bytes - o));
      DFFT_MPI(MPI_Put(out + o, m, MPI_BYTE, peer_[k], target_[k] + sl.offset - first_offset(k) + o, m,
                       MPI_BYTE, win_));
    }
  }
  // Offset of my first slab for peer k in my send stage (slabs for k are consecutive).
  std::int64_t first_offset(int k) const { return send_[k].front().offset; }

  MPI_Comm comm_, parent_;
  std::vector<int> peer_;
  ExchangeSpec s_;
  Device& dev_;
  OneSidedSync sync_;
  std::int64_t unit_ = 16, window_bytes_ = 0;
  std::vector<std::vector<Slab>> send_, recv_;
  std::vector<std::int64_t> target_;
  Buffer send_stage_, recv_dev_;
  void* host_send_ = nullptr;
  void* window_mem_ = nullptr;
  MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_onesided(MPI_Comm c, MPI_Comm parent, const ExchangeSpec& s,
                                         Device& d, OneSidedSync sync, int chunks) {
  return std::make_unique<OneSided>(c, parent, s, d, sync, chunks);
}

}  // namespace dfft::detail
