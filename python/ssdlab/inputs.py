"""What ssdlab reads, read one way: the files other than traces and device TOMLs (result JSONs,
sweep specs and stores, Q-tables, saved trees, recordings), and the one-line shape of what it
says about them (issue 58).

Every reader here answers a bad file with one :class:`InputError` line that names the file and,
where there is one, the field (``results.json: schedulers.greedy.p99: expected a number, got
"x"``): never a traceback, whatever the file holds (a wrong type, a null, nesting thousands
deep, a truncated file, a byte-order mark, bytes that are not UTF-8), and never a line over
:data:`MAX_LINE` characters, however long the value it quotes.
"""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any, Iterable, Optional

from ssdlab.errors import ConfigError
from ssdlab.workload import shown

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

#: The longest error line ssdlab prints (issue 58: "no error line over ~300 characters,
#: anywhere, for any input"), and the longest warning line (an advisory explains a setting and
#: its way out, up to ~400 characters as written; a quoted value is what gets shortened).
MAX_LINE, MAX_WARNING_LINE = 320, 480
#: A word of a message longer than this is shown as its head and tail (a 5 MB field, a path
#: thousands of characters long): what it was is still recognisable, the line stays short.
MAX_WORD = 120
#: The longest file name (one path component) and path Linux takes (NAME_MAX, PATH_MAX): a
#: longer name is refused naming where it came from, not with the operating system's "File name
#: too long".
NAME_MAX, PATH_MAX = 255, 4096
#: How deep the nesting of a JSON file ssdlab reads may go. ssdlab writes at most 8 levels (the
#: rlgc and offline Table I results); deeper is a damaged or foreign file.
MAX_DEPTH = 64

BOM = "\ufeff"


class InputError(ConfigError):
    """A file or value ssdlab cannot use; the message names it (one line)."""


def shorten_word(word: str, limit: int = MAX_WORD) -> str:
    if len(word) <= limit:
        return word
    head, tail = limit * 2 // 3, limit // 4
    return f"{word[:head]}…{word[-tail:]} ({len(word):,} characters)"


def shorten(message: str, limit: int = MAX_LINE) -> str:
    """``message`` on one line of at most about ``limit`` characters: newlines folded, each
    over-long word cut to its head and tail, then the middle of the line if it is still long
    (the start names the input, the end says what was expected: both are kept)."""
    text = " ".join(message.split("\n"))
    if len(text) > limit:
        text = " ".join(shorten_word(w) for w in text.split(" "))
    if len(text) > limit:
        head = limit * 3 // 5
        text = f"{text[:head]} … {text[-(limit - head - 3):]}"
    return text


def name_problem(value: str) -> Optional[str]:
    """What is wrong with ``value`` as a path, or None: a file name over NAME_MAX, a path over
    PATH_MAX, a NUL byte."""
    if "\0" in value:
        return "a name with a NUL byte, which no file name may hold"
    if len(value) > PATH_MAX:
        return f"a path of {len(value):,} characters, longer than a path may be ({PATH_MAX:,})"
    longest = max((len(os.fsencode(p)) for p in value.split("/")), default=0)
    if longest > NAME_MAX:
        return f"a name of {longest:,} bytes, longer than a file name may be ({NAME_MAX})"
    return None


def check_name(value: str, where: str) -> None:
    """Refuse ``value`` (a path or a device name) that cannot name a file, naming ``where``."""
    problem = name_problem(str(value))
    if problem:
        raise InputError(f"{where}: {problem}")


def is_file(path: Any) -> bool:
    """``Path(path).is_file()`` that is False for a name that cannot be a file (too long, a NUL
    byte) instead of raising."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def is_stream(path: Path) -> bool:
    """True for a pipe, a FIFO, a character device or a socket (``/dev/stdin``, ``<(cmd)``):
    what can be read once, and not reopened or read ahead of."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def os_message(e: OSError) -> str:
    if e.errno == errno.ENAMETOOLONG:
        return "the name is longer than a file name may be"
    return e.strerror or str(e)


def read_text(path: Path, where: str = "") -> str:
    """The text of ``path`` (UTF-8; a leading byte-order mark dropped). ``where`` names the
    option it came from (``--from``), if any."""
    label = f"{where} {path}" if where else str(path)
    check_name(str(path), where or str(path))
    try:
        if path.is_dir():
            raise InputError(f"{label}: is a folder; expected a file")
        data = path.read_bytes()
    except OSError as e:
        raise InputError(f"{label}: cannot read: {os_message(e)}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(f"{path}:{line}: expected UTF-8 text, got the byte 0x{data[e.start]:02x} "
                         f"(byte offset {e.start:,})") from None
    return text[1:] if text.startswith(BOM) else text


def depth(value: Any) -> int:
    """How deep ``value``'s arrays and objects nest (iteratively: a file nested thousands deep
    is measured, not recursed into)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v if isinstance(x, (dict, list)))
    return deepest


def parse_json(text: str, path: Any, expected: str = "JSON") -> Any:
    """``text`` (the content of ``path``) as JSON, or one line naming the file and line."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        what = "the file ends before the JSON does (truncated?)" if e.pos >= len(text.rstrip()) else e.msg
        raise InputError(f"{path}:{e.lineno}: expected {expected}: {what}") from None
    except (RecursionError, MemoryError):
        raise InputError(f"{path}: nested deeper than {MAX_DEPTH} levels or too large; expected {expected}") from None
    if depth(value) > MAX_DEPTH:
        raise InputError(f"{path}: nested deeper than {MAX_DEPTH} levels; expected {expected}")
    return value


def load_json(path: Path, where: str = "", expected: str = "JSON") -> Any:
    return parse_json(read_text(path, where), path, expected)


def load_toml(path: Path, where: str = "") -> dict[str, Any]:
    """``path`` as TOML (a byte-order mark dropped), or one line naming the file and line."""
    import re

    text = read_text(path, where)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(e))
        raise InputError(f"{path}:{m.group(1)}: invalid TOML: {msg}" if m else f"{path}: invalid TOML: {msg}") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deep; expected a TOML file") from None


# -- fields ---------------------------------------------------------------------------------------
#: What each JSON type is called in a message (expected, and got).
TYPES = {dict: "an object", list: "an array", str: "text", bool: "a boolean", int: "an integer", float: "a number"}


def type_name(value: Any) -> str:
    return "null" if value is None else TYPES.get(type(value), type(value).__name__)


class Fields:
    """A JSON object read from ``path``, whose fields are fetched checked: a missing or
    mistyped field is one :class:`InputError` naming the file and the field's dotted path."""

    def __init__(self, value: Any, path: Any, at: str = ""):
        self.value, self.path, self.at = value, path, at

    def where(self, key: Any = None) -> str:
        at = self.at if key is None else (f"{self.at}.{key}" if self.at else str(key))
        return f"{self.path}: {at}" if at else f"{self.path}"

    def fail(self, key: Any, expected: str, got: Any) -> InputError:
        return InputError(f"{self.where(key)}: expected {expected}, got {type_name(got)} {shown(got, 40)}"
                          if got is not None else f"{self.where(key)}: expected {expected}, got null")

    def get(self, key: str, kind: Any, default: Any = ..., *, expected: Optional[str] = None) -> Any:
        """The field ``key`` of this object, of type ``kind`` (a type or tuple; ``float``
        accepts integers; ``bool`` is never a number)."""
        if not isinstance(self.value, dict):
            raise self.fail(None, "an object", self.value)
        if key not in self.value:
            if default is not ...:
                return default
            raise InputError(f"{self.where(key)}: missing; expected {expected or TYPES.get(kind, kind)}")
        return self.check(key, self.value[key], kind, expected)

    def check(self, key: Any, v: Any, kind: Any, expected: Optional[str] = None) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = any(_is(v, k) for k in kinds)
        if not ok:
            raise self.fail(key, expected or " or ".join(TYPES.get(k, str(k)) for k in kinds), v)
        return float(v) if kinds == (float,) else v

    def sub(self, key: str, default: Any = ...) -> "Fields":
        """The object at ``key`` as :class:`Fields`."""
        v = self.get(key, dict, default)
        return Fields(v, self.path, f"{self.at}.{key}" if self.at else key)


def _is(v: Any, kind: Any) -> bool:
    if kind is float:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind is int:
        return isinstance(v, int) and not isinstance(v, bool)
    return isinstance(v, kind)


# -- following what a reader touched --------------------------------------------------------------
class Trail:
    """The dotted path of the field a reader fetched last, so that an error from deep inside a
    reader (a ``TypeError`` from arithmetic on a string, a ``KeyError``) can name the field."""

    def __init__(self) -> None:
        self.last = ""


class TrackedDict(dict):
    """A JSON object whose fetched values remember their dotted path in ``trail``."""

    def __init__(self, value: dict, trail: Trail, at: str):
        super().__init__(value)
        self._trail, self._at = trail, at

    def _child(self, key: Any, value: Any) -> Any:
        at = f"{self._at}.{key}" if self._at else str(key)
        self._trail.last = at
        return tracked(value, self._trail, at)

    def __getitem__(self, key: Any) -> Any:
        self._trail.last = f"{self._at}.{key}" if self._at else str(key)  # a missing key: named too
        return self._child(key, super().__getitem__(key))

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return self[key]
        self._trail.last = f"{self._at}.{key}" if self._at else str(key)
        return default

    def items(self):  # type: ignore[override]
        return [(k, self._child(k, v)) for k, v in super().items()]

    def values(self):  # type: ignore[override]
        return [v for _, v in self.items()]


class TrackedList(list):
    def __init__(self, value: list, trail: Trail, at: str):
        super().__init__(value)
        self._trail, self._at = trail, at

    def __getitem__(self, i: Any) -> Any:
        v = super().__getitem__(i)
        if isinstance(i, slice):
            return v
        at = f"{self._at}[{i}]"
        self._trail.last = at
        return tracked(v, self._trail, at)

    def __iter__(self):
        for i, v in enumerate(super().__iter__()):
            at = f"{self._at}[{i}]"
            self._trail.last = at
            yield tracked(v, self._trail, at)


def tracked(value: Any, trail: Trail, at: str = "") -> Any:
    if isinstance(value, dict) and not isinstance(value, TrackedDict):
        return TrackedDict(value, trail, at)
    if isinstance(value, list) and not isinstance(value, TrackedList):
        return TrackedList(value, trail, at)
    return value


class FieldError(ValueError):
    """A reader's own check of a field failed: ``field`` (its dotted path) and what was expected."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


#: What a reader raises on a field of the wrong shape (``float("x")``, ``None + 1``, a missing
#: key, an index past the end, a method of the wrong type).
SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError, ZeroDivisionError, OverflowError)


def shape_error(path: Any, trail: Trail, e: BaseException, expected: str) -> InputError:
    """``e`` (one of :data:`SHAPE_ERRORS`, raised reading a file) as one line naming the file
    and the field last fetched."""
    if isinstance(e, FieldError):
        return InputError(f"{path}: {e.field}: {shorten(str(e), 160)}")
    if isinstance(e, KeyError):
        what = "missing"
    else:
        what = " ".join(str(e).split()) or type(e).__name__
    field = f" {trail.last}:" if trail.last else ""
    return InputError(f"{path}:{field} {shorten(what, 120)}; expected {expected}")


def spooled(path: Path, where: str) -> Path:
    """``path`` itself when it is a regular file; for a pipe, a FIFO or ``/dev/stdin`` (what
    can be read once), its whole content copied into a temporary file first, whose path is
    returned. Format detection reads a trace's first 4 KiB and then opens it again, and a
    dense LBA map or ``trace info`` read it twice: a stream would hang or look empty the
    second time (issue 58). The copy keeps the stream's name (``…/ssdlab-stream-*/stdin``),
    so errors still say which input, and is removed when the process exits."""
    check_name(str(path), where)
    if not is_stream(path):
        return path
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="ssdlab-stream-"))
    atexit.register(shutil.rmtree, folder, True)
    name = path.name if path.name not in ("", "0", "1", "2") and not path.name.isdigit() else "stream"
    copy = folder / name
    try:
        with open(path, "rb") as src, open(copy, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except OSError as e:
        raise InputError(f"{where} {path}: cannot read the stream: {os_message(e)}") from None
    return copy


def device_text(device: str, where: str = "-d/--device") -> str:
    """What the core takes as a device: a TOML file's text (read as :func:`read_text` reads,
    errors naming the file), or the preset name itself."""
    check_name(str(device), where)
    if is_file(device):
        return read_text(Path(device), where)
    from ssdlab import _core

    names = _core.preset_names()
    if device not in names and "\n" not in device:
        raise ConfigError(f"{where} {device}: not a preset ({', '.join(names)}) nor a readable TOML file")
    return device
