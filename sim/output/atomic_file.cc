#include "sim/output/atomic_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include "common/interruption.h"
#include "common/io_error.h"

namespace pipegrid::output {

namespace {

// The C stream's writes go to the buffer, which keeps a failure for commit(): the stream itself is
// told every write went through, so that fmt::print never throws one.
ssize_t to_buffer(void* buffer, const char* data, std::size_t size) {
  static_cast<FdOutput*>(buffer)->write({data, size});
  return static_cast<ssize_t>(size);
}

}  // namespace

std::string temporary_name(const std::string& path) { return path + "." + std::to_string(getpid()) + ".tmp"; }

bool is_temporary_of(std::string_view name, std::string_view file) {
  constexpr std::string_view kSuffix = ".tmp";
  if (name.size() < file.size() + 1 + 1 + kSuffix.size() || !name.starts_with(file) || name[file.size()] != '.' ||
      !name.ends_with(kSuffix))
    return false;
  const std::string_view pid = name.substr(file.size() + 1, name.size() - file.size() - 1 - kSuffix.size());
  return std::all_of(pid.begin(), pid.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), temporary_(temporary_name(path_)), stream_(nullptr) {
  // Registered before it exists, so that no moment has it on disk and unknown to the handler.
  slot_ = interruption::unlink_on_interrupt(temporary_);
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd_ < 0) {
    const int error = errno;
    interruption::forget(slot_);
    throw_io_error(path_, error);
  }
  buffer_ = std::make_unique<FdOutput>(fd_);
  stream_.rdbuf(buffer_.get());
  file_ = fopencookie(buffer_.get(), "w", cookie_io_functions_t{nullptr, to_buffer, nullptr, nullptr});
  if (!file_) {
    const int error = errno;
    discard();
    throw_io_error(path_, error);
  }
  std::setvbuf(file_, nullptr, _IONBF, 0);  // in order with stream() and write()
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (committed_) return;
  if (file_) std::fclose(file_);
  file_ = nullptr;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temporary_.c_str());
  interruption::forget(slot_);
  slot_ = -1;
  committed_ = true;  // nothing left to do
}

void AtomicFile::commit() {
  if (committed_) return;
  std::fclose(file_);  // its writes are all in the buffer already: it is unbuffered
  file_ = nullptr;
  buffer_->flush();
  int error = buffer_->error() != 0 ? buffer_->error() : writer_error_;
  if (error == 0 && stream_.fail()) error = EIO;
  // Closed whatever happened before; a close that fails (NFS reports write errors there) is one too.
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error == 0 && std::rename(temporary_.c_str(), path_.c_str()) != 0) error = errno;
  if (error != 0) {
    discard();
    throw_io_error(path_, error);
  }
  interruption::forget(slot_);
  slot_ = -1;
  committed_ = true;
}

void write_atomically(const std::string& path, std::string_view text) {
  AtomicFile file(path);
  file.write(text);
  file.commit();
}

}  // namespace pipegrid::output
