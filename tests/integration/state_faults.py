"""Faults of a directory's disk for the integration tests (they run as root, locally and in CI): a
small tmpfs mounted for one test, filled up and freed again, or a directory bind-mounted
read-only (chmod does not stop root)."""
import contextlib
import errno
import os
import pathlib
import subprocess


def _sh(*args):
    done = subprocess.run(list(map(str, args)), capture_output=True, text=True)
    assert done.returncode == 0, f"{' '.join(map(str, args))}: {done.stderr.strip()}"


def _unmount(path):
    if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


class SmallDisk:
    """A mounted tmpfs: `fill()` takes every free byte, `free()` gives them back."""

    def __init__(self, root: pathlib.Path):
        self.root = root
        self.filler = root / "filler"

    def fill(self):
        chunk = b"\0" * 4096
        with open(self.filler, "ab", buffering=0) as f:
            while True:
                try:
                    f.write(chunk)
                except OSError as e:
                    assert e.errno == errno.ENOSPC, e
                    break
        # tmpfs counts whole pages: the last partial page is gone too.
        assert os.statvfs(self.root).f_bavail == 0

    def free(self):
        self.filler.unlink(missing_ok=True)


@contextlib.contextmanager
def small_disk(root: pathlib.Path, size: str = "4m"):
    """Mounts a tmpfs of `size` at `root` for the duration; always unmounted."""
    root.mkdir(parents=True, exist_ok=True)
    _sh("mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", root)
    try:
        yield SmallDisk(root)
    finally:
        _unmount(root)


@contextlib.contextmanager
def read_only(directory: pathlib.Path):
    """Bind-mounts `directory` onto itself read-only for the duration (root included)."""
    _sh("mount", "--bind", directory, directory)
    try:
        _sh("mount", "-o", "remount,bind,ro", directory)
        yield directory
    finally:
        _unmount(directory)
