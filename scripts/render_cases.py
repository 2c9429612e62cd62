"""Render a batch of cases with chatformats from a source tree, in a fresh interpreter.

The runtime tests (``tests/test_runtimes.py``) run this script where Jinja cannot run or must
not be trusted to be absent: under ``python -I -S`` (no site-packages), under Pyodide
(``tests/pyodide/run.js`` loads it into the WebAssembly interpreter), with an audit hook
(``--audit``), and under other ``TZ``/``LC_ALL``/``PYTHONHASHSEED`` values.  The test compares
the results with CPython's own renders of the same cases, byte for byte.

    python scripts/render_cases.py --src SRC --cases CASES.pickle --out RESULTS.pickle
        [--audit] [--setlocale] [--inject KIND]

``CASES.pickle`` holds a list of ``(format, messages, variables, now)``.  ``RESULTS.pickle``
receives ``{"results": [...], "violations": [...], "modules": [...], "events": {...}}`` where
each result is ``("ok", text)`` or ``("error", exception class name, message)``.

With ``--audit`` the script installs ``sys.addaudithook`` *before* importing chatformats and
runs in three phases:

1. ``import``: ``import chatformats`` and resolve each format's port.  Allowed: ``import``,
   ``open`` (read-only), ``compile`` and ``exec`` of modules and files of the chatformats
   package and of the standard library only (no code compiled from a string, such as the
   methods ``dataclasses`` and ``namedtuple`` generate).
2. ``render``: render every case.  No ``compile``, ``exec``, ``open``, ``import`` at all, and
   no other audit event except the few listed in ``RENDER_ALLOWED``.
3. ``done``: write the results (the hook ignores this phase).

In every phase, any ``subprocess``/``os.system``/``os.exec*``/``os.spawn*``/``os.fork``/
``socket`` event is a violation.  ``--inject KIND`` commits one violation of kind ``KIND``
during the render phase (``dataclass``: during the import phase), so the test can prove the hook
sees it.

Only the standard library is used; Python 3.9+.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys

#: Audit events a render may raise, each with the reason it is neither I/O nor dynamic code.
RENDER_ALLOWED = {
    "builtins.id": ("id() of a container: the cycle guards of check_json_like (for shared or cyclic "
                    "values) and of tojson with an indent"),
}

#: Event names (or prefixes ending in ".") that are violations in every phase.
ALWAYS_FORBIDDEN = (
    "socket.", "subprocess.", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork",
    "os.forkpty", "os.startfile", "pty.", "urllib.", "http.", "ftplib.", "smtplib.", "ctypes.",
    "webbrowser.",
)

#: Events of dynamic code and I/O: forbidden while rendering; while importing, allowed only for
#: the package's and the standard library's own files.
DYNAMIC_OR_IO = ("compile", "exec", "open", "import")


def _stdlib_dirs() -> tuple:
    import sysconfig

    dirs = set()
    for key in ("stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.realpath(path))
    # The zipped standard library (``lib/python3XY.zip``; Pyodide's only copy of it).
    zipped = "python%d%d.zip" % sys.version_info[:2]
    for entry in sys.path:
        if os.path.basename(entry) == zipped:
            dirs.add(os.path.realpath(entry))
    return tuple(dirs)


def _is_stdlib_module(name: str) -> bool:
    top = name.partition(".")[0]
    names = getattr(sys, "stdlib_module_names", None)  # 3.10+
    if names is not None:
        return top in names or top in sys.builtin_module_names
    import importlib.util

    spec = importlib.util.find_spec(top)
    origin = getattr(spec, "origin", None) or ""
    return origin in ("built-in", "frozen") or os.path.realpath(origin).startswith(_stdlib_dirs())


class Auditor:
    def __init__(self, package_dir: str) -> None:
        self.package_dir = os.path.realpath(package_dir) + os.sep
        self.stdlib = _stdlib_dirs()
        self.phase = "setup"
        self.violations: list = []
        self.events: dict = {}
        self.busy = False

    def _inside(self, path: object, package: bool = True) -> bool:
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str) or not os.path.isabs(path):
            return False
        real = os.path.realpath(path)
        if package and real.startswith(self.package_dir):
            return True
        return any(real == d or real.startswith(d + os.sep) for d in self.stdlib)

    def _ok_during_import(self, event: str, args: tuple) -> bool:
        if event == "import":
            module = args[0]
            if module == "chatformats" or module.startswith("chatformats.") or _is_stdlib_module(module):
                return True
            # A standard-library module's own optional import (copy.py tries Jython's
            # ``org.python.core``); whatever such an import loads is caught by the final check
            # of ``sys.modules``.
            return self._importer_is_stdlib()
        if event == "open":
            path, mode = args[0], args[1]
            if isinstance(mode, str) and any(c in mode for c in "wax+"):
                return False
            return self._inside(path) or path is None  # None: os.open_code on a descriptor
        if event in ("compile", "exec"):
            filename = args[1] if event == "compile" else getattr(args[0], "co_filename", None)
            if isinstance(filename, str) and filename.startswith("<frozen "):
                return True  # a frozen standard-library module (importlib, ntpath, ...)
            # A module of the package or of the standard library.  Code compiled from a string
            # (``<string>``: dataclasses' generated methods, namedtuple's ``__new__``) is not,
            # even when the standard library generates it: the package defines no such class
            # and imports no module that does.
            return self._inside(filename)
        return False

    def _importer_is_stdlib(self) -> bool:
        frame = sys._getframe(3)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        return frame is not None and self._inside(frame.f_code.co_filename, package=False)

    def __call__(self, event: str, args: tuple) -> None:
        if self.busy or self.phase in ("setup", "done"):
            return
        self.busy = True
        try:
            key = (self.phase, event)
            self.events[key] = self.events.get(key, 0) + 1
            bad = None
            if event.startswith(ALWAYS_FORBIDDEN):
                bad = "forbidden in every phase"
            elif self.phase == "import":
                if event in DYNAMIC_OR_IO and not self._ok_during_import(event, args):
                    bad = "outside the package and the standard library"
            elif self.phase == "render":
                if event not in RENDER_ALLOWED:
                    bad = "no audit event may fire while rendering"
            if bad is not None:
                self.violations.append((self.phase, event, _describe(args), bad))
        finally:
            self.busy = False


def _describe(args: tuple) -> str:
    parts = []
    for arg in args[:3]:
        if hasattr(arg, "co_filename"):
            parts.append(f"<code {arg.co_name} in {arg.co_filename}>")
        else:
            text = repr(arg)
            parts.append(text if len(text) < 200 else text[:200] + "...")
    return ", ".join(parts)


def _inject(kind: str) -> None:
    """Commit one violation of ``kind`` (the test proves the hook reports it)."""
    if kind == "open":
        with open(__file__, "rb") as f:
            f.read(1)
    elif kind == "compile":
        compile("1 + 1", "<injected>", "eval")
    elif kind == "exec":
        exec("x = 1", {})  # noqa: S102 — the violation under test
    elif kind == "import":
        import jinja2  # noqa: F401 — a module outside the package and the standard library
    elif kind == "import-stdlib":
        import xml.dom.minidom  # noqa: F401 — a standard-library module first imported mid-render
    elif kind == "socket":
        import socket

        socket.socket().close()
    elif kind == "subprocess":
        import subprocess

        subprocess.run([sys.executable, "-c", "pass"], check=False)
    elif kind == "dataclass":  # committed in the import phase: generated code, as a dataclass's
        import dataclasses

        dataclasses.make_dataclass("Injected", ["a"])
    else:
        raise SystemExit(f"unknown --inject kind {kind!r}")


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", required=True, help="the directory holding the chatformats package")
    parser.add_argument("--cases", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--audit", action="store_true")
    parser.add_argument("--setlocale", action="store_true",
                        help="adopt the environment's locale (locale.setlocale(LC_ALL, '')) first")
    parser.add_argument("--inject", default=None)
    opts = parser.parse_args(argv)

    if opts.setlocale:
        import locale

        locale.setlocale(locale.LC_ALL, "")
    with open(opts.cases, "rb") as f:
        cases = pickle.load(f)
    src = os.path.abspath(opts.src)
    sys.path.insert(0, src)

    auditor = Auditor(os.path.join(src, "chatformats"))
    if opts.inject == "socket":
        import socket  # noqa: F401 — loaded first, so the violation seen is the socket itself
    elif opts.inject == "subprocess":
        import subprocess  # noqa: F401
    preloaded = sorted(sys.modules)
    if opts.audit:
        sys.addaudithook(auditor)

    auditor.phase = "import"
    import chatformats

    for name in sorted({case[0] for case in cases}):
        chatformats.get_format(name).port  # noqa: B018 — imports the port module

    if opts.inject == "dataclass":
        _inject(opts.inject)

    auditor.phase = "render"
    render = chatformats.render
    error_base = chatformats.ChatFormatError
    results = []
    for name, messages, variables, now in cases:
        try:
            results.append(("ok", render(name, messages, now=now, **variables)))
        except error_base as exc:
            results.append(("error", type(exc).__name__, str(exc)))
    if opts.inject and opts.inject != "dataclass":
        _inject(opts.inject)
    auditor.phase = "done"

    modules = sorted(sys.modules)
    with open(opts.out, "wb") as f:
        pickle.dump({
            "results": results,
            "violations": auditor.violations,
            "modules": modules,
            "preloaded": preloaded,
            "events": {f"{phase}:{event}": n for (phase, event), n in sorted(auditor.events.items())},
            "chatformats_file": chatformats.__file__,
            "flags": {"isolated": sys.flags.isolated, "no_site": sys.flags.no_site},
            "version": sys.version,
        }, f, protocol=4)
    return 0


if __name__ == "__main__":
    sys.exit(main())
