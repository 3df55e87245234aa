// SPDX-License-Identifier: MIT
#include "machine.hpp"

#include <fftw3.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "dfft/build_info.hpp"

#ifdef DFFT_APP_HAS_CUDA
#include <cuda_runtime_api.h>
#include <cufft.h>
#endif

namespace dfftapp {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// x86 names the CPU in "model name"; other architectures use other keys.
nlohmann::json cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name" || key == "Model" || key == "cpu" || key == "uarch")
      return trim(line.substr(colon + 1));
  }
  return nullptr;
}

#ifdef DFFT_APP_HAS_CUDA
std::string dotted(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}
#endif

void cuda_fields(nlohmann::json& m) {
  m["gpu_model"] = nullptr;
  m["gpu_count"] = nullptr;
  m["cuda_runtime"] = nullptr;
  m["cuda_driver"] = nullptr;
  m["cufft_version"] = nullptr;
#ifdef DFFT_APP_HAS_CUDA
  int count = 0, v = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    m["gpu_count"] = count;
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) == cudaSuccess) m["gpu_model"] = std::string(p.name);
  }
  if (cudaRuntimeGetVersion(&v) == cudaSuccess) m["cuda_runtime"] = dotted(v);
  if (cudaDriverGetVersion(&v) == cudaSuccess) m["cuda_driver"] = dotted(v);
  if (cufftGetVersion(&v) == CUFFT_SUCCESS) m["cufft_version"] = v;
#endif
}

}  // namespace

std::string mpi_library_version() {
  const std::string s = dfft::mpi_library_version();
  return trim(s.substr(0, s.find(',')));
}

nlohmann::json machine_description(bool cuda) {
  nlohmann::json m;
  char host[256] = {0};
  m["host"] = gethostname(host, sizeof host - 1) == 0 ? nlohmann::json(std::string(host))
                                                      : nlohmann::json(nullptr);
  utsname u{};
  m["os"] = uname(&u) == 0
                ? nlohmann::json(std::string(u.sysname) + " " + u.release + " " + u.machine)
                : nlohmann::json(nullptr);
  m["cpu_model"] = cpu_model();
  m["cpu_cores"] = std::thread::hardware_concurrency();
  m["mpi_library"] = mpi_library_version();
  m["fftw_version"] = std::string(fftw_version);
  if (cuda) cuda_fields(m);
  return m;
}

}  // namespace dfftapp
