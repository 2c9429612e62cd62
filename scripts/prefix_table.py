"""Write the prefix-stability table of ``docs/ids.md`` (between its ``prefix-table`` markers) from
a property run: for every format and each setting of its variables that changes what it keeps
(:data:`SETTINGS`: ``enable_thinking``, DeepSeek-V3.1's ``thinking``, Solar Open's
``think_render_option``), every append of ``chatformats.rollout.APPENDS`` is tried on
``chatformats.prefix_stable``'s probes and on histories Hypothesis draws (assistant turns with
and without reasoning and tool calls, user turns, tool results; the weather tool given); an
append is stable when no history breaks the prefix, and the table gives the first reason found
otherwise.  The script fails when a drawn history breaks an append ``prefix_stable`` calls
stable (its probes would then be missing a case).

    python scripts/prefix_table.py [--examples N] [--check]

Needs Hypothesis (the test extra).  Run from anywhere; the source tree's package is used.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "ids.md"
START, END = "<!-- prefix-table: start -->", "<!-- prefix-table: end -->"


#: The variables that change what a template keeps of earlier turns or writes for the sampled
#: one, each with the values the table gives besides the defaults.
SETTINGS = {
    "enable_thinking": [False],        # Qwen3, GLM-4.5, Cogito, MiniCPM-V 4.6
    "thinking": [True],                # DeepSeek-V3.1 (its default: off)
    "think_render_option": ["all"],    # Solar Open (its default: "lastthink")
}


def settings_of(fmt: Any) -> list[dict[str, Any]]:
    """The defaults, then each of :data:`SETTINGS`' values for each variable the template reads."""
    out: list[dict[str, Any]] = [{}]
    for variable, values in SETTINGS.items():
        if fmt.variables and variable in fmt.variables:
            out += [{variable: value} for value in values]
    return out


def property_run(name: str, variables: dict[str, Any], examples: int) -> dict[str, str | None]:
    """The first history Hypothesis finds that breaks each append (``None``: none found)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    import chatformats
    from chatformats import rollout

    found: dict[str, str | None] = {append: None for append in rollout.APPENDS}
    texts = st.sampled_from(["Sunny.", "Let me check.", "\n\nok\n", " x", "21 °C"])
    # arguments a mapping or its JSON text (the DeepSeek templates take only the text)
    mapping = st.fixed_dictionaries({"city": st.sampled_from(["Oslo", "Bergen"])})
    call = st.fixed_dictionaries({"type": st.just("function"), "function": st.fixed_dictionaries({
        "name": st.just("get_weather"), "arguments": st.one_of(mapping, mapping.map(json.dumps))})})
    assistant = st.fixed_dictionaries({"role": st.just("assistant"), "content": texts},
                                      optional={"reasoning_content": texts,
                                                "tool_calls": st.lists(call, min_size=1, max_size=2)})
    user = st.fixed_dictionaries({"role": st.just("user"), "content": texts})
    tool = st.fixed_dictionaries({"role": st.just("tool"), "content": texts})
    env = {"tools": [rollout._TOOL], **variables}

    def check(append: str, messages: list[Any], message: Any, prompted: bool) -> None:
        if found[append] is not None:
            return
        try:
            earlier = chatformats.apply_chat_template_spans(name, messages, add_generation_prompt=prompted,
                                                            now=rollout._NOW, **env)
            later = chatformats.apply_chat_template(
                name, messages if message is None else [*messages, message],
                add_generation_prompt=message is None, now=rollout._NOW, **env)
        except chatformats.ChatFormatError:
            return
        found[append] = rollout.why_not_prefix(earlier, later)

    @settings(max_examples=examples, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(history=st.lists(st.one_of(assistant, user, tool), max_size=5), data=st.data())
    def run(history: list[Any], data: Any) -> None:
        base = [{"role": "user", "content": "Hi"}, *history]
        last = base[-1]
        if last["role"] == "assistant":
            if last.get("tool_calls"):
                check("tool", base, data.draw(tool), False)
            check("user", base, data.draw(user), False)
        else:
            check("assistant", base, data.draw(assistant), True)
            check("generation_prompt", base, None, False)

    run()
    return found


def table(examples: int) -> tuple[str, list[str]]:
    import chatformats
    from chatformats import rollout

    rows = ["| format | variables | " + " | ".join(a.replace("_", " ") for a in rollout.APPENDS) + " |",
            "|---|---|" + "---|" * len(rollout.APPENDS)]
    notes: list[str] = []
    problems: list[str] = []
    for name in chatformats.formats():
        fmt = chatformats.get_format(name)
        for variables in settings_of(fmt):
            answers = chatformats.prefix_stable(name, **variables)
            found = property_run(name, variables, examples)
            cells = []
            for append in rollout.APPENDS:
                reason = answers[append] or found[append]
                if answers[append] is None and found[append] is not None:
                    problems.append(f"{name} {variables}: {append}: prefix_stable says stable, "
                                    f"but {found[append]}")
                if reason is None:
                    cells.append("yes")
                else:
                    notes.append(f"{len(notes) + 1}. `{name}` {_vars(variables)}, {append.replace('_', ' ')}: "
                                 f"{reason}")
                    cells.append(f"no ({len(notes)})")
            rows.append(f"| `{name}` | {_vars(variables)} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n\n" + "\n".join(notes) + "\n", problems


def _vars(variables: dict[str, Any]) -> str:
    return ", ".join(f"`{k}={v!r}`" for k, v in variables.items()) or "(defaults)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=300, help="histories per format and setting")
    parser.add_argument("--check", action="store_true", help="compare with the docs; write nothing")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT / "src")]
    text, problems = table(args.examples)
    for problem in problems:
        print(problem, file=sys.stderr)
    page = DOCS.read_text(encoding="utf-8")
    new = re.sub(re.escape(START) + r".*?" + re.escape(END), START + "\n" + text.replace("\\", "\\\\") + END,
                 page, flags=re.S)
    if args.check:
        return 1 if new != page or problems else 0
    DOCS.write_text(new, encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
