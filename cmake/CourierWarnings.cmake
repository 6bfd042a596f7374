# courier_set_warnings(<target>): the project's warning policy, errors included.
function(courier_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wimplicit-fallthrough
    -Wswitch-enum -Werror)
endfunction()
