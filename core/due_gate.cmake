# The due-time gate of retry tiers.
target_sources(courier_core PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/due_gate.cpp)
