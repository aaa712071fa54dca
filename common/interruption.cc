#include "common/interruption.h"

#include <array>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <unistd.h>

namespace pipegrid::interruption {

namespace {

// In the order the handler carries them out.
enum class Kind { Empty, KillGroup, Unlink, Write, Say };

// A slot's texts are fixed when it is filled; the handler reads only C strings and ints from it.
struct Slot {
  Kind kind = Kind::Empty;
  std::string path;
  std::string temp;  // path.interrupted, where a Write goes before its rename
  std::array<std::string, std::size(kSignals)> content;  // a Write's file, a Say's line
  int pgid = 0;
};

std::array<Slot, kSlots> slots;

// Blocks kSignals for the life of one edit of the slots.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

int signal_index(int signal) {
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (kSignals[i] == signal) return static_cast<int>(i);
  return 0;
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n <= 0) return;  // nothing to report to from here; the rename below is then skipped
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void carry_out(const Slot& slot, int at, int signal) {
  switch (slot.kind) {
    case Kind::KillGroup:
      kill(-slot.pgid, signal);
      break;
    case Kind::Unlink:
      unlink(slot.path.c_str());
      break;
    case Kind::Write: {
      const int fd = open(slot.temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (fd < 0) break;
      write_all(fd, slot.content[at]);
      if (close(fd) == 0) rename(slot.temp.c_str(), slot.path.c_str());
      break;
    }
    case Kind::Say:
      write_all(STDERR_FILENO, slot.content[at]);
      break;
    case Kind::Empty:
      break;
  }
}

// Async-signal-safe: only syscalls on texts prepared beforehand. Kind by kind, so that the children
// are told first and the user last, when the files say what the line says.
void last_words(int signal) {
  const int at = signal_index(signal);
  for (Kind kind : {Kind::KillGroup, Kind::Unlink, Kind::Write, Kind::Say})
    for (const Slot& slot : slots)
      if (slot.kind == kind) carry_out(slot, at, signal);
}

void on_signal(int signal) {
  last_words(signal);
  _exit(exit_code(signal));
}

int fill(Slot slot) {
  SignalsBlocked blocked;
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (slots[i].kind == Kind::Empty) {
      slots[i] = std::move(slot);
      return static_cast<int>(i);
    }
  throw std::logic_error("interruption: more than " + std::to_string(kSlots) + " last words at once");
}

}  // namespace

const char* signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

void install() {
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  // One handler at a time: a SIGTERM arriving during SIGINT's last words waits for them.
  for (int s : kSignals) sigaddset(&action.sa_mask, s);
  for (int s : kSignals) sigaction(s, &action, nullptr);
}

int write_on_interrupt(const std::string& path, const std::function<std::string(int signal)>& render) {
  Slot slot;
  slot.kind = Kind::Write;
  slot.path = path;
  slot.temp = path + ".interrupted";
  for (std::size_t i = 0; i < std::size(kSignals); ++i) slot.content[i] = render(kSignals[i]);
  return fill(std::move(slot));
}

int unlink_on_interrupt(const std::string& path) {
  Slot slot;
  slot.kind = Kind::Unlink;
  slot.path = path;
  return fill(std::move(slot));
}

int kill_group_on_interrupt(int pgid) {
  Slot slot;
  slot.kind = Kind::KillGroup;
  slot.pgid = pgid;
  return fill(std::move(slot));
}

int say_on_interrupt(const std::function<std::string(int signal)>& render) {
  Slot slot;
  slot.kind = Kind::Say;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) slot.content[i] = render(kSignals[i]);
  return fill(std::move(slot));
}

void forget(int handle) {
  if (handle < 0 || handle >= kSlots) return;
  SignalsBlocked blocked;
  slots[static_cast<std::size_t>(handle)] = Slot{};
}

void forget_all_after_fork() {
  // Only the kinds: the texts stay allocated (a copy of the parent's) until the slot is filled again.
  for (Slot& slot : slots) slot.kind = Kind::Empty;
}

}  // namespace pipegrid::interruption
