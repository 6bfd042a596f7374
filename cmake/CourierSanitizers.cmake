# A build type for AddressSanitizer + UndefinedBehaviorSanitizer: -DCMAKE_BUILD_TYPE=Asan.
# GCC 12 reports false maybe-uninitialized warnings inside std::regex and std::function when the
# sanitizers instrument them; that one warning is off in this build type only.
set(CMAKE_CXX_FLAGS_ASAN
    "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -Wno-maybe-uninitialized"
    CACHE STRING "Flags for the ASan+UBSan build type" FORCE)
set(CMAKE_EXE_LINKER_FLAGS_ASAN "-fsanitize=address,undefined" CACHE STRING "" FORCE)
set(CMAKE_SHARED_LINKER_FLAGS_ASAN "-fsanitize=address,undefined" CACHE STRING "" FORCE)
mark_as_advanced(CMAKE_CXX_FLAGS_ASAN CMAKE_EXE_LINKER_FLAGS_ASAN CMAKE_SHARED_LINKER_FLAGS_ASAN)

# A build type for ThreadSanitizer: -DCMAKE_BUILD_TYPE=Tsan. CAF is built with TSan for it
# (scripts/build-caf-tsan.sh; the tsan preset sets CAF_ROOT); librdkafka and OpenSSL are
# prebuilt, uninstrumented Debian libraries, and tests/tsan.supp (set by the tsan test preset)
# holds the few reports that come from inside them. GCC warns (-Wtsan, an error under -Werror) that
# TSan does not model std::atomic_thread_fence, which Boost.Asio's headers use (fenced_block,
# ref_count_down); the warning is off here and any report it causes would show up as a race.
set(CMAKE_CXX_FLAGS_TSAN
    "-O1 -g -fno-omit-frame-pointer -fsanitize=thread -Wno-maybe-uninitialized -Wno-tsan"
    CACHE STRING "Flags for the TSan build type" FORCE)
set(CMAKE_EXE_LINKER_FLAGS_TSAN "-fsanitize=thread" CACHE STRING "" FORCE)
set(CMAKE_SHARED_LINKER_FLAGS_TSAN "-fsanitize=thread" CACHE STRING "" FORCE)
mark_as_advanced(CMAKE_CXX_FLAGS_TSAN CMAKE_EXE_LINKER_FLAGS_TSAN CMAKE_SHARED_LINKER_FLAGS_TSAN)
