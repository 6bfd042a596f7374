# Checks of command-line arguments that the courier and redrive command lines share (CLI11
# validators and the digits-only integer parse behind them).
target_sources(courier_core PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/cli_checks.cpp)
target_link_libraries(courier_core PUBLIC CLI11::CLI11)
