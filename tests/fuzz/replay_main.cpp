// Runs every file given (or every file of every directory given) through the fuzz target once:
// the corpus as a regression test in builds without libFuzzer (ctest fuzz.response_parser_corpus).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void run_file(const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  const std::string bytes{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg{argv[i]};
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator{arg}) {
        if (entry.is_regular_file()) {
          run_file(entry.path());
          ++inputs;
        }
      }
    } else {
      run_file(arg);
      ++inputs;
    }
  }
  std::cout << inputs << " inputs ran\n";
  return inputs > 0 ? 0 : 1;
}
