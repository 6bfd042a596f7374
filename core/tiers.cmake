# Retry tier naming/routing and the retry/DLQ header codec (DESIGN.md section 5).
target_sources(courier_core PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/retry_tiers.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/retry_headers.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/header_value.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/error_trace.cpp)
