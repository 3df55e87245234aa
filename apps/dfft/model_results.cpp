// SPDX-License-Identifier: MIT
// `dfft model fit` and `dfft model check`: both models against `dfft bench --json` records.
// Rank 0 does all the work (no MPI needed); other ranks only wait for the exit code.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>

#include "dfft/tune.hpp"
#include "model.hpp"
#include "mpi_check.hpp"

namespace dfftapp {

namespace {

struct Rec {
  std::string decomposition, variant, precision, transform, backend, direction;
  std::vector<std::string> methods;
  std::vector<std::int64_t> size;
  std::vector<int> grid;
  int ranks = 0;
  double median_ms = 0;
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
    << join(r.methods, ",") << " " << r.backend << " " << r.direction;
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
    r.direction = j.at("direction").get<std::string>();
    r.size = j.at("size").get<std::vector<std::int64_t>>();
    r.grid = j.at("grid").get<std::vector<int>>();
    r.ranks = j.at("ranks").get<int>();
    r.median_ms = j.at("time_ms").at("median").get<double>();
    return r.ranks >= 1 && r.median_ms > 0 && r.size.size() >= 2;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

std::map<std::string, Group> read_groups(const std::vector<std::string>& files, int& skipped) {
  std::map<std::string, Group> groups;
  skipped = 0;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) {
      std::fprintf(stderr, "dfft model: cannot open %s\n", f.c_str());
      ++skipped;
      continue;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto j = nlohmann::json::parse(line, nullptr, false);
      Rec r;
      if (j.is_discarded() || !j.is_object() || !read_record(j, r)) {
        ++skipped;
        continue;
      }
      auto& g = groups[config_of(r)];
      auto it = g.find(r.ranks);
      if (it == g.end() || r.median_ms < it->second.median_ms) g[r.ranks] = r;
    }
  }
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
  return groups.empty() ? 1 : 0;
}

// Analytic prediction for a record, in ms; NaN without a calibration for its rank count.
double analytic_ms(const Rec& r, const std::vector<dfft::model::Calibration>& cals) {
  const auto* c = find_calibration(cals, r.ranks, r.backend);
  if (!c) return NAN;
  try {
    dfft::Options o;
    o.decomposition = dfft::parse_decomposition(r.decomposition);
    o.variant = dfft::parse_variant(r.variant);
    o.methods.clear();  // Options starts with a default method; the record's replace it
    for (const auto& m : r.methods) o.methods.push_back(dfft::parse_method(m));
    o.grid = r.grid;
    o.transform = dfft::parse_transform(r.transform);
    o.backend = dfft::parse_backend(r.backend);
    return dfft::model::predict(*c, r.size, o, r.ranks, r.precision == "double").total.total() * 1e3;
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

int check_report(const ModelArgs& a, const std::vector<dfft::model::Calibration>& cals, const std::string& why) {
  int skipped = 0;
  auto groups = read_groups(a.results, skipped);
  if (cals.empty())
    std::printf("no calibrations in %s%s: analytic column empty; run dfft model calibrate with each rank count\n",
                a.file.c_str(), why.empty() ? "" : (" (" + why + ")").c_str());
  std::printf("| configuration | P | measured ms | analytic ms | error | power law ms (fit without this P) | error |\n"
              "|---|---|---|---|---|---|---|\n");
  std::vector<double> ea, ep;
  for (const auto& [name, g] : groups)
    for (const auto& [p, r] : g) {
      const double an = analytic_ms(r, cals);
      const auto f = fit_group(g, p);
      const double pl = f.valid() && f.points >= 2 ? f(p) : NAN;
      if (std::isfinite(an)) ea.push_back(std::abs(an - r.median_ms) / r.median_ms);
      if (std::isfinite(pl)) ep.push_back(std::abs(pl - r.median_ms) / r.median_ms);
      std::printf("| %s | %d | %s | %s | %s | %s | %s |\n", name.c_str(), p, cell(r.median_ms).c_str(),
                  cell(an).c_str(), err(an, r.median_ms).c_str(), cell(pl).c_str(), err(pl, r.median_ms).c_str());
    }
  std::printf("\nmedian |relative error|: analytic %s (%zu predictions), power law %s (%zu predictions); "
              "%d line%s skipped\n",
              cell(100 * median_abs(ea)).append("%").c_str(), ea.size(), cell(100 * median_abs(ep)).append("%").c_str(),
              ep.size(), skipped, skipped == 1 ? "" : "s");
  return groups.empty() ? 1 : 0;
}

int on_rank0(MPI_Comm comm, const std::function<int()>& f) {
  int rank = 0, rc = 0;
  APP_MPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) rc = f();
  APP_MPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  return rc;
}

}  // namespace

int run_model_fit(const ModelArgs& a, MPI_Comm comm) {
  return on_rank0(comm, [&] { return fit_report(a); });
}

int run_model_check(const ModelArgs& a, MPI_Comm comm) {
  std::string why;
  auto cals = read_calibrations(a.file, comm, why);
  return on_rank0(comm, [&] { return check_report(a, cals, why); });
}

}  // namespace dfftapp
