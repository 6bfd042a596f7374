#pragma once

// A FILE* whose bytes a test reads back (open_memstream), closed and freed with the object.

#include <cstdio>
#include <cstdlib>
#include <string>

namespace courier::testing {

class memory_file {
 public:
  memory_file() : file_(open_memstream(&data_, &size_)) {}
  ~memory_file() {
    std::fclose(file_);
    std::free(data_);
  }
  memory_file(const memory_file&) = delete;
  memory_file& operator=(const memory_file&) = delete;

  std::FILE* get() const { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string{data_, size_};
  }

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::FILE* file_;
};

}  // namespace courier::testing
