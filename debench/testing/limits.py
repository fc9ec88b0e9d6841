"""A command started under resource limits, for the tests and benchmarks of hostile inputs (issue
43): an address-space limit (what a file read without bounds runs into), a file size limit (what a
full disk does to a write), a working folder deleted before the command starts.

The limits are set by a small interpreter that then becomes the command (``os.execv``, same process
id), not by ``subprocess``'s ``preexec_fn``: that is unsafe in a process with threads, such as one
running the stub server.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

GB = 1 << 30

_SHIM = (
    "import os, resource, sys\n"
    "space, size, gone = (int(x) for x in sys.argv[1:4])\n"
    "if space: resource.setrlimit(resource.RLIMIT_AS, (space, space))\n"
    "if size: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))\n"
    "if gone: os.rmdir(os.getcwd())\n"
    "os.execv(sys.argv[4], sys.argv[4:])"
)


def limited(cmd: Sequence[str], *, address_space: int = 0, file_size: int = 0, delete_cwd: bool = False) -> list[str]:
    """``cmd`` (its first item an absolute path, e.g. ``sys.executable``) run with at most
    ``address_space`` bytes of virtual memory and ``file_size`` bytes per file written (0: no
    limit), after its working folder is removed when ``delete_cwd``."""
    return [sys.executable, "-I", "-S", "-c", _SHIM, str(address_space), str(file_size), str(int(delete_cwd)), *cmd]
