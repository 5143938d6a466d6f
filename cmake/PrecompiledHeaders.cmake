# Precompiled headers for the third-party headers that most files include: the standard library,
# Asio's coroutine core, spdlog, simdjson and (in tests) Catch2. Parsing them was a large share of
# each file's compile time. The sources still include what they use (clang-tidy and lint.sh
# compile them without the PCH, so a missing include is still found).
#
# One PCH is built per kind of target and reused by every target of that kind (REUSE_FROM), so a
# cold build compiles two PCHs, not one per library. A PCH is only valid for the exact macros and
# flags it was built with; clang refuses a mismatch, and GCC's -Winvalid-pch (added by CMake)
# under -Werror does too, rather than a silent slowdown. Hence the kinds:
#   - targets that link cdcd_pipeline (its usage requirements set the spdlog, simdjson and
#     -pthread flags): cdcd_pch, or cdcd_test_pch for unit tests (adds Catch2);
#   - unit tests that do not link cdcd_pipeline: a PCH of their own with Catch2 and the
#     standard library;
#   - the few small libraries below cdcd_pipeline (text, config, state, net): none.
# New folders are picked up without edits: every target in the tree is classified here.
#
# Off by default; -DCDCD_PCH=ON for a local loop in one checkout (clang: the asan preset).
# - GCC 12 loses, for code read from a PCH, the system-header status that silences its middle-end
#   warnings: -Warray-bounds and -Wstringop-overflow then fire inside <string>
#   (bits/char_traits.h) in files such as pipeline/data/values.cpp that are clean without it,
#   and -Werror fails the release build.
# - With clang, the PCH and every object built with it are keyed by ccache on the checkout's
#   absolute path (CMake passes the PCH through -Xclang, which CCACHE_BASEDIR does not rewrite,
#   and the PCH records its header's absolute path). A clone in another folder, as CI's is, then
#   misses the cache on every file: a cold build instead of a warm one.
# -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON turns it off whatever CDCD_PCH says.
option(CDCD_PCH "Precompiled headers for the third-party headers (cmake/PrecompiledHeaders.cmake)"
       OFF)

set(CDCD_PCH_STD_HEADERS
    <algorithm> <chrono> <cstdint> <functional> <map> <memory> <optional> <stdexcept> <string>
    <string_view> <vector>)
set(CDCD_PCH_HEADERS
    ${CDCD_PCH_STD_HEADERS}
    <boost/asio/awaitable.hpp> <boost/asio/co_spawn.hpp> <boost/asio/io_context.hpp>
    <boost/asio/steady_timer.hpp> <boost/asio/use_awaitable.hpp>
    <simdjson.h> <spdlog/spdlog.h>)
set(CDCD_PCH_TEST_HEADERS <catch2/catch.hpp>)

# Every target defined in DIR and below.
function(cdcd_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir ${subdirs})
    cdcd_targets_below(${subdir} below)
    list(APPEND targets ${below})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# TRUE when TARGET links cdcd_pipeline, directly or through another target of the tree.
function(cdcd_links_pipeline target out)
  set(pending ${target})
  set(seen "")
  while(pending)
    list(POP_FRONT pending current)
    if(current STREQUAL "cdcd_pipeline")
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
    if(current IN_LIST seen OR NOT TARGET ${current})
      continue()
    endif()
    list(APPEND seen ${current})
    get_target_property(imported ${current} IMPORTED)
    if(imported)
      continue()
    endif()
    get_target_property(type ${current} TYPE)
    set(property LINK_LIBRARIES)
    if(type STREQUAL "INTERFACE_LIBRARY")
      set(property INTERFACE_LINK_LIBRARIES)
    endif()
    get_target_property(links ${current} ${property})
    if(links)
      list(APPEND pending ${links})
    endif()
  endwhile()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

function(cdcd_precompile_headers)
  if(NOT CDCD_PCH OR CMAKE_DISABLE_PRECOMPILE_HEADERS)
    return()
  endif()
  cdcd_targets_below(${PROJECT_SOURCE_DIR} targets)

  # The donors: one source each, the flags of a target that links cdcd_pipeline. They take the
  # pipeline's external usage requirements, not cdcd_pipeline itself, so that nothing waits for
  # cdcd_pipeline to be built before the PCH.
  set(donor_links Boost::headers spdlog::spdlog simdjson::simdjson PkgConfig::RE2
                  Threads::Threads)
  add_library(cdcd_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/precompiled_headers.cpp)
  target_link_libraries(cdcd_pch PRIVATE ${donor_links})
  target_precompile_headers(cdcd_pch PRIVATE ${CDCD_PCH_HEADERS})
  set(donors cdcd_pch)
  if(TARGET Catch2::Catch2)
    add_library(cdcd_test_pch OBJECT ${PROJECT_SOURCE_DIR}/cmake/precompiled_headers.cpp)
    target_link_libraries(cdcd_test_pch PRIVATE ${donor_links} Catch2::Catch2)
    target_precompile_headers(cdcd_test_pch PRIVATE ${CDCD_PCH_HEADERS} ${CDCD_PCH_TEST_HEADERS})
    list(APPEND donors cdcd_test_pch)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # ccache can only reuse a clang PCH (and objects built with it) without its timestamp.
    foreach(donor ${donors})
      target_compile_options(${donor} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
    endforeach()
  endif()

  foreach(target ${targets})
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
      continue()
    endif()
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "\\.cpp$")
    if(NOT sources)
      continue()
    endif()
    get_target_property(links ${target} LINK_LIBRARIES)
    set(is_test FALSE)
    if(links AND (Catch2::Catch2WithMain IN_LIST links OR Catch2::Catch2 IN_LIST links))
      set(is_test TRUE)
    endif()
    cdcd_links_pipeline(${target} with_pipeline)
    if(with_pipeline AND is_test)
      target_precompile_headers(${target} REUSE_FROM cdcd_test_pch)
    elseif(with_pipeline)
      target_precompile_headers(${target} REUSE_FROM cdcd_pch)
    elseif(is_test)
      target_precompile_headers(${target} PRIVATE ${CDCD_PCH_STD_HEADERS}
                                ${CDCD_PCH_TEST_HEADERS})
      if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
        target_compile_options(${target} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
      endif()
    endif()
  endforeach()
endfunction()
