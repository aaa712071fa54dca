// A run's hold on its --out folder, for the run's life (simulate, schedule, check, run, and each run
// of a sweep): one run per folder, and a folder that always says whether its run finished.
//  1. DIR/.lock taken (folder_lock.h): a second writer is refused, naming the first's pid.
//  2. No input among the outputs: a file the run reads that is one of those it would remove or write
//     in DIR is refused, naming both (compared as files, std::filesystem::equivalent, not as names).
//  3. What an earlier run left removed: the catalogue's files of a run (OutputFileSpec::run_writes)
//     and their temporaries, and never any other file, so that a deadlock never sits beside an
//     earlier run's summary.json.
//  4. status.json written "running" (run_status.h), and "interrupted" made ready for SIGINT and SIGTERM
//     with the line the user reads then.
// Steps 1 to 3 touch nothing when they refuse: a refused run leaves the folder as it was.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/output/folder_lock.h"
#include "sim/output/run_status.h"

namespace pipegrid::output {

class OutputFolder {
 public:
  /// Makes DIR and takes it (steps 1 to 4). `inputs` lists the files the run reads; it is asked only
  /// when DIR holds a file the run would remove. InputError (exit 2) for a folder that cannot be made,
  /// is held by another run, or holds one of the run's inputs as one of its outputs.
  OutputFolder(const std::string& dir, const std::function<std::vector<std::string>()>& inputs, RunIdentity who);
  /// Lets the folder go: the lock released, the interrupted status no longer ready.
  ~OutputFolder();
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;

  /// status.json says how the run ended: `exit_code` and, for an error, its line. May be called again
  /// when something after it changes the command's exit code. IoError when it cannot be written.
  void finish(int exit_code, const std::string& message = "");
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::optional<FolderLock> lock_;
  RunIdentity who_;
  int interrupted_ = -1;  // status.json's slot of last words
  int said_ = -1;         // the line's
};

/// InputError "INPUT: an input of this command is also one of its outputs, OUTPUT: choose another --out
/// than DIR" for the first input that is (std::filesystem::equivalent: the same file, whatever the
/// path) one of `outputs`, those that exist.
void refuse_inputs_among_outputs(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                 const std::string& dir);

/// The files of DIR a run removes before it starts: the catalogue's files of a run, their
/// temporaries (atomic_file.h) and an interrupted status's (common/interruption.h) — those there now.
std::vector<std::string> earlier_run_files(const std::string& dir);

}  // namespace pipegrid::output
