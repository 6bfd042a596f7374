# Unit tests of courier::core's pure logic (paths relative to tests/core).
courier_add_test_suite(core_tests
  LABEL unit
  SOURCES
    backoff_test.cpp
    breaker_test.cpp
    hmac_signer_test.cpp
    http_date_test.cpp
    offset_tracker_test.cpp
    retry_after_test.cpp
    status_classifier_test.cpp
  LIBS courier::core)
