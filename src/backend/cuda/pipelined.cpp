// SPDX-License-Identifier: MIT
// p2p-pipelined on the CUDA backend: the ring schedule of the host version (step j sends to
// me+j, receives from me-j, `in_flight` steps outstanding, blocks cut into `chunks` pieces) with
// the copies between GPU and host overlapped piece by piece.
//
// Host staging: a step's block is packed on the GPU (pack stream); its pieces are copied to
// pinned host memory one by one on a copy stream, each followed by an event; the host thread
// polls the oldest event and sends that piece the moment it has landed, while later pieces are
// still copying. A received piece is copied back on a third stream as soon as MPI reports it,
// while later pieces are still on the wire; the unpack kernel follows the step's last piece on
// that stream. So device-to-host of piece k+1, the network transfer of piece k and the
// host-to-device copy of piece k-1 run at the same time.
// CUDA-aware MPI: the same schedule with MPI reading and writing device memory; a step's
// pieces are sent once its pack has finished.
#include <deque>
#include <memory>
#include <vector>

#include "backend/cuda/codec.hpp"
#include "backend/cuda/stager.hpp"
#include "transport/pipelined.hpp"

namespace dfft::detail {

namespace {

using pipelined::Piece;
using pipelined::Requests;
using pipelined::Step;

class DevicePipelined final : public Transport {
 public:
  DevicePipelined(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev, bool aware, int chunks,
                  int in_flight)
      : comm_(comm), st_(s, dev, aware, false), chunks_(chunks), in_flight_(in_flight) {
    const int steps = std::max(0, st_.blocks().size() - 1);
    for (int j = 0; j < steps; ++j) packed_.push_back(std::make_unique<Event>());
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    auto& dev = st_.dev();
    dev.activate();
    // Looked up per call: the calling thread's lane decides the streams (CudaDevice::CommLane).
    const Lanes ln{dev.stream(), dev.side_stream(0), dev.side_stream(1), dev.side_stream(2)};
    const auto& b = st_.blocks();
    const int n = b.size(), steps = n - 1;
    free_.clear();
    for (auto& e : pool_) free_.push_back(e.get());
    {
      PhaseTimer pt(t.pack);
      // src is written and dst may still be read by work queued before this exchange.
      start_.record(ln.main);
      for (cudaStream_t s : {ln.pack, ln.d2h, ln.h2d}) DFFT_CUDA(cudaStreamWaitEvent(s, start_.get(), 0));
      // CUDA-aware MPI writes received pieces into device memory behind the streams' backs.
      if (st_.aware()) DFFT_CUDA(cudaEventSynchronize(start_.get()));
      st_.copy_self(src, dst, ln.main);
    }
    Run r;
    r.ring.resize(static_cast<std::size_t>(std::max(steps, 0)));
    r.rpieces.resize(r.ring.size());
    while (r.retired < steps) {
      while (r.active < in_flight_ && r.next < steps) {
        begin(r, r.next, src, dst, ln, t);
        ++r.next;
        ++r.active;
      }
      if (retire(r)) continue;
      progress(r, dst, ln, t);
    }
    PhaseTimer pt(t.unpack);
    // The next step reads dst and overwrites src: the side streams' work must be done.
    const cudaStream_t side[] = {ln.pack, ln.d2h, ln.h2d};
    for (int i = 0; i < 3; ++i) {
      done_[i].record(side[i]);
      DFFT_CUDA(cudaStreamWaitEvent(ln.main, done_[i].get(), 0));
    }
    dev.synchronize();
  }

 private:
  struct Lanes {
    cudaStream_t main, pack, d2h, h2d;
  };
  // A piece whose send waits for the device: its copy to the host (host staging) or the pack
  // of its block (CUDA-aware).
  struct Pending {
    int step, peer, piece;
    const char* from;
    std::int64_t len;
    cudaEvent_t ready;
    Event* pooled;  // returned to the pool once sent; nullptr for a step's pack event
  };
  struct Run {
    std::vector<Step> ring;
    std::vector<std::vector<Piece>> rpieces;  // per step: pieces of the received block
    Requests reqs;
    std::deque<Pending> sends;  // in the order their events are recorded on one stream
    std::vector<Requests::Label> done;
    int next = 0, active = 0, retired = 0;
  };

  // Block k packed on the device (or src itself when it is contiguous there).
  const char* device_send(int k, const void* src) const {
    const auto& b = st_.blocks();
    if (b.direct_send[k]) return static_cast<const char*>(src) + b.src_offset[k];
    return st_.dev().scratch(CudaDevice::Scratch::dev_send) + b.stage_send_off[k];
  }
  // Where block k's pieces are copied to on the device (host staging).
  char* device_recv(int k, void* dst) const {
    const auto& b = st_.blocks();
    if (b.direct_recv[k]) return static_cast<char*>(dst) + b.dst_offset[k];
    return st_.dev().scratch(CudaDevice::Scratch::dev_recv) + b.stage_recv_off[k];
  }

  void pack_async(int k, const void* src, cudaStream_t s) const {
    const auto& b = st_.blocks();
    const auto& sp = b.spec;
    char* out = st_.dev().scratch(CudaDevice::Scratch::dev_send) + b.stage_send_off[k];
    if (sp.codec != Codec::none)
      DFFT_CUDA(cuda::encode_box_async(src, sp.src[sp.me], b.send[k], sp.src[sp.me].order, out,
                                       sp.codec, sp.is_double, s));
    else
      st_.dev().copy_box_async(src, sp.src[sp.me], out, b.wire_layout(sp.me, b.send[k]), b.send[k],
                               sp.elem, s);
  }

  void unpack_async(int k, void* dst, cudaStream_t s) const {
    const auto& b = st_.blocks();
    const auto& sp = b.spec;
    const char* in = st_.dev().scratch(CudaDevice::Scratch::dev_recv) + b.stage_recv_off[k];
    if (sp.codec != Codec::none)
      DFFT_CUDA(cuda::decode_box_async(in, sp.src[k].order, dst, sp.dst[sp.me], b.recv[k], sp.codec,
                                       sp.is_double, s));
    else
      st_.dev().copy_box_async(in, b.wire_layout(k, b.recv[k]), dst, sp.dst[sp.me], b.recv[k],
                               sp.elem, s);
  }

  Event* take_event() {
    if (free_.empty()) {
      pool_.push_back(std::make_unique<Event>());
      return pool_.back().get();
    }
    Event* e = free_.back();
    free_.pop_back();
    return e;
  }

  // Enter ring step j: post its receives, queue its pack and the copies of its pieces.
  void begin(Run& r, int j, const void* src, void* dst, const Lanes& ln, StageTiming& t) {
    const auto& b = st_.blocks();
    Step& s = r.ring[j] = pipelined::ring_step(j, b.spec.me, b.size());
    {
      PhaseTimer pt(t.comm);
      char* rbase = st_.recv_ptr(s.from, dst);
      r.rpieces[j] = pipelined::pieces_of(b.recv_bytes[s.from], chunks_, b);
      const auto& rp = r.rpieces[j];
      for (std::size_t p = 0; p < rp.size(); ++p)
        r.reqs.irecv(rbase + rp[p].off, rp[p].len, s.from, pipelined::piece_tag(p), comm_,
                     {j, static_cast<int>(p), true});
      s.recv_left = static_cast<int>(rp.size());
    }
    PhaseTimer pt(t.pack);
    const auto pieces = pipelined::pieces_of(b.send_bytes[s.to], chunks_, b);
    s.send_left = static_cast<int>(pieces.size());
    if (!pieces.empty() && !b.direct_send[s.to]) pack_async(s.to, src, ln.pack);
    packed_[j]->record(ln.pack);
    if (pieces.empty()) return;
    const char* from = device_send(s.to, src);
    if (st_.aware()) {
      for (std::size_t p = 0; p < pieces.size(); ++p)
        r.sends.push_back({j, s.to, static_cast<int>(p), from + pieces[p].off, pieces[p].len,
                           packed_[j]->get(), nullptr});
      return;
    }
    DFFT_CUDA(cudaStreamWaitEvent(ln.d2h, packed_[j]->get(), 0));
    char* host = const_cast<char*>(st_.send_ptr(s.to, src));
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      const auto& pc = pieces[p];
      DFFT_CUDA(cudaMemcpyAsync(host + pc.off, from + pc.off, static_cast<std::size_t>(pc.len),
                                cudaMemcpyDeviceToHost, ln.d2h));
      Event* e = take_event();
      e->record(ln.d2h);
      r.sends.push_back({j, s.to, static_cast<int>(p), host + pc.off, pc.len, e->get(), e});
    }
  }

  // Send the pieces whose device work has finished (oldest first: their events complete in
  // order, being recorded on one stream, or per step on the pack stream).
  void post_ready(Run& r) {
    while (!r.sends.empty()) {
      const Pending& q = r.sends.front();
      const cudaError_t e = cudaEventQuery(q.ready);
      if (e == cudaErrorNotReady) {
        // The runtime records "not ready" as the last error; clear it so that the next kernel
        // launch check (which reads cudaGetLastError) is not blamed for it.
        const cudaError_t last = cudaGetLastError();
        if (last != cudaErrorNotReady) DFFT_CUDA(last);
        return;
      }
      DFFT_CUDA(e);
      r.reqs.isend(q.from, q.len, q.peer, pipelined::piece_tag(static_cast<std::size_t>(q.piece)),
                   comm_, {q.step, q.piece, false});
      if (q.pooled) free_.push_back(q.pooled);
      r.sends.pop_front();
    }
  }

  // One round of progress: post ready sends, then collect finished requests. Blocks in MPI
  // only when no piece waits for the device (else polls both, so that a piece is sent as soon
  // as its copy lands). Wait time goes to comm: copies and kernels run meanwhile.
  void progress(Run& r, void* dst, const Lanes& ln, StageTiming& t) {
    {
      PhaseTimer pt(t.comm);
      post_ready(r);
      const bool block = r.sends.empty();
      if (block && r.reqs.empty()) fail_internal("p2p-pipelined waits with nothing outstanding");
      r.reqs.complete(block, r.done);
    }
    const auto& b = st_.blocks();
    for (const auto& l : r.done) {
      Step& s = r.ring[l.step];
      if (!l.recv) {
        --s.send_left;
        continue;
      }
      PhaseTimer pt(t.unpack);
      if (!st_.aware()) {
        const Piece& pc = r.rpieces[l.step][l.piece];
        DFFT_CUDA(cudaMemcpyAsync(device_recv(s.from, dst) + pc.off,
                                  st_.recv_ptr(s.from, dst) + pc.off,
                                  static_cast<std::size_t>(pc.len), cudaMemcpyHostToDevice, ln.h2d));
      }
      // Behind the step's copies on the same stream.
      if (--s.recv_left == 0 && !b.direct_recv[s.from]) unpack_async(s.from, dst, ln.h2d);
    }
  }

  // Steps with nothing outstanding in MPI leave the window. Returns whether any did.
  static bool retire(Run& r) {
    bool any = false;
    for (int j = 0; j < r.next; ++j) {
      Step& s = r.ring[j];
      if (s.retired || s.recv_left > 0 || s.send_left > 0) continue;
      s.retired = true;
      --r.active;
      ++r.retired;
      any = true;
    }
    return any;
  }

  MPI_Comm comm_;
  Stager st_;
  int chunks_, in_flight_;
  std::vector<std::unique_ptr<Event>> packed_;  // per ring step, on the pack stream
  std::vector<std::unique_ptr<Event>> pool_;    // piece copy events, reused across calls
  std::vector<Event*> free_;
  Event start_, done_[3];
};

}  // namespace

std::unique_ptr<Transport> make_device_pipelined(MPI_Comm c, const ExchangeSpec& s, CudaDevice& d,
                                                 bool aware, int chunks, int in_flight) {
  pipelined::check_tuning(chunks, in_flight);
  return std::make_unique<DevicePipelined>(c, s, d, aware, chunks, in_flight);
}

}  // namespace dfft::detail
