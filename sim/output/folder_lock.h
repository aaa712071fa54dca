// One writer per output folder: an advisory flock(2) on DIR/.lock, held for the writer's life, with
// the holder's pid written in the file for the one refused. The kernel releases the lock when its last
// descriptor closes, the holder's death included (SIGKILL, a crash), so no lock outlives its run; the
// file stays (removing it would let a late opener lock an unlinked inode while a newcomer locks a new
// one). The descriptor is close-on-exec: a plotting script spawned by the run does not hold the lock,
// while a sweep's forked runs do, which keeps a sweep's folder taken while any of its runs still
// writes there. On NFS, see docs/outputs.md, "The output folder".
#pragma once

#include <string>

namespace pipegrid::output {

class FolderLock {
 public:
  enum class Mode {
    Exclusive,  // a run, a sweep, a merge: nobody else may write the folder
    Shared,     // the shards of a Slurm array: together, but not beside a whole sweep or a merge
  };
  /// Takes DIR/.lock (DIR must exist). InputError "--out DIR: another pipegrid run (pid N) is writing
  /// there" when it is held, "--out DIR: cannot create .lock: …" when the folder refuses the file. A
  /// file system that cannot lock at all (an NFS mount without its lock service) is a warning: the run
  /// goes on unguarded.
  FolderLock(const std::string& dir, Mode mode = Mode::Exclusive);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace pipegrid::output
