#!/usr/bin/env python3
"""Runs the README's usage block, its console blocks and every man page's examples, in
order, in a scratch
directory, with the walcut under test first on PATH, and checks each command's exit
status against what the text shows: 0, unless the example shows an error message, a
failed verdict, or an `echo $?` with another number after it. A command that ends in
`; echo $?` must print the number shown, and a walcut error message on stderr that the
text does not show fails the example even when the command's status hides it (a pipe).

With --outputs it also checks that what each example shows is what the command printed:
the shown text, with `...` elisions, line breaks and spacing ignored, must appear in the
command's output (stdout and stderr), in order. Examples whose output depends on the
scratch directory's path are compared after it is put back to /tmp/. The scratch directory
holds a link to the source's testdata/. The README's timeline picture must be, byte for
byte, what the commands shown with it make.

Usage: doc_examples_test.py [--outputs] WALCUT_BINARY SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile


def unescape(line):
    """groff to shell: \\- is -, \\e is a backslash, \\(dq a double quote."""
    return line.replace('\\-', '-').replace('\\(dq', '"').replace('\\e', '\\').replace('\\&', '')


def man_examples(path):
    """(command, shown output) pairs of the page's EXAMPLES, in order."""
    text = open(path, encoding='utf-8').read()
    start = text.find('.SH EXAMPLES')
    if start < 0:
        return []
    end = text.find('\n.SH ', start + 1)
    section = text[start:end if end > 0 else len(text)]
    out = []
    for block in re.findall(r'^\.EX\n(.*?)^\.EE', section, re.S | re.M):
        lines = [unescape(l) for l in block.split('\n')]
        cmd, shown = None, []
        i = 0
        while i < len(lines):
            line = lines[i]
            if line.startswith('$ '):
                if cmd is not None:
                    out.append((cmd, shown))
                cmd, shown = line[2:], []
                while cmd.endswith('\\') and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1] + ' ' + lines[i].strip()
            elif cmd is not None:
                shown.append(line)
            i += 1
        if cmd is not None:
            out.append((cmd, shown))
    return [(cmd, strip_blank(shown)) for cmd, shown in out]


def strip_blank(shown):
    while shown and not shown[-1].strip():
        shown = shown[:-1]
    return shown


def readme_usage(path):
    """The commands of the README's usage block, without their comments."""
    text = open(path, encoding='utf-8').read()
    start = text.find('## Usage')
    block = re.search(r'```sh\n(.*?)```', text[start:], re.S).group(1)
    cmds = []
    for line in block.split('\n'):
        line = re.sub(r'\s+#.*$', '', line).strip()
        if line:
            cmds.append((line, []))
    return cmds


def readme_console(path):
    """(command, shown output) pairs of the README's ```console blocks, in order: a line
    starting with `$ ` is a command, the lines after it what it prints."""
    text = open(path, encoding='utf-8').read()
    out = []
    for block in re.findall(r'^```console\n(.*?)^```', text, re.S | re.M):
        cmd, shown = None, []
        for line in block.split('\n'):
            if line.startswith('$ '):
                if cmd is not None:
                    out.append((cmd, strip_blank(shown)))
                cmd, shown = line[2:], []
            elif cmd is not None:
                shown.append(line)
        if cmd is not None:
            out.append((cmd, strip_blank(shown)))
    return out


def readme_picture(walcut_dir, source, scratch, env):
    """The README's timeline picture is what the commands above it make, byte for byte."""
    text = open(os.path.join(source, 'README.md'), encoding='utf-8').read()
    start = text.find('## Seeing a cut')
    block = re.search(r'```sh\n(.*?)```', text[start:], re.S).group(1)
    picture = 'testdata/readme-timeline.svg'
    if picture not in block:
        return [f'README.md: the picture\'s commands do not write {picture}']
    scratch = os.path.join(scratch, 'picture')
    os.makedirs(scratch)
    for line in block.strip().split('\n'):
        cmd = line.replace(picture, 'timeline.svg')
        r = subprocess.run(['bash', '-c', cmd], cwd=scratch, env=env, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            return [f'README.md: `{line}` exited {r.returncode}: {r.stderr.strip()}']
    with open(os.path.join(scratch, 'timeline.svg'), 'rb') as made, \
            open(os.path.join(source, picture), 'rb') as shown:
        if made.read() != shown.read():
            return [f'README.md: {picture} is not what its commands make; remake it with them']
    return []


def expected(cmd, shown, following):
    """The exit statuses the text allows for `cmd`."""
    if following is not None and following[0].strip() == 'echo $?' and following[1]:
        code = following[1][0].strip()
        if code.isdigit():
            return {int(code)}
    if cmd.rstrip().endswith('; echo $?'):
        return {0}  # the shell line itself ends with echo; echoed() checks the number
    text = '\n'.join(shown)
    if 'walcut: error:' in text:
        return {1, 2, 3}
    if '|' in cmd:
        return {0}  # the status of a pipe is its last command's
    if ('PROBLEMS FOUND' in text or re.search(r'\d+ conflict\(s\)', text)
            or re.search(r'\b[1-9]\d* open gap\(s\)', text) or '"ok":false' in text
            or re.search(r'"open_gaps":[1-9]', text)):
        return {1}
    return {0}


def echoed(cmd, shown):
    """The number a command ending in `; echo $?` must print last, or None."""
    if cmd.rstrip().endswith('; echo $?'):
        if not shown or not shown[-1].strip().isdigit():
            return ''  # the text must show it
        return shown[-1].strip()
    return None


def matches(shown, output):
    """Whether the shown text, cut at `...`, appears in order in the output, ignoring
    spacing and line breaks."""
    squash = lambda s: re.sub(r'\s+', '', s)
    out, pos = squash(output), 0
    for chunk in re.split(r'\.\.\.', '\n'.join(shown)):
        chunk = squash(chunk)
        if chunk:
            pos = out.find(chunk, pos)
            if pos < 0:
                return False
            pos += len(chunk)
    return True


def run(name, examples, scratch, env, outputs):
    failures = []
    for k, (text_cmd, shown) in enumerate(examples):
        if text_cmd.strip() == 'echo $?':
            continue  # the previous command's status, checked with it
        cmd = text_cmd.replace('/tmp/', scratch + '/tmp/')
        following = examples[k + 1] if k + 1 < len(examples) else None
        want = expected(text_cmd, shown, following)
        echo = echoed(text_cmd, shown)
        outs = ['']
        try:
            r = subprocess.run(['bash', '-c', cmd], cwd=scratch, env=env, capture_output=True, text=True,
                               timeout=120)
            code = r.returncode
            err = r.stderr.strip().splitlines()
            # the two streams in either order: an error or warning may come first or last
            outs = [(a + b).replace(scratch + '/tmp/', '/tmp/')
                    for a, b in ((r.stdout, r.stderr), (r.stderr, r.stdout))]
        except subprocess.TimeoutExpired:
            code, err = 'timeout', []
        last_err = err[-1] if err else ''
        if code not in want:
            failures.append(f'{name}: `{text_cmd}` exited {code}, the text shows {sorted(want)}: {last_err}')
        elif echo is not None and r.stdout.strip().split('\n')[-1].strip() != echo:
            failures.append(f'{name}: `{text_cmd}` echoed {r.stdout.strip().split(chr(10))[-1]!r}, '
                            f'the text shows {echo!r}: {last_err}')
        elif (any(l.startswith('walcut: error:') for l in err)
              and not any('walcut: error:' in l for l in shown)):
            failures.append(f'{name}: `{text_cmd}` printed an error the text does not show: '
                            f'{next(l for l in err if l.startswith("walcut: error:"))}')
        elif outputs and not any(matches(shown, out) for out in outs):
            failures.append(f'{name}: `{text_cmd}` printed other than the text shows; it printed:\n'
                            + '\n'.join('    ' + l for l in outs[0].splitlines()[:40]))
    return failures


def main():
    args = sys.argv[1:]
    outputs = '--outputs' in args
    args = [a for a in args if a != '--outputs']
    if len(args) != 2:
        print(__doc__.strip().split('\n')[-1], file=sys.stderr)
        return 2
    walcut, source = os.path.abspath(args[0]), args[1]
    env = dict(os.environ)
    env['PATH'] = os.path.dirname(walcut) + os.pathsep + env['PATH']
    failures = []
    pages = [('README.md', readme_usage(os.path.join(source, 'README.md'))),
             ('README.md (outputs)', readme_console(os.path.join(source, 'README.md')))]
    man = os.path.join(source, 'man')
    for page in sorted(os.listdir(man)):
        if re.match(r'walcut.*\.[157]$', page):
            pages.append((page, man_examples(os.path.join(man, page))))
    for name, examples in pages:
        with tempfile.TemporaryDirectory() as scratch:
            os.makedirs(os.path.join(scratch, 'tmp'))
            env['HOME'] = scratch
            os.makedirs(os.path.join(scratch, '.local/share/bash-completion/completions'), exist_ok=True)
            os.makedirs(os.path.join(scratch, '.zfunc'), exist_ok=True)
            os.symlink(os.path.join(os.path.abspath(source), 'testdata'), os.path.join(scratch, 'testdata'))
            failures += run(name, examples, scratch, env, outputs)
            if name == 'README.md':
                failures += readme_picture(os.path.dirname(walcut), source, scratch, env)
        print(f'{name}: {len(examples)} command(s)')
    for f in failures:
        print('FAIL', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
