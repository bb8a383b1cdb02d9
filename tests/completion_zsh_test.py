#!/usr/bin/env python3
"""The zsh completion, as installed and as sourced, completes in a real interactive zsh.

cmake --install puts _walcut in share/zsh/site-functions under a scratch prefix (and the
bash completion beside it); an interactive zsh on a terminal, whose $fpath holds that
directory and which runs compinit, then completes a flag and a cut id on its first and
later tries. A second zsh sources the script from `walcut completion zsh` instead.

Usage: completion_zsh_test.py BUILD_DIR
"""
import os
import pty
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 30.0


class Zsh:
    def __init__(self, zdotdir, path):
        env = {"HOME": zdotdir, "ZDOTDIR": zdotdir, "PATH": path, "TERM": "dumb", "LANG": "C"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(shutil.which("zsh"), ["zsh", "-d", "-i"], env)
        self.out = b""

    def read_until(self, done, what):
        """Reads until done(output) holds."""
        end = time.time() + TIMEOUT
        while not done(self.out):
            left = end - time.time()
            if left <= 0:
                raise AssertionError(f"zsh never printed {what}; it printed:\n{self.out.decode(errors='replace')}")
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"zsh ended before {what}:\n{self.out.decode(errors='replace')}")
                self.out += chunk

    def line_after_tab(self, typed, tag):
        """Types `typed`, a TAB, then prints the edited line prefixed with `tag`."""
        os.write(self.fd, typed.encode() + b"\t")
        time.sleep(0.5)  # the completion may run walcut
        os.write(self.fd, b"\x01echo " + tag.encode() + b"\r")  # ^A: the beginning of the line
        mark = b"\n" + tag.encode() + b"walcut"  # echo's output, at the start of a line
        self.read_until(lambda out: b"\n" in out[out.find(mark) + 1:] if mark in out else False, repr(mark))
        start = self.out.rindex(mark) + 1 + len(tag)
        return self.out[start:self.out.index(b"\n", start)].decode(errors="replace").rstrip("\r ")

    def close(self):
        try:
            os.write(self.fd, b"exit\r")
        except OSError:
            pass
        os.waitpid(self.pid, 0)


def check(got, want, what):
    if got != want:
        raise AssertionError(f"{what}: got {got!r}, want {want!r}")
    print(f"ok: {what}: {got}")


def session(scratch, name, rc, path, cluster, first_id):
    zdot = os.path.join(scratch, name)
    os.mkdir(zdot)
    with open(os.path.join(zdot, ".zshrc"), "w") as f:
        f.write("bindkey -e\nunsetopt PROMPT_SP\nPS1='%%%% '\n" + rc)
    z = Zsh(zdot, path)
    try:
        z.read_until(lambda out: b"%%" in out, "a prompt")
        # The first completion (for an installed _walcut, the one that autoloads it) and later ones.
        check(z.line_after_tab("walcut dump --sta", "A:"), "walcut dump --stats", f"{name}: a flag, first try")
        check(z.line_after_tab("walcut cuts --axis o", "B:"), "walcut cuts --axis offset", f"{name}: a value")
        check(z.line_after_tab(f"walcut check {cluster} --cut {first_id[:8]}", "C:"),
              f"walcut check {cluster} --cut {first_id}", f"{name}: a cut id")
    finally:
        z.close()


def main():
    build = os.path.abspath(sys.argv[1])
    if shutil.which("zsh") is None:
        print("zsh is not installed (./bootstrap deps installs it)")
        return 1
    scratch = tempfile.mkdtemp(prefix="walcut-zsh-")
    try:
        prefix = os.path.join(scratch, "prefix")
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
        site = os.path.join(prefix, "share", "zsh", "site-functions")
        for f in (os.path.join(site, "_walcut"), os.path.join(prefix, "share", "bash-completion", "completions", "walcut")):
            if not os.path.isfile(f):
                raise AssertionError(f"cmake --install did not install {f}")
        walcut = os.path.join(prefix, "bin", "walcut")
        cluster = os.path.join(scratch, "c")
        subprocess.run([walcut, "simulate", "-q", "-o", cluster, "--nodes", "3", "--txs", "300", "--cuts", "2",
                        "--partitions", "8"], check=True)
        ids = subprocess.run([walcut, "cuts", "--json", cluster], check=True, capture_output=True, text=True).stdout
        first_id = ids.split('"id":"', 1)[1].split('"', 1)[0]
        path = os.path.join(prefix, "bin") + ":/usr/bin:/bin"
        session(scratch, "installed", f"fpath=({site} $fpath)\nautoload -U compinit && compinit -u -D\n", path,
                cluster, first_id)
        script = os.path.join(scratch, "walcut.zsh")
        with open(script, "w") as f:
            f.write(subprocess.run([walcut, "completion", "zsh"], check=True, capture_output=True, text=True).stdout)
        session(scratch, "sourced", f"autoload -U compinit && compinit -u -D\nsource {script}\n", path, cluster,
                first_id)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except AssertionError as e:
        print(f"FAIL: {e}")
        sys.exit(1)
