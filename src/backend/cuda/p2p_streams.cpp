// SPDX-License-Identifier: MIT
// p2p-streams (thesis Listing 4.2): every peer's block is staged on its own stream; a host
// function queued behind the copy wakes a sender thread, which starts that block's MPI_Isend
// at once, while the main thread waits for incoming blocks and unpacks each as it arrives
// (Listing 4.3). The send of a block thus starts as soon as that block is ready, with no
// device-wide synchronisation. Needs MPI_THREAD_MULTIPLE (two threads call MPI).
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "backend/cuda/stager.hpp"

namespace dfft::detail {

namespace {

constexpr int kPeerStreams = 8;

// Synchronous channel from the CUDA host functions to the sender thread.
class Channel {
 public:
  void push(int v) {
    {
      std::lock_guard<std::mutex> l(m_);
      q_.push_back(v);
    }
    cv_.notify_one();
  }
  int pop() {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !q_.empty(); });
    int v = q_.front();
    q_.pop_front();
    return v;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<int> q_;
};

struct Ready {
  Channel* ch;
  int peer;
};

// Runs on a CUDA driver thread: must not call CUDA.
void CUDART_CB on_ready(void* p) {
  auto* r = static_cast<Ready*>(p);
  r->ch->push(r->peer);
}

class DeviceP2pStreams final : public Transport {
 public:
  DeviceP2pStreams(MPI_Comm comm, const ExchangeSpec& s, CudaDevice& dev, bool aware)
      : comm_(comm), st_(s, dev, aware, StageUse::blocks), chunk_(chunk_bytes(st_.blocks())) {
    require_thread_multiple("p2p-streams");
    const int n = st_.blocks().size();
    ready_.resize(n);
    for (int k = 0; k < n; ++k) ready_[k] = {&ch_, k};
    const int ns = std::min(kPeerStreams, std::max(1, n - 1));
    for (int i = 0; i < ns; ++i) done_.push_back(std::make_unique<Event>());
    streams_.resize(ns);
  }

  void execute(const void* src, void* dst, StageTiming& t) override {
    auto& dev = st_.dev();
    dev.activate();
    const cudaStream_t main = dev.stream();
    // Looked up per call: the calling thread's lane decides the streams (CudaDevice::CommLane).
    for (std::size_t i = 0; i < streams_.size(); ++i) streams_[i] = dev.side_stream(static_cast<int>(i));
    const auto& b = st_.blocks();
    const auto peers = ring_peers(b.spec.me, b.size());
    ChunkedReceives recv;  // owned by their peer
    std::vector<MPI_Request> sreq;
    std::exception_ptr sender_error;
    {
      PhaseTimer pt(t.comm);
      for (int k : peers) recv.post(k, st_.recv_ptr(k, dst), b.recv_bytes[k], k, -1, chunk_, comm_);
    }
    std::thread sender([&] {
      try {
        for (std::size_t i = 0; i < peers.size(); ++i) {
          const int k = ch_.pop();
          if (k < 0) return;
          post_chunks(const_cast<char*>(st_.send_ptr(k, src)), b.send_bytes[k], k, -1, chunk_, comm_,
                      sreq, false);
        }
      } catch (...) {
        sender_error = std::current_exception();
      }
    });
    // Whatever happens below, the sender thread is woken and joined before we leave.
    struct Joiner {
      std::thread& th;
      Channel& ch;
      ~Joiner() {
        if (th.joinable()) {
          ch.push(-1);
          th.join();
        }
      }
    } joiner{sender, ch_};
    {
      PhaseTimer pt(t.pack);
      start_.record(main);  // the blocks are ready once the work queued so far is done
      for (std::size_t i = 0; i < peers.size(); ++i) {
        const int k = peers[i];
        const cudaStream_t s = streams_[i % streams_.size()];
        DFFT_CUDA(cudaStreamWaitEvent(s, start_.get(), 0));
        st_.on(s).stage_out(k, src);
        DFFT_CUDA(cudaLaunchHostFunc(s, on_ready, &ready_[k]));
      }
      st_.on(main).copy_self(src, dst);
    }
    recv.each(t.comm, [&](int k) {
      PhaseTimer pt(t.unpack);
      st_.on(main).stage_in(k, dst);
    });
    sender.join();
    if (sender_error) std::rethrow_exception(sender_error);
    {
      PhaseTimer pt(t.comm);
      DFFT_MPI(MPI_Waitall(static_cast<int>(sreq.size()), sreq.data(), MPI_STATUSES_IGNORE));
    }
    PhaseTimer pt(t.unpack);
    // The next step overwrites src: the side streams' reads must be done (they are, once every
    // host function has run; the events make that an ordering the device knows about too).
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      done_[i]->record(streams_[i]);
      DFFT_CUDA(cudaStreamWaitEvent(main, done_[i]->get(), 0));
    }
    dev.synchronize();
  }

 private:
  MPI_Comm comm_;
  CudaStager st_;
  std::int64_t chunk_;
  Channel ch_;
  std::vector<Ready> ready_;
  std::vector<cudaStream_t> streams_;
  std::vector<std::unique_ptr<Event>> done_;
  Event start_;
};

}  // namespace

std::unique_ptr<Transport> make_device_p2p_streams(MPI_Comm c, const ExchangeSpec& s,
                                                   CudaDevice& d, bool aware) {
  return std::make_unique<DeviceP2pStreams>(c, s, d, aware);
}

}  // namespace dfft::detail
