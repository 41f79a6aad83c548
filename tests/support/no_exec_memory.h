// A process that may not make memory executable, as on a host with SELinux's
// deny_execmem, a seccomp profile or PaX MPROTECT: LLVM's JIT cannot map code
// there. For the tests of `jit_unavailable` (compiler/backend) and of what
// `allot slurm` does then (cli).
#pragma once

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace allot_test {

#if defined(__x86_64__)
inline constexpr std::uint32_t kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
inline constexpr std::uint32_t kAuditArch = AUDIT_ARCH_AARCH64;
#endif

// Installs a seccomp filter on this process and what it executes: mprotect and
// pkey_mprotect to PROT_EXEC, and anonymous mmaps with PROT_EXEC, fail with
// EACCES (as SELinux answers); everything else is allowed, so a program's own
// code (file-backed mappings) still loads after an exec. The protection is the
// third argument of all three and the mmap flags the fourth (their low 32 bits:
// x86_64 and aarch64 are little-endian). False when it cannot be installed.
inline bool forbid_executable_memory() {
  constexpr std::uint32_t prot_low = offsetof(seccomp_data, args) + 2 * sizeof(std::uint64_t);
  constexpr std::uint32_t flags_low = offsetof(seccomp_data, args) + 3 * sizeof(std::uint64_t);
  constexpr std::uint32_t refuse = SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA);
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mprotect, 3, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pkey_mprotect, 2, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 5, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      // mprotect, pkey_mprotect: refused with PROT_EXEC.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, prot_low),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, refuse),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      // mmap: refused with PROT_EXEC and MAP_ANONYMOUS.
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, prot_low),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, flags_low),
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_ANONYMOUS, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, refuse),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof(filter) / sizeof(filter[0])), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) == 0;
}

// What a child process wrote to its pipe, and how it ended.
struct ChildRun {
  bool started = false;  // the pipe and the fork worked
  std::string output;
  int status = 0;  // as waitpid reports it
};

// Forks: the child runs `child(write_fd)` and exits 0 unless it exits first
// (or execs); the parent reads all the child writes to `write_fd` and waits for it.
inline ChildRun run_in_child(const std::function<void(int write_fd)>& child) {
  ChildRun run;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return run;
  const pid_t pid = fork();
  if (pid < 0) return run;
  if (pid == 0) {
    close(pipe_fds[0]);
    child(pipe_fds[1]);
    _exit(0);
  }
  close(pipe_fds[1]);
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    run.output.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  run.started = waitpid(pid, &run.status, 0) == pid;
  return run;
}

}  // namespace allot_test
