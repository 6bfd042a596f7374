# Consumer-side logic without librdkafka: the due-time gate of retry tiers and the pause
# reasons of partitions.
target_sources(courier_core PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/due_gate.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/partition_pauses.cpp)
