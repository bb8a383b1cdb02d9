# Headers nearly every source includes, precompiled once per target: the standard library's
# containers and strings and fmt (and, for tests, GoogleTest), whose parsing is most of the
# compile time of a short source. WALCUT_PCH=OFF builds without them. Off with g++ by
# default: g++ 12 then reports -Warray-bounds false positives inside <string>.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  option(WALCUT_PCH "Precompile the common headers" ON)
else()
  option(WALCUT_PCH "Precompile the common headers" OFF)
endif()

function(walcut_precompile target)
  if(NOT WALCUT_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    <algorithm> <cstdint> <functional> <map> <memory> <optional> <string> <string_view> <unordered_map>
    <utility> <vector> <fmt/format.h>)
endfunction()

function(walcut_precompile_tests target)
  if(NOT WALCUT_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE
    <algorithm> <cstdint> <filesystem> <functional> <map> <memory> <optional> <string> <string_view>
    <unordered_map> <utility> <vector> <fmt/format.h> <gtest/gtest.h>)
endfunction()
