"""A Ray Data stage: a column of conversations rendered in a ``Dataset.map_batches`` call.

    import ray
    from chatformats.ray import RenderStage

    ds = ray.data.read_parquet("s3://bucket/sft/")
    ds = ds.map_batches(RenderStage, fn_constructor_kwargs={"format": "qwen3-instruct-2507"},
                        batch_format="pyarrow", compute=ray.data.ActorPoolStrategy(size=8))

:class:`RenderStage` is a plain callable class: Ray builds one per actor (or pickles an instance
to its tasks) and calls it on each batch.  It needs nothing but chatformats on the workers: no
ray import here (this module imports without ray installed), no transformers, no tokenizer
download; pyarrow, pandas or numpy are touched only when the batch is one of theirs.

Each row is rendered as ``chatformats render --jsonl`` renders a line (one row function for the
two, see :mod:`chatformats._rows`): the messages cell is a list of messages, an
object with ``messages`` and template variables, an OpenAI chat-completions request body, or
any of these as a JSON string.  A row that fails keeps its error in ``error_column`` (``"Kind:
message"``, as the JSONL output's ``error``) and ``None`` in every output column: nothing is
dropped, nothing is raised out of the worker.

:class:`AuditStage` is the same stage with each row's audit findings (JSON text) as its output.

Output columns: ``output`` (the prompt).  Every output a stage adds is a keyword argument
naming its column, and a failed row has ``None`` in each.  :class:`IdsStage` is the stage with
token ids as its outputs (``input_ids``, ``attention_mask``, ``assistant_masks``, optionally
each token's provenance), the tokenizer built in each worker by a factory the caller gives
(``docs/distributed.md``).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Iterable, Mapping

from ._registry import get_format
from ._rows import (LAYERS, Conversation, InputError, Options, _describe, _loads,
                    parse_conversation, render_conversation)
from .errors import ChatFormatError

__all__ = ["RenderStage", "AuditStage", "IdsStage", "GENERATION_PROMPT_MODES"]

#: ``generation_prompt``: ``None`` (as the variables say), ``True``/``False`` (set for every
#: row), or ``"auto"``: ``ray.data.llm``'s ``ChatTemplateStage`` rule, the generation prompt
#: when the last message is a user's, else ``continue_final_message`` (pipeline layer only).
GENERATION_PROMPT_MODES = (None, True, False, "auto")


class RenderStage:
    """Renders ``batch[column]`` into ``batch[output]`` (see the module docstring).

    - ``format``: a format name or a model id it serves (``chatformats formats``).
    - ``layer``: ``"pipeline"`` (default; ``chatformats.apply_chat_template``, what transformers'
      ``apply_chat_template(tokenize=False)`` returns) or ``"template"`` (``chatformats.render``).
    - ``column``: the conversations; ``output``: the prompts; ``error_column``: each row's error
      or ``None``.
    - ``variables``: template variables for every row (a row's own variables win over them);
      ``variables_column``: a column of per-row variables (an object, or its JSON string),
      merged over the row's own; ``overrides``: variables that win over everything (the command
      line's ``--var``).
    - ``generation_prompt``: see :data:`GENERATION_PROMPT_MODES`.
    - ``now``: the clock behind ``strftime_now``; default: when the stage was built, so every
      worker renders with the same date.
    - ``strict``: a row with a variable the template does not read, input it drops or a value
      it prints as Python syntax gets an error instead of a prompt (``strict=True``).

    An instance pickles small (the format's name and these options), so it can also be passed
    to ``map_batches`` as a function (Ray tasks instead of actors)."""

    def __init__(
        self,
        format: str,
        layer: str = "pipeline",
        column: str = "messages",
        output: str = "prompt",
        *,
        variables: Mapping[str, Any] | None = None,
        variables_column: str | None = None,
        overrides: Mapping[str, Any] | None = None,
        generation_prompt: bool | str | None = None,
        error_column: str = "error",
        now: datetime | None = None,
        strict: bool = False,
    ) -> None:
        fmt = get_format(format)  # UnknownFormatError, with its "did you mean"
        if layer not in LAYERS:
            raise ValueError(f"layer: expected one of {', '.join(LAYERS)}, got {layer!r}")
        if not any(generation_prompt is mode for mode in (None, True, False)) \
                and generation_prompt != "auto":
            raise ValueError(f"generation_prompt: expected None, True, False or 'auto', "
                             f"got {generation_prompt!r}")
        if generation_prompt == "auto" and layer != "pipeline":
            raise ValueError("generation_prompt='auto' sets continue_final_message, a pipeline "
                             "layer parameter: use layer='pipeline'")
        self.columns = self._output_columns(output)  # in the order each row's outputs come
        names = [column, *self.columns, error_column]
        if variables_column is not None:
            names.append(variables_column)
        if len(set(names)) != len(names):
            raise ValueError(f"the column names must differ: {names}")
        self.format = fmt.name
        self.layer = layer
        self.column = column
        self.output = output
        self.error_column = error_column
        self.variables = dict(variables or {})
        self.variables_column = variables_column
        self.overrides = dict(overrides or {})
        self.generation_prompt = generation_prompt
        self.now = now if now is not None else datetime.now()
        fixed = tuple(self.overrides.items())
        self._options = Options(format=self.format, layer=layer,
                                generation_prompt=generation_prompt is True, now=self.now,
                                variables=fixed + ((("add_generation_prompt", False),)
                                                   if generation_prompt is False else ()),
                                strict=strict)
        # generation_prompt="auto": one set of options for a conversation that ends with a user
        # message, one for any other.
        self._after_user = Options(format=self.format, layer=layer, generation_prompt=True,
                                   now=self.now, variables=fixed, strict=strict)
        self._otherwise = Options(format=self.format, layer=layer, now=self.now,
                                  variables=fixed + (("add_generation_prompt", False),
                                                     ("continue_final_message", True)),
                                  strict=strict)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.format!r}, layer={self.layer!r}, "
                f"column={self.column!r}, output={self.output!r})")

    #: Each output column's Arrow type: ``"text"`` (``large_string``) or ``"ints"``
    #: (``list<int32>``).
    column_types: tuple[str, ...] = ("text",)

    def _output_columns(self, output: str) -> tuple[str, ...]:
        return (output,)

    def _values(self, result: Any) -> tuple[Any, ...]:
        """One row's output values, one per output column, from what :meth:`render_row` gave."""
        return (_utf8(result),)

    # ------------------------------------------------------------------ one batch

    def __call__(self, batch: Any) -> Any:
        """One batch, in the format Ray gave it (a ``pyarrow.Table`` for
        ``batch_format="pyarrow"``, a ``pandas.DataFrame``, or a dict of columns): the same
        rows, in the same order, with the output and error columns added (replaced if present)."""
        kind = _kind(batch)
        cells = _column(batch, self.column, kind)
        row_variables = (_column(batch, self.variables_column, kind)
                         if self.variables_column is not None else None)
        outputs, errors = self.render_rows(cells, row_variables)
        return _with_columns(batch, kind, self, outputs, errors)

    def render_rows(self, cells: Iterable[Any],
                    row_variables: Iterable[Any] | None = None) -> tuple[list[list[Any]], list[str | None]]:
        """The rows' outputs (one list per output column, ``None`` for a failed row) and their
        errors (``None`` for a rendered row)."""
        outputs: list[list[Any]] = [[] for _ in self.columns]
        errors: list[str | None] = []
        extra: Iterable[Any] = row_variables if row_variables is not None else _nones()
        for cell, more in zip(cells, extra):
            try:
                values = self._values(self.render_row(cell, more))
            except (ChatFormatError, InputError) as exc:
                error = _describe(exc)
            except MemoryError:  # a resource error, not a bug: this row alone fails
                error = "MemoryError: out of memory while rendering this row"
            except Exception as exc:  # noqa: BLE001 — a bug must not cost the other rows
                error = _describe(exc) + " (this is a chatformats bug)"
            else:
                for column, value in zip(outputs, values):
                    column.append(value)
                errors.append(None)
                continue
            for column in outputs:
                column.append(None)
            errors.append(_escaped(error))
        return outputs, errors

    def render_row(self, cell: Any, row_variables: Any = None) -> Any:
        """One row's output (the prompt; ``cell`` and ``row_variables`` as plain Python data, or
        JSON strings); raises :class:`ChatFormatError` or an input error."""
        conv = parse_conversation(_decoded(cell, ""))
        variables = dict(self.variables)
        variables.update(conv.variables)
        if row_variables is not None:
            extra = _decoded(row_variables, f"{self.variables_column}: ")
            if not isinstance(extra, dict):
                raise InputError(f"{self.variables_column}: expected an object of template "
                                 f"variables, got {type(extra).__name__}")
            variables.update(extra)
        conv = Conversation(conv.messages, variables, from_request=conv.from_request)
        opts = self._options
        if self.generation_prompt == "auto":
            opts = self._after_user if _last_role(conv.messages) == "user" else self._otherwise
        return self._render(conv, opts)

    def _render(self, conv: Conversation, opts: Options) -> Any:
        """One conversation's output (the prompt)."""
        return render_conversation(conv, opts)

    def _arrow_columns(self, pa: Any, outputs: list[list[Any]]) -> list[tuple[str, Any]]:
        types = {"text": pa.large_string(), "ints": pa.list_(pa.int32())}
        return [(name, pa.array(values, type=types[kind]))
                for name, kind, values in zip(self.columns, self.column_types, outputs)]


class AuditStage(RenderStage):
    """:class:`RenderStage` whose output is each row's audit findings (``chatformats.audit``:
    the format's control strings inside input-derived text) as JSON text, the list that
    ``chatformats audit --json`` prints (``"[]"``: none); ``output`` defaults to ``"findings"``.
    The same options, the same error column."""

    def __init__(self, format: str, layer: str = "pipeline", column: str = "messages",
                 output: str = "findings", **options: Any) -> None:
        super().__init__(format, layer, column, output, **options)

    def _render(self, conv: Conversation, opts: Options) -> str:
        from . import _audit
        from ._rows import _variables

        variables = _variables(conv, opts)
        try:
            if opts.layer == "template":
                _, findings = _audit.template_layer(opts.format, conv.messages, opts.clock(),
                                                    False, variables)
            else:
                _, findings = _audit.pipeline_layer(opts.format, conv.messages, opts.clock(),
                                                    variables)
        except TypeError as exc:  # a variable the Python API refuses
            raise InputError(str(exc)) from None
        return json.dumps([finding.as_dict() for finding in findings], ensure_ascii=False)


class IdsStage(RenderStage):
    """:class:`RenderStage` whose outputs are each row's token ids: ``input_ids``,
    ``attention_mask`` and ``assistant_masks`` (``list<int32>`` columns in Arrow) and, when
    ``provenance`` names a column, each token's :class:`~chatformats.ids.TokenSource` as JSON
    text, ``[[source, message, straddles], ...]`` (``docs/distributed.md``).

    - ``tokenizer``: a zero-argument factory returning the tokenizer (a
      ``tokenizers.Tokenizer`` or a transformers fast tokenizer), such as
      ``functools.partial(Tokenizer.from_file, "tokenizer.json")``.  It is called once per
      process, on the first batch there (never on the driver, never pickled with its result), so
      the stage pickles small and nothing imports a tokenizer library but the factory.
    - ``ids``, ``attention_mask``, ``assistant_masks``, ``provenance``: the column names
      (``assistant_masks=None``: no masks, as ``return_assistant_tokens_mask=False``;
      ``provenance=None``, the default: none).
    - ``safe``: control tokens only where the template writes them (``docs/ids.md``).

    A row at the pipeline layer is ``chatformats.apply_chat_template(..., tokenize=True,
    tokenizer=..., return_dict=True, return_assistant_tokens_mask=True)`` of that row; at the
    template layer ``chatformats.render_ids``.  A row that fails (its render, or its encoding)
    has ``None`` in every output column and its error in ``error_column``; a factory that fails,
    or returns no tokenizer, stops the batch (a misconfiguration, as a missing column is)."""

    column_types: tuple[str, ...] = ("ints", "ints", "ints", "text")

    def __init__(self, format: str, tokenizer: Any, layer: str = "pipeline",
                 column: str = "messages", *, ids: str = "input_ids",
                 attention_mask: str = "attention_mask",
                 assistant_masks: str | None = "assistant_masks", provenance: str | None = None,
                 safe: bool = False, **options: Any) -> None:
        if not callable(tokenizer) or hasattr(tokenizer, "encode"):
            raise TypeError("tokenizer: expected a zero-argument factory returning the tokenizer "
                            "(functools.partial(Tokenizer.from_file, path), a function), not "
                            f"{type(tokenizer).__name__}: each worker builds its own")
        if safe is not True and safe is not False:
            raise ValueError(f"safe: expected True or False, got {safe!r}")
        self._names = [(ids, "ints"), (attention_mask, "ints"), (assistant_masks, "ints"),
                       (provenance, "text")]
        self.tokenizer = tokenizer
        self.safe = safe
        self.masks = assistant_masks is not None
        self.provenance = provenance is not None
        self._built: Any = None
        super().__init__(format, layer, column, ids, **options)
        self.column_types = tuple(kind for name, kind in self._names if name is not None)

    def _output_columns(self, output: str) -> tuple[str, ...]:
        return tuple(name for name, _ in self._names if name is not None)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_built"] = None  # each process builds its own tokenizer
        return state

    def encoder(self) -> Any:
        """This process's tokenizer (the factory called on first use) as an
        :class:`~chatformats.ids.Encoder`."""
        if self._built is None:
            from .ids import encoder

            self._built = encoder(self.tokenizer())
        return self._built

    def _values(self, result: Any) -> tuple[Any, ...]:
        return tuple(result)

    def _render(self, conv: Conversation, opts: Options) -> tuple[Any, ...]:
        from . import ids as _ids
        from ._rows import _PIPELINE_PARAMS, _variables, warn_unknown_variables
        from .pipeline import apply_chat_template_spans

        enc = self.encoder()
        variables = _variables(conv, opts)
        if conv.variables and not conv.from_request:
            warn_unknown_variables(opts.format, conv.variables)
        now = opts.clock()
        rendered: list[Any] = []
        try:
            if opts.layer == "template":
                from ._registry import render_spans

                encoded = _ids.encode_rendering(
                    render_spans(opts.format, conv.messages, now, False, variables), enc, self.safe)
                out = {"input_ids": encoded._ids, "attention_mask": [1] * len(encoded._ids)}
                if self.masks:
                    out["assistant_masks"] = encoded.assistant_mask
            else:
                params = {name: variables.pop(name) for name in _PIPELINE_PARAMS
                          if name in variables}
                final = params.pop("continue_final_message", False)
                kwargs = dict(variables, tokenizer=enc.tokenizer, return_dict=True,
                              safe=self.safe, return_assistant_tokens_mask=self.masks,
                              continue_final_message=final)

                def render(template_kwargs: dict[str, Any]) -> Any:
                    # apply_chat_template(tokenize=True)'s own render (chatformats.pipeline)
                    rendering = apply_chat_template_spans(
                        opts.format, conv.messages, now=now, continue_final_message=final,
                        **params, **template_kwargs)
                    rendered.append(rendering)
                    return rendering

                out = _ids.tokenized(opts.format, conv.messages, kwargs, render)
                if isinstance(rendered[-1], list):
                    raise InputError("messages: a batch of conversations (a list of lists); "
                                     "give one conversation per row")
                encoded = None
        except ChatFormatError:
            raise
        except TypeError as exc:  # a variable the Python API refuses
            raise InputError(str(exc)) from None
        values: list[Any] = [list(out["input_ids"]), list(out["attention_mask"])]
        if self.masks:
            values.append(list(out["assistant_masks"]))
        if self.provenance:
            if encoded is None:  # the offsets: the same encoding again
                encoded = _ids.encode_rendering(rendered[-1], enc, self.safe)
            # ASCII JSON: a path may hold any key, a lone surrogate included
            values.append(json.dumps([[t.source, t.message, t.straddles]
                                      for t in encoded.provenance]))
        return tuple(values)


def _utf8(text: str) -> str:
    """``text``, which a column can hold: Arrow strings (and Parquet's) are UTF-8, so a lone
    surrogate (from a JSON ``"\\ud800"`` escape) makes the row fail, where ``--jsonl`` writes it
    ``\\u``-escaped."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"the prompt holds a lone surrogate ({text[exc.start]!r}) that UTF-8 "
                         "cannot encode, so no Arrow or Parquet column can hold it") from None
    return text


def _escaped(error: str) -> str:
    """An error message that UTF-8 can encode (a lone surrogate it quotes, backslash-escaped)."""
    try:
        error.encode("utf-8")
    except UnicodeEncodeError:
        return error.encode("utf-8", "backslashreplace").decode("utf-8")
    return error


def _nones() -> Iterable[None]:
    while True:
        yield None


def _last_role(messages: Any) -> Any:
    """``conversation[-1]["role"]``, as ``ChatTemplateStage`` reads it (``None`` when there is
    none: the render then fails as the pipeline layer fails on that input)."""
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        return messages[-1].get("role")
    return None


def _decoded(value: Any, what: str) -> Any:
    """A JSON string (or UTF-8 bytes) cell decoded, as a ``--jsonl`` line is (its errors worded
    as the line's, after ``what``); any other cell as it is."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"{what}not UTF-8 (byte {exc.start + 1})") from None
    if not isinstance(value, str):
        return value
    if not value.strip():
        raise InputError("an empty string: expected one conversation as JSON" if not what
                         else f"{what}an empty string: expected JSON")
    return _loads(value, what)


def _plain(value: Any) -> Any:
    """A cell of a numpy or pandas batch as plain Python data: arrays (and numpy scalars) to
    lists (and Python scalars), recursively (pyarrow's ``to_pylist`` gives plain data already)."""
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars, pandas arrays
    if tolist is not None and type(value).__module__.split(".")[0] in ("numpy", "pandas"):
        return _plain(tolist())
    return value


# ------------------------------------------------------------------ batch formats


def _kind(batch: Any) -> str:
    module = type(batch).__module__.split(".")[0]
    if module == "pyarrow" and hasattr(batch, "schema") and hasattr(batch, "num_rows"):
        return "arrow"
    if module == "pandas" and hasattr(batch, "columns"):
        return "pandas"
    if isinstance(batch, Mapping):
        return "dict"
    raise TypeError(f"RenderStage: a batch must be a pyarrow Table or RecordBatch, a pandas "
                    f"DataFrame or a dict of columns, got {type(batch).__name__}")


def _column(batch: Any, name: str, kind: str) -> Iterable[Any]:
    if kind == "arrow":
        if name not in batch.schema.names:
            raise KeyError(f"RenderStage: the batch has no column {name!r} "
                           f"(its columns: {', '.join(batch.schema.names)})")
        values: Iterable[Any] = batch.column(name).to_pylist()
        return values
    if name not in batch:  # a DataFrame's columns, a dict's keys
        raise KeyError(f"RenderStage: the batch has no column {name!r} "
                       f"(its columns: {', '.join(map(str, list(batch)))})")
    if kind == "pandas":  # a missing value is pandas.NA or NaN there, null in Arrow
        return [None if _missing(cell) else _plain(cell) for cell in batch[name]]
    return [_plain(cell) for cell in batch[name]]


def _missing(cell: Any) -> bool:
    return (type(cell).__name__ == "NAType" or (isinstance(cell, float) and cell != cell))


def _with_columns(batch: Any, kind: str, stage: RenderStage, outputs: list[list[Any]],
                  errors: list[str | None]) -> Any:
    names, error_column = stage.columns, stage.error_column
    if kind == "arrow":
        import importlib

        pa = importlib.import_module("pyarrow")
        table = batch if hasattr(batch, "column_names") and hasattr(batch, "combine_chunks") \
            else pa.Table.from_batches([batch])
        columns = stage._arrow_columns(pa, outputs)
        columns.append((error_column, pa.array(errors, type=pa.string())))
        for name, array in columns:
            if name in table.column_names:
                table = table.set_column(table.column_names.index(name), name, array)
            else:
                table = table.append_column(name, array)
        return table
    if kind == "pandas":
        frame = batch.copy(deep=False)
        for name, values in zip(names, outputs):
            frame[name] = _object_array(values, None)  # (a list of lists is not one column)
        frame[error_column] = errors
        return frame
    result = dict(batch)
    for name, values in zip((*names, error_column), (*outputs, errors)):
        result[name] = _object_array(values, batch)
    return result


def _object_array(values: list[Any], batch: Mapping[str, Any] | None) -> Any:
    """A new column: a numpy object array when the batch holds numpy arrays (Ray's default
    format; a list of str would become a fixed-width unicode array) or is a DataFrame
    (``batch`` ``None``), else the list.  Each cell is set on its own, so a list of ids stays
    one cell."""
    if batch is None or any(type(column).__module__.split(".")[0] == "numpy"
                            for column in batch.values()):
        import importlib

        np = importlib.import_module("numpy")
        array = np.empty(len(values), dtype=object)
        for index, value in enumerate(values):
            array[index] = value
        return array
    return values
