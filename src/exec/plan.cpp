// SPDX-License-Identifier: MIT
// Plan<T>: the typed front of PlanImpl.
#include "dfft/dfft.hpp"
#include "exec/plan_impl.hpp"
#include "plan/axes.hpp"
#include "plan/path.hpp"
#include "transport/stage.hpp"
#include "tune/tuner.hpp"
#include "util/check.hpp"

namespace dfft {

namespace {
// The tuner times candidates and adapt re-plans sliced FFTs during executions, both on buffers
// of the plan's own.
const Options& check_workspace_options(const Options& o) {
  if (o.user_workspace && o.tune != Tune::none)
    detail::unsupported("user_workspace takes tune = none (the tuner times candidates on buffers of "
                        "its own): tune first and make the plan with the options it chose");
  if (o.user_workspace && o.adapt)
    detail::unsupported("user_workspace takes adapt = false (adapt re-plans FFTs on the plan's own "
                        "buffers while it executes)");
  return o;
}
}  // namespace

// With options.tune != none the tuner (src/tune) picks the options and builds that plan.
template <class T>
Plan<T>::Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Options& options)
    : comm_(comm) {
  impl_ = detail::make_plan_impl(comm, shape, check_workspace_options(options), std::is_same_v<T, double>,
                                 nullptr, nullptr, tune_);
  for (int b : options.batches) prepare_batch(b);
}

template <class T>
Plan<T>::Plan(MPI_Comm comm, const std::vector<std::int64_t>& shape, const Layout& in,
              const Layout& out, const Options& options)
    : comm_(comm), user_in_(std::make_unique<Layout>(in)), user_out_(std::make_unique<Layout>(out)) {
  impl_ = detail::make_plan_impl(comm, shape, check_workspace_options(options), std::is_same_v<T, double>,
                                 &in, &out, tune_);
  for (int b : options.batches) prepare_batch(b);
}

template <class T>
PlanImpl& Plan<T>::batched(int batch) const {
  if (batch == impl_->options().batch) return *impl_;
  for (auto& b : batched_)
    if (b->options().batch == batch) return *b;
  detail::fail("no batched plan for batch = ", batch, ": make it with prepare_batch(", batch,
               ") (collective) or list it in Options::batches before executing it");
}

template <class T>
void Plan<T>::prepare_batch(int batch) {
  if (batch < 1) detail::fail("batch must be at least 1, got ", batch);
  if (batch == impl_->options().batch) return;
  for (auto& b : batched_)
    if (b->options().batch == batch) return;
  Options o = impl_->options();
  o.batch = batch;
  o.user_workspace = false;  // workspaces are for the single plan: batched plans hold their own
  batched_.push_back(std::make_unique<PlanImpl>(comm_, impl_->shape(), o, std::is_same_v<T, double>,
                                                user_in_.get(), user_out_.get()));
}

template <class T>
Plan<T>::~Plan() = default;
template <class T>
Plan<T>::Plan(Plan&&) noexcept = default;
template <class T>
Plan<T>& Plan<T>::operator=(Plan&&) noexcept = default;

namespace {
void need(const PlanImpl& p, Transform t, const char* call) {
  if (p.options().transform != t)
    detail::fail(call, " called on a ", to_string(p.options().transform), " plan; use the ",
                 to_string(p.options().transform), " overload");
}
}  // namespace

template <class T>
void Plan<T>::forward(const T* in, complex_type* out) const {
  forward(in, out, Workspace{});
}
template <class T>
void Plan<T>::forward(const T* in, complex_type* out, Workspace work) const {
  need(*impl_, Transform::r2c, "forward(real*, complex*)");
  (last_ = impl_.get())->forward(in, out, work.data, work.bytes);
}
template <class T>
void Plan<T>::forward(const complex_type* in, complex_type* out) const {
  forward(in, out, Workspace{});
}
template <class T>
void Plan<T>::forward(const complex_type* in, complex_type* out, Workspace work) const {
  need(*impl_, Transform::c2c, "forward(complex*, complex*)");
  (last_ = impl_.get())->forward(in, out, work.data, work.bytes);
}
template <class T>
void Plan<T>::inverse(const complex_type* in, T* out) const {
  inverse(in, out, Workspace{});
}
template <class T>
void Plan<T>::inverse(const complex_type* in, T* out, Workspace work) const {
  need(*impl_, Transform::r2c, "inverse(complex*, real*)");
  (last_ = impl_.get())->inverse(in, out, work.data, work.bytes);
}
template <class T>
void Plan<T>::inverse(const complex_type* in, complex_type* out) const {
  inverse(in, out, Workspace{});
}
template <class T>
void Plan<T>::inverse(const complex_type* in, complex_type* out, Workspace work) const {
  need(*impl_, Transform::c2c, "inverse(complex*, complex*)");
  (last_ = impl_.get())->inverse(in, out, work.data, work.bytes);
}

template <class T>
void Plan<T>::forward(int batch, const T* in, complex_type* out) const {
  need(*impl_, Transform::r2c, "forward(batch, real*, complex*)");
  (last_ = &batched(batch))->forward(in, out);
}
template <class T>
void Plan<T>::forward(int batch, const complex_type* in, complex_type* out) const {
  need(*impl_, Transform::c2c, "forward(batch, complex*, complex*)");
  (last_ = &batched(batch))->forward(in, out);
}
template <class T>
void Plan<T>::inverse(int batch, const complex_type* in, T* out) const {
  need(*impl_, Transform::r2c, "inverse(batch, complex*, real*)");
  (last_ = &batched(batch))->inverse(in, out);
}
template <class T>
void Plan<T>::inverse(int batch, const complex_type* in, complex_type* out) const {
  need(*impl_, Transform::c2c, "inverse(batch, complex*, complex*)");
  (last_ = &batched(batch))->inverse(in, out);
}

template <class T>
void Plan<T>::forward(const T* in, T* out) const {
  forward(in, out, Workspace{});
}
template <class T>
void Plan<T>::forward(const T* in, T* out, Workspace work) const {
  need(*impl_, Transform::r2r, "forward(real*, real*)");
  (last_ = impl_.get())->forward(in, out, work.data, work.bytes);
}
template <class T>
void Plan<T>::inverse(const T* in, T* out) const {
  inverse(in, out, Workspace{});
}
template <class T>
void Plan<T>::inverse(const T* in, T* out, Workspace work) const {
  need(*impl_, Transform::r2r, "inverse(real*, real*)");
  (last_ = impl_.get())->inverse(in, out, work.data, work.bytes);
}
template <class T>
void Plan<T>::forward(int batch, const T* in, T* out) const {
  need(*impl_, Transform::r2r, "forward(batch, real*, real*)");
  (last_ = &batched(batch))->forward(in, out);
}
template <class T>
void Plan<T>::inverse(int batch, const T* in, T* out) const {
  need(*impl_, Transform::r2r, "inverse(batch, real*, real*)");
  (last_ = &batched(batch))->inverse(in, out);
}

template <class T>
const std::vector<std::int64_t>& Plan<T>::shape() const {
  return impl_->shape();
}
template <class T>
std::vector<std::int64_t> Plan<T>::spectral_shape() const {
  return detail::spectral_shape(impl_->shape(), impl_->options());
}
template <class T>
std::vector<std::int64_t> Plan<T>::physical_shape() const {
  return detail::plan_axes(impl_->shape(), impl_->options()).physical;
}
template <class T>
const Layout& Plan<T>::input_layout() const {
  return impl_->path().input;
}
template <class T>
const Layout& Plan<T>::output_layout() const {
  return impl_->path().output;
}
template <class T>
std::int64_t Plan<T>::input_count() const {
  return impl_->path().input.alloc_count();
}
template <class T>
std::int64_t Plan<T>::output_count() const {
  return impl_->path().output.alloc_count();
}
template <class T>
const std::vector<StageTiming>& Plan<T>::timings() const {
  return (last_ ? last_ : impl_.get())->timings();
}
template <class T>
int Plan<T>::overlap_slices() const {
  return impl_->slices();
}
template <class T>
int Plan<T>::chunks() const {
  return impl_->chunks();
}
template <class T>
int Plan<T>::in_flight() const {
  return impl_->in_flight();
}
template <class T>
int Plan<T>::threads() const {
  return impl_->dev().threads();
}
template <class T>
bool Plan<T>::adapting() const {
  return impl_->adapting();
}
template <class T>
std::string Plan<T>::describe() const {
  return impl_->describe();
}
template <class T>
std::string Plan<T>::wisdom_source() const {
  if (tune_ && tune_->wisdom_hit) return tune_->wisdom_file;
  return impl_->auto_wisdom_file();
}
template <class T>
std::vector<std::string> Plan<T>::warnings() const {
  std::vector<std::string> w = impl_->auto_warnings();
  w.insert(w.end(), impl_->warnings().begin(), impl_->warnings().end());
  return w;
}
template <class T>
const Options& Plan<T>::options() const {
  return impl_->options();
}
template <class T>
const std::vector<int>& Plan<T>::grid() const {
  return impl_->path().grid;
}
template <class T>
std::vector<std::int64_t> Plan<T>::exchange_bytes() const {
  return impl_->exchange_bytes();
}
template <class T>
NodeTraffic Plan<T>::node_traffic() const {
  return impl_->node_traffic();
}
template <class T>
std::int64_t Plan<T>::workspace_bytes() const {
  return impl_->workspace_bytes();
}
template <class T>
Codec Plan<T>::codec() const {
  return impl_->codec();
}
template <class T>
Staging Plan<T>::staging() const {
  const Options& o = impl_->options();
  if (o.backend != Backend::cuda) return Staging::host;
  return detail::use_cuda_aware(o.staging) ? Staging::cuda_aware : Staging::host;
}
template <class T>
int Plan<T>::device() const {
  return impl_->device();
}
template <class T>
Memory Plan<T>::memory() const {
  Memory m = impl_->memory();
  for (const auto& b : batched_) {
    const Memory& bm = b->memory();
    m.add("batch " + std::to_string(b->options().batch), bm.host_bytes, bm.device_bytes);
  }
  return m;
}

template <class T>
void* Plan<T>::allocate(std::size_t bytes) const {
  return impl_->dev().alloc(bytes);
}
template <class T>
void Plan<T>::deallocate(void* p) const {
  impl_->dev().release(p);
}
template <class T>
void Plan<T>::upload(void* dst, const void* src, std::size_t bytes) const {
  impl_->dev().upload(dst, src, bytes);
}
template <class T>
void Plan<T>::download(void* dst, const void* src, std::size_t bytes) const {
  impl_->dev().download(dst, src, bytes);
}

template <class T>
bool Plan<T>::pin_host(void* host, std::size_t bytes) const {
  return impl_->dev().pin_host(host, bytes);
}
template <class T>
void Plan<T>::unpin_host(void* host) const {
  impl_->dev().unpin_host(host);
}

template class Plan<float>;
template class Plan<double>;

}  // namespace dfft
