# SPDX-License-Identifier: MIT
# ctest python_module_shared_cxx_runtime: the extension module must use the process's shared
# C++ runtime, not carry a copy of its own (cmake/stdcxx.cmake says why). A module that defines
# std::locale::classic() has libstdc++ linked into it.
#   cmake -DMODULE=<path to _dfft*.so> -DNM=<nm> -P check_cxx_runtime.cmake
execute_process(COMMAND ${NM} -D --defined-only ${MODULE} OUTPUT_VARIABLE syms RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${MODULE} failed (${rc})")
endif()
if(syms MATCHES " _ZNSt6locale7classicEv\n")
  message(FATAL_ERROR "${MODULE} contains its own libstdc++ (it defines std::locale::classic()); "
                      "it would crash beside the shared C++ runtime (cmake/stdcxx.cmake)")
endif()
string(REGEX MATCHALL "\n[0-9a-f]+ [TW] " defined "${syms}")
list(LENGTH defined n)
message(STATUS "${MODULE}: ${n} functions defined, none of the C++ runtime's own")
