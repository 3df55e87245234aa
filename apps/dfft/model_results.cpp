// SPDX-License-Identifier: MIT
// `dfft model fit` and `dfft model check`: both models against `dfft bench --json` records.
// Rank 0 does all the work (no MPI needed); other ranks only wait for the exit code.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_common.hpp"
#include "dfft/tune.hpp"
#include "model.hpp"
#include "mpi_check.hpp"
#include "results.hpp"

namespace dfftapp {

namespace {

struct Rec {
  std::string decomposition, variant, precision, transform, backend, direction;
  std::string staging;  // GPU records: "host" or "cuda-aware" MPI for the MPI methods; else empty
  std::vector<std::string> methods;
  std::vector<std::int64_t> size;
  std::vector<int> grid;
  int ranks = 0;
  double median_ms = 0;
  double fft_ms = NAN, pack_ms = NAN, comm_ms = NAN;  // phases_ms (pack: pack + unpack), when recorded
};

// Per configuration (everything but ranks and grid): rank count -> the fastest record there.
using Group = std::map<int, Rec>;

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string config_of(const Rec& r) {
  std::ostringstream s;  // (a chain of string + string trips a GCC 12 -Wrestrict false positive)
  for (std::size_t i = 0; i < r.size.size(); ++i) s << (i ? "x" : "") << r.size[i];
  s << " " << r.precision << " " << r.transform << " " << r.decomposition << " " << r.variant << " "
    << join(r.methods, ",") << " " << r.backend << (r.staging.empty() ? "" : " staging=" + r.staging) << " "
    << r.direction;
  return s.str();
}

bool read_record(const nlohmann::json& j, Rec& r) {
  try {
    r.decomposition = j.at("decomposition").get<std::string>();
    if (r.decomposition == "single-device") return false;
    r.variant = j.at("variant").get<std::string>();
    r.methods = j.at("methods").get<std::vector<std::string>>();
    r.precision = j.at("precision").get<std::string>();
    r.transform = j.at("transform").get<std::string>();
    r.backend = j.value("backend", std::string("cpu"));
    if (j.contains("staging") && j["staging"].is_string()) r.staging = j["staging"].get<std::string>();
    r.direction = j.at("direction").get<std::string>();
    r.size = j.at("size").get<std::vector<std::int64_t>>();
    r.grid = j.at("grid").get<std::vector<int>>();
    r.ranks = j.at("ranks").get<int>();
    r.median_ms = j.at("time_ms").at("median").get<double>();
    if (j.contains("phases_ms") && j["phases_ms"].is_object()) {
      const auto& ph = j["phases_ms"];
      r.fft_ms = ph.value("fft", NAN);
      r.pack_ms = ph.value("pack", NAN) + ph.value("unpack", NAN);
      r.comm_ms = ph.value("comm", NAN);
    }
    return r.ranks >= 1 && r.median_ms > 0 && r.size.size() >= 2;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

// Records of the result files; a file that is missing, not a regular file or unreadable throws
// InputError, and so do files without a single record (the other lines are counted as skipped).
std::map<std::string, Group> read_groups(const std::vector<std::string>& files, int& skipped) {
  std::map<std::string, Group> groups;
  skipped = 0;
  for (const auto& f : files) {
    for (const auto& j : read_result_lines(f, skipped)) {
      Rec r;
      if (!read_record(j, r)) {
        ++skipped;
        continue;
      }
      auto& g = groups[config_of(r)];
      auto it = g.find(r.ranks);
      if (it == g.end() || r.median_ms < it->second.median_ms) g[r.ranks] = r;
    }
  }
  if (groups.empty())
    throw InputError("no dfft bench records in " + join(files, ", ") + " (" + std::to_string(skipped) + " line" +
                     (skipped == 1 ? "" : "s") + " that are not records or are single-device rows)");
  return groups;
}

dfft::model::PowerLaw fit_group(const Group& g, int leave_out = 0) {
  std::vector<double> P, T;
  for (const auto& [p, r] : g)
    if (p != leave_out) P.push_back(p), T.push_back(r.median_ms);
  return dfft::model::fit_power_law(P, T);
}

int fit_report(const ModelArgs& a) {
  int skipped = 0;
  auto groups = read_groups(a.results, skipped);
  std::printf("power law T(P) = A * P^-B (A in ms), least squares in log space; %zu configuration%s, %d line%s "
              "skipped\n", groups.size(), groups.size() == 1 ? "" : "s", skipped, skipped == 1 ? "" : "s");
  for (const auto& [name, g] : groups) {
    std::string pts;
    for (const auto& [p, r] : g) {
      char b[64];
      std::snprintf(b, sizeof b, "%s%d:%.3f", pts.empty() ? "" : " ", p, r.median_ms);
      pts += b;
    }
    auto f = fit_group(g);
    if (!f.valid()) {
      std::printf("%s\n  measured P:ms %s; needs two rank counts to fit\n", name.c_str(), pts.c_str());
      continue;
    }
    std::string pred;
    for (double p : a.predict_at) {
      char b[64];
      std::snprintf(b, sizeof b, "%sP=%g: %.3f ms", pred.empty() ? "" : ", ", p, f(p));
      pred += b;
    }
    std::printf("%s\n  measured P:ms %s\n  A = %.4f ms, B = %.4f, R^2 = %.4f (%d points); predicted %s\n",
                name.c_str(), pts.c_str(), f.A, f.B, f.r2, f.points, pred.c_str());
  }
  return exit_ok;
}

dfft::Options options_of(const Rec& r) {
  dfft::Options o;
  o.decomposition = dfft::parse_decomposition(r.decomposition);
  o.variant = dfft::parse_variant(r.variant);
  o.methods.clear();  // Options starts with a default method; the record's replace it
  for (const auto& m : r.methods) o.methods.push_back(dfft::parse_method(m));
  o.grid = r.grid;
  o.transform = dfft::parse_transform(r.transform);
  o.backend = dfft::parse_backend(r.backend);
  return o;
}

// Analytic prediction for a record, in ms; NaN without a calibration for its rank count or for
// options the planner rejects.
double analytic_ms(const Rec& r, const dfft::model::Calibration* c) {
  if (!c) return NAN;
  try {
    return dfft::model::predict(*c, r.size, options_of(r), r.ranks, r.precision == "double").total.total() * 1e3;
  } catch (const dfft::Error&) {
    return NAN;
  }
}

std::string cell(double v) {
  if (!std::isfinite(v)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

std::string err(double pred, double meas) {
  if (!std::isfinite(pred)) return "-";
  char b[32];
  std::snprintf(b, sizeof b, "%+.0f%%", 100 * (pred - meas) / meas);
  return b;
}

double median_abs(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// A calibration with every rate 1 and links of no latency and bandwidth `bw`: its predictions
// count flops (fft), bytes copied (pack, at pack_rate 1) or bytes sent (comm, at bw 1).
dfft::model::Calibration unit_calibration(const Rec& r, double pack_rate, double bw) {
  dfft::model::Calibration c;
  c.ranks = r.ranks;
  c.backend = r.backend;
  for (int p = 0; p < 2; ++p) c.fft_contiguous[p] = c.fft_middle[p] = c.fft_strided[p] = 1;
  c.pack_rate = pack_rate;
  c.pingpong = {2, 0, bw};
  return c;
}

// The analytic model's parameters fitted to the records' own phases (in-sample): per backend the
// FFT rate per precision from the records of the fewest ranks, the pack rate from the multi-rank
// records, and per rank count and method a latency and bandwidth from their comm phases.
// One exchange phase of a record: messages and bytes the model counts, seconds measured.
struct Sample {
  double messages, bytes, seconds;
};

// L and B of t = messages L + bytes / B, least squares of the relative residual; L = 0 when the
// fit would make either negative (one message size, or noise).
dfft::model::Link fit_link(const std::vector<Sample>& v, int size) {
  double mm = 0, mb = 0, bb = 0, m1 = 0, b1 = 0;
  for (const auto& x : v) {
    const double m = x.messages / x.seconds, b = x.bytes / x.seconds;
    mm += m * m, mb += m * b, bb += b * b, m1 += m, b1 += b;
  }
  // One message size (or one record) leaves the system singular: bandwidth alone then.
  const double det = mm * bb - mb * mb;
  const bool solvable = det > 1e-9 * mm * bb;
  double L = solvable ? (m1 * bb - b1 * mb) / det : -1, inv_b = solvable ? (mm * b1 - mb * m1) / det : -1;
  if (L < 0 || inv_b <= 0) L = 0, inv_b = b1 / bb;
  return {size, L, 1 / inv_b};
}

// Links and pack rates differ between host-staged and CUDA-aware MPI: fitted apart.
std::string link_key(const Rec& r) { return r.backend + (r.staging.empty() ? "" : " staging=" + r.staging); }

struct Fitted {
  std::vector<dfft::model::Calibration> cals;  // per backend, staging and rank count
  std::vector<std::string> keys;                // backend and staging of each (link_key)
  // FFT rate per (backend, 0 double / 1 float, shape): a small array runs from cache, a large one
  // from memory, so one rate for every shape would be wrong for both.
  std::map<std::tuple<std::string, int, std::vector<std::int64_t>>, double> fft;
  // Pack rate per (link_key, method): host-staged MPI methods pack on the host, cuda-ipc on the GPU.
  std::map<std::pair<std::string, std::string>, double> pack;
};

Fitted fit_calibrations(const std::map<std::string, Group>& groups) {
  constexpr double kFree = 1e300;  // a rate that makes its phase vanish
  std::map<std::string, int> fewest;
  for (const auto& [name, g] : groups)
    for (const auto& [p, r] : g)
      if (r.fft_ms > 0 && (!fewest.count(r.backend) || p < fewest[r.backend])) fewest[r.backend] = p;
  // (backend, 0 double / 1 float, shape; an empty shape pools every shape)
  std::map<std::tuple<std::string, int, std::vector<std::int64_t>>, std::vector<double>> fft;
  std::map<std::string, std::vector<double>> pack;  // link_key
  std::map<std::pair<std::string, std::string>, std::vector<double>> pack_method;  // (link_key, method)
  std::map<std::pair<std::string, int>, std::map<std::string, std::vector<Sample>>> bw;  // (link_key, P)
  auto count = [](const Rec& r, double pack_rate, double b, double latency = 0) {
    auto c = unit_calibration(r, pack_rate, b);
    c.pingpong.latency = latency;
    return dfft::model::predict(c, r.size, options_of(r), r.ranks, r.precision == "double").total;
  };
  for (const auto& [name, g] : groups)
    for (const auto& [p, r] : g) try {
        bw[{link_key(r), p}];  // every rank count gets a calibration
        if (p == fewest[r.backend] && r.fft_ms > 0) {
          const double rate = count(r, kFree, kFree).fft / (r.fft_ms * 1e-3);
          const int prec = r.precision == "double" ? 0 : 1;
          fft[{r.backend, prec, r.size}].push_back(rate);
          fft[{r.backend, prec, {}}].push_back(rate);
        }
        if (p < 2) continue;
        const auto copied = count(r, 1, kFree);
        if (r.pack_ms > 0 && copied.pack + copied.unpack > 0) {
          const double rate = (copied.pack + copied.unpack) / (r.pack_ms * 1e-3);
          pack[link_key(r)].push_back(rate);
          if (r.methods.size() == 1) pack_method[{link_key(r), r.methods[0]}].push_back(rate);
        }
        const double sent = count(r, kFree, 1).comm;
        if (r.methods.size() == 1 && r.comm_ms > 0 && sent > 0)
          bw[{link_key(r), p}][r.methods[0]].push_back({count(r, kFree, kFree, 1).comm, sent, r.comm_ms * 1e-3});
      } catch (const dfft::Error&) {
      }
  Fitted out;
  for (const auto& [key, v] : fft)
    if (!std::get<2>(key).empty()) out.fft[key] = median_abs(v);
  for (const auto& [key, v] : pack_method) out.pack[key] = median_abs(v);
  for (const auto& [key, links] : bw) {
    dfft::model::Calibration c;
    c.ranks = key.second;
    c.backend = key.first.substr(0, key.first.find(' '));
    c.device = "fitted to the records";
    for (int prec = 0; prec < 2; ++prec) {
      auto v = fft[{c.backend, prec, {}}];
      if (v.empty()) v = fft[{c.backend, 1 - prec, {}}];
      c.fft_contiguous[prec] = c.fft_middle[prec] = c.fft_strided[prec] = v.empty() ? kFree : median_abs(v);
    }
    // No phase to fit (none recorded, or all zero): that phase costs nothing.
    c.pack_rate = pack[key.first].empty() ? kFree : median_abs(pack[key.first]);
    for (const auto& [m, v] : links) c.method_links.push_back({dfft::parse_method(m), fit_link(v, c.ranks)});
    out.cals.push_back(c);
    out.keys.push_back(key.first);
  }
  return out;
}

void print_fitted(const Fitted& fit) {
  std::printf("Analytic model parameters fitted to these records (in-sample, no calibration run; per method bandwidth and latency per message; "
              "FFT rate per shape where the fewest ranks ran it, else the median shown):\n\n");
  for (const auto& [key, rate] : fit.fft) {
    std::string shape;
    for (auto v : std::get<2>(key)) shape += (shape.empty() ? "" : "x") + std::to_string(v);
    std::printf("- %s FFT %s %s: %.2f GFlop/s\n", std::get<0>(key).c_str(), shape.c_str(),
                std::get<1>(key) == 0 ? "double" : "float", rate * 1e-9);
  }
  for (std::size_t i = 0; i < fit.cals.size(); ++i) {
    const auto& c = fit.cals[i];
    auto rate = [](double r, double unit) { return r >= 1e200 ? std::string("free") : cell(r * unit); };
    std::printf("- %s, %d rank%s: FFT double %s / float %s GFlop/s, pack %s GB/s", fit.keys[i].c_str(), c.ranks,
                c.ranks == 1 ? "" : "s", rate(c.fft_contiguous[0], 1e-9).c_str(), rate(c.fft_contiguous[1], 1e-9).c_str(),
                rate(c.pack_rate, 1e-9).c_str());
    for (const auto& m : c.method_links)
      std::printf(", %s %.2f GB/s %.1f us", dfft::to_string(m.method).c_str(), m.link.bandwidth * 1e-9,
                  m.link.latency * 1e6);
    std::printf("\n");
  }
  std::printf("\n");
}

int check_report(const ModelArgs& a, std::vector<dfft::model::Calibration> cals, const std::string& why) {
  int skipped = 0;
  auto groups = read_groups(a.results, skipped);
  Fitted fitted;
  if (a.fit_calibration) {
    fitted = fit_calibrations(groups);
    print_fitted(fitted);
  } else if (cals.empty())
    std::printf("no calibrations in %s%s: analytic column empty; run dfft model calibrate with each rank count\n",
                a.file.c_str(), why.empty() ? "" : (" (" + why + ")").c_str());
  std::printf("| configuration | P | measured ms | analytic ms | error | power law ms (fit without this P) | error |\n"
              "|---|---|---|---|---|---|---|\n");
  std::vector<double> ea, ep;
  for (const auto& [name, g] : groups)
    for (const auto& [p, r] : g) {
      const dfft::model::Calibration* found = nullptr;
      if (!a.fit_calibration) found = find_calibration(cals, r.ranks, r.backend);
      for (std::size_t i = 0; i < fitted.cals.size(); ++i)
        if (fitted.keys[i] == link_key(r) && fitted.cals[i].ranks == r.ranks) found = &fitted.cals[i];
      auto c = found ? *found : dfft::model::Calibration{};
      const int prec = r.precision == "double" ? 0 : 1;
      if (auto it = fitted.fft.find({r.backend, prec, r.size}); it != fitted.fft.end())
        c.fft_contiguous[prec] = c.fft_middle[prec] = c.fft_strided[prec] = it->second;
      if (r.methods.size() == 1)
        if (auto it = fitted.pack.find({link_key(r), r.methods[0]}); it != fitted.pack.end()) c.pack_rate = it->second;
      const double an = analytic_ms(r, found ? &c : nullptr);
      const auto f = fit_group(g, p);
      const double pl = f.valid() && f.points >= 2 ? f(p) : NAN;
      if (std::isfinite(an)) ea.push_back(std::abs(an - r.median_ms) / r.median_ms);
      if (std::isfinite(pl)) ep.push_back(std::abs(pl - r.median_ms) / r.median_ms);
      std::printf("| %s | %d | %s | %s | %s | %s | %s |\n", name.c_str(), p, cell(r.median_ms).c_str(),
                  cell(an).c_str(), err(an, r.median_ms).c_str(), cell(pl).c_str(), err(pl, r.median_ms).c_str());
    }
  auto pct = [](const std::vector<double>& v, bool max) {
    return cell(100 * (max ? (v.empty() ? NAN : *std::max_element(v.begin(), v.end())) : median_abs(v))) + "%";
  };
  std::printf("\nmedian |relative error|: analytic %s (%zu predictions), power law %s (%zu predictions); "
              "max: analytic %s, power law %s; %d line%s skipped\n",
              pct(ea, false).c_str(), ea.size(), pct(ep, false).c_str(), ep.size(), pct(ea, true).c_str(),
              pct(ep, true).c_str(), skipped, skipped == 1 ? "" : "s");
  return exit_ok;
}

}  // namespace

int run_model_fit(const ModelArgs& a, MPI_Comm comm) {
  return on_rank0(comm, "dfft model fit", [&] { return fit_report(a); });
}

int run_model_check(const ModelArgs& a, MPI_Comm comm) {
  std::string why;
  std::vector<dfft::model::Calibration> cals;
  if (!a.fit_calibration) cals = read_calibrations(a.file, a.file_given, comm, why);
  return on_rank0(comm, "dfft model check", [&] { return check_report(a, std::move(cals), why); });
}

}  // namespace dfftapp
