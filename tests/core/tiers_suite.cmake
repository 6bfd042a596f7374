# Retry tiers and the retry/DLQ header codec (paths relative to tests/core).
courier_add_test_suite(tiers_tests LABEL unit SOURCES retry_tiers_test.cpp retry_headers_test.cpp LIBS courier::core)
