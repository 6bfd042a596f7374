courier_add_test_suite(consumer_logic_tests LABEL unit
  SOURCES due_gate_test.cpp partition_pauses_test.cpp
  LIBS courier::core)
