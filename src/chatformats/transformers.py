"""A transformers drop-in: ``tokenizer.apply_chat_template(...)`` (text or token ids) through
chatformats.

:func:`accelerate` replaces one tokenizer's ``apply_chat_template`` (on that object only) by a
function that renders with chatformats' pipeline layer whenever it can give exactly what
transformers gives, and calls the tokenizer's own method otherwise:

- a call that renders text (``tokenize=False``) must have ``return_assistant_tokens_mask`` and
  ``sanitize_control_tokens`` at their default ``False`` (the two options transformers reads
  when it does not tokenize: the first is then an error, the second rewrites the input).  The
  tokenizing options (``padding``, ``truncation``, ``max_length``, ``return_tensors``,
  ``return_dict``, ``tokenizer_kwargs``) are never looked at then, as transformers does not look
  at them without ``tokenize``: whatever they hold (a numpy array), the text is returned;
- a call that tokenizes (``tokenize=True``, transformers' default) is served by
  :func:`chatformats.apply_chat_template` with ``tokenize=True`` and this tokenizer (the same
  ``tokenizer(text, add_special_tokens=False, ...)`` call transformers makes, with the padding,
  truncation, tensor and ``tokenizer_kwargs`` arguments passed through, ``docs/ids.md``) unless
  it asks for ``return_assistant_tokens_mask`` (transformers' mask is zeros for these templates,
  chatformats' is not) or ``sanitize_control_tokens``;
- a template that calls ``strftime_now`` is served only while the process's ``LC_TIME`` is the
  C locale (``C``, ``POSIX``, ``C.UTF-8``): transformers formats the date with
  ``datetime.now().strftime(fmt)``, whose month and day names follow ``LC_TIME`` once an
  application sets it (``01 Dez 2026`` under ``de_DE``), where chatformats' clock writes the C
  locale's; in any other locale the tokenizer's own method runs;
- the template the tokenizer would use for the call (``get_chat_template(chat_template,
  tools)``: its own, a named one, or one passed as text) must be a ported one, recognised by
  its exact text (:func:`chatformats.detect`);
- no keyword argument may be named like one of chatformats' own parameters (``now``,
  ``strict``), which transformers would pass to the template as variables;
- and where chatformats fails (a :class:`~chatformats.ChatFormatError`), the tokenizer's own
  method runs, so a failure is transformers' own exception, as before.

The special tokens are the tokenizer's ``special_tokens_map`` at the time of each call, as
transformers reads them.  :func:`decelerate` restores the tokenizer's own method.  This module
imports nothing from transformers: it works on any object with transformers' tokenizer API.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar

from ._lookup import detect
from ._registry import ChatFormat
from .errors import ChatFormatError, UnknownFormatError

__all__ = ["accelerate", "decelerate", "is_accelerated"]

T = TypeVar("T")

_ATTRIBUTE = "apply_chat_template"
#: Parameters transformers reads even when it does not tokenize: the call is served only when
#: each is ``False`` (its default), by identity (a value whose truth or comparison is not a
#: plain bool, such as a numpy array, goes to transformers, which decides what it means).
_TEXT_OPTIONS = ("return_assistant_tokens_mask", "sanitize_control_tokens")
#: The tokenizing options and their defaults (a tokenizing call passes them to the tokenizer).
_TOKENIZING_DEFAULTS = {
    "padding": False, "truncation": False, "max_length": None, "return_tensors": None,
    "return_assistant_tokens_mask": False, "tokenizer_kwargs": None,
    "sanitize_control_tokens": False,
}
#: ``LC_TIME`` settings whose month and day names are the C locale's (what chatformats writes).
_C_LOCALES = frozenset({"C", "POSIX", "C.UTF-8", "C.utf8"})
#: chatformats' own keyword parameters: a template variable of that name cannot pass through.
_OWN_PARAMETERS = frozenset({"now", "strict"})


class _Accelerated:
    """The replacement ``apply_chat_template`` of one tokenizer."""

    def __init__(self, tokenizer: Any, original: Callable[..., Any]) -> None:
        import inspect

        self.tokenizer = tokenizer
        self.original = original
        self.signature = inspect.signature(original)
        #: template text -> its format (``None``: not a ported template)
        self.formats: dict[str, ChatFormat | None] = {}
        #: calls rendered by chatformats, and calls passed to the tokenizer's own method
        self.served = 0
        self.passed = 0

    def _format(self, template: Any) -> ChatFormat | None:
        if not isinstance(template, str):
            return None
        if template not in self.formats:
            try:
                self.formats[template] = detect(template)
            except UnknownFormatError:
                self.formats[template] = None
        return self.formats[template]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self._serve(args, kwargs)
        if result is _PASS:
            self.passed += 1
            return self.original(*args, **kwargs)
        self.served += 1
        return result

    def _serve(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            return _PASS
        bound.apply_defaults()
        given = dict(bound.arguments)
        extra = given.pop("kwargs", {})
        tokenize = given.get("tokenize", True)
        if tokenize is True:
            # The tokenizing path (chatformats.ids): the same encoding call transformers makes;
            # served unless an assistant mask (transformers' are zeros for these templates,
            # chatformats' are not) or sanitized control tokens are asked for.
            if given.get("return_assistant_tokens_mask", False) is not False or \
                    given.get("sanitize_control_tokens", False) is not False or \
                    {"tokenizer", "safe"}.intersection(extra):
                return _PASS
            tokenizing = {name: given.get(name, default) for name, default in _TOKENIZING_DEFAULTS.items()
                          if name not in ("return_assistant_tokens_mask", "sanitize_control_tokens")}
            extra = dict(extra, tokenize=True, tokenizer=self.tokenizer,
                         return_dict=given.get("return_dict", True), **tokenizing)
        elif tokenize is not False:
            return _PASS
        elif any(given.get(name, False) is not False for name in _TEXT_OPTIONS):
            return _PASS
        if _OWN_PARAMETERS.intersection(extra):
            return _PASS
        try:
            template = self.tokenizer.get_chat_template(given.get("chat_template"), given.get("tools"))
        except Exception:  # noqa: BLE001 — transformers raises its own error for this call
            return _PASS
        fmt = self._format(template)
        if fmt is None:
            return _PASS
        if "strftime_now" in fmt.calls and not _c_time_locale():
            return _PASS
        from .pipeline import apply_chat_template

        try:
            special_tokens = dict(self.tokenizer.special_tokens_map)
            return apply_chat_template(
                fmt.bind(special_tokens), given.get("conversation"),
                tools=given.get("tools"), documents=given.get("documents"),
                add_generation_prompt=given.get("add_generation_prompt", False),
                continue_final_message=given.get("continue_final_message", False),
                **extra,
            )
        except (ChatFormatError, TypeError):
            return _PASS


_PASS = object()


def _c_time_locale() -> bool:
    """Whether the process's ``LC_TIME`` is the C locale (a query: nothing is changed)."""
    import locale

    try:
        return locale.setlocale(locale.LC_TIME) in _C_LOCALES
    except (locale.Error, ValueError):
        return False


def accelerate(tokenizer: T) -> T:
    """Make ``tokenizer.apply_chat_template(..., tokenize=False)`` render through chatformats
    where its template is a ported one (see the module docstring); returns the tokenizer."""
    current = getattr(tokenizer, _ATTRIBUTE, None)
    if isinstance(current, _Accelerated):
        return tokenizer
    if not callable(current) or not callable(getattr(tokenizer, "get_chat_template", None)):
        raise TypeError(f"{type(tokenizer).__name__} has no apply_chat_template/get_chat_template: "
                        "not a transformers tokenizer")
    accelerated = _Accelerated(tokenizer, current)
    if "tokenize" not in accelerated.signature.parameters:
        # a processor (its template also expands media tokens): not what the pipeline mirrors
        raise TypeError(f"{type(tokenizer).__name__}.apply_chat_template is not a tokenizer's "
                        "(no tokenize parameter)")
    setattr(tokenizer, _ATTRIBUTE, accelerated)
    return tokenizer


def decelerate(tokenizer: T) -> T:
    """Give ``tokenizer`` its own ``apply_chat_template`` back; returns the tokenizer."""
    current = getattr(tokenizer, _ATTRIBUTE, None)
    if isinstance(current, _Accelerated):
        original = current.original
        try:
            delattr(tokenizer, _ATTRIBUTE)
        except AttributeError:
            pass
        if isinstance(getattr(tokenizer, _ATTRIBUTE, None), _Accelerated):  # still ours: put it back
            setattr(tokenizer, _ATTRIBUTE, original)
    return tokenizer


def is_accelerated(tokenizer: Any) -> bool:
    """Whether :func:`accelerate` has been applied to ``tokenizer``."""
    return isinstance(getattr(tokenizer, _ATTRIBUTE, None), _Accelerated)
