# A build type for AddressSanitizer + UndefinedBehaviorSanitizer: -DCMAKE_BUILD_TYPE=Asan.
# GCC 12 reports false maybe-uninitialized warnings inside std::regex and std::function when the
# sanitizers instrument them; that one warning is off in this build type only.
set(CMAKE_CXX_FLAGS_ASAN
    "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -Wno-maybe-uninitialized"
    CACHE STRING "Flags for the ASan+UBSan build type" FORCE)
set(CMAKE_EXE_LINKER_FLAGS_ASAN "-fsanitize=address,undefined" CACHE STRING "" FORCE)
set(CMAKE_SHARED_LINKER_FLAGS_ASAN "-fsanitize=address,undefined" CACHE STRING "" FORCE)
mark_as_advanced(CMAKE_CXX_FLAGS_ASAN CMAKE_EXE_LINKER_FLAGS_ASAN CMAKE_SHARED_LINKER_FLAGS_ASAN)
