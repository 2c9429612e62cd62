"""Token ids: the prompt encoded by the caller's tokenizer, with the provenance of every token.

- :func:`chatformats.render_ids` — the template layer (``render``'s arguments) encoded: an
  :class:`Ids` (:func:`encode_rendering` of ``render_spans``).
- :func:`tokenized` — ``apply_chat_template(..., tokenize=True, tokenizer=...)``: what
  transformers 5.24's ``tokenizer.apply_chat_template(..., tokenize=True)`` returns (``docs/ids.md``).

The tokenizer is the caller's, duck-typed: a ``tokenizers.Tokenizer``, or a transformers fast
tokenizer (its ``backend_tokenizer`` is one).  Nothing here imports a tokenizer library.  The
encoding is transformers': the rendered text with ``add_special_tokens=False``.

Provenance: a token's source is the span (``Rendering.spans``) that holds its *first* character
(``None``: template text); a token whose characters run past that span's end *straddles* (a
byte-level merge across ``\\n\\n`` or a header's newline).  A token with an empty offset range
takes the span at its start.

Safe ids (``safe=True``): a control token (one of the tokenizer's added tokens) that the
tokenizer matched in text that is not wholly template text is encoded as text instead: its
string through the tokenizer's normalizer, pre-tokenizer and model, without the added
vocabulary.  Added tokens split a text into sections that a tokenizer encodes one by one, so
every other token is the plain encoding's: the safe ids are the plain ids with each planted
control-token id replaced by the text encoding of its string (the law ``tests/test_ids.py``
checks).
"""

from __future__ import annotations

from typing import Any

from ._record import Record
from .errors import ChatFormatError

__all__ = ["Ids", "TokenSource", "encode_rendering", "tokenized", "encoder"]


class TokenSource(Record):
    """Where one token came from: ``source`` (an input path as in ``Span.source``, or ``None``
    for template text) of its first character, ``message`` (the index of the message that path
    names, else ``None``) and ``straddles`` (whether the token runs past that span's end)."""

    __slots__ = ("source", "message", "straddles")

    source: str | None
    message: int | None
    straddles: bool


def _message_of(path: str | None) -> int | None:
    if path is None or not path.startswith("messages["):
        return None
    end = path.find("]")
    digits = path[9:end]
    return int(digits) if digits.isdigit() else None


class Ids:
    """A prompt's token ids with its text and structure, read-only.

    - ``ids``: the token ids (``list[int]``);
    - ``offsets``: each token's ``(start, end)`` in ``text``;
    - ``rendering``: the :class:`~chatformats.Rendering` the text came from (``text``,
      ``spans``, ``assistant_spans``);
    - ``provenance``: one :class:`TokenSource` per token (worked out when first read);
    - ``assistant_mask``: 0/1 per token, ``Rendering.assistant_mask(offsets)``.
    """

    __slots__ = ("_ids", "_offset_list", "_pending", "_rendering", "_provenance")

    def __init__(self, ids: list[int], offsets: Any, rendering: Any) -> None:
        # ``offsets`` is the list, or a callable that builds it (worked out when first read: a
        # long prompt encoded piece by piece has its offsets shifted only if they are asked for).
        self._ids = ids
        if callable(offsets):
            self._offset_list: list[tuple[int, int]] | None = None
            self._pending: Any = offsets
        else:
            self._offset_list, self._pending = offsets, None
        self._rendering = rendering
        self._provenance: tuple[TokenSource, ...] | None = None

    @property
    def _offsets(self) -> list[tuple[int, int]]:
        if self._offset_list is None:
            self._offset_list = self._pending()
            self._pending = None
        return self._offset_list

    @property
    def ids(self) -> list[int]:
        return list(self._ids)

    @property
    def offsets(self) -> list[tuple[int, int]]:
        return list(self._offsets)

    @property
    def text(self) -> str:
        text: str = self._rendering.text
        return text

    @property
    def rendering(self) -> Any:
        return self._rendering

    @property
    def assistant_mask(self) -> list[int]:
        mask: list[int] = self._rendering.assistant_mask(self._offsets)
        return mask

    @property
    def provenance(self) -> tuple[TokenSource, ...]:
        if self._provenance is None:
            self._provenance = provenance(self._rendering.spans, self._offsets)
        return self._provenance

    def __len__(self) -> int:
        return len(self._ids)

    def __repr__(self) -> str:
        return f"Ids({len(self._ids)} tokens, text={self.text[:40]!r}...)"


def provenance(spans: Any, offsets: list[tuple[int, int]]) -> tuple[TokenSource, ...]:
    """One :class:`TokenSource` per token: the span holding each token's first character (one
    forward pass: offsets and spans are both in order)."""
    spans = list(spans)
    out = []
    i, n = 0, len(spans)
    messages: dict[str | None, int | None] = {}
    for start, end in offsets:
        while i < n - 1 and spans[i].end <= start:
            i += 1
        span = spans[i] if n else None
        if span is None:
            out.append(TokenSource(None, None, False))
            continue
        source = span.source
        if source not in messages:
            messages[source] = _message_of(source)
        out.append(TokenSource(source, messages[source], end > span.end))
    return tuple(out)


# ------------------------------------------------------------------ the tokenizer, duck-typed


#: The components whose work on a piece of text depends on that piece's characters alone (not on
#: where the piece stands in the whole text), by their serialized ``type``; a ``Sequence`` is
#: local when all its members are.  ``Metaspace`` is local unless its ``prepend_scheme`` is
#: ``"first"`` (it prepends only to the split at the start of the whole text).
_LOCAL = {
    "normalizer": frozenset({"NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip", "StripAccents",
                             "Replace", "Prepend", "BertNormalizer", "Precompiled", "ByteLevel",
                             "Nmt", "Sequence"}),
    "pre_tokenizer": frozenset({"ByteLevel", "Whitespace", "WhitespaceSplit", "BertPreTokenizer",
                                "Punctuation", "Digits", "Split", "CharDelimiterSplit",
                                "UnicodeScripts", "Metaspace", "Sequence"}),
    "post_processor": frozenset({"ByteLevel", "TemplateProcessing", "RobertaProcessing",
                                 "BertProcessing", "Sequence"}),
}
_MODELS = frozenset({"BPE", "WordPiece", "WordLevel", "Unigram"})


def _local(state: Any, kinds: frozenset[str]) -> bool:
    """Whether a serialized component (``None``: absent) is in ``kinds``, recursively."""
    if state is None:
        return True
    if not isinstance(state, dict) or state.get("type") not in kinds:
        return False
    if state["type"] == "Metaspace" and state.get("prepend_scheme") not in ("always", "never"):
        return False
    if state["type"] != "Sequence":
        return True
    members = state.get("normalizers", state.get("pretokenizers", state.get("processors")))
    return isinstance(members, list) and all(_local(m, kinds) for m in members)


def _state_bytes(component: Any) -> Any:
    """A component's serialized bytes (``None`` for none)."""
    return None if component is None else component.__getstate__()


def _component_state(component: Any) -> Any:
    """A ``tokenizers`` component's serialized form (``None`` for none); raises if it has none."""
    import json

    state = _state_bytes(component)
    return None if state is None else json.loads(state)


class Splitter:
    """How a tokenizer's encoding of a text is the concatenation of its encodings of pieces.

    A ``tokenizers.Tokenizer`` first splits its input at the occurrences of its *non-normalized*
    added tokens, found leftmost-longest in the raw text; only then does it normalize each
    remaining piece, split it at its normalized added tokens, pre-tokenize and encode it, one
    piece at a time.  So cutting the text at exactly those occurrences and encoding each piece
    alone gives the whole encoding (ids and offsets, shifted), provided that

    - the occurrences are found as the tokenizer finds them: every non-normalized added token
      has no ``lstrip``, ``rstrip`` or ``single_word`` (they move or veto a match), no two share a
      content, and the tokenizer does not encode its special tokens as text
      (``encode_special_tokens``);
    - a piece is processed the same alone as in the whole: the normalizer, pre-tokenizer, model
      and post-processor depend on the piece's characters only (``_LOCAL``, ``_MODELS``; a BPE
      without dropout), and the tokenizer neither truncates nor pads;
    - an added token's offsets are its characters: no non-normalized added token begins or ends
      with whitespace (a post-processor trimming offsets would move them).

    ``pattern`` is those tokens' contents, longest first (Python's alternation at the leftmost
    position where one matches takes the first that does: the longest), ``ids`` each content's
    id.  ``Splitter.of(backend)`` is ``None`` when any condition fails: the text is then encoded
    whole."""

    __slots__ = ("pattern", "ids", "size")

    def __init__(self, pattern: Any, ids: dict[str, int], size: int) -> None:
        self.pattern, self.ids, self.size = pattern, ids, size

    @staticmethod
    def of(backend: Any) -> Splitter | None:
        import re

        try:
            model = backend.model
            if type(model).__name__ not in _MODELS or getattr(model, "dropout", None) not in (None, 0.0):
                return None
            for kind, kinds in _LOCAL.items():
                if not _local(_component_state(getattr(backend, kind)), kinds):
                    return None
            decoder = backend.get_added_tokens_decoder()
            size = backend.get_vocab_size(True)
        except Exception:  # noqa: BLE001 — an object we cannot read is encoded whole
            return None
        ids: dict[str, int] = {}
        for token_id, token in decoder.items():
            if getattr(token, "normalized", True):
                continue
            content = token.content
            if (not isinstance(content, str) or not content or content in ids
                    or content[0].isspace() or content[-1].isspace()
                    or token.lstrip or token.rstrip or token.single_word):
                return None
            ids[content] = token_id
        if not ids:
            return None
        pattern = re.compile("|".join(re.escape(c) for c in sorted(ids, key=len, reverse=True)))
        return Splitter(pattern, ids, size)


class Encoder:
    """What chatformats needs of a tokenizer, from a ``tokenizers.Tokenizer`` (``backend``) or a
    transformers fast tokenizer around one: ``encode(text) -> (ids, offsets)`` with no special
    tokens added, the ids of the added tokens (the control tokens), and ``as_text(string)``, the
    string's ids without the added vocabulary.

    A long text is encoded piece by piece where that is exact (:class:`Splitter`): the
    tokenizers library encodes one long string in more than linear time, its pieces in linear
    time."""

    __slots__ = ("tokenizer", "backend", "transformers", "_added", "_contents", "_splitter", "_read",
                 "_key")

    #: The length (characters) from which a text is encoded by pieces: below it, one call's
    #: overhead per piece costs more than the whole string's extra time (both are exact; measured
    #: in ``benchmarks/ids_long.py``: by pieces is 20-40% slower at 1,500-7,500 characters, even at
    #: about 15,000, a quarter faster at 30,000 and twice as fast at 400,000).
    pieces_from = 12_000

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        backend = getattr(tokenizer, "backend_tokenizer", None)
        self.transformers = backend is not None
        if backend is None:
            backend = tokenizer
        if not (callable(getattr(backend, "encode", None)) and hasattr(backend, "model")
                and callable(getattr(backend, "get_added_tokens_decoder", None))):
            raise TypeError(
                f"{type(tokenizer).__name__} is not a tokenizer chatformats can encode with: pass a "
                "tokenizers.Tokenizer or a transformers fast tokenizer")
        self.backend = backend
        self._added: frozenset[int] | None = None
        self._contents: dict[int, str] | None = None
        self._splitter: Splitter | None = None
        self._read = False  # whether _splitter has been worked out (for the tokenizer as _key)
        self._key: Any = None

    @property
    def splitter(self) -> Splitter | None:
        """The :class:`Splitter` if encoding piece by piece is exact now, else ``None``.  Read
        at every call (a long text's: the reading costs microseconds): truncation, padding,
        ``encode_special_tokens`` and transformers' ``split_special_tokens`` directly; the rest
        again whenever the vocabulary's size (tokens added), the normalizer, pre-tokenizer,
        post-processor or model kind has changed since it was last worked out."""
        backend = self.backend
        if (backend.truncation is not None or backend.padding is not None
                or getattr(backend, "encode_special_tokens", False)
                or getattr(self.tokenizer, "split_special_tokens", False) is True):
            return None
        try:
            model = backend.model
            key: Any = (backend.get_vocab_size(True), type(model).__name__, getattr(model, "dropout", None),
                        *(_state_bytes(getattr(backend, kind)) for kind in _LOCAL))
        except Exception:  # noqa: BLE001 — an object we cannot read is encoded whole
            return None
        if not self._read or key != self._key:
            self._splitter, self._key, self._read = Splitter.of(backend), key, True
        return self._splitter

    def encode_lazy(self, text: str) -> tuple[list[int], Any]:
        """``text``'s ids and its offsets: a list, or a callable that builds it."""
        splitter = self.splitter if len(text) >= self.pieces_from else None
        if splitter is None:
            return self.encode_whole(text)
        encode = self.backend.encode
        table = splitter.ids
        ids: list[int] = []
        parts: list[tuple[int, Any, int]] = []  # (start, the piece's encoding or None, end)
        pos = 0
        for match in splitter.pattern.finditer(text):
            start, end = match.span()
            if start > pos:
                encoding = encode(text[pos:start], add_special_tokens=False)
                ids += encoding.ids
                parts.append((pos, encoding, start))
            ids.append(table[match.group()])
            parts.append((start, None, end))
            pos = end
        if pos < len(text):
            if pos == 0:
                return self.encode_whole(text)
            encoding = encode(text[pos:], add_special_tokens=False)
            ids += encoding.ids
            parts.append((pos, encoding, len(text)))

        def offsets() -> list[tuple[int, int]]:
            out: list[tuple[int, int]] = []
            for start, encoding, end in parts:
                if encoding is None:
                    out.append((start, end))
                elif start:
                    out += [(a + start, b + start) for a, b in encoding.offsets]
                else:
                    out += encoding.offsets
            return out

        return ids, offsets

    def encode_whole(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """``text`` encoded in one call, as transformers does."""
        backend = self.backend
        if self.transformers and (backend.truncation is not None or backend.padding is not None):
            out = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
            return list(out["input_ids"]), [tuple(o) for o in out["offset_mapping"]]
        encoding = backend.encode(text, add_special_tokens=False)
        return encoding.ids, encoding.offsets

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        ids, offsets = self.encode_lazy(text)
        return ids, offsets() if callable(offsets) else offsets

    def ids(self, text: str) -> list[int]:
        """``encode(text)``'s ids."""
        if not text:
            return []
        return self.encode_lazy(text)[0]

    @property
    def added(self) -> frozenset[int]:
        if self._added is None:
            self._added = frozenset(self.backend.get_added_tokens_decoder())
        return self._added

    @property
    def contents(self) -> dict[int, str]:
        """Each added token's id and its content (read once, as :attr:`added` is)."""
        if self._contents is None:
            self._contents = {i: t.content for i, t in self.backend.get_added_tokens_decoder().items()}
        return self._contents

    @property
    def decodes_runs(self) -> bool:
        """Whether decoding is known to be run by run: with a byte-level decoder, the tokenizer
        decodes the ordinary tokens between two added tokens on their own (a character whose
        bytes an added token separates decodes as two replacement characters), so the runs'
        decodings join to the whole's."""
        return type(self.backend.decoder).__name__ == "ByteLevel"

    def as_text(self, string: str) -> list[int]:
        """``string`` encoded as plain text: normalizer, pre-tokenizer and model, never matching
        an added token."""
        backend = self.backend
        normalizer = backend.normalizer
        if normalizer is not None:
            string = normalizer.normalize_str(string)
        pre = backend.pre_tokenizer
        pieces = [p for p, _ in pre.pre_tokenize_str(string)] if pre is not None else [string]
        model = backend.model
        return [token.id for piece in pieces for token in model.tokenize(piece)]

    def decode(self, ids: list[int]) -> str:
        text: str = self.backend.decode(ids, skip_special_tokens=False)
        return text


_ENCODERS: dict[int, tuple[Any, Encoder]] = {}


def encoder(tokenizer: Any) -> Encoder:
    """The :class:`Encoder` of ``tokenizer`` (kept per object while it lives)."""
    if isinstance(tokenizer, Encoder):
        return tokenizer
    hit = _ENCODERS.get(id(tokenizer))
    if hit is not None and hit[0] is tokenizer:
        return hit[1]
    enc = Encoder(tokenizer)
    if len(_ENCODERS) > 64:
        _ENCODERS.clear()
    _ENCODERS[id(tokenizer)] = (tokenizer, enc)
    return enc


def _template_only(spans: Any) -> list[tuple[int, int]]:
    """The ``(start, end)`` ranges of template text, merged where adjacent."""
    out: list[tuple[int, int]] = []
    for span in spans:
        if span.source is None:
            if out and out[-1][1] == span.start:
                out[-1] = (out[-1][0], span.end)
            else:
                out.append((span.start, span.end))
    return out


def planted(rendering: Any, ids: list[int], offsets: list[tuple[int, int]],
            added: frozenset[int]) -> list[int]:
    """The indices of the tokens that are control tokens (added tokens) the tokenizer matched in
    text that is not wholly template text."""
    ranges = _template_only(rendering.spans)
    out = []
    r = 0
    for index, token in enumerate(ids):
        if token not in added:
            continue
        start, end = offsets[index]
        while r < len(ranges) and ranges[r][1] <= start:
            r += 1
        if not (r < len(ranges) and ranges[r][0] <= start and end <= ranges[r][1]):
            out.append(index)
    return out


def encode_rendering(rendering: Any, enc: Encoder, safe: bool) -> Ids:
    """``rendering.text`` encoded (safe: planted control tokens as text, see the module
    docstring)."""
    text = rendering.text
    if not safe:
        ids, pending = enc.encode_lazy(text)  # fresh lists (or the offsets' builder)
        return Ids(ids, pending, rendering)
    ids, offsets = enc.encode(text)
    ids, offsets = list(ids), list(offsets)
    bad = planted(rendering, ids, offsets, enc.added)
    for index in reversed(bad):
        start, end = offsets[index]
        replacement = enc.as_text(text[start:end])
        if ids[index] in replacement or enc.added.intersection(replacement):
            raise ChatFormatError(
                f"cannot encode {text[start:end]!r} as text: the tokenizer gives a control token "
                "for it")
        ids[index:index + 1] = replacement
        # The replacement tokens share the control token's offsets (its characters).
        offsets[index:index + 1] = [(start, end)] * len(replacement)
    return Ids(ids, offsets, rendering)


#: transformers' tokenizing parameters and their defaults in ``apply_chat_template``.
_TOKENIZING = {"padding": False, "truncation": False, "max_length": None, "return_tensors": None,
               "tokenizer_kwargs": None}


def tokenized(name: Any, messages: Any, kwargs: dict[str, Any], render: Any) -> Any:
    """``apply_chat_template(name, messages, tokenize=True, tokenizer=..., **kwargs)``.

    ``render(kwargs)`` is ``apply_chat_template_spans`` with the template's keyword arguments.
    Mirrors ``tokenization_utils_base.py`` (transformers 5.24) after the render: the text (the
    list of texts for a batch) goes to ``tokenizer(text, padding=..., truncation=...,
    max_length=..., add_special_tokens=False, return_tensors=..., **tokenizer_kwargs)``; with
    ``return_dict`` (default ``True``) that encoding is returned (a ``BatchEncoding``), with
    ``assistant_masks`` added when asked; else its ``input_ids``.  A ``tokenizers.Tokenizer``
    gives a plain dict (``input_ids``, ``attention_mask``) and takes none of the padding,
    truncation or tensor parameters.  ``safe`` encodes control tokens typed into the input as
    text (:func:`encode_rendering`)."""
    tokenizer = kwargs.pop("tokenizer", None)
    if tokenizer is None:
        raise TypeError("apply_chat_template(tokenize=True) needs tokenizer=: the tokenizer to encode with")
    kwargs.pop("tokenize", None)
    return_dict = kwargs.pop("return_dict", True)
    mask = kwargs.pop("return_assistant_tokens_mask", False)
    safe = kwargs.pop("safe", False)
    if kwargs.pop("sanitize_control_tokens", False):
        raise TypeError("chatformats does not mirror sanitize_control_tokens: pass safe=True "
                        "(control tokens only where the template writes them, docs/ids.md)")
    params = {key: kwargs.pop(key, default) for key, default in _TOKENIZING.items()}
    from .errors import InvalidConversation

    if mask and not return_dict:
        raise InvalidConversation(
            "`return_assistant_tokens_mask=True` requires `return_dict=True` and `tokenize=True`")
    if mask and kwargs.pop("continue_final_message", False):
        raise InvalidConversation("continue_final_message is not compatible with return_assistant_tokens_mask.")
    kwargs.pop("continue_final_message", None)
    enc = encoder(tokenizer)
    result = render(kwargs)
    batched = isinstance(result, list)
    renderings = result if batched else [result]
    plain = all(value is default or (value == default and type(value) is type(default))
                for value, default in ((params[k], d) for k, d in _TOKENIZING.items()))
    if not enc.transformers:
        if not plain:
            raise TypeError("padding, truncation, max_length, return_tensors and tokenizer_kwargs "
                            "need a transformers tokenizer")
        encoded = [encode_rendering(r, enc, safe) for r in renderings]
        if not return_dict:
            return [e._ids for e in encoded] if batched else encoded[0]._ids
        out: dict[str, Any] = {"input_ids": [e._ids for e in encoded],
                               "attention_mask": [[1] * len(e._ids) for e in encoded]}
        if mask:
            out["assistant_masks"] = [e.assistant_mask for e in encoded]
        if not batched:
            out = {key: value[0] for key, value in out.items()}
        return out
    if safe:
        if not plain:
            raise TypeError("safe=True takes none of padding, truncation, max_length, return_tensors, "
                            "tokenizer_kwargs")
        encoded = [encode_rendering(r, enc, True) for r in renderings]
        ids = [e._ids for e in encoded]
        if not return_dict:
            return ids if batched else ids[0]
        data: dict[str, Any] = {"input_ids": ids, "attention_mask": [[1] * len(i) for i in ids]}
        if mask:
            data["assistant_masks"] = [e.assistant_mask for e in encoded]
        if not batched:
            data = {key: value[0] for key, value in data.items()}
        # the tokenizer's own BatchEncoding class, without importing transformers
        out_be = type(tokenizer("", add_special_tokens=False))(data)
        return out_be
    if not return_dict and plain:
        # the tokenizer call's input_ids: the backend's encoding of each text (by pieces where
        # that is exact, Splitter)
        lists = [enc.ids(r.text) for r in renderings]
        return lists if batched else lists[0]
    texts = [r.text for r in renderings]
    out_be = tokenizer(texts if batched else texts[0], padding=params["padding"],
                       truncation=params["truncation"], max_length=params["max_length"],
                       add_special_tokens=False, return_tensors=params["return_tensors"],
                       **(params["tokenizer_kwargs"] or {}))
    if not return_dict:
        return out_be["input_ids"]
    if mask:
        masks = [r.assistant_mask(out_be.encodings[i].offsets) for i, r in enumerate(renderings)]
        if not batched and not params["return_tensors"]:
            out_be["assistant_masks"] = masks[0]
        else:
            out_be["assistant_masks"] = masks
        if params["return_tensors"]:
            out_be.convert_to_tensors(tensor_type=params["return_tensors"])
    return out_be
