"""Shared Hypothesis strategies: realistic and adversarial conversations, tools and variables.

Texts are built from the substrings the templates branch on (control tokens, think tags, tool
response wrappers, role names, whitespace) mixed with arbitrary unicode.  Every message key is
independently absent, ``None``, a realistic value or any JSON value.  Nothing here is specific
to one format: a format's own test module composes these.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

from . import jinja_env


# ---------------------------------------------------------------- text

FRAGMENTS = [
    "<think>", "</think>", "<tool_response>", "</tool_response>", "<tool_call>", "</tool_call>",
    "<|im_start|>", "<|im_end|>", "<|eot_id|>", "<|begin_of_text|>", "<|start_header_id|>",
    "<|end_header_id|>", "<|image|>", "<|image_pad|>", "<|video_pad|>", "<|begin|>", "<|end|>",
    "<|content|>", "<|think|>", "<|calls|>", "<|tool_call:begin|>", "<|tool_response:end|>",
    "<function=f>", "<parameter=x>", "[", "]", "{", "}", '"', "'", "\\", "\\n",
    "\n", "\n\n", " ", "  ", "\t", "\r", "\x0b", "\x0c", "\u00a0", "\u2028", "\u3000", "\x85",
    "user", "system", "assistant", "tool", "ipython", "image", "image_url", "video", "text",
    "type", "content", "None", "True", "é", "中文", "🙂", "\x00", "\ud7ff", "",
]

fragments = st.sampled_from(FRAGMENTS)

texts = st.one_of(
    st.lists(st.one_of(fragments, st.text(max_size=6)), max_size=6).map("".join),
    st.text(max_size=20),
    fragments,
)
"""Strings that hit the templates' branches: tags, tokens, whitespace (including the unicode
whitespace ``str.strip`` removes), role names and arbitrary unicode."""

short_texts = st.one_of(fragments, st.text(max_size=8))

# ---------------------------------------------------------------- JSON values

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    short_texts,
)


def json_values(max_leaves: int = 8) -> st.SearchStrategy[Any]:
    """Any JSON-like value: scalars, lists, tuples and dicts with string keys, nested."""
    return st.recursive(
        scalars,
        lambda children: st.one_of(
            st.lists(children, max_size=4),
            st.lists(children, max_size=3).map(tuple),
            st.dictionaries(short_texts, children, max_size=4),
        ),
        max_leaves=max_leaves,
    )


json_value = json_values()

# ---------------------------------------------------------------- messages

ROLES = ["system", "user", "assistant", "tool", "ipython", "tool_results", "developer", "function"]
roles = st.one_of(
    st.sampled_from(ROLES),
    st.sampled_from(ROLES),
    short_texts,
    json_value,
)

part_types = st.sampled_from(["text", "image", "image_url", "video", "input_audio", "file"])


@st.composite
def content_part(draw: st.DrawFn) -> Any:
    """One item of a list content: OpenAI and Hugging Face shapes, and anything else."""
    kind = draw(st.integers(0, 9))
    if kind <= 3:
        return {"type": "text", "text": draw(texts)}
    if kind == 4:
        return draw(st.sampled_from([
            {"type": "image"},
            {"type": "image", "url": "https://example.com/a.png"},
            {"type": "image", "image": "https://example.com/a.png"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"image": "a.png"},
            {"image_url": "a.png"},
        ]))
    if kind == 5:
        return draw(st.sampled_from([
            {"type": "video", "video": "v.mp4"}, {"video": "v.mp4"}, {"type": "video"},
            {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}},
        ]))
    if kind == 6:
        # typed part with an odd payload, or the type/text keys with other values
        return draw(st.fixed_dictionaries(
            {}, optional={"type": st.one_of(part_types, json_value), "text": st.one_of(texts, json_value),
                          "image": json_value, "video": json_value}))
    if kind == 7:
        return draw(texts)  # a bare string part: `'text' in item` is a substring test
    return draw(json_value)


contents = st.one_of(
    texts,
    texts,
    st.lists(content_part(), max_size=4),
    st.none(),
    json_value,
)


@st.composite
def tool_call(draw: st.DrawFn) -> Any:
    """An OpenAI tool call (arguments as a dict or a JSON string), a flat one, or junk."""
    kind = draw(st.integers(0, 7))
    arguments = draw(st.one_of(
        st.dictionaries(short_texts, json_value, max_size=3),
        st.dictionaries(short_texts, json_value, max_size=3).map(lambda d: json.dumps(d)),
        json_value,
    ))
    name = draw(st.one_of(st.sampled_from(["get_weather", "search", "calc"]), texts, json_value))
    if kind <= 3:
        call: dict[str, Any] = {"function": {"name": name, "arguments": arguments}}
        if draw(st.booleans()):
            call = {"id": draw(st.one_of(st.sampled_from(["call_1", "call_2", "a1b2c3d4e5"]), texts, json_value)),
                    "type": "function", **call}
        return call
    if kind == 4:
        return {"name": name, "arguments": arguments}
    if kind == 5:
        return draw(st.fixed_dictionaries({}, optional={
            "id": st.one_of(texts, json_value), "type": json_value,
            "function": st.one_of(json_value, st.fixed_dictionaries(
                {}, optional={"name": st.one_of(texts, json_value), "arguments": st.one_of(json_value, texts)})),
            "name": json_value, "arguments": json_value}))
    return draw(json_value)


tool_calls = st.one_of(st.lists(tool_call(), max_size=3), st.just([]), st.none(), json_value)

MESSAGE_KEYS = ("role", "content", "tool_calls", "reasoning_content", "reasoning", "thinking",
                "tool_call_id", "name")


def _field(present: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    # absent is expressed by the caller; here: None, a realistic value, or any JSON value
    return st.one_of(st.none(), present, present, present, json_value)


@st.composite
def message(draw: st.DrawFn, roles: st.SearchStrategy[Any] = roles) -> Any:
    """A message: each key absent, None, realistic or any JSON value; sometimes not a dict."""
    if draw(st.integers(0, 30)) == 0:
        return draw(json_value)
    fields = {
        "role": st.one_of(roles, st.none()),
        "content": _field(contents),
        "tool_calls": _field(tool_calls),
        "reasoning_content": _field(texts),
        "reasoning": _field(texts),
        "thinking": _field(texts),
        "tool_call_id": _field(st.one_of(st.sampled_from(["call_1", "call_2"]), texts)),
        "name": _field(texts),
    }
    msg: dict[str, Any] = {}
    for key in MESSAGE_KEYS:
        if key == "role":
            present = draw(st.integers(0, 20)) > 0
        elif key == "content":
            present = draw(st.integers(0, 6)) > 0
        else:
            present = draw(st.integers(0, 3)) == 0
        if present:
            msg[key] = draw(fields[key])
    if draw(st.integers(0, 8)) == 0:
        msg[draw(short_texts)] = draw(json_value)
    return msg


adversarial_messages = st.lists(message(), max_size=7)
"""Conversations in any shape: messages with every key absent, None or odd."""

# ---------------------------------------------------------------- realistic conversations

TOOL_SCHEMAS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the weather",
                                      "parameters": {"type": "object", "properties": {
                                          "city": {"type": "string", "description": "City name"}},
                                          "required": ["city"]}}},
    {"type": "function", "function": {"name": "search", "description": "Search the web",
                                      "parameters": {"type": "object", "properties": {
                                          "query": {"type": "string"}, "limit": {"type": "integer"}}}}},
]

tools_realistic = st.lists(st.sampled_from(TOOL_SCHEMAS), min_size=1, max_size=2)
tools_any = st.one_of(tools_realistic, st.just([]), st.none(), json_value,
                      st.lists(json_value, max_size=3))


# ---------------------------------------------------------------- JSON schemas

#: Property names, and the schema texts a template may print (descriptions, enum members).
_SCHEMA_NAMES = st.sampled_from(["city", "query", "limit", "unit", "tags", "x", "a b", "é"])
_SCHEMA_TEXTS = st.one_of(st.sampled_from(["City name", "The unit", "", "a\nb", "// x"]), short_texts)
_SCHEMA_TYPES = st.sampled_from(["string", "number", "integer", "boolean", "object", "array", "null"])


def _schema_with(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """One JSON schema node whose sub-schemas are ``children``: each keyword a schema type
    branches on (``type``, a list of types, ``items``, ``properties``/``required``, ``oneOf``,
    ``anyOf``, ``enum``, ``nullable``) and the annotations it prints (``description``,
    ``default``), each present or not, now and then an odd value."""
    properties = st.dictionaries(_SCHEMA_NAMES, children, max_size=3)

    @st.composite
    def node(draw: st.DrawFn) -> dict[str, Any]:
        kind = draw(st.integers(0, 9))
        spec: dict[str, Any] = {}
        if kind <= 5:
            spec["type"] = draw(_SCHEMA_TYPES)
        elif kind == 6:
            spec["type"] = draw(st.lists(_SCHEMA_TYPES, min_size=0, max_size=3))
        elif kind == 7:
            spec["oneOf"] = draw(st.lists(children, min_size=1, max_size=3))
        elif kind == 8:
            spec["anyOf"] = draw(st.lists(children, min_size=1, max_size=3))
        if spec.get("type") == "array" or draw(st.integers(0, 9)) == 0:
            spec["items"] = draw(st.one_of(children, children, st.just({}), st.just([]), st.none()))
        if spec.get("type") == "object" or draw(st.integers(0, 9)) == 0:
            if draw(st.integers(0, 4)):
                props = draw(properties)
                spec["properties"] = props
                if draw(st.booleans()):
                    spec["required"] = draw(st.lists(st.one_of(st.sampled_from(sorted(props) or ["x"]), _SCHEMA_NAMES),
                                                     max_size=3))
        if spec.get("type") == "string" and draw(st.booleans()) or draw(st.integers(0, 9)) == 0:
            spec["enum"] = draw(st.one_of(st.lists(_SCHEMA_TEXTS, min_size=1, max_size=3),
                                          st.lists(scalars, max_size=2)))
        if draw(st.integers(0, 3)) == 0:
            spec["nullable"] = draw(st.one_of(st.booleans(), st.booleans(), scalars))
        # an odd description or a default that is not a string (which a template may
        # concatenate) one time in ten (a middle value: Hypothesis draws the ends most): a schema
        # holds several, and one fails the whole render
        if draw(st.booleans()):
            spec["description"] = draw(scalars if draw(st.integers(0, 9)) == 5 else _SCHEMA_TEXTS)
        if draw(st.integers(0, 2)) == 0:
            spec["default"] = draw(st.one_of(scalars, st.lists(scalars, max_size=2))
                                   if draw(st.integers(0, 9)) == 5 else _SCHEMA_TEXTS)
        return spec

    return node()


json_schemas = st.recursive(_schema_with(st.sampled_from([{"type": "string"}, {"type": "integer"}, {}])),
                            _schema_with, max_leaves=6)
"""JSON schemas of every shape a schema-to-type renderer branches on (gpt-oss renders a tool's
parameters as TypeScript types from them): types, type lists, arrays with typed, untyped, empty
or nested ``items``, objects with ``properties`` and ``required``, ``oneOf``/``anyOf`` unions,
string ``enum``s, ``nullable``, descriptions and defaults of any JSON type, nested."""


@st.composite
def schema_tool(draw: st.DrawFn) -> Any:
    """An OpenAI function tool whose parameters are a :data:`json_schemas` object (a name and
    description present in most, each odd now and then)."""
    function: dict[str, Any] = {}
    if draw(st.integers(0, 15)) != 7:  # (a middle value: Hypothesis draws the ends most)
        function["name"] = draw(st.one_of(st.sampled_from(["get_weather", "search", "calc"]), short_texts))
    if draw(st.integers(0, 15)) != 7:
        function["description"] = draw(scalars if draw(st.integers(0, 15)) == 7 else _SCHEMA_TEXTS)
    shape = draw(st.integers(0, 9))
    if shape <= 7:
        parameters: Any = {"type": "object", "properties": draw(st.dictionaries(_SCHEMA_NAMES, json_schemas, max_size=4))}
        if draw(st.booleans()):
            parameters["required"] = draw(st.one_of(
                st.lists(st.sampled_from(sorted(parameters["properties"]) or ["x"]), max_size=3),
                st.none(), short_texts))
        function["parameters"] = parameters
    elif shape == 8:
        function["parameters"] = draw(st.one_of(st.just({"type": "object"}), json_value))
    return {"type": "function", "function": function}


schema_tools = st.lists(schema_tool(), min_size=1, max_size=3)
"""Tools lists of :func:`schema_tool`: what a schema-to-type renderer's every branch needs."""


@st.composite
def realistic_conversation(draw: st.DrawFn) -> list[dict[str, Any]]:
    """What well-behaved clients send: an optional system message, user/assistant turns,
    tool rounds with ids that match, reasoning, list contents with images."""
    msgs: list[dict[str, Any]] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(st.one_of(texts, st.lists(content_part(), max_size=2)))})
    for turn in range(draw(st.integers(0, 4))):
        user_content = draw(st.one_of(texts, st.lists(content_part(), min_size=1, max_size=3)))
        msgs.append({"role": "user", "content": user_content})
        for round_ in range(draw(st.integers(0, 2))):
            calls = []
            for k in range(draw(st.integers(1, 2))):
                call_id = f"call_{turn}_{round_}_{k}"
                args = draw(st.dictionaries(st.sampled_from(["city", "query", "limit", "x"]),
                                            st.one_of(texts, st.integers(), st.booleans(), json_value), max_size=2))
                if draw(st.booleans()):
                    args = json.dumps(args)
                calls.append({"id": call_id, "type": "function",
                              "function": {"name": draw(st.sampled_from(["get_weather", "search"])),
                                           "arguments": args}})
            assistant: dict[str, Any] = {"role": "assistant", "content": draw(st.one_of(st.just(""), texts)),
                                         "tool_calls": calls}
            if draw(st.booleans()):
                assistant["reasoning_content"] = draw(texts)
            msgs.append(assistant)
            for call in calls:
                msgs.append({"role": "tool", "tool_call_id": call["id"], "name": call["function"]["name"],
                             "content": draw(st.one_of(texts, st.just('{"temp": 21}')))})
        if draw(st.integers(0, 4)) > 0:
            final: dict[str, Any] = {"role": "assistant", "content": draw(texts)}
            reasoning_key = draw(st.sampled_from([None, "reasoning_content", "reasoning", "thinking"]))
            if reasoning_key:
                final[reasoning_key] = draw(texts)
            msgs.append(final)
    return msgs


conversations = st.one_of(realistic_conversation(), adversarial_messages)

# ---------------------------------------------------------------- tools as JSON schemas, any shape

#: The keys a JSON schema (a tool's, its parameters', a parameter's) holds, and some that the
#: XML tool renderers (Qwen3-Coder) treat specially or rewrite (``-``, `` `` and ``$`` in a name).
SCHEMA_KEYS = ["type", "name", "description", "enum", "required", "items", "default", "properties",
               "parameters", "return", "format", "$ref", "x-order", "a b", "additionalProperties"]

schema_values = st.one_of(texts, json_value, st.lists(st.one_of(short_texts, scalars), max_size=3),
                          st.dictionaries(short_texts, scalars, max_size=2))

param_schemas = st.one_of(
    st.dictionaries(st.one_of(st.sampled_from(SCHEMA_KEYS), short_texts), schema_values, max_size=5),
    st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "array", "object"])},
                          optional={"description": texts, "enum": st.lists(st.one_of(short_texts, scalars), max_size=3)}),
    json_value,
)

parameter_schemas = st.one_of(
    st.fixed_dictionaries({}, optional={
        "type": st.one_of(st.just("object"), json_value),
        "properties": st.one_of(
            st.dictionaries(st.one_of(st.sampled_from(["city", "query", "limit", "a-b"]), short_texts),
                            param_schemas, max_size=3),
            json_value),
        "required": st.one_of(st.lists(short_texts, max_size=3), json_value),
        "additionalProperties": schema_values,
        "$defs": schema_values,
    }),
    json_value,
)

function_schemas = st.fixed_dictionaries({}, optional={
    "name": st.one_of(st.sampled_from(["get_weather", "search"]), texts, json_value),
    "description": st.one_of(texts, json_value),
    "parameters": parameter_schemas,
    "return": schema_values,
    "strict": st.booleans(),
    "x-meta": schema_values,
})

tag_schema_tools = st.one_of(
    st.lists(st.one_of(
        function_schemas.map(lambda function: {"type": "function", "function": function}),
        function_schemas,
        st.fixed_dictionaries({}, optional={"type": json_value, "function": st.one_of(function_schemas, json_value)}),
        json_value,
    ), min_size=1, max_size=3),
    tools_any,
)
"""Tools whose schemas take any shape at every level (a parameter's keys, the parameters', the
function's, each value a string, a list, a mapping or anything): what a template that writes
each schema key as a tag of its own branches on (the XML tool renderers)."""

# ---------------------------------------------------------------- template variables

variable_values = st.one_of(st.booleans(), st.none(), st.integers(-1, 2), texts, json_value)


#: The globals of transformers' environment (jinja2's own included): a caller variable of one
#: of these names shadows the global, and a template that calls it then fails.
ENVIRONMENT_GLOBALS = sorted(jinja_env.ENVIRONMENT_GLOBALS)

shadowing_globals = st.dictionaries(
    st.sampled_from(ENVIRONMENT_GLOBALS),
    st.one_of(st.none(), st.booleans(), st.integers(-1, 2), short_texts, json_value),
    min_size=1, max_size=2,
)
"""Variables named like environment globals, with any JSON value (none is callable)."""


def variables(**per_name: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Template variables, each independently passed (with a value from its strategy) or not
    passed at all (undefined to the template); one time in eight, also a variable or two named
    like an environment global (:data:`shadowing_globals`)."""
    own = st.fixed_dictionaries({}, optional=per_name)
    with_globals = st.builds(lambda mine, shadowing: {**mine, **shadowing}, own, shadowing_globals)
    return st.one_of(own, own, own, own, own, own, own, with_globals)


# ---------------------------------------------------------------- a format's variables, from its spec

#: The shared strategies a spec's ``tests.variables`` names (``chatformats._spec.Tests``).
VARIABLE_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    # a switch the template tests for truth or identity: booleans among the odd values
    "flag": variable_values,
    # an OpenAI tools list, or anything else
    "tools": tools_any,
    # the same, realistic schemas twice as often (the Llama 3.2 Vision templates: tools and
    # custom_tools)
    "llama_tools": st.one_of(tools_any, st.lists(st.sampled_from(TOOL_SCHEMAS), min_size=1, max_size=2)),
    # the same, and the values a template iterates or tests oddly: "", {}, small integers
    "tools_or_odd": st.one_of(tools_any, st.just(""), st.just({}), st.integers(-1, 2)),
    # the same, and tools whose parameters are JSON schemas of every shape (gpt-oss's TypeScript
    # rendering of schemas), half the time
    "schema_tools": st.one_of(tools_any, schema_tools),
    # tools whose schemas take any shape at every level (the Qwen3-Coder templates write each
    # schema key as a tag)
    "tag_schema_tools": tag_schema_tools,
}


def variable_strategy(how: Any) -> st.SearchStrategy[Any]:
    """One variable's strategy as a spec states it: the name of a shared strategy
    (:data:`VARIABLE_STRATEGIES`) or a tuple of realistic values, each drawn (a fresh copy)
    beside the shared odd values (:data:`variable_values`)."""
    if isinstance(how, str):
        return VARIABLE_STRATEGIES[how]
    return st.one_of(st.sampled_from(tuple(how)).map(copy.deepcopy), variable_values)


def format_variables(name: Any) -> st.SearchStrategy[dict[str, Any]]:
    """Every variable format ``name``'s template reads (its spec's ``variables``), each
    independently passed or not (:func:`variables`), drawn as its spec's ``tests.variables``
    says, or with the shared odd values (:data:`variable_values`) where it says nothing.
    ``name`` may also be a ``ChatFormat``."""
    import chatformats

    fmt = chatformats.get_format(name) if isinstance(name, str) else name
    how = fmt.tests.variables
    names = list(fmt.variables) + [v for v in how if v not in fmt.variables]
    return variables(**{v: variable_strategy(how[v]) if v in how else variable_values for v in names})
