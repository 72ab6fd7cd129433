# gdb script of kit/trace: connect to QEMU's gdbstub, and single-step the
# guest from each getppid(TRACE_MARK) of revoke_bench --trace to the next,
# writing the program counters of each stretch on one line of $TRACE_OUT.
# QEMU masks interrupts while it single-steps, so a stretch holds the
# traced call and the two syscall exits and entries around it, and nothing
# else.
import os
import gdb

MARK = 0x7265766f6b65   # TRACE_MARK in revoke_bench.c
ARG = "*(unsigned long *)($rdi + 112)"  # ((struct pt_regs *)$rdi)->di

gdb.execute("set pagination off")
gdb.execute("target remote " + os.environ["TRACE_GDB"])
marker = gdb.Breakpoint("__x64_sys_getppid", internal=True)
marker.condition = ARG + " == %#x" % MARK
start = int(gdb.parse_and_eval("(unsigned long)&__x64_sys_getppid"))


def stretch():
    """Step from one marker to the next; the program counters between."""
    pcs = []
    while True:
        gdb.execute("stepi", to_string=True)
        pc = gdb.selected_frame().pc()
        if pc == start and int(gdb.parse_and_eval(ARG)) == MARK:
            return pcs
        pcs.append(pc)


with open(os.environ["TRACE_OUT"], "w") as out:
    while True:
        try:
            gdb.execute("continue", to_string=True)
            pcs = stretch()
        except gdb.error:
            break       # the guest is gone
        out.write(" ".join("%x" % pc for pc in pcs) + "\n")
        out.flush()
