"""The grammars that are only a description (data tables, importing nothing).

A format names its grammar in its spec (``Spec.grammar``).  A grammar is either a description
in :data:`DESCRIPTIONS` (built by :mod:`._build`: think block, content, tagged tool calls) or,
for a syntax of its own, a module ``parsing/<name>.py`` with ``STATES``, ``RECOVER``, ``START``,
``ANCHOR`` and ``NAME`` (Llama's bare JSON, Cogito's JSON list, Solar's blocks).

Besides its tables, every grammar states six facts (a description under the keys
``"reserved"``, ``"prefixes"`` and ``"canonical"``, the others following from its call body; a module as
upper-case constants), which the parser's callers and the test suite read
(``tests/test_registry.py`` fails for a grammar that lacks one):

- ``RESERVED``: the strings a text field (content, reasoning, an argument's text) of its
  representable domain never holds besides the markers of its exact table (the openers it
  reads a region by, the next turn's header, the tokens of the template's other roles); with
  the markers, :func:`chatformats.parsing.reserved` (docs/parsing.md, "The representable
  domain");
- ``PREFIXES``: the prefixes a completion is read after (``""`` first, then where each
  generation prompt leaves the parser: the assistant header, a prefilled think block);
- ``STRING_ARGUMENTS``: whether a tool call's ``arguments`` given as a string read back as that
  string (the template writes the string as given, or ``tojson``'s it), not as the mapping;
- ``SINGLE_CALL``: whether the template refuses a turn with more than one tool call (Llama's
  "This model only supports single tool-calls at once!"; gpt-oss, which writes only the first,
  does not refuse);
- ``CANONICAL``: what the template keeps of an assistant message (the canonical form,
  :func:`chatformats.parsing.canonical`): the facts of ``parsing/_canonical.py``'s ``FACTS``
  where they differ from its defaults (a description's key ``"canonical"``);
- ``RECOVER_OPENERS``: the openers the recovering reading reads a call at inside text the
  template writes as content (a JSON call inside Llama content, Cogito's compact list opener):
  on content holding one the two readings differ (docs/parsing.md, "The recovering reading");
  none for a grammar whose recovering reading reads template output as the exact one does.
"""

_IM_ASSISTANT = "<|im_start|>assistant\n"

#: Grammars given as a description (``_build.py``'s docstring says what each key means).
DESCRIPTIONS: "dict[str, dict[str, object]]" = {
    # ports/qwen3_tool_agent.py, template "if loop.index0 > ns.last_query_index" to
    # "<|im_end|>": after the last user query "<think>\n" + reasoning.strip("\n") +
    # "\n</think>\n\n" + content.lstrip("\n"); each call '<tool_call>\n{"name": "NAME",
    # "arguments": ARGS}\n</tool_call>', preceded by "\n" unless it is the first and the
    # content is empty; "<|im_end|>\n".
    "qwen3_tool_agent": {
        "name": "qwen3-tool-agent",
        "anchor": _IM_ASSISTANT,
        "end": "<|im_end|>",
        "think": {"open": "<think>", "close": "</think>", "strip": "\n"},
        "content": "qwen",
        "calls": {"open": "<tool_call>", "close": "</tool_call>", "body": "json"},
        "reserved": ("<think>", "<|im_start|>"),
        "prefixes": ("", "<|im_start|>assistant\n"),
        "canonical": {"reasoning": "strip-newlines", "reasoning_if": "after-a-query",
                      "content": "lstrip-newlines-after-think"},
    },
    # ports/qwen3_instruct_2507.py, L25-46: content as given (a <think> in it is content: the
    # template has no reasoning), then the same tool calls as Thinking-2507, "<|im_end|>\n".
    "qwen3_instruct_2507": {
        "name": "qwen3-instruct-2507",
        "anchor": _IM_ASSISTANT,
        "end": "<|im_end|>",
        "think": None,
        "content": "qwen",
        "calls": {"open": "<tool_call>", "close": "</tool_call>", "body": "json"},
        "reserved": ("<|im_start|>",),
        "prefixes": ("", "<|im_start|>assistant\n"),
        "canonical": {"reasoning": "dropped"},
    },
    # ports/_qwen2_5.py, L22-39 (both Qwen2.5 Instruct texts: they differ only in the system
    # turn's tool instructions): a turn without calls is its content as given (a <think> in it
    # is content: the template has no reasoning); with calls, the content (when not empty),
    # then each call '\n<tool_call>\n{"name": "NAME", "arguments": ARGS|tojson}\n</tool_call>'
    # (the header's "\n" is the first call's when the content is empty), "<|im_end|>\n".
    # ARGS goes through tojson whether a mapping or a string: a string reads back as a string.
    "qwen2_5_instruct": {
        "name": "qwen2.5-instruct",
        "anchor": _IM_ASSISTANT,
        "end": "<|im_end|>",
        "think": None,
        "content": "qwen",
        "calls": {"open": "<tool_call>", "close": "</tool_call>", "body": "json_string"},
        "reserved": ("<|im_start|>",),
        "prefixes": ("", "<|im_start|>assistant\n"),
        "canonical": {"reasoning": "dropped"},
    },
    # ports/glm4_5.py, L48-80: "\n<think>" + reasoning.strip() + "</think>" (after the last user
    # message and when there is reasoning; else "\n<think></think>", which the generation prompt
    # holds with enable_thinking false), then "\n" + content.strip() when not empty, then each
    # call "\n<tool_call>NAME" + "\n<arg_key>KEY</arg_key>\n<arg_value>VALUE</arg_value>" per
    # argument (a string as is, anything else through tojson) + "\n</tool_call>".  No end-of-
    # turn token: the model ends the turn with the next role's token.
    "glm4_5": {
        "name": "glm-4.5",
        "anchor": "<|assistant|>",
        "end": ("<|user|>", "<|observation|>", "<|endoftext|>"),
        "think": {"open": "\n<think>", "close": "</think>", "strip": "space"},
        "content": "trim",
        "calls": {"open": "<tool_call>", "close": "</tool_call>", "body": "glm"},
        "reserved": ("<think>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "<|assistant|>"),
        "prefixes": ("", "<|assistant|>", "<|assistant|>\n<think></think>"),
        "canonical": {"reasoning": "strip", "content": "strip", "arguments": "json-nonstring"},
    },
    # ports/minicpm_v4_6_thinking.py: "<think>\n" + reasoning|trim + "\n</think>\n\n" +
    # content|trim (the generation prompt holds "<think>\n", or the closed block
    # "<think>\n\n</think>\n\n" with enable_thinking=false); each call "<tool_call>\n<function=NAME>\n"
    # + "<parameter=KEY>\nVALUE\n</parameter>\n" per argument + "</function>\n</tool_call>", the
    # first after "\n\n" when there is content, the others after "\n"; "<|im_end|>\n".
    "minicpm_v4_6_thinking": {
        "name": "minicpm-v-4.6-thinking",
        "anchor": _IM_ASSISTANT,
        "end": "<|im_end|>",
        "think": {"open": "<think>", "close": "</think>", "strip": "space"},
        "content": "trim",
        "calls": {"open": "<tool_call>", "close": "</tool_call>", "body": "xml"},
        "reserved": ("<think>", "<|im_start|>", "</parameter>", "</function>", "<parameter=", "<function="),
        "prefixes": ("", "<|im_start|>assistant\n<think>\n", "<|im_start|>assistant\n<think>\n\n</think>\n\n"),
        "canonical": {"reasoning": "strip", "content": "strip", "arguments": "json-container"},
    },
    # ports/_qwen3_coder.py, L76-98 (the three Qwen3-Coder texts write the same turn): a turn
    # without calls is its content as given; with calls, "\n" + content|trim + "\n" when that
    # is not empty, then each call "\n<tool_call>\n<function=NAME>\n" +
    # "<parameter=KEY>\nVALUE\n</parameter>\n" per argument + "</function>\n</tool_call>"
    # (the header's "\n" is the first call's when there is no content), "<|im_end|>\n".  With
    # tools, the values are converted as vLLM's Qwen3CoderToolParser converts them.
    "qwen3_coder": {
        "name": "qwen3-coder",
        "anchor": _IM_ASSISTANT,
        "end": "<|im_end|>",
        "think": None,
        "content": "coder",
        "calls": {"open": "<tool_call>", "close": "</tool_call>", "body": "xml"},
        "cast": "qwen3_coder",
        "reserved": ("<|im_start|>", "</parameter>", "</function>", "<parameter=", "<function="),
        "prefixes": ("", "<|im_start|>assistant\n"),
        # the August text's argument values (the spec of each other text says its own)
        "canonical": {"reasoning": "dropped", "content": "strip-with-calls",
                      "arguments": "json-mapping"},
    },
}
