// SPDX-License-Identifier: MIT
// Value types shared by the public API: boxes, enums, options, timings, errors.
#pragma once

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dfft {

/// What kind of failure an Error is; the C interface's dfft_status has the same values.
enum class Status {
  success = 0,
  invalid_argument = 1,  // InvalidArgument
  mpi_error = 2,         // MpiError
  library_error = 3,     // LibraryError
  out_of_memory = 4,     // OutOfMemory
  internal = 5,          // an Error of no more specific class: a defect in dfft
  unsupported = 6,       // Unsupported
};

/// Base of every exception dfft throws: for every failed MPI/FFTW/CUDA/cuFFT/NCCL call and for
/// every bad input. `call` names the failing call (or "plan" for input validation), `code` is
/// the library's return code (0 for input errors), `rank` the world rank that raised it. Catch
/// the derived classes to tell the kinds apart; status() names the kind as a value.
class Error : public std::runtime_error {
 public:
  Error(std::string call, long code, int rank, const std::string& what,
        Status status = Status::internal);
  const std::string& call() const { return call_; }
  long code() const { return code_; }
  int rank() const { return rank_; }
  Status status() const { return status_; }

 private:
  std::string call_;
  long code_;
  int rank_;
  Status status_;
};

/// Bad input refused at plan time (a size, option, layout or name that is not allowed; ranks
/// that disagree on the plan's arguments). The message says what is allowed.
class InvalidArgument : public Error {
 public:
  InvalidArgument(std::string call, int rank, const std::string& what)
      : Error(std::move(call), 0, rank, what, Status::invalid_argument) {}
};

/// Valid input that this build, backend, method combination or MPI library cannot run (a method
/// that needs CUDA on the CPU backend, a GPU build without NCCL, a thread level MPI lacks).
class Unsupported : public Error {
 public:
  Unsupported(std::string call, int rank, const std::string& what)
      : Error(std::move(call), 0, rank, what, Status::unsupported) {}
};

/// A host or device allocation failed, or the plan needs more memory than is available (or than
/// Options::memory_limit_bytes): needed_bytes() and available_bytes() say how much (0: unknown).
class OutOfMemory : public Error {
 public:
  OutOfMemory(std::string call, long code, int rank, const std::string& what,
              std::int64_t needed = 0, std::int64_t available = 0)
      : Error(std::move(call), code, rank, what, Status::out_of_memory),
        needed_(needed), available_(available) {}
  std::int64_t needed_bytes() const { return needed_; }
  std::int64_t available_bytes() const { return available_; }

 private:
  std::int64_t needed_, available_;
};

/// An MPI call returned an error code (code() is the MPI error code).
class MpiError : public Error {
 public:
  MpiError(std::string call, long code, int rank, const std::string& what)
      : Error(std::move(call), code, rank, what, Status::mpi_error) {}
};

/// FFTW, CUDA runtime, cuFFT or NCCL failed; library() says which, code() is its return code.
class LibraryError : public Error {
 public:
  /// system: the operating system (threads, CPU affinity).
  enum class Library { fftw, cuda, cufft, nccl, system };
  LibraryError(Library lib, std::string call, long code, int rank, const std::string& what)
      : Error(std::move(call), code, rank, what, Status::library_error), lib_(lib) {}
  Library library() const { return lib_; }

 private:
  Library lib_;
};

std::string to_string(LibraryError::Library);
std::string to_string(Status);

/// Half-open box [lo, hi) of the global index space; axis 0 is the slowest axis of the natural
/// (C, row-major) order, axis d-1 the fastest ("x, y, z" for d = 3).
struct Box {
  std::vector<std::int64_t> lo, hi;
  int dims() const { return static_cast<int>(lo.size()); }
  std::int64_t extent(int a) const { return hi[a] - lo[a]; }
  std::int64_t count() const;
  bool empty() const;
  bool operator==(const Box& o) const { return lo == o.lo && hi == o.hi; }
};

/// Intersection of two boxes (empty box with lo == hi where they do not overlap).
Box intersect(const Box& a, const Box& b);

/// Where a rank's data lives: its box, and the memory order of its local array as the list
/// of global axes from slowest to fastest. {0,1,...,d-1} is the natural order.
struct Layout {
  Box box;
  std::vector<int> order;
  /// Allocated extent per global axis, >= offset + box extent (padding, a halo above the box,
  /// FFTW's in-place r2c real layout); empty: offset + box extent.
  std::vector<std::int64_t> padded;
  /// Cells before the box per global axis (a halo below it, dfft::HaloSpec's `lo`): the local
  /// array starts at global index box.lo - offset; empty: 0 on every axis (docs/boxes.md).
  /// (Its initializer lets the brace initialisations of the first three fields leave it out.)
  std::vector<std::int64_t> offset{};
  std::int64_t alloc_extent(int axis) const {
    return padded.empty() ? box.extent(axis) + offset_on(axis) : padded[axis];
  }
  std::int64_t offset_on(int axis) const { return offset.empty() ? 0 : offset[axis]; }
  /// Elements of the local array, halo and padding included (0 for an empty box).
  std::int64_t alloc_count() const;
  /// Element strides per global axis (not per memory position).
  std::vector<std::int64_t> strides() const;
  /// Offset (elements) of global index `idx` inside the local array.
  std::int64_t offset_of(const std::vector<std::int64_t>& idx) const;
};

/// Halo (ghost cell) widths around every rank's box in the caller's local array, per global
/// axis: `lo[a]` cells below the box, `hi[a]` above it (padding is a halo nothing fills), as
/// dfft::HaloSpec spells them; `hi` empty: the same as `lo`. Both empty: a dense array.
struct HaloWidths {
  std::vector<std::int64_t> lo, hi;
  bool empty() const { return lo.empty() && hi.empty(); }
};

/// `l` with the widths of `w` around its box: offset lo, allocated extent lo + box + hi
/// (l's own padding and offset are replaced). Throws InvalidArgument naming the axis for a
/// negative width or lists that are not one entry per axis.
Layout with_halo(const Layout& l, const HaloWidths& w);

/// `automatic`: chosen when the plan is made (Options, "Automatic choices" below).
enum class Decomposition { slab_2d1d, slab_1d2d, pencil, automatic };
enum class Variant { Default, Realigned, automatic };
enum class Transform { r2c, c2c, r2r };  // c2r is the inverse of r2c; r2r: a real kind on every axis
/// Real-to-real kind of one axis (docs/r2r.md): the DCT or DST of type I-IV that the forward
/// transform applies along it (FFTW's REDFT00/10/01/11, RODFT00/10/01/11, scipy.fft's dct/dst
/// type=1..4, unnormalised), or one of FFTW's DFT-based real kinds: r2hc (FFTW_R2HC, the real DFT
/// in FFTW's halfcomplex order r0..r_{n/2}, i_{(n+1)/2-1}..i1), hc2r (FFTW_HC2R, its inverse) and
/// dht (FFTW_DHT, the discrete Hartley transform). The inverse transform applies the inverse kind
/// (r2r_inverse: types I and IV are their own inverses, II and III each other's, r2hc and hc2r
/// each other's, dht its own). The FFTW-only kinds run on the CPU backend and only with
/// Transform::r2r (r2r_is_fftw_only). Values keep the numbers they have in the C interface.
enum class R2R { none, dct2, dst2, dct1, dct3, dct4, dst1, dst3, dst4, r2hc, hc2r, dht };
/// The kind that undoes `k` up to scaling: dct1 -> dct1, dct2 <-> dct3, dct4 -> dct4 (and the
/// same for dst); r2hc <-> hc2r, dht -> dht; none -> none.
R2R r2r_inverse(R2R k);
/// Type of a DCT/DST kind, 1..4 (0 for none and for the FFTW-only kinds, which are no DCT/DST).
int r2r_type(R2R k);
/// True for the sine kinds (dst1..dst4).
bool r2r_is_sine(R2R k);
/// True for r2hc, hc2r and dht: FFTW's DFT-based real kinds, which only FFTW's r2r runs (the CPU
/// backend) and which are not DCT/DST types (r2r_type 0).
bool r2r_is_fftw_only(R2R k);
/// The kind of type `type` (1..4), cosine or sine: the inverse of r2r_type / r2r_is_sine.
R2R r2r_kind(bool sine, int type);
/// Factor by which the kind and its inverse, applied in turn on an axis of n points, multiply
/// the data (FFTW's logical size): 2(n-1) for dct1, 2(n+1) for dst1, n for none (the periodic
/// DFT), r2hc, hc2r and dht, 2n otherwise. Options::norm divides by the product of these.
std::int64_t r2r_logical_size(R2R k, std::int64_t n);
/// FFTW planning (CPU backend): `measure` times candidate algorithms the first time a size is
/// planned and keeps the result as FFTW wisdom on disk (Options::fftw_wisdom), so later plans
/// of that size cost milliseconds; `estimate` plans at once from heuristics (strided
/// transforms can run several times slower). `wisdom_only` plans only from FFTW wisdom the
/// process has (fftw_import_wisdom*, or the disk file of Options::fftw_wisdom) at the measure
/// level, as FFTW's FFTW_WISDOM_ONLY: a local FFT FFTW has no wisdom for refuses the plan
/// (Unsupported), so a plan either comes at once or not at all. The CUDA backend, whose cuFFT
/// keeps no wisdom, plans it as `measure`.
enum class Effort { estimate, measure, wisdom_only };
/// Scaling, as numpy.fft's `norm`: `backward` leaves the forward transform unscaled and scales
/// the inverse by 1/N, `forward` the other way round, `ortho` scales both by 1/sqrt(N). N is the
/// product over the axes of r2r_logical_size (n on a periodic axis, 2n on most DCT/DST axes:
/// FFTW's and scipy's unnormalised pairs), so these choices give inverse(forward(x)) == x.
/// `none` scales neither direction (FFTW's convention): inverse(forward(x)) == N x.
enum class Norm { backward, ortho, forward, none };
enum class Backend { cpu, cuda };
/// Global redistribution methods. The four CPU methods are always available; the others need
/// the CUDA backend (and NCCL for `nccl`).
/// p2p_pipelined: ring schedule with chunked blocks and `in_flight` steps outstanding (host
/// staging on GPUs overlaps device-to-host, network and host-to-device copies). cuda_ipc:
/// CUDA backend, GPUs of one node; the pack kernel writes each block straight into the peer's
/// receive buffer through CUDA IPC mappings (no MPI data movement). node_ring and
/// hierarchical know the nodes (docs/nodes.md; CPU backend): node_ring orders the point-to-point
/// messages so that at each step every node sends to one other node; hierarchical gathers the
/// blocks bound for another node on one leader rank per node and sends one message per node pair.
/// per_peer picks a transport per link class inside one exchange: the blocks among the ranks of
/// a node go over cuda-ipc (CUDA backend) or shared-memory MPI point-to-point (CPU), the blocks
/// to other nodes over nccl or MPI point-to-point.
enum class Method { a2a_sync, a2a_type, p2p_sync, p2p_type, p2p_streams, nccl, onesided,
                    p2p_pipelined, cuda_ipc, node_ring, hierarchical, per_peer };
/// What exchanged blocks look like on the wire (compressed communication). Local FFTs always
/// run in working precision. fp32 only narrows double; fp16/bf16 narrow float or double.
enum class Codec { none, fp32, fp16, bf16 };
/// Completion of the one-sided transport's epochs.
enum class OneSidedSync { fence, flush };
/// CUDA backend, MPI methods: where MPI reads and writes. `host` stages every message through
/// page-locked host memory; `cuda_aware` hands device pointers to MPI (needs an MPI built with
/// CUDA support: a plan-time error otherwise); `automatic` uses cuda_aware when the MPI reports
/// CUDA support at run time, else host. (nccl always moves device memory.)
enum class Staging { automatic, host, cuda_aware };
/// Plan tuning (docs/tuning.md): `none` builds the plan the options describe; `heuristic` picks
/// decomposition, grid, variant and methods with the analytic model (docs/models.md) without
/// running anything; `measure` reuses a matching wisdom entry or times candidate plans and keeps
/// the fastest. Plan::tune_report() tells what was done.
enum class Tune { none, heuristic, measure };
/// Which directions a plan runs (Options::directions): `both`, or only `forward` or only
/// `inverse`, as an FFTW plan runs one. A one-direction plan makes, and under Effort::measure
/// times, only that direction's FFTs and exchanges: about half the planning time and FFT work
/// areas. Calling the other direction throws InvalidArgument.
enum class Directions { both, forward, inverse };

std::string to_string(Decomposition);
std::string to_string(Variant);
std::string to_string(Transform);
std::string to_string(Method);
std::string to_string(Backend);
std::string to_string(R2R);
std::string to_string(Codec);
/// Unit round-off of a wire format (0 for none): 2^-24 fp32, 2^-11 fp16, 2^-8 bf16. A compressed
/// exchange adds about this relative error per exchange (docs/compression.md).
double unit_roundoff(Codec);
std::string to_string(OneSidedSync);
std::string to_string(Staging);
std::string to_string(Tune);
std::string to_string(Norm);
std::string to_string(Directions);
/// Parse the names used everywhere (CLI, JSON): "slab-2d1d", "slab-1d2d", "pencil",
/// "default", "realigned", "r2c", "c2c", "r2r", "a2a-sync", "a2a-type", "p2p-sync", "p2p-type",
/// "p2p-streams", "nccl", "cpu", "cuda", "auto", "host", "cuda-aware". Unknown names throw dfft::Error listing the allowed ones.
Decomposition parse_decomposition(const std::string&);
Variant parse_variant(const std::string&);
Transform parse_transform(const std::string&);
Method parse_method(const std::string&);
/// "auto" (the methods chosen when the plan is made: an empty Options::methods) or one name.
std::vector<Method> parse_methods(const std::string&);
Backend parse_backend(const std::string&);
R2R parse_r2r(const std::string&);  // "none", "dct1".."dct4", "dst1".."dst4", "r2hc", "hc2r", "dht"
Codec parse_codec(const std::string&);
OneSidedSync parse_onesided_sync(const std::string&);
Staging parse_staging(const std::string&);
Tune parse_tune(const std::string&);  // "none", "heuristic", "measure"
Norm parse_norm(const std::string&);  // "backward", "ortho", "forward", "none"
Directions parse_directions(const std::string&);  // "both", "forward", "inverse"

/// Options group "problem": what is transformed (transform kind, axes, padding, normalisation,
/// batches, in place).
struct ProblemOptions {
  Transform transform = Transform::r2c;
  /// Per axis (empty: all periodic): the DCT/DST kind the forward transform applies along that
  /// axis (the inverse applies r2r_inverse of it); R2R::none keeps the axis periodic. With
  /// Transform::r2r every axis needs a kind (real data); with Transform::c2c the periodic axes
  /// are complex DFTs; with Transform::r2c the last axis must be periodic (it is the halved
  /// one), the others any kind (real input, complex output).
  std::vector<R2R> r2r{};
  /// Axes to transform, in order (as numpy.fft.fftn's `axes`; docs/axes.md). Empty: every axis. A negative entry counts from the end (-1 is the last axis).
  /// With r2c the last listed axis is the halved one (n/2+1 complex values), as numpy.fft.rfftn.
  /// The other axes are not transformed; they may stay distributed throughout. Repeated or
  /// out-of-range axes are refused at plan time.
  std::vector<int> axes{};
  /// Padding for dealiasing (the 3/2 rule; docs/axes.md). Empty: none;
  /// else one factor per axis (>= 1; 1: not padded; only transformed axes may be padded). The
  /// plan's shape is the spectral (unpadded) grid n; the physical grid has floor(n * factor)
  /// points on a padded axis. forward() takes the padded physical grid and returns the
  /// n-point spectrum truncated to numpy's frequencies of an n-point FFT; inverse() zero-pads the
  /// spectrum (an even n's Nyquist mode split in halves between +n/2 and -n/2) and returns the
  /// padded physical grid. Norm counts the padded sizes. Not with overlap, adapt, user_workspace,
  /// in_place or DCT/DST axes.
  std::vector<double> padding{};
  Norm norm = Norm::backward;
  /// Number of independent arrays transformed together (stored one after another); the batch
  /// travels in the same messages. Plan::forward(batch, ...) runs a batched plan made for you
  /// (Options::batches, Plan::prepare_batch()).
  int batch = 1;
  /// Batch sizes whose batched plans the constructor makes as well (for forward(batch, ...));
  /// others need Plan::prepare_batch() first.
  std::vector<int> batches{};
  /// r2c in place: the real input uses FFTW's padded layout (last axis allocated as
  /// 2*(n/2+1) reals) so that forward(p, p) and inverse(p, p) work on one buffer of
  /// max(input, output) bytes. c2c plans work in place without it.
  bool in_place = false;
  /// The inverse may overwrite its input (the caller's spectrum), as FFTW's c2r does by default:
  /// where the inverse starts with a multi-dimensional c2r on the caller's array (one rank, or
  /// a decomposition whose first inverse step is that c2r), it runs there instead of on a copy
  /// or a split that keeps the array. false: inverse() leaves its input as it was.
  bool destroy_input = false;
  /// The directions the plan runs (Directions): `both`, or one, whose plan costs about half to
  /// make; the other direction then throws InvalidArgument.
  Directions directions = Directions::both;
  /// Halo (ghost cells) or padding around this rank's box in the caller's input (real-space)
  /// and output (spectral) arrays (docs/boxes.md): input_layout() and output_layout() are the
  /// decomposition's with these widths (Layout::offset, padded), input_count() and
  /// output_count() count the halo'd arrays, and forward() and inverse() read and write the
  /// boxes only, never a halo cell. An array dfft::Halo exchanges with the same widths is such
  /// an array. The same on every rank. Not with in_place, nor with the box constructor (its
  /// layouts carry their own offset and padding).
  HaloWidths input_halo{};
  HaloWidths output_halo{};
};
/// Options group "decomposition": how the array is cut over the ranks and where the nodes are.
struct DecompositionOptions {
  Decomposition decomposition = Decomposition::automatic;
  /// Process grid: {} picks one automatically; {P} for slabs; {P1, P2} for pencils
  /// (any length up to d-1 for a d-dimensional pencil decomposition).
  std::vector<int> grid{};
  Variant variant = Variant::automatic;
  /// The spectrum in the memory order of the last FFT stage's speed (FFTW-MPI's
  /// FFTW_MPI_TRANSPOSED_OUT): the axes that stage transforms next to the innermost axis, the
  /// others slowest. slab-2d1d and pencil of a 3-D array give (y, x, z), where the default is
  /// (x, y, z); output_layout() reports it, and inverse() reads that order. Orders that are
  /// already so (slab-1d2d, 2-D slabs) do not change.
  bool transposed_out = false;
  /// Nodes (docs/nodes.md). Empty: the ranks MPI reports as sharing memory form a node, unless
  /// the environment variable DFFT_RANKS_PER_NODE gives a layout in the same form ("4" or
  /// "3,1"). {k}: nodes of k consecutive ranks (k divides the rank count); {a, b, ...}: nodes
  /// of a, b, ... consecutive ranks (summing to the rank count). Emulates several nodes on one.
  std::vector<int> ranks_per_node{};
};
/// Options group "exchange": how blocks travel between ranks (methods, wire format, staging,
/// pipelining, message size).
struct ExchangeOptions {
  /// One method for every exchange, or one per exchange in path order. Empty: automatic.
  std::vector<Method> methods{};
  /// Wire format of the exchanges (not of reshapes to/from user boxes). `none` is exact.
  Codec codec = Codec::none;
  /// If > 0 and codec is none: pick the cheapest codec whose expected relative error stays
  /// below this: fp16, fp32 or none (docs/compression.md gives the rule, and why bf16 is only
  /// used when asked for by name). Plan::codec() tells the choice.
  double tolerance = 0;
  /// `onesided` method: complete epochs by MPI_Win_fence or by passive-target flush.
  OneSidedSync onesided_sync = OneSidedSync::fence;
  /// CUDA backend: host staging or CUDA-aware MPI for the MPI methods.
  Staging staging = Staging::automatic;
  /// Pipelining chunks per peer block for `onesided`, `p2p_pipelined` and `nccl` (encode/copy
  /// of chunk k+1 overlaps the transfer of chunk k; nccl cuts only blocks that need packing or
  /// unpacking, into chunks of at least 1 MiB: docs/pipelined.md). 0: automatic.
  int chunks = 0;
  /// `p2p_pipelined`: ring steps (peers) with transfers outstanding at once (>= 1).
  int in_flight = 2;
  /// Largest MPI message in bytes; larger blocks are split (tests set it small).
  std::int64_t max_message_bytes = (std::int64_t{1} << 31) - 4096;
};
/// Options group "overlap": FFT/exchange overlap and its online tuning.
struct OverlapOptions {
  /// FFT/exchange overlap (docs/overlap.md): the FFTs next to each exchange run in this many
  /// slices along an axis the exchange does not cut, so slice i is exchanged while slice i+1
  /// is transformed. 1: no overlap. Needs MPI_THREAD_SERIALIZED or higher. 0: automatic.
  int overlap = 0;
  /// Online tuning (docs/overlap.md): the first executions of the plan try overlap slices,
  /// chunks and steps in flight; later executions use the fastest (max over ranks).
  bool adapt = false;
};
/// Options group "tuning": plan tuning and FFTW planning effort, with the files they keep.
struct TuningOptions {
  /// Choose decomposition, grid (unless `grid` is given), variant, methods and chunks by
  /// measurement or model instead of taking them from these options (docs/tuning.md).
  Tune tune = Tune::none;
  /// JSON wisdom file: `measure` reuses and updates its entries; `heuristic` reads its model
  /// calibration; a plan whose decomposition, variant, methods, chunks or overlap are automatic
  /// takes a tuned entry for its problem from it. Empty: the machine's default file
  /// (dfft::default_wisdom_file(): $DFFT_WISDOM, else the cache folder); "off": none. Malformed or
  /// foreign entries are ignored (with a warning in the tune report), never trusted.
  std::string wisdom_file{};
  /// `measure`: stop timing further candidates after this many seconds (0: no limit).
  double tune_budget_s = 0;
  Effort effort = Effort::measure;
  /// Effort::measure: import FFTW wisdom from, and export new wisdom to, one file per machine
  /// and precision, fftw-<hostname>.wisdom (fftwf- for float) in `fftw_wisdom_dir`; empty dir:
  /// $DFFT_WISDOM_DIR, else $XDG_CACHE_HOME/dfft, else ~/.cache/dfft. Ranks of one node write
  /// it one at a time; an unreadable or foreign file is ignored. Off: no file read or written.
  bool fftw_wisdom = true;
  std::string fftw_wisdom_dir{};
};
/// Options group "device": where and with what the plan runs (backend, GPU, stream, work
/// buffers, threads per rank).
struct DeviceOptions {
  Backend backend = Backend::cpu;
  /// CUDA backend: device to use; -1 = local rank modulo visible devices.
  int device = -1;
  /// CUDA backend: a cudaStream_t (as void*) of the plan's GPU on which the plan queues all its
  /// device work, ordered after what the caller queued there before; forward() and inverse()
  /// return after synchronising this stream (never the whole device). nullptr: a stream of the
  /// plan's own, ordered after the legacy default stream. The stream must outlive the plan.
  void* stream = nullptr;
  /// The caller supplies the plan's work buffers at every execution (Plan::workspace_bytes(),
  /// forward(in, out, work)): the plan does not hold them, so memory() is smaller by
  /// workspace_bytes(), and an execution without a workspace is refused. Not with adapt.
  bool user_workspace = false;
  /// CPU backend: threads per rank (hybrid MPI + threads; docs/threads.md). FFTW's threaded
  /// plans run the local FFTs, a team of as many threads packs, unpacks and codes the blocks.
  /// 1: one thread (no team). 0 (the default): the CPUs of this rank's affinity mask, shared
  /// among the node's ranks when they are not bound (a rank bound to one core: 1; one rank alone
  /// on a node: every core; Plan::threads() says what it came to). The CUDA backend takes 0 or 1.
  /// Every rank of a plan must pass the same value.
  int threads = 0;
};
/// Options group "memory": how much memory the plan may hold.
struct MemoryOptions {
  /// Most bytes of host memory, and of GPU memory, the plan may hold on a rank (Plan::memory());
  /// a plan needing more is refused with OutOfMemory on every rank before anything is
  /// allocated. 0: the memory available when the plan is made, for all ranks drawing on it (host:
  /// MemAvailable, the memory cgroup's limit; GPU: cudaMemGetInfo's free bytes; docs/design.md).
  std::int64_t memory_limit_bytes = 0;
};

namespace detail {
template <class G>
inline constexpr bool is_option_group =
    std::is_same_v<G, ProblemOptions> || std::is_same_v<G, DecompositionOptions> ||
    std::is_same_v<G, ExchangeOptions> || std::is_same_v<G, OverlapOptions> ||
    std::is_same_v<G, TuningOptions> || std::is_same_v<G, DeviceOptions> ||
    std::is_same_v<G, MemoryOptions>;
// True when no type appears twice among G.
template <class... G>
struct distinct_types : std::true_type {};
template <class H, class... T>
struct distinct_types<H, T...>
    : std::bool_constant<(!std::is_same_v<H, T> && ...) && distinct_types<T...>::value> {};
}  // namespace detail

/// Plan options, grouped by concern (docs/options.md). Each group is an aggregate with defaults, so
/// one concern is set in one line: `o.group<ExchangeOptions>() = {.codec = Codec::fp16};` or
/// `make_options(DeviceOptions{.backend = Backend::cuda})`. Options derives from the seven groups,
/// so every field is also a field of Options (`o.methods`), as in the flat struct it replaces; it
/// declares no field of its own. Every group field has a default member initializer (`{}` where
/// the type's own default is meant), so that a designated initializer may leave any field out
/// without a -Wmissing-field-initializers warning.
///
/// Automatic choices (docs/design.md, "Automatic choices by default"): decomposition, grid,
/// variant, methods, chunks and overlap left at their automatic values are chosen when the plan
/// is made, without timed runs,
/// from what the plan can know (backend, nodes, GPUs shared or peer-connected, CUDA-aware MPI,
/// NCCL, sizes, transform, precision, ranks) and the analytic model with this machine's
/// calibration (a wisdom file's, else built-in constants for the device class). Every field the
/// caller sets is kept; describe() says what was chosen and the runners-up.
struct Options : ProblemOptions,
                 DecompositionOptions,
                 ExchangeOptions,
                 OverlapOptions,
                 TuningOptions,
                 DeviceOptions,
                 MemoryOptions {
  /// One group of this plan's options (a group type named above), e.g.
  /// `o.group<ExchangeOptions>() = {.methods = {Method::nccl}, .chunks = 4};`, which leaves the
  /// group's other fields at their defaults. (Fields named decomposition, overlap and device rule
  /// out members named after the groups.)
  template <class G>
  G& group() {
    static_assert(detail::is_option_group<G>,
                  "Options::group<G>(): G must be one of the seven option groups");
    return *this;
  }
  template <class G>
  const G& group() const {
    static_assert(detail::is_option_group<G>,
                  "Options::group<G>(): G must be one of the seven option groups");
    return *this;
  }
};

/// Options made of the groups given (each at most once), the other groups at their defaults:
/// `Plan<double> p(comm, {n, n, n}, make_options(DeviceOptions{.backend = Backend::cuda},
///                                               ExchangeOptions{.codec = Codec::fp16}));`
template <class... G>
Options make_options(const G&... groups) {
  static_assert((detail::is_option_group<G> && ...),
                "make_options(): every argument must be an option group");
  static_assert(detail::distinct_types<G...>::value, "make_options(): a group given twice");
  Options o;
  ((o.group<G>() = groups), ...);
  return o;
}

/// Memory a plan holds on this rank, by kind (Plan::memory()). FFTW's own work areas are not
/// known to dfft and not counted; cuFFT's are.
struct Memory {
  struct Item {
    std::string what;  // e.g. "work buffers", "exchange0[a2a-sync] staging", "cuFFT work areas"
    std::int64_t host_bytes = 0, device_bytes = 0;
  };
  std::int64_t host_bytes = 0;    // host memory: plan buffers on the CPU backend, staging, windows
  std::int64_t device_bytes = 0;  // GPU memory (CUDA backend)
  std::vector<Item> items;
  void add(std::string what, std::int64_t host, std::int64_t device);
};

/// Messages and bytes of one transform's exchanges (forward; the inverse sends the same),
/// summed over all ranks, split by whether sender and receiver share a node (docs/nodes.md).
/// A message is one block between two ranks (one aggregated message for hierarchical); blocks
/// above Options::max_message_bytes, or cut into Options::chunks, travel as several MPI messages.
/// Bytes are wire bytes (coded size with a codec).
struct NodeTraffic {
  std::int64_t intra_node_messages = 0, intra_node_bytes = 0;
  std::int64_t inter_node_messages = 0, inter_node_bytes = 0;
  // Spelled out: the CUDA sources that include this header are compiled as C++17.
  bool operator==(const NodeTraffic& o) const {
    return intra_node_messages == o.intra_node_messages && intra_node_bytes == o.intra_node_bytes &&
           inter_node_messages == o.inter_node_messages && inter_node_bytes == o.inter_node_bytes;
  }
};

/// Factor by which the forward (or, with `inverse`, the inverse) transform of a global array of
/// `shape` is scaled under opt.norm: 1, 1/N or 1/sqrt(N), N as Norm describes.
double norm_factor(const Options& opt, const std::vector<std::int64_t>& shape, bool inverse);

/// Whether a plan made with `directions` runs the inverse (with `inverse`) or the forward transform.
constexpr bool runs_direction(Directions directions, bool inverse) {
  return directions == Directions::both || (directions == Directions::inverse) == inverse;
}

/// Time spent per phase in one stage of the last executed transform, seconds, this rank.
/// With overlap (Options::overlap > 1) the stages of a group run at the same time: each stage
/// then reports its busy time (summed over slices; FFTs timed on the device with events), and
/// the group's exchange stage reports the group's wall time in `wall` and `slices` > 1; the
/// sum of totals then exceeds the elapsed time (docs/overlap.md).
struct StageTiming {
  std::string name;  // e.g. "fft[1,2]" or "exchange[0]"
  double fft = 0, pack = 0, comm = 0, unpack = 0;
  double wall = 0;  // overlapped group: elapsed time of the whole group (on its exchange stage)
  int slices = 1;   // overlapped group: slices it ran in
  double total() const { return fft + pack + comm + unpack; }
};

}  // namespace dfft
