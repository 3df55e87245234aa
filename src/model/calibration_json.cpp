// SPDX-License-Identifier: MIT
#include "model/calibration_json.hpp"

#include "tune/json_util.hpp"

namespace dfft::detail {

namespace {

constexpr double kMaxRate = 1e18;  // flop/s or bytes/s: anything above is corrupt

nlohmann::json link_json(const model::Link& l) {
  return {{"size", l.size}, {"latency_s", l.latency}, {"bandwidth_Bps", l.bandwidth}};
}

model::Link link_from(const nlohmann::json& v) {
  model::Link l;
  l.size = static_cast<int>(json::integer(v, "size", 1, 1 << 24));
  l.latency = json::number(v, "latency_s", 0, 10);
  l.bandwidth = json::number(v, "bandwidth_Bps", 0, kMaxRate);
  return l;
}

}  // namespace

nlohmann::json calibration_json(const model::Calibration& c) {
  nlohmann::json a2a = nlohmann::json::array(), ml = nlohmann::json::array();
  for (const auto& l : c.alltoall) a2a.push_back(link_json(l));
  for (const auto& x : c.method_links) {
    auto j = link_json(x.link);
    j["method"] = to_string(x.method);
    ml.push_back(j);
  }
  return {{"ranks", c.ranks},
          {"backend", c.backend},
          {"device", c.device},
          {"host", c.host},
          {"timestamp", c.timestamp},
          {"measured", c.measured},
          {"pingpong", link_json(c.pingpong)},
          {"nodes", c.nodes},
          {"emulated_nodes", c.emulated_nodes},
          {"intra_node", c.intra.bandwidth > 0 ? link_json(c.intra) : nlohmann::json(nullptr)},
          {"inter_node", c.inter.bandwidth > 0 ? link_json(c.inter) : nlohmann::json(nullptr)},
          {"alltoall", a2a},
          {"fft_flops",
           {{"double", {{"contiguous", c.fft_contiguous[0]}, {"middle", c.fft_middle[0]}, {"strided", c.fft_strided[0]}}},
            {"float", {{"contiguous", c.fft_contiguous[1]}, {"middle", c.fft_middle[1]}, {"strided", c.fft_strided[1]}}}}},
          {"pack_Bps", c.pack_rate},
          {"method_links", ml}};
}

model::Calibration calibration_from(const nlohmann::json& v) {
  model::Calibration c;
  c.ranks = static_cast<int>(json::integer(v, "ranks", 1, 1 << 24));
  c.backend = json::string(v, "backend", 16);
  if (c.backend != "cpu" && c.backend != "cuda") json::bad("unknown backend '" + c.backend + "'");
  c.device = json::string(v, "device");
  c.host = json::string(v, "host");
  c.timestamp = json::string(v, "timestamp", 64);
  c.measured = json::boolean(v, "measured");
  c.pingpong = link_from(json::member(v, "pingpong"));
  // Absent in calibrations made before the link classes existed; null: not measured. Either way
  // the class falls back to the other links (Calibration::link).
  if (v.contains("nodes")) {
    c.nodes = static_cast<int>(json::integer(v, "nodes", 1, 1 << 24));
    c.emulated_nodes = json::boolean(v, "emulated_nodes");
  }
  for (auto [name, l] : {std::pair{"intra_node", &c.intra}, std::pair{"inter_node", &c.inter}})
    if (v.contains(name) && !v[name].is_null()) *l = link_from(v[name]);
  const auto& a2a = json::member(v, "alltoall");
  if (!a2a.is_array() || a2a.size() > 4096) json::bad("field 'alltoall' must be a short array");
  for (const auto& l : a2a) c.alltoall.push_back(link_from(l));
  const auto& f = json::member(v, "fft_flops");
  const char* prec[2] = {"double", "float"};
  for (int p = 0; p < 2; ++p) {
    const auto& r = json::member(f, prec[p]);
    c.fft_contiguous[p] = json::number(r, "contiguous", 0, kMaxRate);
    c.fft_middle[p] = json::number(r, "middle", 0, kMaxRate);
    c.fft_strided[p] = json::number(r, "strided", 0, kMaxRate);
  }
  c.pack_rate = json::number(v, "pack_Bps", 0, kMaxRate);
  if (v.contains("method_links")) {  // absent in calibrations written before it existed
    const auto& ml = v["method_links"];
    if (!ml.is_array() || ml.size() > 64) json::bad("field 'method_links' must be a short array");
    for (const auto& x : ml) {
      model::Calibration::MethodLink m;
      m.link = link_from(x);
      const std::string name = json::string(x, "method", 32);
      try {
        m.method = parse_method(name);
      } catch (const Error&) {
        json::bad("unknown method '" + name + "' in method_links");
      }
      c.method_links.push_back(m);
    }
  }
  return c;
}

}  // namespace dfft::detail
