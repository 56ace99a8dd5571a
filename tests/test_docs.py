#!/usr/bin/env python3
"""Every command and code block of README.md and docs/*.md, run or checked, so that a renamed flag
or a changed API breaks the build and not the reader.

Fenced blocks say what they are in their info string (the first word is the language GitHub
highlights; the words after it are this runner's, and GitHub ignores them):

  ```sh                 run with bash -e -o pipefail in the page's work directory
  ```python             run with /usr/bin/python3 in the page's work directory
  ```c                  a whole program: compiled against the build tree, then run there
  ```ini file=NAME      (any language) written to NAME in the work directory, for later blocks
  ```text output        lines the previous block printed, in this order (`...` skips lines)
  ```text synopsis      `sensim --help` without its first and last lines
  ```LANG from=PATH     an excerpt of PATH (its lines, contiguous, whitespace-trimmed), a file
                        the suite runs (listed in tests/meson.build or examples/meson.build)
  ```sh cwd=repo        run from the top of the checkout
  ```sh installed       run as a reader with the SDK installed in a prefix of their own: the build
                        is installed (meson install) into a scratch prefix, which the block finds
                        through CMAKE_PREFIX_PATH and PKG_CONFIG_PATH, as docs/sdk.md says
  ```sh quickstart      README's two commands: `make demo` is run from the top of the checkout,
                        `make test` must be what .ci/run runs (it is the run this test is in)

A page's blocks run in order in one fresh directory, with the environment docs/README.md tells
the reader to set: `sensim` on PATH from the build tree, SENSIM_LIBRARY and PYTHONPATH for the
Python package, and nothing else of the test harness. A block in any other form fails the test.

Outside blocks: every inline `sensim CMD ...` names only options `sensim --help` lists for CMD,
every `make TARGET` is a Makefile target, and every relative link points at a file that exists.

usage: test_docs.py SENSIM_EXE [PAGE.md ...]   (default: README.md and docs/*.md)
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FENCE = re.compile(r"^```(.*)$")
FAILS = []


def fail(where, msg):
    FAILS.append("%s: %s" % (where, msg))
    print("FAIL %s: %s" % (where, msg), flush=True)


def blocks(path):
    """(line, info words, body) of each fenced block, and the text outside them."""
    out, prose, cur = [], [], None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines, 1):
        s = line.strip()
        if cur is None:
            m = FENCE.match(s)
            if m:
                cur = (i, m.group(1).split(), [], len(line) - len(line.lstrip()))
            else:
                prose.append(line)
        elif s == "```":
            ind = cur[3]  # a block in a list item: its indentation is the item's, not the code's
            out.append((cur[0], cur[1], "\n".join(l[ind:] if not l[:ind].strip() else l.lstrip() for l in cur[2])))
            cur = None
        else:
            cur[2].append(line)
    if cur is not None:
        fail("%s:%d" % (path, cur[0]), "block never closed")
    return out, "\n".join(prose)


def help_flags(sensim):
    """`sensim --help` split per command: {"scan": {"--scene", ...}, "bag info": {...}}."""
    text = subprocess.run([sensim, "--help"], capture_output=True, text=True).stdout
    flags, cur = {}, None
    for line in text.splitlines():
        for part in line.split(" | "):
            m = re.match(r"\s*sensim (\w+)( (?:info|echo|list|hz|export|stats))?\b", part)
            if m:
                cur = (m.group(1) + (m.group(2) or "")).strip()
                flags.setdefault(cur, set())
            if cur:
                flags[cur] |= set(re.findall(r"--[a-z][a-z0-9-]*", part))
                flags[cur] |= set(re.findall(r"(?<![\w-])-[a-zA-Z]\b", part))
    return text, flags


def check_inline(page, prose, flags, make_targets):
    # a span may wrap across lines of a paragraph (`sensim ros2 --scene street --rig\nrig.ini`)
    for span in (" ".join(s.split()) for s in re.findall(r"`([^`]+)`", prose)):
        for cmd in re.split(r"\s*(?:\||&&|;)\s*", span):
            words = cmd.split()
            if len(words) >= 2 and words[0] == "sensim" and re.match(r"^[a-z]+$", words[1]):
                key = " ".join(words[1:3]) if " ".join(words[1:3]) in flags else words[1]
                if key not in flags and any(k.startswith(key + " ") for k in flags):  # `sensim pattern`
                    flags[key] = set().union(*(v for k, v in flags.items() if k.startswith(key + " ")))
                if key not in flags:
                    fail(page, "`%s`: sensim has no command %r" % (span, key))
                    continue
                for w in words[2:]:
                    f = w.split("=")[0]
                    if re.match(r"^--?[a-zA-Z]", f) and f not in flags[key] and f not in ("--help", "--version"):
                        fail(page, "`%s`: %s is not an option of `sensim %s`" % (span, f, key))
            if len(words) == 2 and words[0] == "make" and words[1] not in make_targets:
                fail(page, "`%s`: no such Makefile target" % span)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
        if "://" in target or target.startswith("mailto:"):
            continue
        if not os.path.exists(os.path.join(REPO, os.path.dirname(page), target)):
            fail(page, "link to %s: no such file" % target)


def suite_files():
    names = set()
    for mb in ("tests/meson.build", "examples/meson.build", "python/tests"):
        p = os.path.join(REPO, mb)
        if os.path.isdir(p):
            names |= {os.path.join("python/tests", f) for f in os.listdir(p)}
        else:
            for n in re.findall(r"[\w./-]+\.(?:c|py|sh)", open(p, encoding="utf-8").read()):
                for cand in (n, os.path.join(os.path.dirname(mb), n), os.path.join("examples", "python", n)):
                    if os.path.exists(os.path.join(REPO, cand)):
                        names.add(os.path.normpath(cand))
    return names


def excerpt_ok(body, path):
    want = [l.strip() for l in body.split("\n") if l.strip()]
    if not want:  # an empty excerpt is in every file
        return False
    have = [l.strip() for l in open(os.path.join(REPO, path), encoding="utf-8").read().split("\n") if l.strip()]
    return any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1))


def output_ok(body, printed):
    lines, pos = printed.split("\n"), 0
    if all(w.strip() in ("", "...") for w in body.split("\n")):  # nothing to check is not a check
        return "(a line of output: the block has none)"
    for want in body.split("\n"):
        if want.strip() in ("", "..."):
            continue
        while pos < len(lines) and lines[pos].rstrip() != want.rstrip():
            pos += 1
        if pos == len(lines):
            return want
        pos += 1
    return None


INSTALLED = {}


def installed_env(env, sensim):
    """The reader's environment after installing into a prefix of their own (docs/sdk.md)."""
    if "prefix" not in INSTALLED:
        build = os.path.dirname(os.path.dirname(os.path.dirname(sensim)))
        dest = tempfile.mkdtemp(prefix="sensim-docs-prefix-")
        subprocess.run(["meson", "install", "-C", build, "--no-rebuild", "--destdir", dest], check=True,
                       capture_output=True)
        pcs = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs if f == "sensim.pc"]
        INSTALLED["prefix"] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(pcs[0]))))
        INSTALLED["pkgconfig"] = os.path.dirname(pcs[0])
        INSTALLED["dest"] = dest
    e = {k: v for k, v in env.items() if k not in ("SENSIM_LIBRARY", "PYTHONPATH")}
    e["CMAKE_PREFIX_PATH"] = INSTALLED["prefix"]
    e["PKG_CONFIG_PATH"] = INSTALLED["pkgconfig"]
    return e


def run_page(page, sensim, help_text, env, suite):
    rel = os.path.relpath(page, REPO)
    found, _ = blocks(page)
    last_out, last_where = None, None
    with tempfile.TemporaryDirectory(prefix="sensim-docs-") as work:
        for line, info, body in found:
            where = "%s:%d" % (rel, line)
            lang = info[0] if info else ""
            attrs = dict(a.split("=", 1) if "=" in a else (a, True) for a in info[1:])
            cwd = REPO if attrs.get("cwd") == "repo" else work
            if "from" in attrs:
                src = attrs["from"]
                if src not in suite:
                    fail(where, "from=%s: not a file the test suite runs" % src)
                elif not excerpt_ok(body, src):
                    fail(where, "not an excerpt of %s (the file changed?)" % src)
                continue
            if "file" in attrs:
                dest = os.path.join(work, attrs["file"])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                with open(dest, "w", encoding="utf-8") as f:
                    f.write(body + "\n")
                continue
            if lang == "text" and "output" in attrs:
                if last_out is None:
                    fail(where, "an output block with no block run before it")
                else:
                    missing = output_ok(body, last_out)
                    if missing is not None:
                        fail(where, "%s did not print %r; it printed:\n%s" % (last_where, missing, last_out))
                continue
            if lang == "text" and "synopsis" in attrs:
                if body.split("\n") != [l[2:] if l.startswith("  ") else l for l in help_text.strip("\n").split("\n")[1:-1]]:
                    fail(where, "the synopsis is not `sensim --help` (scripts/docs_synopsis.py rewrites it)")
                continue
            if lang == "sh" and "quickstart" in attrs:
                cmds = [l.split("#")[0].strip() for l in body.split("\n") if l.split("#")[0].strip()]
                ci = open(os.path.join(REPO, ".ci", "run"), encoding="utf-8").read()
                if cmds != ["make demo", "make test"] or not re.search(r"^exec make test$", ci, re.M):
                    fail(where, "the quick start is not `make demo` and `make test`, or .ci/run runs another command")
                    continue
                body, cwd = "make demo", REPO
            if lang == "sh":
                cmd = ["bash", "-e", "-o", "pipefail", "-c", body]
            elif lang == "python":
                cmd = ["/usr/bin/python3", "-c", body]
            elif lang == "c":
                with open(os.path.join(work, "block.c"), "w", encoding="utf-8") as f:
                    f.write(body + "\n")
                build = os.path.dirname(os.path.dirname(os.path.dirname(sensim)))
                flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sensim"], capture_output=True,
                                       text=True, env=dict(env, PKG_CONFIG_PATH=os.path.join(build, "meson-uninstalled"))).stdout
                cc = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-o", "block", "block.c"] + flags.split()
                                    + ["-Wl,-rpath," + build, "-lm"], cwd=work, capture_output=True, text=True)
                if cc.returncode:
                    fail(where, "does not compile:\n" + cc.stderr)
                    continue
                cmd = ["./block"]
            else:
                fail(where, "block %r: neither run nor checked (see tests/test_docs.py)" % " ".join(info))
                continue
            print("run %s (%s)" % (where, lang), flush=True)
            # its own process group: a block's background process (a live publisher) is ended
            # with it, and cannot hold the output pipes open after the block failed
            block_env = installed_env(env, sensim) if attrs.get("installed") else env
            p = subprocess.Popen(cmd, cwd=cwd, env=block_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)
            try:
                stdout, stderr = p.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
                fail(where, "did not finish in 300 s")
                continue
            finally:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            r = subprocess.CompletedProcess(cmd, p.returncode, stdout, stderr)
            if r.returncode:
                fail(where, "exit %d\n--- stdout\n%s--- stderr\n%s" % (r.returncode, r.stdout[-3000:], r.stderr[-3000:]))
            last_out, last_where = r.stdout, where


def main():
    sensim = os.path.abspath(sys.argv[1])
    pages = [os.path.abspath(p) for p in sys.argv[2:]] or (
        [os.path.join(REPO, "README.md")]
        + sorted(os.path.join(REPO, "docs", f) for f in os.listdir(os.path.join(REPO, "docs")) if f.endswith(".md")))
    help_text, flags = help_flags(sensim)
    make_targets = set(re.findall(r"^([a-z][\w-]*):", open(os.path.join(REPO, "Makefile")).read(), re.M))
    build = os.path.dirname(os.path.dirname(os.path.dirname(sensim)))
    # the reader's environment (docs/README.md), none of the harness's variables
    env = {k: v for k, v in os.environ.items() if not k.startswith("SENSIM_") and k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.path.dirname(sensim) + os.pathsep + env.get("PATH", "")
    env["SENSIM_LIBRARY"] = os.path.join(build, "libsensim.so")
    env["PYTHONPATH"] = os.path.join(REPO, "python")
    # live ROS 2 blocks: loopback discovery on a domain the other DDS tests never use (100..219)
    env["ROS_DOMAIN_ID"] = "231"
    env["CYCLONEDDS_URI"] = "file://" + os.path.join(REPO, "tests", "dds", "cyclonedds_loopback.xml")
    suite = suite_files()
    for page in pages:
        _, prose = blocks(page)
        check_inline(os.path.relpath(page, REPO), prose, flags, make_targets)
        run_page(page, sensim, help_text, env, suite)
    if "dest" in INSTALLED:
        shutil.rmtree(INSTALLED["dest"], ignore_errors=True)
    if FAILS:
        print("\n%d problem(s):\n%s" % (len(FAILS), "\n".join(FAILS)))
        return 1
    print("docs: %d pages, every block run or checked" % len(pages))
    return 0


if __name__ == "__main__":
    sys.exit(main())
