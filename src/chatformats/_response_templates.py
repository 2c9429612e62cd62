"""transformers' declarative ``response_template`` for each format (transformers >= 5.24,
``transformers.utils.chat_parsing``), so that ``tokenizer.parse_response(text, schema=...,
prefix=...)`` reads these models' completions too.  ``get_format(name).response_template``
returns a copy.

Each template is written against what the port writes (see the parsing module of the same
format) and is checked against transformers' own parser by ``tests/test_parse.py`` on
rendered completions.  :data:`LIMITS` says where transformers' language cannot say what the
format means; there the two parsers may differ, and this package's parser is the exact one.
"""

from __future__ import annotations

import copy
from typing import Any

_IM_ASSISTANT = "<|im_start|>assistant\n"
_LLAMA_ASSISTANT = "<|start_header_id|>assistant<|end_header_id|>\n\n"
# The end of turn, and the newline the template's "{# Add generation prompt #}" comment writes
# after the last one (it must not reopen the content).
_LLAMA_END = r"<\|eo[tm]_id\|>\n?"


def _deepseek(anchors: tuple[str, ...], think: bool) -> dict[str, Any]:
    """The DeepSeek R1/V3 family's template (``parsing/_deepseek.py``): after the header (or the
    tool results, or for R1-0528-Qwen3 an assistant turn, after which the template writes no
    header), an optional think block where the turn begins (the newlines around its text belong
    to its delimiters), the content verbatim, then each call
    ``<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME`` + a json fence around the arguments (the
    string written) + ``<｜tool▁call▁end｜>``; the section's tokens and the ``\\n`` between calls
    are read with the calls' own (the distills' and V3's section may end without its closing
    token)."""
    fields: dict[str, Any] = {}
    if think:
        fields["reasoning_content"] = {"open_pattern": r"\A<think>\n*", "close_pattern": r"\n*</think>",
                                       "content": "text", "content_args": {"strip": False}}
    fields["tool_calls"] = {
        "open_pattern": (r"(?:<｜tool▁calls▁begin｜>)?\n?<｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                         r"(?P<name>[^\n]*)\n```json\n"),
        "close_pattern": r"\n```<｜tool▁call▁end｜>(?:<｜tool▁calls▁end｜>)?",
        "repeats": True,
        "content": "text",
        "content_args": {"strip": False},
        "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
    }
    fields["content"] = {"close": "<｜end▁of▁sentence｜>", "content": "text",
                         "content_args": {"strip": False}}
    return {"defaults": {"role": "assistant", "content": ""}, "start_anchor": list(anchors),
            "fields": fields}


#: The Qwen templates' JSON tool calls (the "\n" before a call, after content or between calls,
#: belongs to its opening) and their content up to the end of turn ("<|im_end|>\n": the newline
#: after it must not reopen the content); shared as data: :func:`for_grammar` copies.
_QWEN_TOOL_CALLS: dict[str, Any] = {
    "open_pattern": r"\n?<tool_call>",
    "close": "</tool_call>",
    "repeats": True,
    "content": "json",
    "transform": {"type": "function", "function": "{content}"},
}
_QWEN_CONTENT: dict[str, Any] = {
    "close_pattern": r"<\|im_end\|>\n?",
    "content": "text",
    "content_args": {"strip": False},
}

_TEMPLATES: dict[str, dict[str, Any]] = {
    "qwen3_tool_agent": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _IM_ASSISTANT,
        "fields": {
            # "<think>\n" + reasoning.strip("\n") + "\n</think>\n\n": the newlines around the
            # reasoning belong to the delimiters, the reasoning's own spaces do not.
            "reasoning_content": {
                "open_pattern": r"<think>\n*",
                "close_pattern": r"\n*</think>\n*",
                "content": "text",
                "content_args": {"strip": False},
            },
            # The "\n" before a tool call (after content, between calls) belongs to its opening.
            "tool_calls": _QWEN_TOOL_CALLS,
            # "<|im_end|>\n": the newline after the end of turn must not reopen the content.
            "content": _QWEN_CONTENT,
        },
    },
    # No reasoning region: a <think> the content holds is content (the template has no think
    # block).  The "\n" before a tool call belongs to its opening, as for the tool agent.
    "qwen3_instruct_2507": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _IM_ASSISTANT,
        "fields": {
            "tool_calls": _QWEN_TOOL_CALLS,
            "content": _QWEN_CONTENT,
        },
    },
    # As Qwen3 Instruct-2507's: no reasoning region, the "\n" before a tool call belongs to its
    # opening.  A string argument the template wrote through tojson is a JSON string, which the
    # json parser reads back as that string, as this package's parser does.
    "qwen2_5_instruct": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _IM_ASSISTANT,
        "fields": {
            "tool_calls": _QWEN_TOOL_CALLS,
            "content": _QWEN_CONTENT,
        },
    },
    # Content, then the section: its opening token is read with the first call's opening, its
    # closing token with the last call's closing.  The id is the one written, functions.NAME:K.
    "kimi_k2": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": "<|im_assistant|>assistant<|im_middle|>",
        "fields": {
            "tool_calls": {
                "open_pattern": (r"(?:<\|tool_calls_section_begin\|>)?<\|tool_call_begin\|>"
                                 r"(?P<id>functions\.(?P<name>.*?):\d+)"
                                 r"<\|tool_call_argument_begin\|>"),
                "close_pattern": r"<\|tool_call_end\|>(?:<\|tool_calls_section_end\|>)?",
                "repeats": True,
                "content": "json",
                "transform": {"id": "{id}", "type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
            "content": {"close": "<|im_end|>", "content": "text",
                        "content_args": {"strip": False}},
        },
    },
    # "\n<think>" + reasoning|trim + "</think>", "\n" + content|trim, each call
    # "\n<tool_call>NAME" + "\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>"... +
    # "\n</tool_call>"; the turn ends at the next role's token (or the end of the text).
    "glm4_5": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": "<|assistant|>",
        "fields": {
            "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {
                "open_pattern": r"\s*<tool_call>(?P<name>[^\n]*)\n",
                "close": "</tool_call>",
                "repeats": True,
                "content": "xml-inline",
                "content_args": {
                    "tag_pattern": (r"<arg_key>(?P<key>.*?)</arg_key>\n"
                                    r"<arg_value>(?P<value>.*?)</arg_value>\n"),
                },
                "transform": {"type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
            "content": {"close_pattern": r"<\|(?:user|observation|endoftext)\|>",
                        "content": "text"},
        },
    },
    # After <｜Assistant｜> (or a tool result or an assistant turn, after which the template
    # writes no header): an
    # optional reasoning block (the closing </think> the header holds ends an empty one), the
    # content, each call's NAME and its arguments as the text written.
    "deepseek_v3_1": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": ["<｜Assistant｜>", "<｜tool▁output▁end｜>", "<｜end▁of▁sentence｜>"],
        "fields": {
            "reasoning_content": {"open_pattern": r"\A<think>|\A(?=</think>)", "close": "</think>",
                                  "content": "text", "content_args": {"strip": False}},
            "tool_calls": {
                "open_pattern": (r"(?:<｜tool▁calls▁begin｜>)?<｜tool▁call▁begin｜>"
                                 r"(?P<name>.*?)<｜tool▁sep｜>"),
                "close_pattern": r"<｜tool▁call▁end｜>(?:<｜tool▁calls▁end｜>)?",
                "repeats": True,
                "content": "text",
                "content_args": {"strip": False},
                "transform": {"type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
            "content": {"close": "<｜end▁of▁sentence｜>", "content": "text",
                        "content_args": {"strip": False}},
        },
    },
    "deepseek_r1": _deepseek(("<｜Assistant｜>", "<｜tool▁outputs▁end｜>"), think=True),
    "deepseek_r1_distill": _deepseek(("<｜Assistant｜>", "<｜tool▁outputs▁end｜>"), think=True),
    "deepseek_v3": _deepseek(("<｜Assistant｜>", "<｜tool▁outputs▁end｜>"), think=False),
    "deepseek_r1_0528_qwen3": _deepseek(
        ("<｜Assistant｜>", "<｜tool▁outputs▁end｜>", "<｜end▁of▁sentence｜>"), think=True),
    "minicpm_v4_6_thinking": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _IM_ASSISTANT,
        "fields": {
            "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
            "tool_calls": {
                "open_pattern": r"\s*<tool_call>\n<function=(?P<name>[^>\n]+)>\n",
                "close": "</function>\n</tool_call>",
                "repeats": True,
                "content": "xml-inline",
                "content_args": {
                    "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\n(?P<value>.*?)\n</parameter>\n",
                },
                "transform": {"type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
            "content": {"close_pattern": r"<\|im_end\|>\n?", "content": "text"},
        },
    },
    # No reasoning region; a turn without calls is its content as given; with calls the content
    # is trimmed and followed by "\n\n" (the "\n" after it and the first call's), which the
    # call's opening takes, as the "\n" between calls.
    "qwen3_coder": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _IM_ASSISTANT,
        "fields": {
            "tool_calls": {
                "open_pattern": r"\s*<tool_call>\n<function=(?P<name>[^>\n]+)>\n",
                "close": "</function>\n</tool_call>",
                "repeats": True,
                "content": "xml-inline",
                "content_args": {
                    "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\n(?P<value>.*?)\n</parameter>\n",
                },
                "transform": {"type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
            "content": {"close_pattern": r"<\|im_end\|>\n?", "content": "text",
                        "content_args": {"strip": False}},
        },
    },
    "llama3_2_vision": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _LLAMA_ASSISTANT,
        "fields": {
            # A turn that begins with {"name": " is one tool call; its JSON runs to the end.
            "tool_calls": {
                "open_pattern": r'\A(?=\{"name": ")',
                "close_pattern": _LLAMA_END,
                "repeats": True,
                "content": "json",
                "transform": {"type": "function", "function": {
                    "name": "{content.name}", "arguments": "{content.parameters}"}},
            },
            "content": {"close_pattern": _LLAMA_END, "content": "text",
                        "content_args": {"strip": False}},
        },
    },
    # Llama 3.1: the Llama 3.2 Vision turn (a JSON call, or content|trim, which reads as
    # written).  A built-in call (<|python_tag|>NAME.call(k="v")) has no field here: LIMITS.
    "llama3_1": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _LLAMA_ASSISTANT,
        "fields": {
            "tool_calls": {
                "open_pattern": r'\A(?=\{"name": ")',
                "close_pattern": _LLAMA_END,
                "repeats": True,
                "content": "json",
                "transform": {"type": "function", "function": {
                    "name": "{content.name}", "arguments": "{content.parameters}"}},
            },
            "content": {"close_pattern": _LLAMA_END, "content": "text",
                        "content_args": {"strip": False}},
        },
    },
    "cogito": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": _LLAMA_ASSISTANT,
        "fields": {
            "reasoning_content": {"open": "<think>", "close": "</think>", "content": "text"},
            # content|trim, then the whole list as one JSON array up to <|eot_id|>.
            "tool_calls": {
                "open_pattern": r'(?=\[\{"name": ")',
                "close": "<|eot_id|>",
                "content": "json",
                "transform": {"type": "function",
                              "function": {"name": "{name}", "arguments": "{arguments}"}},
                "transform_each": True,
            },
            "content": {"close": "<|eot_id|>", "content": "text"},
        },
    },
    "solar_open": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": "<|begin|>assistant",
        "fields": {
            "reasoning_content": {"open": "<|think|>", "close": "<|end|>", "content": "text",
                                  "content_args": {"strip": False}},
            "content": {"open": "<|content|>", "close": "<|end|>", "content": "text",
                        "content_args": {"strip": False}},
            "tool_calls": {
                "open_pattern": (r"<\|tool_call:begin\|>(?P<id>.*?)<\|tool_call:name\|>"
                                 r"(?P<name>.*?)<\|tool_call:args\|>"),
                "close": "<|tool_call:end|>",
                "repeats": True,
                "content": "json",
                "transform": {"id": "{id}", "type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
        },
    },
    # Harmony: an analysis message, then the final message or the one call (after the analysis
    # message's <|end|>, each opens with <|start|>assistant; without one, right after the
    # generation prompt's).
    "gpt_oss": {
        "defaults": {"role": "assistant", "content": ""},
        "start_anchor": "<|start|>assistant",
        "fields": {
            "reasoning_content": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>",
                                  "content": "text", "content_args": {"strip": False}},
            "tool_calls": {
                "open_pattern": (r"(?:<\|start\|>assistant)? to=functions\.(?P<name>.*?)"
                                 r"<\|channel\|>commentary json<\|message\|>"),
                "close": "<|call|>",
                "repeats": True,
                "content": "json",
                "transform": {"type": "function",
                              "function": {"name": "{name}", "arguments": "{content}"}},
            },
            "content": {"open_pattern": r"(?:<\|start\|>assistant)?<\|channel\|>final<\|message\|>",
                        "close_pattern": r"<\|(?:return|end)\|>", "content": "text",
                        "content_args": {"strip": False}},
        },
    },
}

#: Where transformers' response-template language cannot express the format exactly (its
#: parser then differs from :func:`chatformats.parse_response`).
LIMITS: dict[str, tuple[str, ...]] = {
    "qwen3_tool_agent": (
        "a think block opens only where the turn begins; the template's language opens one "
        "wherever <think> appears",
        "a malformed completion (text between or after tool calls, unclosed blocks) is read "
        "leniently instead of refused",
    ),
    "qwen3_instruct_2507": (
        "a malformed completion (text between or after tool calls, unclosed blocks) is read "
        "leniently instead of refused",
    ),
    "qwen2_5_instruct": (
        "a malformed completion (text between or after tool calls, unclosed blocks) is read "
        "leniently instead of refused",
    ),
    "kimi_k2": (
        "the id's index is not checked against the call's position; the section's tokens are "
        "optional around the calls, and a malformed completion (text between calls, an "
        "unclosed section) is read leniently instead of refused",
    ),
    "glm4_5": (
        "a think block opens only where the turn begins",
        "tool calls are read leniently (text between arguments is skipped) instead of refused",
    ),
    "deepseek_v3_1": (
        "a think block opens only where the turn begins; a malformed completion (text between "
        "or after tool calls, a call without <｜tool▁sep｜>) is read leniently instead of refused",
        "a prefix with none of the anchors (no user turn, tool result or assistant turn yet) is "
        "read whole, system prompt included, instead of ignored",
    ),
    "deepseek_r1": (
        "a think block opens only where the turn begins; a think block left open at "
        "<｜end▁of▁sentence｜> is refused by the exact reading, read as reasoning here",
        "a malformed completion (text between or after tool calls, a call not of the "
        "form function<｜tool▁sep｜>NAME + a json fence) is read leniently instead of refused",
        "a prefix with none of the anchors (no user turn or tool result yet) is read whole, "
        "system prompt included, instead of ignored",
    ),
    "deepseek_r1_distill": (
        "a think block opens only where the turn begins; a think block left open at "
        "<｜end▁of▁sentence｜> is refused by the exact reading, read as reasoning here",
        "a malformed completion (text between or after tool calls, a call not of the "
        "form function<｜tool▁sep｜>NAME + a json fence) is read leniently instead of refused",
        "a prefix with none of the anchors (no user turn or tool result yet) is read whole, "
        "system prompt included, instead of ignored",
    ),
    "deepseek_v3": (
        "a malformed completion (text between or after tool calls, a call not of the "
        "form function<｜tool▁sep｜>NAME + a json fence) is read leniently instead of refused",
        "a prefix with none of the anchors (no user turn or tool result yet) is read whole, "
        "system prompt included, instead of ignored",
    ),
    "deepseek_r1_0528_qwen3": (
        "a think block opens only where the turn begins; a think block left open at "
        "<｜end▁of▁sentence｜> is refused by the exact reading, read as reasoning here",
        "a malformed completion (text between or after tool calls, a call not of the "
        "form function<｜tool▁sep｜>NAME + a json fence) is read leniently instead of refused",
        "a prefix with none of the anchors (no user turn or tool result yet) is read whole, "
        "system prompt included, instead of ignored",
    ),
    "minicpm_v4_6_thinking": (
        "a think block opens only where the turn begins",
        "tool calls are read leniently (text between parameters is skipped, a call that is not "
        "<function=NAME> is not a call) instead of refused",
    ),
    "qwen3_coder": (
        "with tools, argument values are converted as vLLM's Qwen3CoderToolParser converts them "
        "(null as None for any type, ast.literal_eval's reading for an undeclared type, a "
        "number without a fraction as an int); transformers' cast follows its own rules",
        "tool calls are read leniently (text between parameters is skipped, a call that is not "
        "<function=NAME> is not a call) instead of refused",
    ),
    "llama3_2_vision": (
        "none on rendered completions; malformed ones are read leniently",
    ),
    "llama3_1": (
        "built-in calls (<|python_tag|>NAME.call(k=\"v\", ...)): a field has one content "
        "parser, and the JSON calls take the tool_calls field, so a built-in call reads as "
        "content",
    ),
    "cogito": (
        "tool-call ids: a transform cannot keep a key that only some calls have, so ids are "
        "dropped (and a call without \"arguments\" fails with a KeyError)",
        "a think block opens only where the turn begins",
    ),
    "gpt_oss": (
        "the order of the messages (an analysis message, then one final message or one call) is "
        "not checked, nor the content type (only json is read); a malformed completion is read "
        "leniently instead of refused",
        "Harmony's own header forms (the recipient after the channel, <|constrain|>json) are not "
        "read: parse_response's recovering reading reads them as openai-harmony does",
    ),
    "solar_open": (
        "the order of blocks (reasoning, then one answer block) is not checked; text outside "
        "the blocks is discarded instead of refused",
    ),
}


def for_grammar(grammar_name: str) -> dict[str, Any]:
    """A copy of the ``response_template`` of the formats grammar ``grammar_name`` reads (the
    grammar module's name, ``chatformats.parsing.family`` of a format)."""
    return copy.deepcopy(_TEMPLATES[grammar_name])
