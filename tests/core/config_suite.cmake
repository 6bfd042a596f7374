courier_add_test_suite(config_tests LABEL unit
  SOURCES duration_test.cpp config_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/topology/cli_test.cpp
  LIBS courier::core courier::topology_cli)
target_compile_definitions(config_tests PRIVATE COURIER_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
