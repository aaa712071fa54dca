// Buffered writes to a file descriptor that keep the first one that failed, and why. An ostream's
// badbit says that a write failed, not why, and C's stdio has forgotten errno by the time a program
// checks: this buffer holds the reason until the writer asks, so that a full disk is reported as
// "No space left on device" and not as a vague I/O error. Behind std::cout (standard_output.h) and
// every output file (sim/output/atomic_file.h).
#pragma once

#include <array>
#include <streambuf>
#include <string_view>

namespace pipegrid {

class FdOutput final : public std::streambuf {
 public:
  /// Writes to `fd`, which it does not own (nor close).
  explicit FdOutput(int fd);
  FdOutput(const FdOutput&) = delete;
  FdOutput& operator=(const FdOutput&) = delete;

  void write(std::string_view text) { xsputn(text.data(), static_cast<std::streamsize>(text.size())); }
  /// Writes out what is buffered; false once any write has failed (later ones are dropped).
  bool flush();
  /// errno of the first write that failed; 0 while none has.
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize size) override;
  int sync() override { return flush() ? 0 : -1; }

 private:
  void write_out(const char* data, std::size_t size);
  int fd_;
  int error_ = 0;
  std::array<char, 1 << 16> buffer_{};
};

}  // namespace pipegrid
