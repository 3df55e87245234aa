// SPDX-License-Identifier: MIT
// The executor: owns communicators, device, workspace, local FFT plans and transports, and runs
// the path's steps in order (forward) or in reverse (inverse), timing each phase.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "exec/keep_input_c2r.hpp"
#include "exec/overlap.hpp"
#include "dfft/types.hpp"
#include "plan/path.hpp"
#include "transport/topology.hpp"
#include "transport/transport.hpp"
#include "tune/automatic.hpp"

namespace dfft {

namespace detail {
/// How the first step of a direction that reads the caller's array is run where it may copy
/// the array and transform in place (PlanImpl::plan_in_place_ends): -1 timed (Effort::measure),
/// 0 out of place, 1 copied. Plans read it when they are made; tests set it to reach both.
int& first_step_copy_choice();
}  // namespace detail

class PlanImpl {
 public:
  /// user_in/user_out: this rank's layouts from the box API (both or neither).
  PlanImpl(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& opt,
           bool is_double, const Layout* user_in = nullptr, const Layout* user_out = nullptr);
  ~PlanImpl();
  PlanImpl(const PlanImpl&) = delete;
  PlanImpl& operator=(const PlanImpl&) = delete;

  /// `work`: the caller's workspace of `work_bytes` bytes (nullptr: the plan's own buffers).
  void forward(const void* in, void* out, void* work = nullptr, std::int64_t work_bytes = 0);
  void inverse(const void* in, void* out, void* work = nullptr, std::int64_t work_bytes = 0);
  /// Bytes of the work buffers one execution writes (Plan::workspace_bytes()).
  std::int64_t workspace_bytes() const;

  const std::vector<std::int64_t>& shape() const { return shape_; }
  const detail::Path& path() const { return path_; }
  const Options& options() const { return opt_; }
  const std::vector<StageTiming>& timings() const { return timings_; }
  /// Overlap slices, chunks and steps in flight in use (after online tuning: the chosen ones).
  int slices() const { return tuning_.slices; }
  int chunks() const { return tuning_.chunks; }
  int in_flight() const { return tuning_.in_flight; }
  bool adapting() const { return opt_.adapt && adapt_.stage < 3; }
  std::vector<std::int64_t> exchange_bytes() const;
  std::string describe() const;
  /// What the plan noticed but did not refuse (this rank's: a failed FFTW wisdom write).
  const std::vector<std::string>& warnings() const { return warnings_; }
  const std::vector<std::string>& auto_warnings() const { return auto_.warnings; }
  const std::string& auto_wisdom_file() const { return auto_.wisdom_file; }
  /// Messages and bytes of one transform inside and across nodes, summed over all ranks.
  const NodeTraffic& node_traffic() const { return traffic_; }
  const detail::Topology& topology() const { return topo_; }
  int device() const { return dev_->ordinal(); }
  Codec codec() const { return codec_; }
  bool is_double() const { return is_double_; }
  detail::Device& dev() const { return *dev_; }
  /// Memory the plan holds, as computed before it allocated (src/exec/plan_memory.cpp).
  const Memory& memory() const { return memory_; }

 private:
  struct StepExec {
    std::unique_ptr<detail::LocalFft> fwd_fft, inv_fft;
    /// The same FFTs planned in place, for a direction whose last step this is (the exchange
    /// before it writes the caller's output array and the FFT transforms it there) or whose
    /// first step this is, where copying the caller's array and transforming in place was timed
    /// faster than the out-of-place FFT (copy_first).
    std::unique_ptr<detail::LocalFft> fwd_fft_in_place, inv_fft_in_place;
    bool fwd_copy_first = false, inv_copy_first = false;
    /// The inverse's first FFT runs in place on the caller's array (Options::destroy_input).
    bool inv_in_caller_array = false;
    // The copy of the caller's array (copy_first) also applies the direction's normalisation:
    // only where every rank copies (agreed at plan time), since the exchanges that follow mix
    // the ranks' data.
    bool fwd_copy_scales = false, inv_copy_scales = false;
    /// The inverse FFT when it reads the caller's const array (src/exec/keep_input_c2r.hpp).
    std::unique_ptr<detail::KeepInputC2r> inv_keep;
    std::unique_ptr<detail::Transport> fwd_x, inv_x;
    Method method = Method::a2a_sync;
  };
  /// Chunks/overlap settings the transports and groups are built with (adapt changes them).
  struct Tuning {
    int slices = 1, chunks = 4, in_flight = 2;
    bool operator==(const Tuning&) const = default;
  };
  /// One direction's schedule: steps in execution order, overlap groups, and which buffer
  /// each step writes (0 user in, 1 user out, 2 a_, 3 b_, 4 c_).
  struct Direction {
    std::vector<detail::OrientedStep> sched;
    std::vector<detail::GroupExec> groups;
    std::vector<int> group_at;  // schedule index -> group index starting there, or -1
    std::vector<int> out_buf;
  };
  /// Online tuning state (Options::adapt).
  struct Adapt {
    std::vector<Tuning> cand;
    std::vector<double> score;
    int stage = 0;          // 0 overlap slices, 1 chunks, 2 steps in flight, 3 done
    std::size_t cur = 0;    // candidate being measured
    int calls = 0;          // calls measured for it
    bool warmed = false;
  };
  std::vector<Layout> allgather_layout(const Layout& l, int d) const;
  void check_same_everywhere(const std::vector<std::int64_t>& shape) const;
  void build_steps();
  Memory predict_memory() const;
  /// memory_ counted a third work buffer that no overlap group turned out to need.
  void drop_third_buffer_from_memory();
  /// Throws OutOfMemory on every rank when memory_ exceeds the limit or the available memory
  /// on any rank. Collective.
  void check_memory() const;
  detail::FftDesc fft_desc(const detail::Step& st, bool inverse) const;
  /// The step's local FFT (truncating / zero-padding where the step has padded axes).
  std::unique_ptr<detail::LocalFft> make_fft(const detail::Step& st, bool inverse) const;
  /// The inverse's first FFT when it is a c2r on the caller's array: how it keeps that array.
  void plan_keep_input();
  void plan_in_place_ends();
  /// Whether an execution in place (input and output one array) runs the direction's first FFT
  /// in that array: it has an in-place plan, and the step after it writes a work buffer and is
  /// not in an overlap group.
  bool first_fft_in_caller_array(bool inverse) const;
  detail::ExchangeSpec exchange_spec(const detail::Step& st, bool inverse) const;
  MPI_Comm exchange_comm(const detail::Step& st) const;
  std::unique_ptr<detail::Transport> make_x(const detail::Step& st, Method m,
                                            const detail::ExchangeSpec& s) const;
  void build_transports();
  void find_devices_per_node();
  /// Settles the fields of opt_ left automatic (src/tune/automatic.cpp); collective.
  void choose_automatically(bool user_boxes);
  void build_direction(bool inverse);
  /// Whether plan_in_place_ends plans the direction's first (or last) FFT in place.
  bool plans_end_in_place(bool inverse, bool first) const;
  void add_fft_work(std::string what, std::int64_t bytes);
  /// Whether step k's out-of-place FFT of the direction is planned with the plan (false where
  /// only its in-place plan runs; run() makes it if an execution needs it after all).
  bool needs_out_of_place_fft(std::size_t k, bool inverse) const;
  /// build_direction() of each direction the plan runs.
  void build_directions();
  /// Whether the plan runs this direction (Options::directions).
  bool runs(bool inverse) const {
    return runs_direction(opt_.directions, inverse);
  }
  void build_group(Direction& d, const detail::GroupPlan& p, bool inverse);
  void* buffer(int id, const void* in, void* out) const;
  /// Runs the steps; true where the last one applied the normalisation `factor` already.
  bool run(bool inverse, const void* in, void* out, double factor);
  // Points the work buffers at the caller's workspace or the plan's own, then runs and scales.
  void transform(bool inverse, const void* in, void* out, void* work, std::int64_t work_bytes);
  void use_workspace(void* work, std::int64_t work_bytes);
  void check_overlap_options() const;
  void adapt_before();
  void adapt_after(double seconds);
  void apply(const Tuning& t);
  bool uses_chunks() const;
  bool uses_in_flight() const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<MPI_Comm> sub_;  // one per grid dimension
  std::vector<std::int64_t> shape_;
  Options opt_;
  detail::AutoChoice auto_;  // what the automatic choice did (describe())
  std::vector<std::string> warnings_;
  std::string threads_why_;  // threads 0 on the CPU: how resolve_threads counted them
  bool is_double_;
  int rank_ = 0, size_ = 1;
  detail::Path path_;
  std::unique_ptr<detail::Device> dev_;
  // The plan's own work buffers (made for planning and released again with
  // Options::user_workspace), and where the running execution's work buffers are.
  detail::Buffer a_, b_, c_;
  void* work_[3] = {nullptr, nullptr, nullptr};
  std::size_t work_bytes_ = 0;  // one work buffer, a multiple of kWorkAlign
  int work_buffers_ = 2;        // a_, b_ and, where overlap groups need it, c_
  Memory memory_;
  // The FFT library's work areas as estimated before planning (Device::fft_bytes_estimate):
  // part of the memory check, which runs before anything is allocated; memory_ counts the
  // actual ones once the FFTs are planned.
  std::int64_t fft_estimate_ = 0;
  std::vector<StepExec> exec_;
  std::vector<Method> step_method_;  // per step (exchanges)
  Tuning tuning_;
  // DFFT_SLICE_TAPER, DFFT_CHUNK_TAPER (0 or 1; every rank's value compared at plan time).
  // DFFT_OVERLAP_QUEUE=1: overlap groups whose transports can (cuda-ipc, nccl) queue every
  // slice's exchange on the device instead of waiting on the host between slices (docs/overlap.md).
  int taper_ = 0, chunk_taper_ = 0, queue_ = 0;
  Direction dir_[2];  // forward, inverse
  Adapt adapt_;
  std::vector<StageTiming> timings_;
  std::vector<std::string> names_;
  Codec codec_ = Codec::none;  // the wire format in use (forced or chosen by tolerance)
  detail::Topology topo_;                   // nodes of comm_'s ranks (docs/nodes.md)
  std::vector<std::vector<int>> sub_node_;  // per grid dimension: node of each sub_ member
  NodeTraffic traffic_;
};

}  // namespace dfft
