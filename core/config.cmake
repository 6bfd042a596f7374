target_sources(courier_core PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/duration.cpp ${CMAKE_CURRENT_SOURCE_DIR}/config.cpp)
