// SPDX-License-Identifier: MIT
#include "transport/methods.hpp"

#include <array>

#include "util/check.hpp"

namespace dfft::detail {

namespace {

using B = MethodBuffers;
using T = const TransportTuning&;

// Transports of the CUDA backend only (src/backend/cuda/transports.cpp); the others live once
// in src/transport for every device.
std::unique_ptr<Transport> device_only(Method m, MPI_Comm c, const ExchangeSpec& s, Device& d, T t) {
  return make_device_transport(m, c, s, d, t);
}

const std::array<MethodInfo, 12> kMethods{{
    {Method::a2a_sync, true, true, false, true, false, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T) { return make_a2a_sync(c, s, d); }},
    {Method::a2a_type, true, true, false, false, false, B::in_place,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T) { return make_a2a_type(c, s, d); }},
    {Method::p2p_sync, true, true, false, true, false, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T) { return make_p2p_sync(c, s, d); }},
    {Method::p2p_type, true, true, false, false, false, B::in_place,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T) { return make_p2p_type(c, s, d); }},
    {Method::p2p_streams, false, true, false, true, false, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T t) { return device_only(Method::p2p_streams, c, s, d, t); }},
    {Method::nccl, false, true, true, true, false, B::device,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T t) { return device_only(Method::nccl, c, s, d, t); }},
    {Method::onesided, true, true, true, true, false, B::window,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T t) {
       return make_onesided(c, t.parent, s, d, t.onesided_sync, t.chunks);
     }},
    {Method::p2p_pipelined, true, true, true, true, false, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T t) {
       return make_p2p_pipelined(c, s, d, t.chunks, t.in_flight);
     }},
    // Moves working-precision data only: its copy kernels write the peer's array directly.
    {Method::cuda_ipc, false, true, false, false, false, B::device,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T t) { return device_only(Method::cuda_ipc, c, s, d, t); }},
    {Method::node_ring, true, true, false, true, true, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T) { return make_node_ring(c, s, d); }},
    {Method::hierarchical, true, true, false, true, true, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T) { return make_hierarchical(c, s, d); }},
    // Packs like p2p-sync on the CPU; on a GPU its staging is that of its two parts
    // (transport_memory adds them up).
    {Method::per_peer, true, true, false, true, true, B::packed,
     [](MPI_Comm c, const ExchangeSpec& s, Device& d, T t) { return make_per_peer(c, s, d, t); }},
}};

// Names of the methods that pass `keep`, comma-separated.
template <class F>
std::string names_where(F keep) {
  std::string out;
  for (const auto& i : kMethods)
    if (keep(i)) out += (out.empty() ? "" : ", ") + to_string(i.method);
  return out;
}

}  // namespace

std::span<const MethodInfo> method_table() { return kMethods; }

const MethodInfo& method_info(Method m) {
  for (const auto& i : kMethods)
    if (i.method == m) return i;
  fail_internal("method ", static_cast<int>(m), " is not in the method table");
}

bool method_uses_chunks(Method m) { return method_info(m).chunks; }

void check_method(Method m, Codec c, bool on_device) {
  const auto& i = method_info(m);
  if (c != Codec::none && !i.codec)
    unsupported("codec ", to_string(c), " needs a method that packs (",
                names_where([](const MethodInfo& x) { return x.codec; }), "); ", to_string(i.method),
                i.buffers == MethodBuffers::device ? " moves working-precision data between the GPUs"
                                                   : " sends in place with MPI datatypes");
  if (!on_device && !i.cpu)
    unsupported("method ", to_string(i.method), " needs the CUDA backend (--backend cuda); the CPU backend has ",
                names_where([](const MethodInfo& x) { return x.cpu; }));
  if (on_device && !i.cuda)
    unsupported("method ", to_string(i.method), " needs the CPU backend; the CUDA backend has ",
                names_where([](const MethodInfo& x) { return x.cuda; }));
}

std::unique_ptr<Transport> make_transport(Method m, MPI_Comm comm, const ExchangeSpec& spec, Device& dev,
                                          const TransportTuning& tuning) {
  check_method(m, spec.codec, dev.on_device());
  return method_info(m).make(comm, spec, dev, tuning);
}

}  // namespace dfft::detail
