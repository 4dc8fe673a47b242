#!/usr/bin/env python3
"""syscall_in.py PID NR [ARG...]: makes process PID run system call NR
with ARGs (integers, C-style: 0x.., a trailing L ignored), as test_jail.sh
needs from the jailed /metrics child: prints "= RET" (the call's return,
-errno on failure) once PID went on as before, or "SIGSYS" when the call
killed it (its seccomp filter). x86-64 only (exit 2 elsewhere).

What gdb's `call` did before, without it: gdb saves and restores the whole
extended register state around a call, and on CPUs with AMX (Sapphire
Rapids) Debian's gdb 13 cannot write it back ("Couldn't write extended
state status: Bad address"), which failed the tests on such machines.
Only the general registers are needed: the tracee is stopped in a system
call (the child waits in poll()), so the two bytes before its instruction
pointer are a `syscall` instruction (0f 05). The registers are saved, set
for the call with rip back on that instruction and orig_rax -1 (no restart
of the interrupted call in between), one single step runs it, and the saved
registers go back, with the interrupted call's restart as the kernel
left it (rax -ERESTART..., orig_rax its number)."""
import ctypes
import os
import signal
import sys

PTRACE_PEEKTEXT, PTRACE_CONT, PTRACE_SINGLESTEP = 1, 7, 9
PTRACE_GETREGS, PTRACE_SETREGS = 12, 13
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
WALL = 0x40000000

NAMES = ("r15 r14 r13 r12 rbp rbx r11 r10 r9 r8 rax rcx rdx rsi rdi orig_rax rip cs "
         "eflags rsp ss fs_base gs_base ds es fs gs").split()


class Regs(ctypes.Structure):
    _fields_ = [(n, ctypes.c_ulonglong) for n in NAMES]


libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


def ptrace(req, pid, addr=None, data=None):
    ctypes.set_errno(0)
    r = libc.ptrace(req, pid, addr, data)
    err = ctypes.get_errno()
    if r == -1 and err:
        raise OSError(err, f"ptrace({req}): {os.strerror(err)}")
    return r


def wait(pid):
    """The tracee's next stop: ('stop', sig), or ('killed', sig)."""
    _, status = os.waitpid(pid, WALL)
    if os.WIFSTOPPED(status):
        return "stop", os.WSTOPSIG(status)
    return "killed", os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0


def main():
    if os.uname().machine != "x86_64":
        sys.exit("syscall_in.py: x86-64 only")
    pid, nr = int(sys.argv[1]), int(sys.argv[2], 0)
    args = [int(a.rstrip("L"), 0) & (2**64 - 1) for a in sys.argv[3:]]
    args += [0] * (6 - len(args))
    ptrace(PTRACE_ATTACH, pid)
    while True:     # its attach stop (a signal on the way is let through)
        kind, sig = wait(pid)
        if kind == "killed":
            sys.exit(f"syscall_in.py: {pid} ended before the call")
        if sig == signal.SIGSTOP:
            break
        ptrace(PTRACE_CONT, pid, None, sig)
    saved = Regs()
    ptrace(PTRACE_GETREGS, pid, None, ctypes.byref(saved))
    insn = ptrace(PTRACE_PEEKTEXT, pid, ctypes.c_void_p(saved.rip - 2)) & 0xffff
    if insn != 0x050f:
        ptrace(PTRACE_DETACH, pid)
        sys.exit(f"syscall_in.py: {pid} is not stopped in a system call (rip {saved.rip:#x})")
    call = Regs.from_buffer_copy(saved)
    call.rax = nr
    call.rdi, call.rsi, call.rdx, call.r10, call.r8, call.r9 = args
    call.rip = saved.rip - 2
    call.orig_rax = 2**64 - 1
    ptrace(PTRACE_SETREGS, pid, None, ctypes.byref(call))
    ptrace(PTRACE_SINGLESTEP, pid)
    kind, sig = wait(pid)
    if kind == "killed" or sig == signal.SIGSYS:
        if kind != "killed":    # a SIGSYS to deliver: let it end the process
            ptrace(PTRACE_DETACH, pid, None, sig)
        print("SIGSYS" if sig == signal.SIGSYS else f"killed by signal {sig}")
        return
    done = Regs()
    ptrace(PTRACE_GETREGS, pid, None, ctypes.byref(done))
    ptrace(PTRACE_SETREGS, pid, None, ctypes.byref(saved))
    ptrace(PTRACE_DETACH, pid)
    ret = done.rax - 2**64 if done.rax >= 2**63 else done.rax
    print(f"= {ret}")


main()
