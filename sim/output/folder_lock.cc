#include "sim/output/folder_lock.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <string_view>
#include <sys/file.h>
#include <unistd.h>

#include "common/input_error.h"
#include "common/log.h"

namespace pipegrid::output {

namespace {

constexpr std::string_view kLockName = ".lock";

// The pid the holder wrote, or "" when it has not written it yet (it writes right after locking).
std::string holder_pid(int fd) {
  char text[32] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  std::string pid(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : "";
}

// Who holds the lock: the exclusive holder by its pid, or the shards that share it.
std::string holder(int fd) {
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);  // only this descriptor's own lock, taken for the question
    return "the shards of a pipegrid sweep (--shard) are writing there";
  }
  // A holder that has just taken the lock writes its pid a moment later.
  for (int attempt = 0; attempt < 20; ++attempt) {
    if (const std::string pid = holder_pid(fd); !pid.empty())
      return fmt::format("another pipegrid run (pid {}) is writing there", pid);
    usleep(10'000);
  }
  return "another pipegrid run is writing there";
}

}  // namespace

FolderLock::FolderLock(const std::string& dir, Mode mode) {
  const std::string path = dir + "/" + std::string(kLockName);
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) throw InputError(fmt::format("--out {}: cannot create {}: {}", dir, kLockName, std::strerror(errno)));
  const int how = mode == Mode::Exclusive ? LOCK_EX : LOCK_SH;
  while (flock(fd_, how | LOCK_NB) != 0) {
    const int error = errno;
    if (error == EINTR) continue;
    if (error == EWOULDBLOCK) {
      const std::string who = holder(fd_);
      close(fd_);
      fd_ = -1;
      throw InputError(fmt::format("--out {}: {}", dir, who));
    }
    // ENOLCK: an NFS mount whose lock service is not running. Refusing every run there would be worse.
    log::run().warn("--out {}: cannot lock {} ({}): nothing keeps another run from writing there at the same time",
                    dir, path, std::strerror(error));
    return;
  }
  if (mode == Mode::Exclusive) {
    const std::string pid = fmt::format("{}\n", getpid());
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()))
      log::run().debug("--out {}: could not write this run's pid into {}", dir, path);
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace pipegrid::output
