// SPDX-License-Identifier: MIT
#include "model/machine.hpp"

#include <unistd.h>

#include <ctime>
#include <fstream>

#include "backend/device.hpp"
#include "util/check.hpp"

namespace dfft::detail {

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) != 0) continue;
    auto colon = line.find(':');
    if (colon == std::string::npos) break;
    auto v = line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  }
  return "unknown cpu";
}

}  // namespace

std::string broadcast_string(std::string s, MPI_Comm comm) {
  int len = static_cast<int>(s.size());
  DFFT_MPI(MPI_Bcast(&len, 1, MPI_INT, 0, comm));
  s.resize(static_cast<std::size_t>(len));
  DFFT_MPI(MPI_Bcast(s.data(), len, MPI_CHAR, 0, comm));
  return s;
}

std::string device_model(MPI_Comm comm, Backend b, int device) {
  std::string name;
  if (b == Backend::cpu) {
    int rank = 0;
    DFFT_MPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) name = "cpu: " + cpu_model();
  } else {
    // Every rank opens its device (collective set-up of the CUDA backend); rank 0's name counts.
    auto dev = make_cuda_device(comm, device);
    name = dev->name();
    auto open = name.find('('), close = name.rfind(')');
    if (open != std::string::npos && close != std::string::npos && close > open)
      name = "cuda: " + name.substr(open + 1, close - open - 1);
  }
  return broadcast_string(name, comm);
}

std::string host_name() {
  char b[256] = {0};
  if (gethostname(b, sizeof b - 1) != 0) return "unknown";
  return b;
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return b;
}

}  // namespace dfft::detail
