# SPDX-License-Identifier: MIT
# dfft_link_shared_cxx_runtime(target): make a shared library or module link the shared C++
# runtime even where the compiler would link it statically (static libraries and programs are
# left alone).
#
# A GCC installation without the libstdc++.so link-time symlink (only libstdc++.a next to it;
# seen: /opt/gcc/bin/g++ on the CUDA image of the GPU machines) links libstdc++ statically. An
# executable survives that. A shared object then carries its own copy of the C++ runtime into a
# process where the shared libstdc++ is loaded as well (by libmpi_cxx, or by a Python extension's
# other dependencies): two copies of the locale and stream state, and the Python binding's first
# `ostream << long` crashed inside Plan(). Where the symlink is missing, the target links
# libstdc++.so.6 by its full path, which the linker searches before the -lstdc++ it adds itself.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so
                  OUTPUT_VARIABLE _dfft_stdcxx OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT IS_ABSOLUTE "${_dfft_stdcxx}" OR NOT EXISTS "${_dfft_stdcxx}")
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libstdc++.so.6
                    OUTPUT_VARIABLE _dfft_stdcxx6 OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(IS_ABSOLUTE "${_dfft_stdcxx6}" AND EXISTS "${_dfft_stdcxx6}")
      set(DFFT_SHARED_CXX_RUNTIME "${_dfft_stdcxx6}")
      message(STATUS "dfft: ${CMAKE_CXX_COMPILER} has no libstdc++.so to link against; shared "
                     "libraries and modules link ${_dfft_stdcxx6} instead of a static C++ runtime")
    else()
      message(WARNING "dfft: ${CMAKE_CXX_COMPILER} links libstdc++ statically (neither libstdc++.so "
                      "nor libstdc++.so.6 found); a shared libdfft or the Python module may crash "
                      "beside other C++ libraries")
    endif()
  endif()
endif()

function(dfft_link_shared_cxx_runtime target)
  get_target_property(type ${target} TYPE)
  if(DFFT_SHARED_CXX_RUNTIME AND type MATCHES "^(SHARED|MODULE)_LIBRARY$")
    target_link_libraries(${target} PRIVATE "${DFFT_SHARED_CXX_RUNTIME}")
  endif()
endfunction()
