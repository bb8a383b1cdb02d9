# Warnings as an interface target every project target links, as cmake_template does.
add_library(walcut_warnings INTERFACE)
target_compile_options(walcut_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Wunused
  -Woverloaded-virtual -Wconversion -Wsign-conversion
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(WALCUT_WERROR)
  target_compile_options(walcut_warnings INTERFACE -Werror)
endif()
