"""Which grammar module reads which port's completions (a data table, importing nothing)."""

#: The grammar module of each port module: formats that write the same assistant turn (an
#: original and its variant) share one grammar.
GRAMMARS = {
    "solar_open": "solar_open",
    "llama3_2_vision_2024_09": "llama3_2_vision",
    "llama3_2_vision_2024_12": "llama3_2_vision",
    "llama3_2_vision": "llama3_2_vision",
    # Llama 3.2 (text) writes the Vision templates' assistant turn, its content |trim'med.
    "llama3_2": "llama3_2_vision",
    "minicpm_v4_6_thinking": "minicpm_v4_6_thinking",
    "cogito": "cogito",
    "qwen3_tool_agent": "qwen3_tool_agent",
    # The tool agent is Thinking-2507's logic with a preamble: the same assistant turn.
    "qwen3_thinking_2507": "qwen3_tool_agent",
}
