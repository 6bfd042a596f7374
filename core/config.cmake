# Configuration: types, errors and overrides (config.cpp), JSON reading (config_reader.cpp),
# checks (config_validation.cpp); duration parsing they all use.
target_sources(courier_core PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/duration.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/config.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/config_reader.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/config_validation.cpp)
