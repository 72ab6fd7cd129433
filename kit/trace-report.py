# Report of kit/trace: instructions per function of each traced call, what
# the patched kernel adds to the base one, what O_REVOKABLE adds to a plain
# file, and the steps of the proxy method it adds, from the inline chain
# of each instruction in copies of the core's objects (fs/revoke*.o)
# compiled with -g (-g does not change the code GCC generates).
#
# usage: trace-report.py OBJ[,OBJ...] NAME=VMLINUX,LABELS,PCS...
# LABELS: revoke_bench --trace output; PCS: kit/trace-step.py output.
import bisect
import collections
import subprocess
import sys


def run(*argv, stdin=None):
    return subprocess.run(argv, input=stdin, capture_output=True, text=True,
                          check=True).stdout


class Symbols:
    """Function symbols of an ELF file: name at an address, and back."""

    def __init__(self, elf):
        self.start, self.name, self.size = [], [], {}
        for line in run("nm", "-n", "-S", elf).splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                self.start.append(int(f[0], 16))
                self.name.append(f[3])
                self.size[f[3]] = int(f[1], 16)

    def at(self, addr):
        i = bisect.bisect_right(self.start, addr) - 1
        return self.name[i], addr - self.start[i]


def read_kernel(spec):
    """NAME=VMLINUX,LABELS,PCS: {(operation, file, mode): [pc...]}."""
    name, files = spec.split("=", 1)
    vmlinux, labels, pcs = files.split(",")
    calls = [tuple(line.rstrip("\r\n").split("\t")[1:])
             for line in open(labels, errors="replace")
             if line.startswith("trace\t")]
    stretches = [[int(pc, 16) for pc in line.split()] for line in open(pcs)]
    if len(calls) != len(stretches):
        sys.exit("trace-report: %s: %d calls but %d traces"
                 % (name, len(calls), len(stretches)))
    return name, Symbols(vmlinux), dict(zip(calls, stretches))


def per_function(syms, pcs):
    """Kernel instructions per function (user space is the same program)."""
    return collections.Counter(syms.at(pc)[0] for pc in pcs
                               if pc >= 0xffff800000000000)


class Steps:
    """Steps of a function of the core: a function it inlined, or a line."""

    def __init__(self, objs, kernel_syms):
        self.obj = {}
        for obj in objs:
            syms = Symbols(obj)
            for n, s in syms.size.items():
                if kernel_syms.size.get(n) == s:
                    self.obj[n] = (obj, syms)
        self.cache = {}

    def step(self, func, offset):
        if func not in self.obj:
            return None
        obj, syms = self.obj[func]
        key = (func, offset)
        if key not in self.cache:
            addr = syms.start[syms.name.index(func)] + offset
            out = run("addr2line", "-i", "-f", "-e", obj,
                      "%#x" % addr).splitlines()
            # innermost first: the last pair is @func's own line, the one
            # before it the function @func inlined there
            if len(out) == 2:
                path, line = out[1].split(" ")[0].rsplit(":", 1)
                self.cache[key] = "line %s: %s" % (line, source(path, line))
            else:
                self.cache[key] = out[-4] + "()"
        return self.cache[key]


def source(path, line):
    try:
        return open(path).read().splitlines()[int(line) - 1].strip()
    except (OSError, ValueError, IndexError):
        return "?"


def show_diff(title, a, b):
    d = {f: b[f] - a[f] for f in set(a) | set(b) if b[f] != a[f]}
    print("  %-36s %+6d" % (title, sum(b.values()) - sum(a.values())))
    for f in sorted(d, key=lambda f: (-abs(d[f]), f)):
        print("      %+6d  %s" % (d[f], f))


def main():
    steps_objs, specs = sys.argv[1].split(","), sys.argv[2:]
    kernels = [read_kernel(spec) for spec in specs]
    byname = {name: (syms, calls) for name, syms, calls in kernels}
    psyms, pcalls = byname["patched"]
    steps = Steps(steps_objs, psyms)

    for op, file, mode in pcalls:
        if mode != "plain":
            continue
        plain = per_function(psyms, pcalls[(op, file, "plain")])
        print("%s, %s" % (op, file))
        if "base" in byname:
            bsyms, bcalls = byname["base"]
            if (op, file, "plain") in bcalls:
                base = per_function(bsyms, bcalls[(op, file, "plain")])
                print("  base: %d kernel instructions" % sum(base.values()))
                show_diff("not revokable, patched - base", base, plain)
        print("  not revokable: %d kernel instructions"
              % sum(plain.values()))
        if (op, file, "revokable") not in pcalls:
            continue
        pcs = pcalls[(op, file, "revokable")]
        revokable = per_function(psyms, pcs)
        show_diff("O_REVOKABLE - not revokable", plain, revokable)
        for func in sorted(f for f in revokable if f.startswith("revoke_")
                           and f not in plain):
            count = collections.Counter()
            for pc in pcs:
                name, offset = psyms.at(pc)
                if name == func:
                    count[steps.step(func, offset)] += 1
            print("      steps of %s:" % func)
            for step, n in count.items():
                print("        %4d  %s" % (n, step or "(no debug copy)"))


main()
