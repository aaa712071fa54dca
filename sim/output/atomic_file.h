// An output file that is complete under its name or not there at all: written under a temporary name
// beside its own (NAME.PID.tmp, in the same folder, so that the rename cannot cross a file system)
// and renamed into place only once every write, the flush and the close went through. A reader —
// `pipegrid report`, a sweep, a plotting script, a user — never meets a file cut mid-row. SIGINT and
// SIGTERM remove the temporary (common/interruption.h); what a SIGKILL leaves, the next run into the
// folder removes (output_folder.h). Not fsync'd: it guards against a run that stops, not against the
// machine losing power.
#pragma once

#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "common/fd_output.h"

namespace pipegrid::output {

/// PATH's temporary in this process: PATH.PID.tmp.
std::string temporary_name(const std::string& path);
/// Whether `name` is a temporary of the file named `file` written by any process: FILE.DIGITS.tmp.
bool is_temporary_of(std::string_view name, std::string_view file);

class AtomicFile {
 public:
  /// Creates PATH's temporary; IoError "PATH: …" when it cannot.
  explicit AtomicFile(std::string path);
  /// Removes the temporary unless committed.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  /// Three ways in, one buffer behind them, in the order written: a C stream for fmt::print, which
  /// never sees a write fail (the failure is kept for commit(), not thrown from wherever the writer
  /// is — the trace is written from inside SimGrid's actors), a C++ stream, and text.
  std::FILE* file() const { return file_; }
  std::ostream& stream() { return stream_; }
  void write(std::string_view text) { buffer_->write(text); }
  /// The temporary's descriptor, for a writer that writes through it itself (zlib's gzdopen on a dup);
  /// such a writer reports its own failure with fail().
  int fd() const { return fd_; }
  void fail(int error) {
    if (writer_error_ == 0) writer_error_ = error;
  }
  /// Flushes, checks every write, closes and renames the temporary to PATH. IoError "PATH: …" when
  /// any of it failed; the temporary is then removed and PATH left as it was.
  void commit();
  /// Removes the temporary now (what the destructor does; for a process about to _exit).
  void discard();

 private:
  std::string path_;
  std::string temporary_;
  int fd_ = -1;
  int slot_ = -1;  // the temporary's removal on SIGINT or SIGTERM
  int writer_error_ = 0;
  std::unique_ptr<FdOutput> buffer_;
  std::FILE* file_ = nullptr;  // unbuffered, onto buffer_ (fopencookie)
  std::ostream stream_;
  bool committed_ = false;
};

/// PATH holding `text`, through an AtomicFile. IoError "PATH: …".
void write_atomically(const std::string& path, std::string_view text);

}  // namespace pipegrid::output
