"""`--check` for the fixture generators: write the fixtures into a temporary folder and compare them,
byte for byte, with the committed ones.

    from fixturecheck import add_option, check
    add_option(parser)                       # --check
    check("gen-zip-fixtures", committed_dir, write, owns=lambda rel: "/" not in rel)

`write(folder)` is the generator's own writer, pointed at the temporary folder. A file it writes that
is missing from `committed_dir` or differs from it is out of date; so is a committed file the
generator owns (`owns(relative path)`) that it no longer writes. The generator's output (and that of
the libraries it calls, usd-core's warnings included) is shown only when writing fails.
"""
import os
import sys
import tempfile


def _files(root):
    names = set()
    for dirpath, _, files in os.walk(root):
        for name in files:
            names.add(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return names


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def differing(generated, committed, owns=lambda rel: False):
    """Relative paths (with `/`) that differ between the `generated` and `committed` folders."""
    written = _files(generated)
    stale = [rel for rel in sorted(written)
             if not os.path.isfile(os.path.join(committed, rel))
             or _read(os.path.join(committed, rel)) != _read(os.path.join(generated, rel))]
    if os.path.isdir(committed):
        stale += sorted(rel for rel in _files(committed) - written if owns(rel))
    return stale, len(written)


class _Quiet:
    """Sends file descriptors 1 and 2 to a temporary file (child processes and C libraries too)."""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self.log = tempfile.TemporaryFile()
        self.saved = [os.dup(1), os.dup(2)]
        os.dup2(self.log.fileno(), 1)
        os.dup2(self.log.fileno(), 2)
        return self

    def __exit__(self, kind, value, traceback):
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, saved in zip((1, 2), self.saved):
            os.dup2(saved, fd)
            os.close(saved)
        if kind is not None:
            self.log.seek(0)
            sys.stderr.write(self.log.read().decode("utf-8", "replace"))
        self.log.close()
        return False


def add_option(parser, where="the committed files"):
    """The `--check` option, on an argparse parser or mutually exclusive group."""
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 unless %s are exactly what would be written" % where)


def check(name, committed, write, owns=lambda rel: False):
    """Exit 1 naming every out-of-date file, else print one line and return."""
    with tempfile.TemporaryDirectory(prefix=name + ".") as folder:
        with _Quiet():
            write(folder)
        stale, count = differing(folder, committed, owns)
    if stale:
        sys.exit("%s: out of date: %s (rerun scripts/%s.py)" % (name, ", ".join(stale), name))
    print("%s: %d files up to date" % (name, count))
