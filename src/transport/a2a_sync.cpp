// SPDX-License-Identifier: MIT
// a2a-sync (thesis Listing 4.6): stage every block, one MPI_Alltoallv (more rounds when a block
// exceeds the message limit), stage back. Blocks that are already contiguous are sent from and
// received into the FFT buffers directly (Realigned) where MPI can read the device's memory.
// The rank's own block is copied while the messages move.
#include <climits>
#include <vector>

#include "transport/stage.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

class A2aSync final : public Transport {
 public:
  A2aSync(MPI_Comm comm, const ExchangeSpec& s, Device& dev)
      : comm_(comm), st_(dev.make_stager(s, StageUse::uniform)), chunk_(chunk_bytes(st_->blocks())) {
    const auto& b = st_->blocks();
    DFFT_MPI(MPI_Type_contiguous(static_cast<int>(b.unit), MPI_BYTE, &elem_type_));
    DFFT_MPI(MPI_Type_commit(&elem_type_));
    rounds_ = a2a_rounds(s, chunk_);
    // MPI_Alltoallv displacements are ints (elements) relative to one base pointer per side.
    for (int k = 0; k < b.size(); ++k)
      if (k != s.me && (std::max(st_->send_disp(k), st_->recv_disp(k)) + chunk_) / b.unit > INT_MAX)
        unsupported("a2a-sync addresses at most 2^31 elements per rank (MPI_Alltoallv displacements); "
                    "use p2p-sync or p2p-type for this size");
  }
  ~A2aSync() override { MPI_Type_free(&elem_type_); }

  void execute(const void* src, void* dst, StageTiming& t) override {
    const auto& b = st_->blocks();
    const int n = b.size(), me = b.spec.me;
    const auto e = b.unit;
    st_->begin(false);
    {
      PhaseTimer pt(t.pack);
      for (int k = 0; k < n; ++k)
        if (k != me) st_->stage_out(k, src);
      st_->fence();
    }
    {
      PhaseTimer pt(t.unpack);
      st_->copy_self(src, dst);  // queued on a device: overlaps the communication below
    }
    const char* sbase = st_->send_base(src);
    char* rbase = st_->recv_base(dst);
    std::vector<int> sc(n), sd(n), rc(n), rd(n);
    {
      PhaseTimer pt(t.comm);
      for (std::int64_t r = 0; r < rounds_; ++r) {
        for (int k = 0; k < n; ++k) {
          auto sl = k == me ? 0 : std::clamp<std::int64_t>(b.send_bytes[k] - r * chunk_, 0, chunk_);
          auto rl = k == me ? 0 : std::clamp<std::int64_t>(b.recv_bytes[k] - r * chunk_, 0, chunk_);
          sc[k] = static_cast<int>(sl / e);
          rc[k] = static_cast<int>(rl / e);
          sd[k] = static_cast<int>((st_->send_disp(k) + r * chunk_) / e * (sl > 0));
          rd[k] = static_cast<int>((st_->recv_disp(k) + r * chunk_) / e * (rl > 0));
        }
        DFFT_MPI(MPI_Alltoallv(sbase, sc.data(), sd.data(), elem_type_, rbase, rc.data(), rd.data(),
                               elem_type_, comm_));
      }
    }
    PhaseTimer pt(t.unpack);
    for (int k = 0; k < n; ++k)
      if (k != me) st_->stage_in(k, dst);
    st_->finish();
  }

 private:
  MPI_Comm comm_;
  std::unique_ptr<Stager> st_;
  std::int64_t chunk_;
  std::int64_t rounds_ = 0;
  MPI_Datatype elem_type_ = MPI_DATATYPE_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_a2a_sync(MPI_Comm c, const ExchangeSpec& s, Device& d) {
  return std::make_unique<A2aSync>(c, s, d);
}

}  // namespace dfft::detail
