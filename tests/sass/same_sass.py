#!/usr/bin/env python3
"""tests/sass/same_sass.py OLD NEW [--arch sm_90] - is NEW's machine code the
same as OLD's? OLD and NEW are objects, executables or libraries (anything
cuobjdump reads). Kernels are compared by their instructions, with addresses,
encodings and the names of called or referenced functions removed, so a move
that only renames namespaces or reorders kernels reads as identical. Prints
the kernels whose code changed (by demangled name where both sides have one)
and exits 1 if any did; 0 if the two sets of kernel bodies are equal.
Needs cuobjdump and nvdisasm on PATH (tests/sass/get-cuobjdump.sh)."""
import collections, hashlib, re, subprocess, sys


def kernels(path, arch):
    sass = subprocess.run(["cuobjdump", "-sass", "-arch", arch, path], capture_output=True, text=True, check=True).stdout
    out, name, body = {}, None, []
    for line in sass.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name: out[name] = body
            name, body = m.group(1), []
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if name and m:
            ins = re.sub(r"`\([^)]*\)", "`(f)", m.group(1))      # called / referenced symbols
            ins = re.sub(r"0x[0-9a-f]+", lambda h: h.group(0) if len(h.group(0)) < 10 else "0x?", ins)
            body.append(ins)
    if name: out[name] = body
    return out


def demangle(names):
    if not names: return {}
    r = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, r))


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    arch = "sm_90"
    if "--arch" in sys.argv: arch = sys.argv[sys.argv.index("--arch") + 1]; args.remove(arch)
    old, new = kernels(args[0], arch), kernels(args[1], arch)
    digest = lambda b: hashlib.sha1("\n".join(b).encode()).hexdigest()
    old_d = collections.Counter(digest(b) for b in old.values())
    new_d = collections.Counter(digest(b) for b in new.values())
    print(f"{args[0]}: {len(old)} kernels; {args[1]}: {len(new)} kernels ({arch})")
    if old_d == new_d:
        print("same SASS: every kernel body matches")
        return 0
    gone = old_d - new_d
    came = new_d - old_d
    names_old, names_new = demangle(list(old)), demangle(list(new))
    for n, b in old.items():
        if gone[digest(b)]: print("  changed or gone:", names_old.get(n, n)[:200])
    for n, b in new.items():
        if came[digest(b)]: print("  changed or new: ", names_new.get(n, n)[:200])
    return 1


sys.exit(main())
