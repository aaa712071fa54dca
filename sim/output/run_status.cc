#include "sim/output/run_status.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/exit_codes.h"
#include "common/interruption.h"
#include "common/version.h"
#include "sim/output/output_files.h"

namespace pipegrid::output {

namespace {

nlohmann::json identity(const RunIdentity& who) {
  return {{"pid", who.pid}, {"version", kPipegridVersion}, {"command", who.command}};
}

}  // namespace

std::string_view outcome_of_exit_code(int exit_code) {
  switch (exit_code) {
    case kExitOk: return "complete";
    case kExitDeadlock: return "deadlock";
    case kExitPlatformFailed: return "platform-failure";
    case interruption::exit_code(SIGINT):
    case interruption::exit_code(SIGTERM): return "interrupted";
    default: return "error";
  }
}

nlohmann::json running_status(const RunIdentity& who) {
  nlohmann::json status = identity(who);
  status["status"] = "running";
  return status;
}

nlohmann::json ended_status(const RunIdentity& who, int exit_code, const std::string& message) {
  nlohmann::json status = identity(who);
  status["status"] = outcome_of_exit_code(exit_code);
  status["exit_code"] = exit_code;
  if (!message.empty()) status["message"] = message;
  return status;
}

nlohmann::json interrupted_status(const RunIdentity& who, int signal) {
  nlohmann::json status = identity(who);
  status["status"] = "interrupted";
  status["signal"] = interruption::signal_name(signal);
  status["exit_code"] = interruption::exit_code(signal);
  return status;
}

std::string status_text(const nlohmann::json& status) { return status.dump(2) + "\n"; }

std::string RecordedStatus::name() const {
  if (!status) return "unreadable";
  const auto it = status->find("status");
  return it != status->end() && it->is_string() ? it->get<std::string>() : "unreadable";
}

std::optional<RecordedStatus> read_status(const std::string& dir) {
  const std::string path = output_path(dir, OutputFile::Status);
  std::error_code error;
  const std::filesystem::file_status file = std::filesystem::status(path, error);
  if (error || file.type() == std::filesystem::file_type::not_found) return std::nullopt;
  RecordedStatus recorded;
  // Not opened unless a regular file of a status's size: a FIFO would block the reader for ever.
  if (file.type() != std::filesystem::file_type::regular || std::filesystem::file_size(path, error) > (1u << 20)) {
    recorded.unreadable = "not a status file";
    return recorded;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json parsed = nlohmann::json::parse(text.str(), nullptr, false);
  if (parsed.is_object() && parsed.contains("status") && parsed["status"].is_string())
    recorded.status = parsed;
  else
    recorded.unreadable = parsed.is_discarded() ? "not valid JSON" : "no \"status\" in it";
  return recorded;
}

bool is_finished(std::string_view status) {
  return status == "complete" || status == "deadlock" || status == "platform-failure" || status == "error";
}

}  // namespace pipegrid::output
