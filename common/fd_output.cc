#include "common/fd_output.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace pipegrid {

FdOutput::FdOutput(int fd) : fd_(fd) { setp(buffer_.data(), buffer_.data() + buffer_.size()); }

void FdOutput::write_out(const char* data, std::size_t size) {
  while (size > 0 && error_ == 0) {
    const ssize_t written = ::write(fd_, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = written < 0 ? errno : EIO;  // 0 bytes for a non-empty write: nothing more will go
      return;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
}

bool FdOutput::flush() {
  write_out(pbase(), static_cast<std::size_t>(pptr() - pbase()));
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  return error_ == 0;
}

FdOutput::int_type FdOutput::overflow(int_type c) {
  if (!flush()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

std::streamsize FdOutput::xsputn(const char* data, std::streamsize size) {
  const auto count = static_cast<std::size_t>(size);
  if (count > static_cast<std::size_t>(epptr() - pptr())) {
    flush();
    if (count >= buffer_.size()) {  // larger than the buffer: straight out
      write_out(data, count);
      return error_ == 0 ? size : 0;
    }
  }
  std::memcpy(pptr(), data, count);
  pbump(static_cast<int>(count));
  return error_ == 0 ? size : 0;
}

}  // namespace pipegrid
