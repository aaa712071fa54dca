// status.json: what the run that writes a folder is doing, and then how it ended. Written first as
// "running" and replaced last by the outcome, each time whole (atomic_file.h); SIGINT and SIGTERM
// replace it with "interrupted" (output_folder.h). A reader tells a finished folder from one whose
// run is still going or was stopped by it: `pipegrid report` warns about the latter, a sweep reruns
// it. Its exit_code is always the command's own.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pipegrid::output {

/// Who writes the folder: the process and its command, recorded in every status it writes.
struct RunIdentity {
  int pid = 0;
  std::vector<std::string> command;  // "pipegrid", then the arguments as given
};

/// The outcome an exit code stands for: complete (0), deadlock (3), platform-failure (4),
/// interrupted (130, 143), error (anything else: 2, 70, 74, …).
std::string_view outcome_of_exit_code(int exit_code);

/// {"status": "running", "pid", "version", "command"}.
nlohmann::json running_status(const RunIdentity& who);
/// The outcome of `exit_code`, with "exit_code" and, when given, the error's line as "message".
nlohmann::json ended_status(const RunIdentity& who, int exit_code, const std::string& message = "");
/// "interrupted" by `signal`, with "signal" ("SIGINT") and "exit_code" (130, 143).
nlohmann::json interrupted_status(const RunIdentity& who, int signal);
/// The file's text: indented by two, a newline at the end, as every JSON file of a run.
std::string status_text(const nlohmann::json& status);

/// DIR/status.json as recorded: nullopt when there is none; a JSON object, or a string saying why it
/// cannot be read.
struct RecordedStatus {
  std::optional<nlohmann::json> status;  // parsed, and an object
  std::string unreadable;               // why not, when the file is there but is not a status
  std::string name() const;  // its "status", or "unreadable"
};
std::optional<RecordedStatus> read_status(const std::string& dir);

/// Whether a run that recorded `status` ended by itself and said how: complete, deadlock,
/// platform-failure or error. Not running (still going, or killed before it could say), interrupted
/// or unreadable.
bool is_finished(std::string_view status);

}  // namespace pipegrid::output
