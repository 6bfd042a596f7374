courier_add_test_suite(due_gate_tests LABEL unit SOURCES due_gate_test.cpp LIBS courier::core)
