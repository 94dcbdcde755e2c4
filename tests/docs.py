# SPDX-License-Identifier: GPL-2.0
"""Every option in --help and every JSON key kvmtop prints is in man/kvmtop.1; the man page's
OPTIONS name exactly the options --help lists, and its KEYS exactly the keys of the screen's key
table (ui/tui_keys.c's tui_keys[]): a key or option the man page names that kvmtop lacks fails,
as does one kvmtop has that the man page leaves out.  No "keys moved from earlier versions" list
(issue 45: a 0.1 tool has no earlier keys) in --help, the man page or the help pane's table."""
import json
import os
import re

import subprocess

from tap import ok, eq, done, run

MAN = os.path.join(os.environ.get("KVMTOP_FORMATS", "tests/formats"), "..", "..", "man", "kvmtop.1")
TMP = os.environ.get("KVMTOP_TMP", "/tmp")


def keys(o, out):
    if isinstance(o, dict):
        for k, v in o.items():
            out.add(k)
            keys(v, out)
    elif isinstance(o, list):
        for v in o:
            keys(v, out)
    return out


SRC = os.environ.get("KVMTOP_SRC", os.path.join(os.path.dirname(MAN), ".."))


def sections(man):
    """The man page's sections by name: their text (the raw roff)."""
    parts = re.split(r"^\.SH (.*)$", man, flags=re.M)
    return {parts[i].strip('"'): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def tags(text):
    """The .TP tags of a section: the line after each .TP, \\- as -, \\e as a backslash."""
    lines = text.split("\n")
    return [lines[i + 1].replace("\\-", "-").replace("\\e", "\\")
            for i, l in enumerate(lines[:-1]) if l == ".TP"]


def tag_options(tag):
    """The options a tag names: its first word and each after '", "' (.BR -p ", " --pid " PID")."""
    first = re.match(r'^\.B[IR]?\s+"?(--?[A-Za-z][\w-]*)', tag)
    return ([first.group(1)] if first else []) + re.findall(r'", "\s*(--?[A-Za-z][\w-]*)', tag)


def tag_key(tag):
    """A KEYS tag's label: '.B s d' -> 's d'."""
    return re.sub(r"^\.B[IR]?\s+", "", tag).strip('"')


def table_labels(src, table):
    """The first strings (the labels) of the rows of ui/tui_keys.c's table."""
    body = src[src.index("%s[] = {" % table):]
    body = body[:body.index("\n};")]
    return [l.encode().decode("unicode_escape") for l in re.findall(r'^\t\{ "((?:[^"\\]|\\.)*)"', body, re.M)]


def table_cases(man, help_out):
    sec = sections(man)
    opts = set(re.findall(r"(--[a-z][a-z-]+)", help_out.split("Keys on the screen")[0])) | \
        set(re.findall(r"^\s+(-[a-zA-Z]),", help_out, re.M))
    named = set(o for t in tags(sec["OPTIONS"]) for o in tag_options(t))
    ok(len(named) >= 10, "the man page's OPTIONS name options (%d)" % len(named))
    eq(sorted(named - opts), [], "every option the man page's OPTIONS names is one --help lists")
    eq(sorted(opts - named), [], "every option --help lists has its entry in the man page's OPTIONS")

    src = open(os.path.join(SRC, "ui", "tui_keys.c")).read()
    keys_sec = sec["KEYS"]
    now = [tag_key(t) for t in tags(keys_sec)]
    table = table_labels(src, "tui_keys")
    ok(len(table) >= 10, "ui/tui_keys.c's key table read (%d keys)" % len(table))
    eq(sorted(set(now) - set(table)), [], "every key the man page's KEYS names is in the screen's key table")
    eq(sorted(set(table) - set(now)), [], "every key of the screen's key table is in the man page's KEYS")
    said = [w for w, t in (("the man page", man), ("--help", help_out), ("ui/tui_keys.c", src))
            if re.search(r"keys moved|tui_moved|earlier versions", t, re.I)]
    eq(said, [], "no list of keys moved from earlier versions (a 0.1 tool has none)")


def readme_cmd(readme, n):
    """README's command (n): the first indented line after the line "(n) ..."."""
    at = readme.index("\n(%d) " % n)
    return re.search(r"^    (\S.*)$", readme[at:], re.M).group(1)


def apt_packages(cmd):
    """The packages a command's apt-get install -y names."""
    m = re.search(r"apt-get install -y ([^&]+)", cmd)
    return m.group(1).split() if m else []


def readme_cases():
    """README's quick start against what builds and installs kvmtop (configure.ac's Debian
    packages, Makefile.am's install) and what CI runs (.ci/run takes both commands from README)."""
    readme = open(os.path.join(SRC, "README")).read()
    one, two = readme_cmd(readme, 1), readme_cmd(readme, 2)
    conf = open(os.path.join(SRC, "configure.ac")).read()
    needed = re.findall(r"^KVMTOP_DEP\(\[\w+\], \[[^]]+\], \[([\w.+-]+)\]\)", conf, re.M)
    # the bpf source's, which configure builds where they are (--enable-bpf=auto): its line names them
    bpf = re.search(r"--enable-bpf=yes, but not found:\$bpf_missing \(apt-get install ([\w .+-]+)\)", conf)
    ok(bpf, "configure.ac names the bpf source's packages")
    needed += bpf.group(1).split() if bpf else []
    ok(len(needed) >= 8, "configure.ac's dependencies read (%d)" % len(needed))
    build, suite = apt_packages(one), apt_packages(two)
    tools = {"build-essential", "autoconf", "automake", "pkg-config", "man-db"}
    eq(sorted(set(needed) - set(build)), [], "README command (1) installs every package configure.ac requires")
    eq(sorted(set(build) - set(needed) - tools), [],
       "README command (1) installs only what kvmtop needs to build and run (configure.ac's, the tools, man)")
    eq(sorted(set(build) & set(suite)), [], "README command (2) installs only the suite's extra packages")
    ok(all(p in suite for p in ("prometheus", "qemu-system-x86", "lintian", "tmux", "trace-cmd")),
       "README command (2) installs the suite's tools (prometheus, qemu, lintian, tmux, trace-cmd)", suite)
    steps = [c.strip() for c in one.split("&&")]
    ok(steps[2:] == ["autoreconf -fi", "./configure", "make -j2", "make install", "kvmtop --demo"],
       "README command (1) builds, installs (make install) and starts the installed kvmtop --demo", one)
    ok([c.strip() for c in two.split("&&")][1:] == ["autoreconf -fi", "./configure", "make -j2 check"],
       "README command (2) runs the whole suite", two)
    mk = open(os.path.join(SRC, "Makefile.am")).read()
    ok(re.search(r"^bin_PROGRAMS = kvmtop$", mk, re.M) and "dist_man_MANS = man/kvmtop.1" in mk,
       "make install puts kvmtop in $(bindir) and its man page in man1 (Makefile.am): man kvmtop and "
       "the bare kvmtop of README's examples work after command (1)")
    # .ci/run's own extraction, run on README: the same two lines, (1) cut before autoreconf
    ci = open(os.path.join(SRC, ".ci", "run")).read()
    fn = re.search(r"^readme_cmd\(\) \{\n.*?^\}\n", ci, re.M | re.S)
    deps = re.search(r"^deps=\$\((.*)\)$", ci, re.M)
    if not ok(fn and deps and re.search(r"^cmd=\$\(readme_cmd 2\)$", ci, re.M),
              ".ci/run takes README's commands: (1)'s apt-get and (2)"):
        return
    script = "cd %s && %s\necho \"$(%s)\"; readme_cmd 2" % (SRC, fn.group(0), deps.group(1))
    got = subprocess.run(["bash", "-c", script], capture_output=True, text=True).stdout.splitlines()
    eq(got, [one[:one.index(" && autoreconf")], two], ".ci/run installs what README command (1) does, then runs (2)")


def main():
    man = open(MAN).read().replace("\\-", "-")
    rc, out, err = run(["--help"])
    eq(rc, 0, "--help exits 0")
    opts = set(re.findall(r"(--[a-z][a-z-]+)", out)) | set(re.findall(r"^\s+(-[a-zA-Z]),", out, re.M))
    ok(len(opts) >= 10, "--help lists the options (%d)" % len(opts))
    missing = sorted(o for o in opts if o not in man and o.lstrip("-") not in man)
    eq(missing, [], "every --help option is in the man page")
    table_cases(open(MAN).read(), out)
    readme_cases()

    dat = os.path.join(TMP, "docs.dat")
    gen = os.environ["KVMGEN"]
    os.system("%s -f %s -o %s -x -l -w -n 200 >/dev/null" % (gen, os.path.join(os.environ["KVMTOP_FORMATS"], "x86-6.5"), dat))
    rc, out, err = run(["-b", "-r", dat, "-o", "json"])
    j = json.loads(out)
    unknown = sorted(k for k in keys(j, set()) if '"%s"' % k not in man
                     and k not in ("kvm_pio", "kvm_userspace_exit", "IO"))
    eq(unknown, [], "every JSON key kvmtop prints is in the man page's schema")
    rc, out, err = run(["-b", "-r", dat, "-o", "csv"])
    header = out.splitlines()[0]
    ok(header in man.replace("\n", ""), "the CSV header is in the man page", header)

    # CSV and JSON carry the same reason fields: the CSV columns after the
    # row's scope (snapshot ... vcpu_wait_seconds) against every JSON reason object's keys,
    # each group object flattened in as GROUP_KEY (HACKING, "Names of figures")
    # in the same order.
    states = ["vcpu_guest_seconds", "vcpu_host_seconds", "vcpu_vmm_seconds", "vcpu_halt_seconds", "vcpu_wait_seconds"]
    groups = ["vm_emulator_run_seconds", "vm_emulator_wait_seconds", "vm_vhost_run_seconds", "vm_vhost_wait_seconds"]
    # (the row's scope ends with the vCPU's fields: the reason's start at "reason")
    cols = header.split(",")
    csv_fields = cols[cols.index("reason"):]
    ok(all(c in cols[:cols.index("reason")] for c in states + groups),
       "the CSV has the vCPU's time states, vcpu_guest_seconds to vcpu_wait_seconds, and the VM's thread groups before the reason's")
    json_sets = set()
    for scope in [j["host"]] + j["vms"] + [c for vm in j["vms"] for c in vm["vcpus"]]:
        for r in scope["reasons"]:
            flat = []
            for k, v in r.items():
                if isinstance(v, list):
                    continue    # the objects: CSV's rows with --fields that name theirs
                if isinstance(v, dict):
                    flat.extend(k + "_" + x for x in v)
                else:
                    flat.append(k)
            json_sets.add(tuple(flat))
    ok(len(j["host"]["reasons"]) > 3, "the recording has reasons to compare", j["host"]["reasons"][:1])
    eq(sorted(json_sets), [tuple(csv_fields)],
       "every JSON reason has the CSV's reason fields, in the CSV's order")
    fields_cases(man)
    history_cases(man)
    done()


def fields_cases(man):
    """The man page's FIELDS: every field of the table (kvmtop --fields help's list, with its
    title and description), in the table's order, and nothing else."""
    rc, out, err = run(["--fields", "help"])
    table = []
    lines = out.split("What each field is", 1)[-1].splitlines()[1:]
    for line in lines:
        if not line.startswith("  "):
            break
        name, rest = line.strip().split(None, 1)
        desc, title = rest.rsplit(" (", 1)
        table.append((name, title[:-1], desc))
    sec = sections(man)["OUTPUT"]
    sec = sec[sec.index(".SS FIELDS"):]
    sec = sec[:sec.index("\n.SS", 1)]
    listed = [(m[0], m[1], m[2]) for m in re.findall(r'^\.TP\n\.BR (\S+) " \((.*)\)"\n(.*)$', sec, re.M)]
    ok(len(table) > 100, "--fields help says what each of the table's fields is (%d)" % len(table))
    eq(listed, table, "the man page's FIELDS: every field of the table, its title and description, in order")


def history_cases(man):
    """The man page's HISTORY: the old -> new names kvmtop --fields help lists (the alias table
    of src/model/model_field_names.c), each once, in its order; each new name one kvmtop knows."""
    rc, out, err = run(["--fields", "help"])
    table = []
    for line in out.split("Old names, still read", 1)[-1].splitlines()[1:]:
        if not line.startswith("  "):
            break
        m = re.match(r"\s+(\S+)\s+-> (\S+)(?: \[(\S+)\])?$", line)
        table.append(m.groups() if m else (line,))
    sec = sections(man)["HISTORY"]
    block = sec[sec.index(".nf\n") + 4:sec.index("\n.fi")]
    listed = [tuple(re.match(r"(\S+)\s+(\S+)(?: \[(\S+)\])?$", l).groups()) for l in block.splitlines()]
    ok(len(table) >= 40, "--fields help lists the old names (%d)" % len(table))
    eq(listed, table, "the man page's HISTORY: every old name and its new one, as --fields help lists them")
    olds = [t[0] for t in table if len(t) > 2 and not t[2]]
    eq(sorted(set(o for o in olds if olds.count(o) > 1)), [], "an old name has one new name")


main()
