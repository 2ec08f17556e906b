"""OS-level locks of a store: one writer at a time, readers never see a half cube.

Two lock files live in a store directory:

``writer.lock``
    Held exclusively (``fcntl.flock``) by the process that runs a study for
    the whole run, consolidation included. A second writer does not wait: it
    fails at once with :class:`StoreBusyError`, naming the process that holds
    the lock (its id is written into the file). Standalone consolidation
    (:func:`bayescal.cube.consolidate_store`) waits for it instead.
``cube.lock``
    Held exclusively while ``results.zarr`` is replaced and shared by
    :func:`bayescal.cube.open_results` while it reads the cube, so that a
    reader never meets a cube half written or half removed.

``flock`` locks belong to the open file and are released by the kernel when
the process ends however it ends (``kill -9`` included): a killed run never
leaves a stale lock. After taking a lock the file is checked to still be the
one at the path (a store removed and re-created in between is locked again).
Locks are advisory and need a POSIX system (Linux, macOS).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from types import TracebackType

__all__ = ["StoreBusyError", "StoreLock"]


class StoreBusyError(RuntimeError):
    """Another process is writing the store.

    Attributes
    ----------
    pid : int or None
        The id of the process holding the lock (None when unknown).
    """

    def __init__(self, root: str | os.PathLike[str], pid: int | None) -> None:
        self.pid = pid
        who = f"process {pid}" if pid is not None else "another process"
        super().__init__(f"store {str(root)!r} is being written by {who}; wait for it to "
                         "finish (or stop it), then run again with --resume")


class StoreLock:
    """An exclusive or shared ``flock`` on a file of a store directory.

    Parameters
    ----------
    path : path
        The lock file (created if missing; its directory must exist).
    shared : bool, default=False
        Take a shared (reader) lock instead of an exclusive one.
    wait : bool, default=False
        Block until the lock is free; otherwise raise
        :class:`StoreBusyError` at once when it is held.
    timeout : float or None, default=None
        With ``wait``, give up after this many seconds (``StoreBusyError``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> with StoreLock(root / "writer.lock") as lock:
    ...     lock.held
    True
    """

    def __init__(self, path: str | os.PathLike[str], *, shared: bool = False,
                 wait: bool = False, timeout: float | None = None) -> None:
        self.path = Path(path)
        self.shared = shared
        self.wait = wait
        self.timeout = timeout
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now."""
        return self._fd is not None

    def holder(self) -> int | None:
        """Process id written by the exclusive holder (None when unknown)."""
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return int(text) if text.isdigit() else None

    def acquire(self) -> StoreLock:
        """Take the lock (see the class parameters); returns self."""
        import fcntl

        if self._fd is not None:
            raise RuntimeError(f"the lock {self.path} is already held by this object")
        mode = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                if self.wait and deadline is None:
                    fcntl.flock(fd, mode)
                else:
                    self._try(fd, mode, deadline)
            except BaseException:
                os.close(fd)
                raise
            # the file may have been removed (store deleted) while we waited
            try:
                same = os.stat(self.path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        self._fd = fd
        if not self.shared:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        return self

    def _try(self, fd: int, mode: int, deadline: float | None) -> None:
        import fcntl

        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                if not self.wait or (deadline is not None and time.monotonic() > deadline):
                    raise StoreBusyError(self.path.parent, self.holder()) from None
                time.sleep(0.05)

    def release(self) -> None:
        """Release the lock (no-op when not held)."""
        import fcntl

        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> StoreLock:
        return self.acquire()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()
