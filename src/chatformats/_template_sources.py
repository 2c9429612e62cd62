"""The reference templates' text: the package's one copy of each (generated, do not edit).

Written by ``scripts/regenerate.py`` from ``reference_templates/``, each file checked against the
sha256 its spec pins; ``tests/test_generated.py`` fails when this module is stale.
``ChatFormat.template_source()`` returns a text after checking its sha256 again, and the
pipeline's ``continue_final_message`` check searches it (transformers checks ``field in
chat_template``).  Keyed by the template's file name in ``reference_templates/``.
"""

from __future__ import annotations

SOURCES: dict[str, str] = {
    'solar_open.jinja': (
        '{#- ======== Template Parameters ======== #}\n'
        '{%- set add_generation_prompt = add_generation_prompt if add_generation_prompt is defined else true %}\n'
        '{%- set default_system_prompt = default_system_prompt if default_system_prompt is defined else true %}\n'
        '{%- set reasoning_effort = reasoning_effort if reasoning_effort is defined else "high" %}\n'
        '{%- set think_render_option = think_render_option if think_render_option is defined else "lastthink" %}\n'
        '\n'
        '{#- ======== System Block State ======== #}\n'
        '{%- set sys_ns = namespace(is_first_block=true) -%}\n'
        '\n'
        '{#- ======== Find last user message index ======== #}\n'
        '{%- set last_user_idx = namespace(value=-1) -%}\n'
        '{%- for message in messages -%}\n'
        " {%- if message.role == 'user' -%}\n"
        ' {%- set last_user_idx.value = loop.index0 -%}\n'
        ' {%- endif -%}\n'
        '{%- endfor -%}\n'
        '\n'
        '{#- ======== System messages renderers ======== #}\n'
        '{%- macro render_system_message(user_system_messages) %}\n'
        ' {%- if default_system_prompt %}\n'
        ' {%- if not sys_ns.is_first_block %}{{- "\\n\\n" }}{%- endif %}\n'
        ' {%- set sys_ns.is_first_block = false %}\n'
        ' {{- "## Provider System Prompt\\n\\nYou are Solar Open 100B, a large language model trained by Upstage AI, a Korean startup. Your knowledge cutoff is 2025-07. The current date is " + strftime_now("%Y-%m-%d") + "." }}\n'
        ' {%- endif -%}\n'
        ' {%- if user_system_messages %}\n'
        ' {%- if not sys_ns.is_first_block %}{{- "\\n\\n" }}{%- endif %}\n'
        ' {%- set sys_ns.is_first_block = false %}\n'
        ' {{- "## System Prompt" }}\n'
        ' {%- for system_message in user_system_messages %}\n'
        ' {{- "\\n\\n" }}\n'
        ' {{- system_message }}\n'
        ' {%- endfor %}\n'
        ' {%- endif -%}\n'
        '{%- endmacro %}\n'
        '\n'
        '{%- macro render_tool_instruction(tools) %}\n'
        ' {%- if not sys_ns.is_first_block %}{{- "\\n\\n" }}{%- endif %}\n'
        ' {%- set sys_ns.is_first_block = false %}\n'
        ' {{- "## Tools\\n\\n### Tool Call Instruction" }}\n'
        ' {{- "\\nYou may invoke one or more tools to assist with the user\'s query. Available tools are provided in JSON Schema format: <|tools:begin|><|tool:begin|><tools-json-object><|tool:end|>...<|tools:end|>\\n" }}\n'
        ' {{- "\\n### Available Tools\\n" }}\n'
        ' {{- "<|tools:begin|>" }}\n'
        ' {%- for tool in tools %}\n'
        ' {{- "<|tool:begin|>" }}\n'
        ' {{- tool.function | tojson }}\n'
        ' {{- "<|tool:end|>" }}\n'
        ' {%- endfor %}\n'
        ' {{- "<|tools:end|>\\n" }}\n'
        ' {{- "\\n### Tool Call Format\\n" }}\n'
        ' {{- "For each tool call, return a JSON object with the following structure, enclosed within <|tool_call:begin|> and <|tool_call:end|> tags: \\n<|tool_call:begin|><tool-call-id><|tool_call:name|><tool-name><|tool_call:args|><args-json-object><|tool_call:end|>\\n" }}\n'
        ' {{- "- The <tool-call-id> must be a randomly generated string consisting of 10 lowercase letters (a-z) and/or digits (0-9) (e.g., a1b2c3d4e5)\\n" }}\n'
        ' {{- "\\n### Tool Response Format\\n" }}\n'
        ' {{- "Each tool is responded by `tool` with the following structure:\\n<|tool_response:id|><tool-call-id><|tool_response:name|><tool-name><|tool_response:result|><results><|tool_response:end|>\\n" }}\n'
        ' {{- "- Ensure the <tool-call-id> matches the corresponding tool call" -}}\n'
        '{%- endmacro %}\n'
        '\n'
        '{%- macro render_json_response_format_instruction(response_format) %}\n'
        ' {%- if not sys_ns.is_first_block %}{{- "\\n\\n" }}{%- endif %}\n'
        ' {%- set sys_ns.is_first_block = false %}\n'
        ' {{- "## Output Format Constraint" }}\n'
        ' {{- "\\n\\nYour final response should follow the JSON schema: \\n[Start of schema]" }}\n'
        ' {{- response_format }}\n'
        ' {{- "\\n[End of schema]\\nPlease ensure your answers adhere to this format and do not contain any unnecessary text." }}\n'
        '{%- endmacro %}\n'
        '\n'
        '{%- macro get_tool_name(messages, tool_call_id) %}\n'
        ' {%- for msg in messages -%}\n'
        " {%- if msg.role == 'assistant' and msg.tool_calls -%}\n"
        ' {%- for tool_call in msg.tool_calls -%}\n'
        ' {%- if tool_call.id == tool_call_id -%}\n'
        ' {{- tool_call.function.name }}\n'
        ' {%- endif -%}\n'
        ' {%- endfor -%}\n'
        ' {%- endif -%}\n'
        ' {%- endfor -%}\n'
        '{%- endmacro %}\n'
        '\n'
        '{%- macro render_tool_arguments(tool_arguments) %}\n'
        ' {%- if tool_arguments is mapping -%}\n'
        ' {{- tool_arguments | tojson }}\n'
        ' {%- else -%}\n'
        ' {{- tool_arguments }}\n'
        ' {%- endif -%}\n'
        '{%- endmacro %}\n'
        '\n'
        '{#- ======== Render system message ======== #}\n'
        '{%- set ns = namespace(system_messages=[]) -%}\n'
        '{%- for message in messages -%}\n'
        " {%- if message.role == 'system' -%}\n"
        ' {%- set ns.system_messages = ns.system_messages + [message.content] -%}\n'
        ' {%- endif -%}\n'
        '{%- endfor -%}\n'
        '\n'
        '{%- if ns.system_messages or default_system_prompt or tools or response_format -%}\n'
        ' {{- "<|begin|>system<|content|>" }}\n'
        ' {{- render_system_message(ns.system_messages) }}\n'
        ' {%- if tools -%}\n'
        ' {{- render_tool_instruction(tools) }}\n'
        ' {%- endif %}\n'
        ' {%- if response_format -%}\n'
        ' {{- render_json_response_format_instruction(response_format) }}\n'
        ' {%- endif %}\n'
        ' {{- "<|end|>" }}\n'
        '{%- endif -%}\n'
        '\n'
        '{#- ======== Render main messages ======== #}\n'
        '{%- for message in messages -%}\n'
        " {%- if message.role == 'user' -%}\n"
        ' {{- "<|begin|>user<|content|>" + message.content + "<|end|>" }}\n'
        " {%- elif message.role == 'tool' -%}\n"
        " {%- set prev_is_tool = loop.index0 > 0 and messages[loop.index0 - 1].role == 'tool' -%}\n"
        " {%- set next_is_tool = loop.index0 < (messages | length - 1) and messages[loop.index0 + 1].role == 'tool' -%}\n"
        ' {%- if not prev_is_tool -%}\n'
        ' {{- "<|begin|>tool<|tool_response|>" }}\n'
        ' {%- endif -%}\n'
        ' {{- "<|tool_response:begin|>" + message.tool_call_id + "<|tool_response:name|>" }}\n'
        ' {{- get_tool_name(messages, message.tool_call_id) }}\n'
        ' {{- "<|tool_response:result|>" }}\n'
        ' {{- message.content }}\n'
        ' {{- "<|tool_response:end|>" }}\n'
        ' {%- if not next_is_tool -%}\n'
        ' {{- "<|end|>" }}\n'
        ' {%- endif -%}\n'
        " {%- elif message.role == 'assistant' -%}\n"
        ' {#- ======== Assistant Thinking ======== #}\n'
        ' {%- if think_render_option == "all" -%}\n'
        ' {%- if message.reasoning -%}\n'
        ' {{- "<|begin|>assistant<|think|>" + message.reasoning + "<|end|>" }}\n'
        ' {%- endif -%}\n'
        ' {%- elif think_render_option == "lastthink" -%}\n'
        ' {%- if message.reasoning and loop.index0 > last_user_idx.value -%}\n'
        ' {{- "<|begin|>assistant<|think|>" + message.reasoning + "<|end|>" }}\n'
        ' {%- endif -%}\n'
        ' {%- endif -%}\n'
        '\n'
        ' {#- ======== Assistant Messages ======== #}\n'
        ' {%- if message.tool_calls -%}\n'
        ' {{- "<|begin|>assistant<|tool_calls|>" }}\n'
        ' {%- for tool_call in message.tool_calls -%}\n'
        ' {{- "<|tool_call:begin|>" + tool_call.id +"<|tool_call:name|>" + tool_call.function.name + "<|tool_call:args|>" }}\n'
        ' {{- render_tool_arguments(tool_call.function.arguments) }}\n'
        ' {{- "<|tool_call:end|>" }}\n'
        ' {%- endfor -%}\n'
        ' {{- "<|calls|>" }}\n'
        ' {%- else -%}\n'
        ' {{- "<|begin|>assistant<|content|>" + message.content + "<|end|>" }}\n'
        ' {%- endif -%}\n'
        ' {%- endif -%}\n'
        '{%- endfor -%}\n'
        '\n'
        '{%- if add_generation_prompt -%}\n'
        ' {%- if reasoning_effort in ["low", "minimal"] -%}\n'
        ' {{- "<|begin|>assistant<|think|><|end|>" }}\n'
        ' {%- endif -%}\n'
        ' {{- "<|begin|>assistant" }}\n'
        '{%- endif -%}'
    ),
    'llama3_2_vision_2024_09.jinja': (
        '{{- bos_token }}\n'
        '{%- if custom_tools is defined %}\n'
        '    {%- set tools = custom_tools %}\n'
        '{%- endif %}\n'
        '{%- if not tools_in_user_message is defined %}\n'
        '    {%- set tools_in_user_message = true %}\n'
        '{%- endif %}\n'
        '{%- if not date_string is defined %}\n'
        '    {%- if strftime_now is defined %}\n'
        '        {%- set date_string = strftime_now("%d %b %Y") %}\n'
        '    {%- else %}\n'
        '        {%- set date_string = "26 Jul 2024" %}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = none %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- This block extracts the system message, so we can slot it into the right place. #}\n'
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content']|trim %}\n"
        '    {%- set messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set system_message = "" %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Find out if there are any images #}\n'
        '{% set image_ns = namespace(has_images=false) %}      \n'
        '{%- for message in messages %}\n'
        "    {%- for content in message['content'] %}\n"
        "        {%- if content['type'] == 'image' %}\n"
        '            {%- set image_ns.has_images = true %}\n'
        '        {%- endif %}\n'
        '    {%- endfor %}\n'
        '{%- endfor %}\n'
        '\n'
        '{#- Error out if there are images and system message #}\n'
        '{%- if image_ns.has_images and not system_message == "" %}\n'
        '    {{- raise_exception("Prompting with images is incompatible with system messages.") }}\n'
        '{%- endif %}\n'
        '\n'
        '{#- System message if there are no images #}\n'
        '{%- if not image_ns.has_images %}\n'
        '    {{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}\n'
        '    {%- if tools is not none %}\n'
        '        {{- "Environment: ipython\\n" }}\n'
        '    {%- endif %}\n'
        '    {{- "Cutting Knowledge Date: December 2023\\n" }}\n'
        '    {{- "Today Date: " + date_string + "\\n\\n" }}\n'
        '    {%- if tools is not none and not tools_in_user_message %}\n'
        '        {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}\n'
        '        {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '        {{- "Do not use variables.\\n\\n" }}\n'
        '        {%- for t in tools %}\n'
        '            {{- t | tojson(indent=4) }}\n'
        '            {{- "\\n\\n" }}\n'
        '        {%- endfor %}\n'
        '    {%- endif %}\n'
        '    {{- system_message }}\n'
        '    {{- "<|eot_id|>" }}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Custom tools are passed in a user message with some extra guidance #}\n'
        '{%- if tools_in_user_message and not tools is none %}\n'
        '    {#- Extract the first user message so we can plug it in here #}\n'
        '    {%- if messages | length != 0 %}\n'
        "        {%- set first_user_message = messages[0]['content']|trim %}\n"
        '        {%- set messages = messages[1:] %}\n'
        '    {%- else %}\n'
        '        {{- raise_exception("Cannot put tools in the first user message when there\'s no first user message!") }}\n'
        '{%- endif %}\n'
        "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
        '    {{- "Given the following functions, please respond with a JSON for a function call " }}\n'
        '    {{- "with its proper arguments that best answers the given prompt.\\n\\n" }}\n'
        '    {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '    {{- first_user_message + "<|eot_id|>"}}\n'
        '{%- endif %}\n'
        '\n'
        '{%- for message in messages %}\n'
        "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
        "    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}\n"
        "        {%- if message['content'] is string %}\n"
        "            {{- message['content'] }}\n"
        '        {%- else %}\n'
        "            {%- for content in message['content'] %}\n"
        "                {%- if content['type'] == 'image' %}\n"
        "                    {{- '<|image|>' }}\n"
        "                {%- elif content['type'] == 'text' %}\n"
        "                    {{- content['text'] }}\n"
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|eot_id|>' }}\n"
        "    {%- elif 'tool_calls' in message %}\n"
        '        {%- if not message.tool_calls|length == 1 %}\n'
        '            {{- raise_exception("This model only supports single tool-calls at once!") }}\n'
        '        {%- endif %}\n'
        '        {%- set tool_call = message.tool_calls[0].function %}\n'
        "        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
        '        {{- \'{"name": "\' + tool_call.name + \'", \' }}\n'
        '        {{- \'"parameters": \' }}\n'
        '        {{- tool_call.arguments | tojson }}\n'
        '        {{- "}" }}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- elif message.role == "tool" or message.role == "ipython" %}\n'
        '        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}\n'
        '        {%- if message.content is mapping or message.content is iterable %}\n'
        '            {{- message.content | tojson }}\n'
        '        {%- else %}\n'
        '            {{- message.content }}\n'
        '        {%- endif %}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
        '{%- endif %}\n'
    ),
    'llama3_2_vision_2024_12.jinja': (
        '{{- bos_token }}\n'
        '{%- if custom_tools is defined %}\n'
        '    {%- set tools = custom_tools %}\n'
        '{%- endif %}\n'
        '{%- if not tools_in_user_message is defined %}\n'
        '    {%- set tools_in_user_message = true %}\n'
        '{%- endif %}\n'
        '{%- if not date_string is defined %}\n'
        '    {%- if strftime_now is defined %}\n'
        '        {%- set date_string = strftime_now("%d %b %Y") %}\n'
        '    {%- else %}\n'
        '        {%- set date_string = "26 Jul 2024" %}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = none %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- This block extracts the system message, so we can slot it into the right place. #}\n'
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content']|trim %}\n"
        '    {%- set messages = messages[1:] %}\n'
        '    {%- set user_supplied_system_message = true %}\n'
        '{%- else %}\n'
        '    {%- set system_message = "" %}\n'
        '    {%- set user_supplied_system_message = false %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Find out if there are any images #}\n'
        '{% set image_ns = namespace(has_images=false) %}      \n'
        '{%- for message in messages %}\n'
        "    {%- for content in message['content'] %}\n"
        "        {%- if content['type'] == 'image' %}\n"
        '            {%- set image_ns.has_images = true %}\n'
        '        {%- endif %}\n'
        '    {%- endfor %}\n'
        '{%- endfor %}\n'
        '\n'
        '{#- System message if there are no images, or if the user supplied one #}\n'
        '{%- if user_supplied_system_message or not image_ns.has_images %}\n'
        '    {{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}\n'
        '    {%- if tools is not none %}\n'
        '        {{- "Environment: ipython\\n" }}\n'
        '    {%- endif %}\n'
        '    {{- "Cutting Knowledge Date: December 2023\\n" }}\n'
        '    {{- "Today Date: " + date_string + "\\n\\n" }}\n'
        '    {%- if tools is not none and not tools_in_user_message %}\n'
        '        {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}\n'
        '        {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '        {{- "Do not use variables.\\n\\n" }}\n'
        '        {%- for t in tools %}\n'
        '            {{- t | tojson(indent=4) }}\n'
        '            {{- "\\n\\n" }}\n'
        '        {%- endfor %}\n'
        '    {%- endif %}\n'
        '    {{- system_message }}\n'
        '    {{- "<|eot_id|>" }}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Custom tools are passed in a user message with some extra guidance #}\n'
        '{%- if tools_in_user_message and not tools is none %}\n'
        '    {#- Extract the first user message so we can plug it in here #}\n'
        '    {%- if messages | length != 0 %}\n'
        "        {%- set first_user_message = messages[0]['content']|trim %}\n"
        '        {%- set messages = messages[1:] %}\n'
        '    {%- else %}\n'
        '        {{- raise_exception("Cannot put tools in the first user message when there\'s no first user message!") }}\n'
        '{%- endif %}\n'
        "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
        '    {{- "Given the following functions, please respond with a JSON for a function call " }}\n'
        '    {{- "with its proper arguments that best answers the given prompt.\\n\\n" }}\n'
        '    {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '    {{- first_user_message + "<|eot_id|>"}}\n'
        '{%- endif %}\n'
        '\n'
        '{%- for message in messages %}\n'
        "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
        "    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}\n"
        "        {%- if message['content'] is string %}\n"
        "            {{- message['content'] }}\n"
        '        {%- else %}\n'
        "            {%- for content in message['content'] %}\n"
        "                {%- if content['type'] == 'image' %}\n"
        "                    {{- '<|image|>' }}\n"
        "                {%- elif content['type'] == 'text' %}\n"
        "                    {{- content['text'] }}\n"
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|eot_id|>' }}\n"
        "    {%- elif 'tool_calls' in message %}\n"
        '        {%- if not message.tool_calls|length == 1 %}\n'
        '            {{- raise_exception("This model only supports single tool-calls at once!") }}\n'
        '        {%- endif %}\n'
        '        {%- set tool_call = message.tool_calls[0].function %}\n'
        "        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
        '        {{- \'{"name": "\' + tool_call.name + \'", \' }}\n'
        '        {{- \'"parameters": \' }}\n'
        '        {{- tool_call.arguments | tojson }}\n'
        '        {{- "}" }}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- elif message.role == "tool" or message.role == "ipython" %}\n'
        '        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}\n'
        '        {%- if message.content is mapping or message.content is iterable %}\n'
        '            {{- message.content | tojson }}\n'
        '        {%- else %}\n'
        '            {{- message.content }}\n'
        '        {%- endif %}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
        '{%- endif %}\n'
    ),
    'llama3_2_vision.jinja': (
        '{{- bos_token }}\n'
        '\n'
        '\n'
        '{%- if custom_tools is defined %}\n'
        '    {%- set tools = custom_tools %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if not tools_in_user_message is defined %}\n'
        '    {%- set tools_in_user_message = true %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if not date_string is defined %}\n'
        '    {%- if strftime_now is defined %}\n'
        '        {%- set date_string = strftime_now("%d %b %Y") %}\n'
        '    {%- else %}\n'
        '        {%- set date_string = "26 Jul 2024" %}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = none %}\n'
        '{%- endif %}\n'
        '\n'
        '{# Extract the system message, if present #}\n'
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content'] | trim %}\n"
        '    {%- set messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set system_message = "" %}\n'
        '{%- endif %}\n'
        '\n'
        '{# Identify if any messages contain images #}\n'
        '{% set image_ns = namespace(has_images=false) %}\n'
        '{%- for message in messages %}\n'
        "    {%- for content in message['content'] %}\n"
        "        {%- if content['type'] == 'image' %}\n"
        '            {%- set image_ns.has_images = true %}\n'
        '        {%- endif %}\n'
        '    {%- endfor %}\n'
        '{%- endfor %}\n'
        '\n'
        '{# Raise exception if images and system message coexist #}\n'
        '{%- if image_ns.has_images and system_message != "" %}\n'
        '    {{- raise_exception("Prompting with images is incompatible with system messages.") }}\n'
        '{%- endif %}\n'
        '\n'
        '{# Insert system message if no images are found #}\n'
        '{%- if not image_ns.has_images %}\n'
        '    {{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}\n'
        '    {%- if tools is not none %}\n'
        '        {{- "Environment: ipython\\n" }}\n'
        '    {%- endif %}\n'
        '    {{- "Cutting Knowledge Date: December 2023\\n" }}\n'
        '    {{- "Today Date: " + date_string + "\\n\\n" }}\n'
        '    \n'
        '    {%- if tools is not none and not tools_in_user_message %}\n'
        '        {{- "You have access to the following functions. " }}\n'
        '        {{- "To call a function, respond with JSON for a function call." }}\n'
        '        {{- \'Use the format {"name": function name, "parameters": dictionary of arguments}.\' }}\n'
        '        {{- "Do not use variables.\\n\\n" }}\n'
        '        {%- for t in tools %}\n'
        '            {{- t | tojson(indent=4) }}\n'
        '            {{- "\\n\\n" }}\n'
        '        {%- endfor %}\n'
        '    {%- endif %}\n'
        '    {{- system_message }}\n'
        '    {{- "<|eot_id|>" }}\n'
        '{%- endif %}\n'
        '\n'
        '{# Custom tools in user messages #}\n'
        '{%- if tools_in_user_message and tools is not none %}\n'
        '    {%- if messages | length != 0 %}\n'
        "        {%- set first_user_message = messages[0]['content'] | trim %}\n"
        '        {%- set messages = messages[1:] %}\n'
        '    {%- else %}\n'
        '        {{- raise_exception("Cannot put tools in the first user message when there\'s no first user message!") }}\n'
        '    {%- endif %}\n'
        '    \n'
        "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' }}\n"
        '    {{- "Given these functions, respond with a JSON for a function call " }}\n'
        '    {{- "that best addresses the prompt.\\n\\n" }}\n'
        '    {{- \'Format: {"name": function name, "parameters": dictionary of arguments}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '    {{- first_user_message + "<|eot_id|>" }}\n'
        '{%- endif %}\n'
        '\n'
        '{# Iterate over remaining messages #}\n'
        '{%- for message in messages %}\n'
        "    {%- if not (message.role in ['ipython', 'tool'] or 'tool_calls' in message) %}\n"
        "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' }}\n"
        "        {%- if message['content'] is string %}\n"
        "            {{- message['content'] }}\n"
        '        {%- else %}\n'
        "            {%- for content in message['content'] %}\n"
        "                {%- if content['type'] == 'image' %}\n"
        "                    {{- '<|image|>' }}\n"
        "                {%- elif content['type'] == 'text' %}\n"
        "                    {{- content['text'] }}\n"
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|eot_id|>' }}\n"
        "    {%- elif 'tool_calls' in message %}\n"
        '        {%- if message.tool_calls | length != 1 %}\n'
        '            {{- raise_exception("This model only supports single tool-calls at once!") }}\n'
        '        {%- endif %}\n'
        '        {%- set tool_call = message.tool_calls[0].function %}\n'
        "        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
        '        {{- \'{"name": "\' + tool_call.name + \'", "parameters": \' }}\n'
        '        {{- tool_call.arguments | tojson }}\n'
        '        {{- "}" }}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- elif message.role in ["tool", "ipython"] %}\n'
        '        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}\n'
        '        {%- if message.content is mapping or message.content is iterable %}\n'
        '            {{- message.content | tojson }}\n'
        '        {%- else %}\n'
        '            {{- message.content }}\n'
        '        {%- endif %}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '\n'
        '{# Add generation prompt if specified #}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
        '{%- endif %}'
    ),
    'minicpm_v4_6_thinking.jinja': (
        '{%- if enable_thinking is not defined -%}\n'
        '{%- set enable_thinking = true -%}\n'
        '{%- endif -%}\n'
        '{%- macro render_content(content, is_system_content=false) -%}\n'
        '{%- if content is string -%}\n'
        '{{- content -}}\n'
        '{%- elif content is iterable and content is not mapping -%}\n'
        '{%- set ns = namespace(parts=[]) -%}\n'
        '{%- for item in content -%}\n'
        "{%- if 'image' in item or 'image_url' in item or item.type == 'image' -%}\n"
        '{%- if is_system_content -%}\n'
        "{{- raise_exception('System message cannot contain images.') -}}\n"
        '{%- endif -%}\n'
        "{%- set ns.parts = ns.parts + ['<|image_pad|>'] -%}\n"
        "{%- elif 'video' in item or item.type == 'video' -%}\n"
        '{%- if is_system_content -%}\n'
        "{{- raise_exception('System message cannot contain videos.') -}}\n"
        '{%- endif -%}\n'
        "{%- set ns.parts = ns.parts + ['<|video_pad|>'] -%}\n"
        "{%- elif 'text' in item -%}\n"
        '{%- set ns.parts = ns.parts + [item.text] -%}\n'
        '{%- else -%}\n'
        "{{- raise_exception('Unexpected item type in content.') -}}\n"
        '{%- endif -%}\n'
        '{%- endfor -%}\n'
        "{{- ns.parts | join('\\n') -}}\n"
        '{%- elif content is none or content is undefined -%}\n'
        "{{- '' -}}\n"
        '{%- else -%}\n'
        "{{- raise_exception('Unexpected content type.') -}}\n"
        '{%- endif -%}\n'
        '{%- endmacro -%}\n'
        '{%- if not messages %}\n'
        "{{- raise_exception('No messages provided.') }}\n"
        '{%- endif %}\n'
        '{%- if tools and tools is iterable and tools is not mapping %}\n'
        "{{- '<|im_start|>system\\n' }}\n"
        '{{- "# Tools\\n\\nYou have access to the following functions:\\n\\n<tools>" }}\n'
        '{%- for tool in tools %}\n'
        '{{- "\\n" }}\n'
        '{{- tool | tojson }}\n'
        '{%- endfor %}\n'
        '{{- "\\n</tools>" }}\n'
        "{{- '\\n\\nIf you choose to call a function ONLY reply in the following format with NO suffix:\\n\\n<tool_call>\\n<function=example_function_name>\\n<parameter=example_parameter_1>\\nvalue_1\\n</parameter>\\n<parameter=example_parameter_2>\\nThis is the value for the second parameter\\nthat can span\\nmultiple lines\\n</parameter>\\n</function>\\n</tool_call>\\n\\n<IMPORTANT>\\nReminder:\\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\\n- Required parameters MUST be specified\\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\\n</IMPORTANT>' }}\n"
        "{%- if messages[0].role == 'system' %}\n"
        '{%- set content = render_content(messages[0].content, true)|trim %}\n'
        '{%- if content %}\n'
        "{{- '\\n\\n' + content }}\n"
        '{%- endif %}\n'
        '{%- endif %}\n'
        "{{- '<|im_end|>\\n' }}\n"
        '{%- else %}\n'
        "{%- if messages[0].role == 'system' %}\n"
        '{%- set content = render_content(messages[0].content, true)|trim %}\n'
        "{{- '<|im_start|>system\\n' + content + '<|im_end|>\\n' }}\n"
        '{%- endif %}\n'
        '{%- endif %}\n'
        '{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n'
        '{%- for message in messages[::-1] %}\n'
        '{%- set index = (messages|length - 1) - loop.index0 %}\n'
        '{%- if ns.multi_step_tool and message.role == "user" %}\n'
        '{%- set content = render_content(message.content)|trim %}\n'
        "{%- if not(content.startswith('<tool_response>') and content.endswith('</tool_response>')) %}\n"
        '{%- set ns.multi_step_tool = false %}\n'
        '{%- set ns.last_query_index = index %}\n'
        '{%- endif %}\n'
        '{%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if ns.multi_step_tool %}\n'
        "{{- raise_exception('No user query found in messages.') }}\n"
        '{%- endif %}\n'
        '{%- for message in messages %}\n'
        '{%- set content = render_content(message.content)|trim %}\n'
        '{%- if message.role == "system" %}\n'
        '{%- if not loop.first %}\n'
        "{{- raise_exception('System message must be at the beginning.') }}\n"
        '{%- endif %}\n'
        '{%- elif message.role == "user" %}\n'
        "{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
        '{%- elif message.role == "assistant" %}\n'
        "{%- set reasoning_content = '' %}\n"
        '{%- if message.reasoning_content is string %}\n'
        '{%- set reasoning_content = message.reasoning_content %}\n'
        '{%- else %}\n'
        "{%- if '</think>' in content %}\n"
        "{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        "{%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n"
        '{%- endif %}\n'
        '{%- endif %}\n'
        '{%- set reasoning_content = reasoning_content|trim %}\n'
        '{%- if loop.index0 > ns.last_query_index %}\n'
        "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}\n"
        '{%- else %}\n'
        "{{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '{%- endif %}\n'
        '{%- if message.tool_calls and message.tool_calls is iterable and message.tool_calls is not mapping %}\n'
        '{%- for tool_call in message.tool_calls %}\n'
        '{%- if tool_call.function is defined %}\n'
        '{%- set tool_call = tool_call.function %}\n'
        '{%- endif %}\n'
        '{%- if loop.first %}\n'
        '{%- if content|trim %}\n'
        "{{- '\\n\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n"
        '{%- else %}\n'
        "{{- '<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n"
        '{%- endif %}\n'
        '{%- else %}\n'
        "{{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n"
        '{%- endif %}\n'
        '{%- if tool_call.arguments is defined %}\n'
        '{%- for args_name, args_value in tool_call.arguments|items %}\n'
        "{{- '<parameter=' + args_name + '>\\n' }}\n"
        '{%- set args_value = args_value | tojson | safe if args_value is mapping or (args_value is sequence and args_value is not string) else args_value | string %}\n'
        '{{- args_value }}\n'
        "{{- '\\n</parameter>\\n' }}\n"
        '{%- endfor %}\n'
        '{%- endif %}\n'
        "{{- '</function>\\n</tool_call>' }}\n"
        '{%- endfor %}\n'
        '{%- endif %}\n'
        "{{- '<|im_end|>\\n' }}\n"
        '{%- elif message.role == "tool" %}\n'
        '{%- if loop.previtem and loop.previtem.role != "tool" %}\n'
        "{{- '<|im_start|>user' }}\n"
        '{%- endif %}\n'
        "{{- '\\n<tool_response>\\n' }}\n"
        '{{- content }}\n'
        "{{- '\\n</tool_response>' }}\n"
        '{%- if not loop.last and loop.nextitem.role != "tool" %}\n'
        "{{- '<|im_end|>\\n' }}\n"
        '{%- elif loop.last %}\n'
        "{{- '<|im_end|>\\n' }}\n"
        '{%- endif %}\n'
        '{%- else %}\n'
        "{{- raise_exception('Unexpected message role.') }}\n"
        '{%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "{{- '<|im_start|>assistant\\n' }}\n"
        '{%- if enable_thinking is defined and enable_thinking is false %}\n'
        "{{- '<think>\\n\\n</think>\\n\\n' }}\n"
        '{%- else %}\n'
        "{{- '<think>\\n' }}\n"
        '{%- endif %}\n'
        '{%- endif %}'
    ),
    'cogito.jinja': (
        '{{- bos_token }}\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = none %}\n'
        '{%- endif %}\n'
        '{%- if not enable_thinking is defined %}\n'
        '    {%- set enable_thinking = false %}\n'
        '{%- endif %}\n'
        '{#- This block extracts the system message, so we can slot it into the right place. #}\n'
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content']|trim %}\n"
        '    {%- set messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set system_message = "" %}\n'
        '{%- endif %}\n'
        '{#- Set the system message. If enable_thinking is true, add the "Enable deep thinking subroutine." #}\n'
        '{%- if enable_thinking %}\n'
        '    {%- if system_message != "" %}\n'
        '        {%- set system_message = "Enable deep thinking subroutine.\n'
        '\n'
        '" ~ system_message %}\n'
        '    {%- else %}\n'
        '        {%- set system_message = "Enable deep thinking subroutine." %}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{#- Set the system message. In case there are tools present, add them to the system message. #}\n'
        "{%- if tools is not none or system_message != '' %}\n"
        '    {{- "<|start_header_id|>system<|end_header_id|>\n'
        '\n'
        '" }}\n'
        '    {{- system_message }}\n'
        '    {%- if tools is not none %}\n'
        '        {%- if system_message != "" %}\n'
        '            {{- "\n'
        '\n'
        '" }}\n'
        '        {%- endif %}\n'
        '        {{- "Available Tools:\n'
        '" }}\n'
        '        {%- for t in tools %}\n'
        '            {{- t | tojson(indent=4) }}\n'
        '            {{- "\n'
        '\n'
        '" }}\n'
        '        {%- endfor %}\n'
        '    {%- endif %}\n'
        '    {{- "<|eot_id|>" }}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Rest of the messages #}\n'
        '{%- for message in messages %}\n'
        '    {#- The special cases are when the message is from a tool (via role ipython/tool/tool_results) or when the message is from the assistant, but has "tool_calls". If not, we add the message directly as usual. #}\n'
        '    {#- Case 1 - Usual, non tool related message. #}\n'
        '    {%- if not (message.role == "ipython" or message.role == "tool" or message.role == "tool_results" or (message.tool_calls is defined and message.tool_calls is not none)) %}\n'
        "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n"
        '\n'
        "' }}\n"
        "        {%- if message['content'] is string %}\n"
        "            {{- message['content'] | trim }}\n"
        '        {%- else %}\n'
        "            {%- for item in message['content'] %}\n"
        "                {%- if item.type == 'text' %}\n"
        '                    {{- item.text | trim }}\n'
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|eot_id|>' }}\n"
        '    \n'
        '    {#- Case 2 - the response is from the assistant, but has a tool call returned. The assistant may also have returned some content along with the tool call. #}\n'
        '    {%- elif message.tool_calls is defined and message.tool_calls is not none %}\n'
        '        {{- "<|start_header_id|>assistant<|end_header_id|>\n'
        '\n'
        '" }}\n'
        "        {%- if message['content'] is string %}\n"
        "            {{- message['content'] | trim }}\n"
        '        {%- else %}\n'
        "            {%- for item in message['content'] %}\n"
        "                {%- if item.type == 'text' %}\n"
        '                    {{- item.text | trim }}\n'
        '                    {%- if item.text | trim != "" %}\n'
        '                        {{- "\n'
        '\n'
        '" }}\n'
        '                    {%- endif %}\n'
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        '        {{- "[" }}\n'
        '        {%- for tool_call in message.tool_calls %}\n'
        '            {%- set out = tool_call.function|tojson %}\n'
        '            {%- if not tool_call.id is defined %}\n'
        '                {{- out }}\n'
        '            {%- else %}\n'
        '                {{- out[:-1] }}\n'
        '                {{- \', "id": "\' + tool_call.id + \'"}\' }}\n'
        '            {%- endif %}\n'
        '            {%- if not loop.last %}\n'
        '                {{- ", " }}\n'
        '            {%- else %}\n'
        '                {{- "]<|eot_id|>" }}\n'
        '            {%- endif %}\n'
        '        {%- endfor %}\n'
        '    \n'
        '    {#- Case 3 - the response is from a tool call. The tool call may have an id associated with it as well. If it does, we add it to the prompt. #}\n'
        '    {%- elif message.role == "ipython" or message["role"] == "tool_results" or message["role"] == "tool" %}\n'
        '        {{- "<|start_header_id|>ipython<|end_header_id|>\n'
        '\n'
        '" }}\n'
        "        {%- if message.tool_call_id is defined and message.tool_call_id != '' %}\n"
        '            {{- \'{"content": \' + (message.content | tojson) + \', "call_id": "\' + message.tool_call_id + \'"}\' }}\n'
        '        {%- else %}\n'
        '            {{- \'{"content": \' + (message.content | tojson) + \'}\' }}\n'
        '        {%- endif %}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|start_header_id|>assistant<|end_header_id|>\n"
        '\n'
        "' }}\n"
        '    {%- if enable_thinking %}\n'
        "        {{- '<think>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}'
    ),
    'qwen3_tool_agent.jinja': (
        '{%- if tools %}\n'
        "{{- '<|im_start|>system\\n' }}\n"
        "{%- if messages[0].role == 'system' %}\n"
        "{{- messages[0].content + '\\n\\n' }}\n"
        '{%- endif %}\n'
        '{{- "In this environment you have access to a set of tools you can use to answer the user\'s question. You can use one tool per message, and will receive the result of that tool use in the user\'s response. You use tools step-by-step to accomplish a given task, with each tool use informed by the result of the previous tool use.\\n\\nTool Use Rules\\nHere are the rules you should always follow to solve your task:\\n1. Always use the right arguments for the tools. Never use variable names as the action arguments, use the value instead.\\n2. Call a tool only when needed: do not call the search agent if you do not need information, try to solve the task yourself.\\n3. If no tool call is needed, just answer the question directly.\\n4. Never re-do a tool call that you previously did with the exact same parameters.\\n5. For tool use, MARK SURE use XML tag format as shown in the examples above. Do not use any other format.\\nNow Begin! If you solve the task correctly, you will receive a reward of $1,000,000.\\n\\n" }}\n'
        '{{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '{%- for tool in tools %}\n'
        '{{- "\\n" }}\n'
        '{{- tool | tojson }}\n'
        '{%- endfor %}\n'
        '{{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "{%- if messages[0].role == 'system' %}\n"
        "{{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
        '{%- endif %}\n'
        '{%- endif %}\n'
        '{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n'
        '{%- for message in messages[::-1] %}\n'
        '{%- set index = (messages|length - 1) - loop.index0 %}\n'
        '{%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith(\'<tool_response>\') and message.content.endswith(\'</tool_response>\')) %}\n'
        '{%- set ns.multi_step_tool = false %}\n'
        '{%- set ns.last_query_index = index %}\n'
        '{%- endif %}\n'
        '{%- endfor %}\n'
        '{%- for message in messages %}\n'
        '{%- if message.content is string %}\n'
        '{%- set content = message.content %}\n'
        '{%- else %}\n'
        "{%- set content = '' %}\n"
        '{%- endif %}\n'
        '{%- if (message.role == "user") or (message.role == "system" and not loop.first) %}\n'
        "{{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
        '{%- elif message.role == "assistant" %}\n'
        "{%- set reasoning_content = '' %}\n"
        '{%- if message.reasoning_content is string %}\n'
        '{%- set reasoning_content = message.reasoning_content %}\n'
        '{%- else %}\n'
        "{%- if '</think>' in content %}\n"
        "{%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        "{%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n"
        '{%- endif %}\n'
        '{%- endif %}\n'
        '{%- if loop.index0 > ns.last_query_index %}\n'
        '{%- if loop.last or (not loop.last and reasoning_content) %}\n'
        "{{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
        '{%- else %}\n'
        "{{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '{%- endif %}\n'
        '{%- else %}\n'
        "{{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '{%- endif %}\n'
        '{%- if message.tool_calls %}\n'
        '{%- for tool_call in message.tool_calls %}\n'
        '{%- if (loop.first and content) or (not loop.first) %}\n'
        "{{- '\\n' }}\n"
        '{%- endif %}\n'
        '{%- if tool_call.function %}\n'
        '{%- set tool_call = tool_call.function %}\n'
        '{%- endif %}\n'
        '{{- \'<tool_call>\\n{"name": "\' }}\n'
        '{{- tool_call.name }}\n'
        '{{- \'", "arguments": \' }}\n'
        '{%- if tool_call.arguments is string %}\n'
        '{{- tool_call.arguments }}\n'
        '{%- else %}\n'
        '{{- tool_call.arguments | tojson }}\n'
        '{%- endif %}\n'
        "{{- '}\\n</tool_call>' }}\n"
        '{%- endfor %}\n'
        '{%- endif %}\n'
        "{{- '<|im_end|>\\n' }}\n"
        '{%- elif message.role == "tool" %}\n'
        '{%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "{{- '<|im_start|>user' }}\n"
        '{%- endif %}\n'
        "{{- '\\n<tool_response>\\n' }}\n"
        '{{- content }}\n'
        "{{- '\\n</tool_response>' }}\n"
        '{%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "{{- '<|im_end|>\\n' }}\n"
        '{%- endif %}\n'
        '{%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "{{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}'
    ),
    'qwen3_instruct_2507.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- messages[0].content + '\\n\\n' }}\n"
        '    {%- endif %}\n'
        '    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- for message in messages %}\n'
        '    {%- if message.content is string %}\n'
        '        {%- set content = message.content %}\n'
        '    {%- else %}\n'
        "        {%- set content = '' %}\n"
        '    {%- endif %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '        {%- if message.tool_calls %}\n'
        '            {%- for tool_call in message.tool_calls %}\n'
        '                {%- if (loop.first and content) or (not loop.first) %}\n'
        "                    {{- '\\n' }}\n"
        '                {%- endif %}\n'
        '                {%- if tool_call.function %}\n'
        '                    {%- set tool_call = tool_call.function %}\n'
        '                {%- endif %}\n'
        '                {{- \'<tool_call>\\n{"name": "\' }}\n'
        '                {{- tool_call.name }}\n'
        '                {{- \'", "arguments": \' }}\n'
        '                {%- if tool_call.arguments is string %}\n'
        '                    {{- tool_call.arguments }}\n'
        '                {%- else %}\n'
        '                    {{- tool_call.arguments | tojson }}\n'
        '                {%- endif %}\n'
        "                {{- '}\\n</tool_call>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}'
    ),
    'qwen3_thinking_2507.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- messages[0].content + '\\n\\n' }}\n"
        '    {%- endif %}\n'
        '    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n'
        '{%- for message in messages[::-1] %}\n'
        '    {%- set index = (messages|length - 1) - loop.index0 %}\n'
        '    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith(\'<tool_response>\') and message.content.endswith(\'</tool_response>\')) %}\n'
        '        {%- set ns.multi_step_tool = false %}\n'
        '        {%- set ns.last_query_index = index %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- for message in messages %}\n'
        '    {%- if message.content is string %}\n'
        '        {%- set content = message.content %}\n'
        '    {%- else %}\n'
        "        {%- set content = '' %}\n"
        '    {%- endif %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        "        {%- set reasoning_content = '' %}\n"
        '        {%- if message.reasoning_content is string %}\n'
        '            {%- set reasoning_content = message.reasoning_content %}\n'
        '        {%- else %}\n'
        "            {%- if '</think>' in content %}\n"
        "                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        "                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n"
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        '        {%- if loop.index0 > ns.last_query_index %}\n'
        '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
        '            {%- else %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '            {%- endif %}\n'
        '        {%- else %}\n'
        "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '        {%- endif %}\n'
        '        {%- if message.tool_calls %}\n'
        '            {%- for tool_call in message.tool_calls %}\n'
        '                {%- if (loop.first and content) or (not loop.first) %}\n'
        "                    {{- '\\n' }}\n"
        '                {%- endif %}\n'
        '                {%- if tool_call.function %}\n'
        '                    {%- set tool_call = tool_call.function %}\n'
        '                {%- endif %}\n'
        '                {{- \'<tool_call>\\n{"name": "\' }}\n'
        '                {{- tool_call.name }}\n'
        '                {{- \'", "arguments": \' }}\n'
        '                {%- if tool_call.arguments is string %}\n'
        '                    {{- tool_call.arguments }}\n'
        '                {%- else %}\n'
        '                    {{- tool_call.arguments | tojson }}\n'
        '                {%- endif %}\n'
        "                {{- '}\\n</tool_call>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n<think>\\n' }}\n"
        '{%- endif %}'
    ),
    'qwen3.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- messages[0].content + '\\n\\n' }}\n"
        '    {%- endif %}\n'
        '    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n'
        '{%- for message in messages[::-1] %}\n'
        '    {%- set index = (messages|length - 1) - loop.index0 %}\n'
        '    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith(\'<tool_response>\') and message.content.endswith(\'</tool_response>\')) %}\n'
        '        {%- set ns.multi_step_tool = false %}\n'
        '        {%- set ns.last_query_index = index %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- for message in messages %}\n'
        '    {%- if message.content is string %}\n'
        '        {%- set content = message.content %}\n'
        '    {%- else %}\n'
        "        {%- set content = '' %}\n"
        '    {%- endif %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        "        {%- set reasoning_content = '' %}\n"
        '        {%- if message.reasoning_content is string %}\n'
        '            {%- set reasoning_content = message.reasoning_content %}\n'
        '        {%- else %}\n'
        "            {%- if '</think>' in content %}\n"
        "                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        "                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n"
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        '        {%- if loop.index0 > ns.last_query_index %}\n'
        '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
        '            {%- else %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '            {%- endif %}\n'
        '        {%- else %}\n'
        "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '        {%- endif %}\n'
        '        {%- if message.tool_calls %}\n'
        '            {%- for tool_call in message.tool_calls %}\n'
        '                {%- if (loop.first and content) or (not loop.first) %}\n'
        "                    {{- '\\n' }}\n"
        '                {%- endif %}\n'
        '                {%- if tool_call.function %}\n'
        '                    {%- set tool_call = tool_call.function %}\n'
        '                {%- endif %}\n'
        '                {{- \'<tool_call>\\n{"name": "\' }}\n'
        '                {{- tool_call.name }}\n'
        '                {{- \'", "arguments": \' }}\n'
        '                {%- if tool_call.arguments is string %}\n'
        '                    {{- tool_call.arguments }}\n'
        '                {%- else %}\n'
        '                    {{- tool_call.arguments | tojson }}\n'
        '                {%- endif %}\n'
        "                {{- '}\\n</tool_call>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '    {%- if enable_thinking is defined and enable_thinking is false %}\n'
        "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}'
    ),
    'qwen3_2025_04.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- messages[0].content + '\\n\\n' }}\n"
        '    {%- endif %}\n'
        '    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n'
        '{%- for message in messages[::-1] %}\n'
        '    {%- set index = (messages|length - 1) - loop.index0 %}\n'
        '    {%- if ns.multi_step_tool and message.role == "user" and not(message.content.startswith(\'<tool_response>\') and message.content.endswith(\'</tool_response>\')) %}\n'
        '        {%- set ns.multi_step_tool = false %}\n'
        '        {%- set ns.last_query_index = index %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- for message in messages %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        '        {%- set content = message.content %}\n'
        "        {%- set reasoning_content = '' %}\n"
        '        {%- if message.reasoning_content is defined and message.reasoning_content is not none %}\n'
        '            {%- set reasoning_content = message.reasoning_content %}\n'
        '        {%- else %}\n'
        "            {%- if '</think>' in message.content %}\n"
        "                {%- set content = message.content.split('</think>')[-1].lstrip('\\n') %}\n"
        "                {%- set reasoning_content = message.content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        '        {%- if loop.index0 > ns.last_query_index %}\n'
        '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
        '            {%- else %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '            {%- endif %}\n'
        '        {%- else %}\n'
        "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '        {%- endif %}\n'
        '        {%- if message.tool_calls %}\n'
        '            {%- for tool_call in message.tool_calls %}\n'
        '                {%- if (loop.first and content) or (not loop.first) %}\n'
        "                    {{- '\\n' }}\n"
        '                {%- endif %}\n'
        '                {%- if tool_call.function %}\n'
        '                    {%- set tool_call = tool_call.function %}\n'
        '                {%- endif %}\n'
        '                {{- \'<tool_call>\\n{"name": "\' }}\n'
        '                {{- tool_call.name }}\n'
        '                {{- \'", "arguments": \' }}\n'
        '                {%- if tool_call.arguments is string %}\n'
        '                    {{- tool_call.arguments }}\n'
        '                {%- else %}\n'
        '                    {{- tool_call.arguments | tojson }}\n'
        '                {%- endif %}\n'
        "                {{- '}\\n</tool_call>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- message.content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '    {%- if enable_thinking is defined and enable_thinking is false %}\n'
        "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}'
    ),
    'qwen3_instruct_2507_2025_07.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- messages[0].content + '\\n\\n' }}\n"
        '    {%- endif %}\n'
        '    {{- "# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0].role == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0].content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- set ns = namespace(multi_step_tool=true, last_query_index=messages|length - 1) %}\n'
        '{%- for message in messages[::-1] %}\n'
        '    {%- set index = (messages|length - 1) - loop.index0 %}\n'
        '    {%- if ns.multi_step_tool and message.role == "user" and message.content is string and not(message.content.startswith(\'<tool_response>\') and message.content.endswith(\'</tool_response>\')) %}\n'
        '        {%- set ns.multi_step_tool = false %}\n'
        '        {%- set ns.last_query_index = index %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- for message in messages %}\n'
        '    {%- if message.content is string %}\n'
        '        {%- set content = message.content %}\n'
        '    {%- else %}\n'
        "        {%- set content = '' %}\n"
        '    {%- endif %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        "        {%- set reasoning_content = '' %}\n"
        '        {%- if message.reasoning_content is string %}\n'
        '            {%- set reasoning_content = message.reasoning_content %}\n'
        '        {%- else %}\n'
        "            {%- if '</think>' in content %}\n"
        "                {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        "                {%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n"
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        '        {%- if loop.index0 > ns.last_query_index %}\n'
        '            {%- if loop.last or (not loop.last and reasoning_content) %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content.strip('\\n') + '\\n</think>\\n\\n' + content.lstrip('\\n') }}\n"
        '            {%- else %}\n'
        "                {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '            {%- endif %}\n'
        '        {%- else %}\n'
        "            {{- '<|im_start|>' + message.role + '\\n' + content }}\n"
        '        {%- endif %}\n'
        '        {%- if message.tool_calls %}\n'
        '            {%- for tool_call in message.tool_calls %}\n'
        '                {%- if (loop.first and content) or (not loop.first) %}\n'
        "                    {{- '\\n' }}\n"
        '                {%- endif %}\n'
        '                {%- if tool_call.function %}\n'
        '                    {%- set tool_call = tool_call.function %}\n'
        '                {%- endif %}\n'
        '                {{- \'<tool_call>\\n{"name": "\' }}\n'
        '                {{- tool_call.name }}\n'
        '                {{- \'", "arguments": \' }}\n'
        '                {%- if tool_call.arguments is string %}\n'
        '                    {{- tool_call.arguments }}\n'
        '                {%- else %}\n'
        '                    {{- tool_call.arguments | tojson }}\n'
        '                {%- endif %}\n'
        "                {{- '}\\n</tool_call>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}'
    ),
    'qwen2_5_instruct.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0]['role'] == 'system' %}\n"
        "        {{- messages[0]['content'] }}\n"
        '    {%- else %}\n'
        "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n"
        '    {%- endif %}\n'
        '    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0]['role'] == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n"
        '    {%- else %}\n'
        "        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- for message in messages %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        "        {{- '<|im_start|>' + message.role }}\n"
        '        {%- if message.content %}\n'
        "            {{- '\\n' + message.content }}\n"
        '        {%- endif %}\n'
        '        {%- for tool_call in message.tool_calls %}\n'
        '            {%- if tool_call.function is defined %}\n'
        '                {%- set tool_call = tool_call.function %}\n'
        '            {%- endif %}\n'
        '            {{- \'\\n<tool_call>\\n{"name": "\' }}\n'
        '            {{- tool_call.name }}\n'
        '            {{- \'", "arguments": \' }}\n'
        '            {{- tool_call.arguments | tojson }}\n'
        "            {{- '}\\n</tool_call>' }}\n"
        '        {%- endfor %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- message.content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}\n'
    ),
    'qwen2_5_instruct_2024_09.jinja': (
        '{%- if tools %}\n'
        "    {{- '<|im_start|>system\\n' }}\n"
        "    {%- if messages[0]['role'] == 'system' %}\n"
        "        {{- messages[0]['content'] }}\n"
        '    {%- else %}\n'
        "        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}\n"
        '    {%- endif %}\n'
        '    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {{- "\\n" }}\n'
        '        {{- tool | tojson }}\n'
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}}\\n</tool_call><|im_end|>\\n" }}\n'
        '{%- else %}\n'
        "    {%- if messages[0]['role'] == 'system' %}\n"
        "        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}\n"
        '    {%- else %}\n'
        "        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- for message in messages %}\n'
        '    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "assistant" %}\n'
        "        {{- '<|im_start|>' + message.role }}\n"
        '        {%- if message.content %}\n'
        "            {{- '\\n' + message.content }}\n"
        '        {%- endif %}\n'
        '        {%- for tool_call in message.tool_calls %}\n'
        '            {%- if tool_call.function is defined %}\n'
        '                {%- set tool_call = tool_call.function %}\n'
        '            {%- endif %}\n'
        '            {{- \'\\n<tool_call>\\n{"name": "\' }}\n'
        '            {{- tool_call.name }}\n'
        '            {{- \'", "arguments": \' }}\n'
        '            {{- tool_call.arguments | tojson }}\n'
        "            {{- '}\\n</tool_call>' }}\n"
        '        {%- endfor %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}\n'
        "            {{- '<|im_start|>user' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<tool_response>\\n' }}\n"
        '        {{- message.content }}\n'
        "        {{- '\\n</tool_response>' }}\n"
        '        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}\n'
    ),
    'glm4_5.jinja': (
        '[gMASK]<sop>\n'
        '{%- if tools -%}\n'
        '<|system|>\n'
        '# Tools\n'
        '\n'
        'You may call one or more functions to assist with the user query.\n'
        '\n'
        'You are provided with function signatures within <tools></tools> XML tags:\n'
        '<tools>\n'
        '{% for tool in tools %}\n'
        '{{ tool | tojson(ensure_ascii=False) }}\n'
        '{% endfor %}\n'
        '</tools>\n'
        '\n'
        'For each function call, output the function name and arguments within the following XML format:\n'
        '<tool_call>{function-name}\n'
        '<arg_key>{arg-key-1}</arg_key>\n'
        '<arg_value>{arg-value-1}</arg_value>\n'
        '<arg_key>{arg-key-2}</arg_key>\n'
        '<arg_value>{arg-value-2}</arg_value>\n'
        '...\n'
        '</tool_call>{%- endif -%}\n'
        '{%- macro visible_text(content) -%}\n'
        '    {%- if content is string -%}\n'
        '        {{- content }}\n'
        '    {%- elif content is iterable and content is not mapping -%}\n'
        '        {%- for item in content -%}\n'
        "            {%- if item is mapping and item.type == 'text' -%}\n"
        '                {{- item.text }}\n'
        '            {%- elif item is string -%}\n'
        '                {{- item }}\n'
        '            {%- endif -%}\n'
        '        {%- endfor -%}\n'
        '    {%- else -%}\n'
        '        {{- content }}\n'
        '    {%- endif -%}\n'
        '{%- endmacro -%}\n'
        '{%- set ns = namespace(last_user_index=-1) %}\n'
        '{%- for m in messages %}\n'
        "    {%- if m.role == 'user' %}\n"
        '        {% set ns.last_user_index = loop.index0 -%}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{% for m in messages %}\n'
        "{%- if m.role == 'user' -%}<|user|>\n"
        '{{ visible_text(m.content) }}\n'
        '{{- \'/nothink\' if (enable_thinking is defined and not enable_thinking and not visible_text(m.content).endswith("/nothink")) else \'\' -}}\n'
        "{%- elif m.role == 'assistant' -%}\n"
        '<|assistant|>\n'
        "{%- set reasoning_content = '' %}\n"
        '{%- set content = visible_text(m.content) %}\n'
        '{%- if m.reasoning_content is string %}\n'
        '    {%- set reasoning_content = m.reasoning_content %}\n'
        '{%- else %}\n'
        "    {%- if '</think>' in content %}\n"
        "        {%- set reasoning_content = content.split('</think>')[0].rstrip('\\n').split('<think>')[-1].lstrip('\\n') %}\n"
        "        {%- set content = content.split('</think>')[-1].lstrip('\\n') %}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if loop.index0 > ns.last_user_index and reasoning_content -%}\n'
        "{{ '\\n<think>' + reasoning_content.strip() +  '</think>'}}\n"
        '{%- else -%}\n'
        "{{ '\\n<think></think>' }}\n"
        '{%- endif -%}\n'
        '{%- if content.strip() -%}\n'
        "{{ '\\n' + content.strip() }}\n"
        '{%- endif -%}\n'
        '{% if m.tool_calls %}\n'
        '{% for tc in m.tool_calls %}\n'
        '{%- if tc.function %}\n'
        '    {%- set tc = tc.function %}\n'
        '{%- endif %}\n'
        "{{ '\\n<tool_call>' + tc.name }}\n"
        '{% set _args = tc.arguments %}\n'
        '{% for k, v in _args.items() %}\n'
        '<arg_key>{{ k }}</arg_key>\n'
        '<arg_value>{{ v | tojson(ensure_ascii=False) if v is not string else v }}</arg_value>\n'
        '{% endfor %}\n'
        '</tool_call>{% endfor %}\n'
        '{% endif %}\n'
        "{%- elif m.role == 'tool' -%}\n"
        '{%- if m.content is string -%}\n'
        '{%- if loop.first or (messages[loop.index0 - 1].role != "tool") %}\n'
        "    {{- '<|observation|>' }}\n"
        '{%- endif %}\n'
        "{{- '\\n<tool_response>\\n' }}\n"
        '{{- m.content }}\n'
        "{{- '\\n</tool_response>' }}\n"
        '{%- else -%}\n'
        '<|observation|>{% for tr in m.content %}\n'
        '\n'
        '<tool_response>\n'
        '{{ tr.output if tr.output is defined else tr }}\n'
        '</tool_response>{% endfor -%}\n'
        '{% endif -%}\n'
        "{%- elif m.role == 'system' -%}\n"
        '<|system|>\n'
        '{{ visible_text(m.content) }}\n'
        '{%- endif -%}\n'
        '{%- endfor -%}\n'
        '{%- if add_generation_prompt -%}\n'
        "    <|assistant|>{{- '\\n<think></think>' if (enable_thinking is defined and not enable_thinking) else '' -}}\n"
        '{%- endif -%}'
    ),
    'kimi_k2.jinja': (
        '{%- if tools -%}\r\n'
        '  <|im_system|>tool_declare<|im_middle|>{{ tools | tojson }}<|im_end|>\r\n'
        '{%- endif -%}\r\n'
        '{%- for message in messages -%}\r\n'
        "  {%- if loop.first and messages[0]['role'] != 'system' -%}\r\n"
        '    <|im_system|>system<|im_middle|>You are a helpful assistant<|im_end|>\r\n'
        '  {%- endif -%}\r\n'
        "  {%- if message['role'] == 'system' -%}\r\n"
        '    <|im_system|>system<|im_middle|>\r\n'
        "  {%- elif message['role'] == 'user' -%}\r\n"
        '    <|im_user|>user<|im_middle|>\r\n'
        "  {%- elif message['role'] == 'assistant' -%}\r\n"
        '    <|im_assistant|>assistant<|im_middle|>\r\n'
        "  {%- elif message['role'] == 'tool' -%}\r\n"
        '    <|im_system|>tool<|im_middle|>\r\n'
        '  {%- endif -%}\r\n'
        "  {%- if message['role'] == 'assistant' and message.get('tool_calls') -%}\r\n"
        "    {%- if message['content'] -%}{{ message['content'] }}{%- endif -%}\r\n"
        '    <|tool_calls_section_begin|>\r\n'
        "    {%- for tool_call in message['tool_calls'] -%}\r\n"
        "      {%- set func_name = tool_call['function']['name'] -%}\r\n"
        "      {%- set formatted_id = 'functions.' + func_name + ':' + loop.index0|string -%}\r\n"
        "      <|tool_call_begin|>{{ formatted_id }}<|tool_call_argument_begin|>{{ tool_call['function']['arguments'] | tojson}}<|tool_call_end|>\r\n"
        '    {%- endfor -%}\r\n'
        '    <|tool_calls_section_end|>\r\n'
        "  {%- elif message['role'] == 'tool' -%}\r\n"
        "    ## Return of {{ message.tool_call_id }}\\n{{ message['content'] }}\r\n"
        "  {%- elif message['content'] is string -%}\r\n"
        "    {{ message['content'] }}\r\n"
        "  {%- elif message['content'] is not none -%}\r\n"
        "    {% for content in message['content'] -%}\r\n"
        "      {% if content['type'] == 'image' or 'image' in content or 'image_url' in content -%}\r\n"
        '        <|media_start|>image<|media_content|><|media_pad|><|media_end|>\r\n'
        '      {% else -%}\r\n'
        "        {{ content['text'] }}\r\n"
        '      {%- endif -%}\r\n'
        '    {%- endfor -%}\r\n'
        '  {%- endif -%}\r\n'
        '  <|im_end|>\r\n'
        '{%- endfor -%}\r\n'
        '{%- if add_generation_prompt -%}\r\n'
        '  <|im_assistant|>assistant<|im_middle|>\r\n'
        '{%- endif -%}\r\n'
    ),
    'deepseek_r1.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '\\n\\n' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and 'tool_calls' in message %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls'] %}{%- if not ns.is_first %}{%- if message['content'] is none %}{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- else %}{{'<｜Assistant｜>' + message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- set ns.is_first = true -%}{%- else %}{{'\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- endfor %}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- if message['role'] == 'assistant' and 'tool_calls' not in message %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜><think>\\n'}}{% endif %}"
    ),
    'deepseek_r1_0528_qwen3.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true, is_last_user=false) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '\n"
        '\n'
        "' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{% set content = message['content'] %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{%- set ns.is_first = false -%}{%- set ns.is_last_user = true -%}{{'<｜User｜>' + content + '<｜Assistant｜>'}}{%- endif %}{%- if message['role'] == 'assistant' %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{% endif %}{%- if message['role'] == 'assistant' and message['tool_calls'] is defined and message['tool_calls'] is not none %}{%- set ns.is_last_user = false -%}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{%- endif %}{%- set ns.is_first = false %}{%- set ns.is_tool = false -%}{%- set ns.is_output_first = true %}{%- for tool in message['tool_calls'] %}{%- if not ns.is_first %}{%- if content is none %}{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n"
        "' + '```json' + '\n"
        "' + tool['function']['arguments'] + '\n"
        "' + '```' + '<｜tool▁call▁end｜>'}}{%- else %}{{content + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n"
        "' + '```json' + '\n"
        "' + tool['function']['arguments'] + '\n"
        "' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- set ns.is_first = true -%}{%- else %}{{'\n"
        "' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n"
        "' + '```json' + '\n"
        "' + tool['function']['arguments'] + '\n"
        "' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- endfor %}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- if message['role'] == 'assistant' and (message['tool_calls'] is not defined or message['tool_calls'] is none)%}{%- set ns.is_last_user = false -%}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + content + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{{content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_last_user = false -%}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + content + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'\n"
        "<｜tool▁output▁begin｜>' + content + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_last_user and not ns.is_tool %}{{'<｜Assistant｜>'}}{% endif %}"
    ),
    'deepseek_r1_2025_01.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '\\n\\n' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and 'tool_calls' in message %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls'] %}{%- if not ns.is_first %}{%- if message['content'] is none %}{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- else %}{{'<｜Assistant｜>' + message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- set ns.is_first = true -%}{%- else %}{{'\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- endif %}{%- endfor %}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- if message['role'] == 'assistant' and 'tool_calls' not in message %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜>'}}{% endif %}"
    ),
    'deepseek_r1_distill.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='') %}{%- for message in messages %}{%- if message['role'] == 'system' %}{% set ns.system_prompt = message['content'] %}{%- endif %}{%- endfor %}{{bos_token}}{{ns.system_prompt}}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is none %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls']%}{%- if not ns.is_first %}{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- set ns.is_first = true -%}{%- else %}{{'\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- endfor %}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is not none %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'\\n<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜><think>\\n'}}{% endif %}"
    ),
    'deepseek_r1_distill_2025_01.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='') %}{%- for message in messages %}{%- if message['role'] == 'system' %}{% set ns.system_prompt = message['content'] %}{%- endif %}{%- endfor %}{{bos_token}}{{ns.system_prompt}}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is none %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls']%}{%- if not ns.is_first %}{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{%- set ns.is_first = true -%}{%- else %}{{'\\n' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\\n' + '```json' + '\\n' + tool['function']['arguments'] + '\\n' + '```' + '<｜tool▁call▁end｜>'}}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- endfor %}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is not none %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{% set content = message['content'] %}{% if '</think>' in content %}{% set content = content.split('</think>')[-1] %}{% endif %}{{'<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'\\n<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜>'}}{% endif %}"
    ),
    'deepseek_v3.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, is_output_first=true, system_prompt='', is_first_sp=true) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '\n"
        '\n'
        "' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{bos_token}}{{ns.system_prompt}}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is none %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls']%}{%- if not ns.is_first %}{{'<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n"
        "' + '```json' + '\n"
        "' + tool['function']['arguments'] + '\n"
        "' + '```' + '<｜tool▁call▁end｜>'}}{%- set ns.is_first = true -%}{%- else %}{{'\n"
        "' + '<｜tool▁call▁begin｜>' + tool['type'] + '<｜tool▁sep｜>' + tool['function']['name'] + '\n"
        "' + '```json' + '\n"
        "' + tool['function']['arguments'] + '\n"
        "' + '```' + '<｜tool▁call▁end｜>'}}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- endfor %}{%- endif %}{%- if message['role'] == 'assistant' and message['content'] is not none %}{%- if ns.is_tool %}{{'<｜tool▁outputs▁end｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{{'<｜Assistant｜>' + message['content'] + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_tool = true -%}{%- if ns.is_output_first %}{{'<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- set ns.is_output_first = false %}{%- else %}{{'\n"
        "<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endif %}{%- endfor -%}{% if ns.is_tool %}{{'<｜tool▁outputs▁end｜>'}}{% endif %}{% if add_generation_prompt and not ns.is_tool %}{{'<｜Assistant｜>'}}{% endif %}"
    ),
    'deepseek_v3_1.jinja': (
        "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}{% endif %}{% if not thinking is defined %}{% set thinking = false %}{% endif %}{% set ns = namespace(is_first=false, is_tool=false, system_prompt='', is_first_sp=true, is_last_user=false) %}{%- for message in messages %}{%- if message['role'] == 'system' %}{%- if ns.is_first_sp %}{% set ns.system_prompt = ns.system_prompt + message['content'] %}{% set ns.is_first_sp = false %}{%- else %}{% set ns.system_prompt = ns.system_prompt + '\n"
        '\n'
        "' + message['content'] %}{%- endif %}{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}{%- for message in messages %}{%- if message['role'] == 'user' %}{%- set ns.is_tool = false -%}{%- set ns.is_first = false -%}{%- set ns.is_last_user = true -%}{{'<｜User｜>' + message['content']}}{%- endif %}{%- if message['role'] == 'assistant' and message['tool_calls'] is defined and message['tool_calls'] is not none %}{%- if ns.is_last_user %}{{'<｜Assistant｜></think>'}}{%- endif %}{%- set ns.is_last_user = false -%}{%- set ns.is_first = false %}{%- set ns.is_tool = false -%}{%- for tool in message['tool_calls'] %}{%- if not ns.is_first %}{%- if message['content'] is none %}{{'<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>'+ tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}{%- else %}{{message['content'] + '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>' + tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}{%- endif %}{%- set ns.is_first = true -%}{%- else %}{{'<｜tool▁call▁begin｜>'+ tool['function']['name'] + '<｜tool▁sep｜>' + tool['function']['arguments'] + '<｜tool▁call▁end｜>'}}{%- endif %}{%- endfor %}{{'<｜tool▁calls▁end｜><｜end▁of▁sentence｜>'}}{%- endif %}{%- if message['role'] == 'assistant' and (message['tool_calls'] is not defined or message['tool_calls'] is none) %}{%- if ns.is_last_user %}{{'<｜Assistant｜>'}}{%- if message['prefix'] is defined and message['prefix'] and thinking %}{{'<think>'}}  {%- else %}{{'</think>'}}{%- endif %}{%- endif %}{%- set ns.is_last_user = false -%}{%- if ns.is_tool %}{{message['content'] + '<｜end▁of▁sentence｜>'}}{%- set ns.is_tool = false -%}{%- else %}{%- set content = message['content'] -%}{%- if '</think>' in content %}{%- set content = content.split('</think>', 1)[1] -%}{%- endif %}{{content + '<｜end▁of▁sentence｜>'}}{%- endif %}{%- endif %}{%- if message['role'] == 'tool' %}{%- set ns.is_last_user = false -%}{%- set ns.is_tool = true -%}{{'<｜tool▁output▁begin｜>' + message['content'] + '<｜tool▁output▁end｜>'}}{%- endif %}{%- endfor -%}{%- if add_generation_prompt and ns.is_last_user and not ns.is_tool %}{{'<｜Assistant｜>'}}{%- if not thinking %}{{'</think>'}}{%- else %}{{'<think>'}}{%- endif %}{% endif %}"
    ),
    'llama3_1_2024_09.jinja': (
        '{{- bos_token }}\n'
        '{%- if custom_tools is defined %}\n'
        '    {%- set tools = custom_tools %}\n'
        '{%- endif %}\n'
        '{%- if not tools_in_user_message is defined %}\n'
        '    {%- set tools_in_user_message = true %}\n'
        '{%- endif %}\n'
        '{%- if not date_string is defined %}\n'
        '    {%- set date_string = "26 Jul 2024" %}\n'
        '{%- endif %}\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = none %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- This block extracts the system message, so we can slot it into the right place. #}\n'
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content']|trim %}\n"
        '    {%- set messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set system_message = "" %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- System message + builtin tools #}\n'
        '{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}\n'
        '{%- if builtin_tools is defined or tools is not none %}\n'
        '    {{- "Environment: ipython\\n" }}\n'
        '{%- endif %}\n'
        '{%- if builtin_tools is defined %}\n'
        '    {{- "Tools: " + builtin_tools | reject(\'equalto\', \'code_interpreter\') | join(", ") + "\\n\\n"}}\n'
        '{%- endif %}\n'
        '{{- "Cutting Knowledge Date: December 2023\\n" }}\n'
        '{{- "Today Date: " + date_string + "\\n\\n" }}\n'
        '{%- if tools is not none and not tools_in_user_message %}\n'
        '    {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}\n'
        '    {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '{%- endif %}\n'
        '{{- system_message }}\n'
        '{{- "<|eot_id|>" }}\n'
        '\n'
        '{#- Custom tools are passed in a user message with some extra guidance #}\n'
        '{%- if tools_in_user_message and not tools is none %}\n'
        '    {#- Extract the first user message so we can plug it in here #}\n'
        '    {%- if messages | length != 0 %}\n'
        "        {%- set first_user_message = messages[0]['content']|trim %}\n"
        '        {%- set messages = messages[1:] %}\n'
        '    {%- else %}\n'
        '        {{- raise_exception("Cannot put tools in the first user message when there\'s no first user message!") }}\n'
        '{%- endif %}\n'
        "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
        '    {{- "Given the following functions, please respond with a JSON for a function call " }}\n'
        '    {{- "with its proper arguments that best answers the given prompt.\\n\\n" }}\n'
        '    {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '    {{- first_user_message + "<|eot_id|>"}}\n'
        '{%- endif %}\n'
        '\n'
        '{%- for message in messages %}\n'
        "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
        "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n"
        "    {%- elif 'tool_calls' in message %}\n"
        '        {%- if not message.tool_calls|length == 1 %}\n'
        '            {{- raise_exception("This model only supports single tool-calls at once!") }}\n'
        '        {%- endif %}\n'
        '        {%- set tool_call = message.tool_calls[0].function %}\n'
        '        {%- if builtin_tools is defined and tool_call.name in builtin_tools %}\n'
        "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
        '            {{- "<|python_tag|>" + tool_call.name + ".call(" }}\n'
        '            {%- for arg_name, arg_val in tool_call.arguments | items %}\n'
        '                {{- arg_name + \'="\' + arg_val + \'"\' }}\n'
        '                {%- if not loop.last %}\n'
        '                    {{- ", " }}\n'
        '                {%- endif %}\n'
        '                {%- endfor %}\n'
        '            {{- ")" }}\n'
        '        {%- else  %}\n'
        "            {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
        '            {{- \'{"name": "\' + tool_call.name + \'", \' }}\n'
        '            {{- \'"parameters": \' }}\n'
        '            {{- tool_call.arguments | tojson }}\n'
        '            {{- "}" }}\n'
        '        {%- endif %}\n'
        '        {%- if builtin_tools is defined %}\n'
        "            {#- This means we're in ipython mode #}\n"
        '            {{- "<|eom_id|>" }}\n'
        '        {%- else %}\n'
        '            {{- "<|eot_id|>" }}\n'
        '        {%- endif %}\n'
        '    {%- elif message.role == "tool" or message.role == "ipython" %}\n'
        '        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}\n'
        '        {%- if message.content is mapping or message.content is iterable %}\n'
        '            {{- message.content | tojson }}\n'
        '        {%- else %}\n'
        '            {{- message.content }}\n'
        '        {%- endif %}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
        '{%- endif %}\n'
    ),
    'llama3_2.jinja': (
        '{{- bos_token }}\n'
        '{%- if custom_tools is defined %}\n'
        '    {%- set tools = custom_tools %}\n'
        '{%- endif %}\n'
        '{%- if not tools_in_user_message is defined %}\n'
        '    {%- set tools_in_user_message = true %}\n'
        '{%- endif %}\n'
        '{%- if not date_string is defined %}\n'
        '    {%- if strftime_now is defined %}\n'
        '        {%- set date_string = strftime_now("%d %b %Y") %}\n'
        '    {%- else %}\n'
        '        {%- set date_string = "26 Jul 2024" %}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = none %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- This block extracts the system message, so we can slot it into the right place. #}\n'
        "{%- if messages[0]['role'] == 'system' %}\n"
        "    {%- set system_message = messages[0]['content']|trim %}\n"
        '    {%- set messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set system_message = "" %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- System message #}\n'
        '{{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}\n'
        '{%- if tools is not none %}\n'
        '    {{- "Environment: ipython\\n" }}\n'
        '{%- endif %}\n'
        '{{- "Cutting Knowledge Date: December 2023\\n" }}\n'
        '{{- "Today Date: " + date_string + "\\n\\n" }}\n'
        '{%- if tools is not none and not tools_in_user_message %}\n'
        '    {{- "You have access to the following functions. To call a function, please respond with JSON for a function call." }}\n'
        '    {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '{%- endif %}\n'
        '{{- system_message }}\n'
        '{{- "<|eot_id|>" }}\n'
        '\n'
        '{#- Custom tools are passed in a user message with some extra guidance #}\n'
        '{%- if tools_in_user_message and not tools is none %}\n'
        '    {#- Extract the first user message so we can plug it in here #}\n'
        '    {%- if messages | length != 0 %}\n'
        "        {%- set first_user_message = messages[0]['content']|trim %}\n"
        '        {%- set messages = messages[1:] %}\n'
        '    {%- else %}\n'
        '        {{- raise_exception("Cannot put tools in the first user message when there\'s no first user message!") }}\n'
        '{%- endif %}\n'
        "    {{- '<|start_header_id|>user<|end_header_id|>\\n\\n' -}}\n"
        '    {{- "Given the following functions, please respond with a JSON for a function call " }}\n'
        '    {{- "with its proper arguments that best answers the given prompt.\\n\\n" }}\n'
        '    {{- \'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.\' }}\n'
        '    {{- "Do not use variables.\\n\\n" }}\n'
        '    {%- for t in tools %}\n'
        '        {{- t | tojson(indent=4) }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endfor %}\n'
        '    {{- first_user_message + "<|eot_id|>"}}\n'
        '{%- endif %}\n'
        '\n'
        '{%- for message in messages %}\n'
        "    {%- if not (message.role == 'ipython' or message.role == 'tool' or 'tool_calls' in message) %}\n"
        "        {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'+ message['content'] | trim + '<|eot_id|>' }}\n"
        "    {%- elif 'tool_calls' in message %}\n"
        '        {%- if not message.tool_calls|length == 1 %}\n'
        '            {{- raise_exception("This model only supports single tool-calls at once!") }}\n'
        '        {%- endif %}\n'
        '        {%- set tool_call = message.tool_calls[0].function %}\n'
        "        {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' -}}\n"
        '        {{- \'{"name": "\' + tool_call.name + \'", \' }}\n'
        '        {{- \'"parameters": \' }}\n'
        '        {{- tool_call.arguments | tojson }}\n'
        '        {{- "}" }}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- elif message.role == "tool" or message.role == "ipython" %}\n'
        '        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}\n'
        '        {%- if message.content is mapping or message.content is iterable %}\n'
        '            {{- message.content | tojson }}\n'
        '        {%- else %}\n'
        '            {{- message.content }}\n'
        '        {%- endif %}\n'
        '        {{- "<|eot_id|>" }}\n'
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}\n"
        '{%- endif %}\n'
    ),
    'gpt_oss.jinja': (
        '{#-\n'
        '  In addition to the normal inputs of `messages` and `tools`, this template also accepts the\n'
        '  following kwargs:\n'
        '  - "builtin_tools": A list, can contain "browser" and/or "python".\n'
        '  - "model_identity": A string that optionally describes the model identity.\n'
        '  - "reasoning_effort": A string that describes the reasoning effort, defaults to "medium".\n'
        ' #}\n'
        '\n'
        '{#- Tool Definition Rendering ============================================== #}\n'
        '{%- macro render_typescript_type(param_spec, required_params, is_nullable=false) -%}\n'
        '    {%- if param_spec.type == "array" -%}\n'
        "        {%- if param_spec['items'] -%}\n"
        '            {%- if param_spec[\'items\'][\'type\'] == "string" -%}\n'
        '                {{- "string[]" }}\n'
        '            {%- elif param_spec[\'items\'][\'type\'] == "number" -%}\n'
        '                {{- "number[]" }}\n'
        '            {%- elif param_spec[\'items\'][\'type\'] == "integer" -%}\n'
        '                {{- "number[]" }}\n'
        '            {%- elif param_spec[\'items\'][\'type\'] == "boolean" -%}\n'
        '                {{- "boolean[]" }}\n'
        '            {%- else -%}\n'
        "                {%- set inner_type = render_typescript_type(param_spec['items'], required_params) -%}\n"
        '                {%- if inner_type == "object | object" or inner_type|length > 50 -%}\n'
        '                    {{- "any[]" }}\n'
        '                {%- else -%}\n'
        '                    {{- inner_type + "[]" }}\n'
        '                {%- endif -%}\n'
        '            {%- endif -%}\n'
        '            {%- if param_spec.nullable -%}\n'
        '                {{- " | null" }}\n'
        '            {%- endif -%}\n'
        '        {%- else -%}\n'
        '            {{- "any[]" }}\n'
        '            {%- if param_spec.nullable -%}\n'
        '                {{- " | null" }}\n'
        '            {%- endif -%}\n'
        '        {%- endif -%}\n'
        '    {%- elif param_spec.type is defined and param_spec.type is iterable and param_spec.type is not string and param_spec.type is not mapping and param_spec.type[0] is defined -%}\n'
        '        {#- Handle array of types like ["object", "object"] from Union[dict, list] #}\n'
        '        {%- if param_spec.type | length > 1 -%}\n'
        '            {{- param_spec.type | join(" | ") }}\n'
        '        {%- else -%}\n'
        '            {{- param_spec.type[0] }}\n'
        '        {%- endif -%}\n'
        '    {%- elif param_spec.oneOf -%}\n'
        '        {#- Handle oneOf schemas - check for complex unions and fallback to any #}\n'
        '        {%- set has_object_variants = false -%}\n'
        '        {%- for variant in param_spec.oneOf -%}\n'
        '            {%- if variant.type == "object" -%}\n'
        '                {%- set has_object_variants = true -%}\n'
        '            {%- endif -%}\n'
        '        {%- endfor -%}\n'
        '        {%- if has_object_variants and param_spec.oneOf|length > 1 -%}\n'
        '            {{- "any" }}\n'
        '        {%- else -%}\n'
        '            {%- for variant in param_spec.oneOf -%}\n'
        '                {{- render_typescript_type(variant, required_params) -}}\n'
        '                {%- if variant.description %}\n'
        '                    {{- "// " + variant.description }}\n'
        '                {%- endif -%}\n'
        '                {%- if variant.default is defined %}\n'
        '                    {{ "// default: " + variant.default|tojson }}\n'
        '                {%- endif -%}\n'
        '                {%- if not loop.last %}\n'
        '                    {{- " | " }}\n'
        '                {% endif -%}\n'
        '            {%- endfor -%}\n'
        '        {%- endif -%}\n'
        '    {%- elif param_spec.type == "string" -%}\n'
        '        {%- if param_spec.enum -%}\n'
        '            {{- \'"\' + param_spec.enum|join(\'" | "\') + \'"\' -}}\n'
        '        {%- else -%}\n'
        '            {{- "string" }}\n'
        '            {%- if param_spec.nullable %}\n'
        '                {{- " | null" }}\n'
        '            {%- endif -%}\n'
        '        {%- endif -%}\n'
        '    {%- elif param_spec.type == "number" -%}\n'
        '        {{- "number" }}\n'
        '    {%- elif param_spec.type == "integer" -%}\n'
        '        {{- "number" }}\n'
        '    {%- elif param_spec.type == "boolean" -%}\n'
        '        {{- "boolean" }}\n'
        '\n'
        '    {%- elif param_spec.type == "object" -%}\n'
        '        {%- if param_spec.properties -%}\n'
        '            {{- "{\\n" }}\n'
        '            {%- for prop_name, prop_spec in param_spec.properties.items() -%}\n'
        '                {{- prop_name -}}\n'
        '                {%- if prop_name not in (param_spec.required or []) -%}\n'
        '                    {{- "?" }}\n'
        '                {%- endif -%}\n'
        '                {{- ": " }}\n'
        '                {{ render_typescript_type(prop_spec, param_spec.required or []) }}\n'
        '                {%- if not loop.last -%}\n'
        '                    {{-", " }}\n'
        '                {%- endif -%}\n'
        '            {%- endfor -%}\n'
        '            {{- "}" }}\n'
        '        {%- else -%}\n'
        '            {{- "object" }}\n'
        '        {%- endif -%}\n'
        '    {%- else -%}\n'
        '        {{- "any" }}\n'
        '    {%- endif -%}\n'
        '{%- endmacro -%}\n'
        '\n'
        '{%- macro render_tool_namespace(namespace_name, tools) -%}\n'
        '    {{- "## " + namespace_name + "\\n\\n" }}\n'
        '    {{- "namespace " + namespace_name + " {\\n\\n" }}\n'
        '    {%- for tool in tools %}\n'
        '        {%- set tool = tool.function %}\n'
        '        {{- "// " + tool.description + "\\n" }}\n'
        '        {{- "type "+ tool.name + " = " }}\n'
        '        {%- if tool.parameters and tool.parameters.properties %}\n'
        '            {{- "(_: {\\n" }}\n'
        '            {%- for param_name, param_spec in tool.parameters.properties.items() %}\n'
        '                {%- if param_spec.description %}\n'
        '                    {{- "// " + param_spec.description + "\\n" }}\n'
        '                {%- endif %}\n'
        '                {{- param_name }}\n'
        '                {%- if param_name not in (tool.parameters.required or []) -%}\n'
        '                    {{- "?" }}\n'
        '                {%- endif -%}\n'
        '                {{- ": " }}\n'
        '                {{- render_typescript_type(param_spec, tool.parameters.required or []) }}\n'
        '                {%- if param_spec.default is defined -%}\n'
        '                    {%- if param_spec.enum %}\n'
        '                        {{- ", // default: " + param_spec.default }}\n'
        '                    {%- elif param_spec.oneOf %}\n'
        '                        {{- "// default: " + param_spec.default }}\n'
        '                    {%- else %}\n'
        '                        {{- ", // default: " + param_spec.default|tojson }}\n'
        '                    {%- endif -%}\n'
        '                {%- endif -%}\n'
        '                {%- if not loop.last %}\n'
        '                    {{- ",\\n" }}\n'
        '                {%- else %}\n'
        '                    {{- ",\\n" }}\n'
        '                {%- endif -%}\n'
        '            {%- endfor %}\n'
        '            {{- "}) => any;\\n\\n" }}\n'
        '        {%- else -%}\n'
        '            {{- "() => any;\\n\\n" }}\n'
        '        {%- endif -%}\n'
        '    {%- endfor %}\n'
        '    {{- "} // namespace " + namespace_name }}\n'
        '{%- endmacro -%}\n'
        '\n'
        '{%- macro render_builtin_tools(browser_tool, python_tool) -%}\n'
        '    {%- if browser_tool %}\n'
        '        {{- "## browser\\n\\n" }}\n'
        '        {{- "// Tool for browsing.\\n" }}\n'
        '        {{- "// The `cursor` appears in brackets before each browsing display: `[{cursor}]`.\\n" }}\n'
        '        {{- "// Cite information from the tool using the following format:\\n" }}\n'
        '        {{- "// `【{cursor}†L{line_start}(-L{line_end})?】`, for example: `【6†L9-L11】` or `【8†L3】`.\\n" }}\n'
        '        {{- "// Do not quote more than 10 words directly from the tool output.\\n" }}\n'
        '        {{- "// sources=web (default: web)\\n" }}\n'
        '        {{- "namespace browser {\\n\\n" }}\n'
        '        {{- "// Searches for information related to `query` and displays `topn` results.\\n" }}\n'
        '        {{- "type search = (_: {\\n" }}\n'
        '        {{- "query: string,\\n" }}\n'
        '        {{- "topn?: number, // default: 10\\n" }}\n'
        '        {{- "source?: string,\\n" }}\n'
        '        {{- "}) => any;\\n\\n" }}\n'
        '        {{- "// Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, showing `num_lines` lines.\\n" }}\n'
        '        {{- "// Valid link ids are displayed with the formatting: `【{id}†.*】`.\\n" }}\n'
        '        {{- "// If `cursor` is not provided, the most recent page is implied.\\n" }}\n'
        '        {{- "// If `id` is a string, it is treated as a fully qualified URL associated with `source`.\\n" }}\n'
        '        {{- "// If `loc` is not provided, the viewport will be positioned at the beginning of the document or centered on the most relevant passage, if available.\\n" }}\n'
        '        {{- "// Use this function without `id` to scroll to a new location of an opened page.\\n" }}\n'
        '        {{- "type open = (_: {\\n" }}\n'
        '        {{- "id?: number | string, // default: -1\\n" }}\n'
        '        {{- "cursor?: number, // default: -1\\n" }}\n'
        '        {{- "loc?: number, // default: -1\\n" }}\n'
        '        {{- "num_lines?: number, // default: -1\\n" }}\n'
        '        {{- "view_source?: boolean, // default: false\\n" }}\n'
        '        {{- "source?: string,\\n" }}\n'
        '        {{- "}) => any;\\n\\n" }}\n'
        '        {{- "// Finds exact matches of `pattern` in the current page, or the page given by `cursor`.\\n" }}\n'
        '        {{- "type find = (_: {\\n" }}\n'
        '        {{- "pattern: string,\\n" }}\n'
        '        {{- "cursor?: number, // default: -1\\n" }}\n'
        '        {{- "}) => any;\\n\\n" }}\n'
        '        {{- "} // namespace browser\\n\\n" }}\n'
        '    {%- endif -%}\n'
        '\n'
        '    {%- if python_tool %}\n'
        '        {{- "## python\\n\\n" }}\n'
        '        {{- "Use this tool to execute Python code in your chain of thought. The code will not be shown to the user. This tool should be used for internal reasoning, but not for code that is intended to be visible to the user (e.g. when creating plots, tables, or files).\\n\\n" }}\n'
        '        {{- "When you send a message containing Python code to python, it will be executed in a stateful Jupyter notebook environment. python will respond with the output of the execution or time out after 120.0 seconds. The drive at \'/mnt/data\' can be used to save and persist user files. Internet access for this session is UNKNOWN. Depends on the cluster.\\n\\n" }}\n'
        '    {%- endif -%}\n'
        '{%- endmacro -%}\n'
        '\n'
        '{#- System Message Construction ============================================ #}\n'
        '{%- macro build_system_message() -%}\n'
        '    {%- if model_identity is not defined %}\n'
        '        {%- set model_identity = "You are ChatGPT, a large language model trained by OpenAI." %}\n'
        '    {%- endif %}\n'
        '    {{- model_identity + "\\n" }}\n'
        '    {{- "Knowledge cutoff: 2024-06\\n" }}\n'
        '    {{- "Current date: " + strftime_now("%Y-%m-%d") + "\\n\\n" }}\n'
        '    {%- if reasoning_effort is not defined %}\n'
        '        {%- set reasoning_effort = "medium" %}\n'
        '    {%- endif %}\n'
        '    {{- "Reasoning: " + reasoning_effort + "\\n\\n" }}\n'
        '    {%- if builtin_tools %}\n'
        '        {{- "# Tools\\n\\n" }}\n'
        '        {%- set available_builtin_tools = namespace(browser=false, python=false) %}\n'
        '        {%- for tool in builtin_tools %}\n'
        '            {%- if tool == "browser" %}\n'
        '                {%- set available_builtin_tools.browser = true %}\n'
        '            {%- elif tool == "python" %}\n'
        '                {%- set available_builtin_tools.python = true %}\n'
        '            {%- endif %}\n'
        '        {%- endfor %}\n'
        '        {{- render_builtin_tools(available_builtin_tools.browser, available_builtin_tools.python) }}\n'
        '    {%- endif -%}\n'
        '    {{- "# Valid channels: analysis, commentary, final. Channel must be included for every message." }}\n'
        '    {%- if tools -%}\n'
        '        {{- "\\nCalls to these tools must go to the commentary channel: \'functions\'." }}\n'
        '    {%- endif -%}\n'
        '{%- endmacro -%}\n'
        '\n'
        '{#- Main Template Logic ================================================= #}\n'
        '{#- Set defaults #}\n'
        '\n'
        '{#- Render system message #}\n'
        '{{- "<|start|>system<|message|>" }}\n'
        '{{- build_system_message() }}\n'
        '{{- "<|end|>" }}\n'
        '\n'
        '{#- Extract developer message #}\n'
        '{%- if messages[0].role == "developer" or messages[0].role == "system" %}\n'
        '    {%- set developer_message = messages[0].content %}\n'
        '    {%- set loop_messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set developer_message = "" %}\n'
        '    {%- set loop_messages = messages %}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Render developer message #}\n'
        '{%- if developer_message or tools %}\n'
        '    {{- "<|start|>developer<|message|>" }}\n'
        '    {%- if developer_message %}\n'
        '        {{- "# Instructions\\n\\n" }}\n'
        '        {{- developer_message }}\n'
        '        {{- "\\n\\n" }}\n'
        '    {%- endif %}\n'
        '    {%- if tools -%}\n'
        '        {{- "# Tools\\n\\n" }}\n'
        '        {{- render_tool_namespace("functions", tools) }}\n'
        '    {%- endif -%}\n'
        '    {{- "<|end|>" }}\n'
        '{%- endif %}\n'
        '\n'
        '{#- Render messages #}\n'
        '{%- set last_tool_call = namespace(name=none) %}\n'
        '{%- for message in loop_messages -%}\n'
        '    {#- At this point only assistant/user/tool messages should remain #}\n'
        "    {%- if message.role == 'assistant' -%}\n"
        '        {#- Checks to ensure the messages are being passed in the format we expect #}\n'
        '        {%- if "content" in message %}\n'
        '            {%- if "<|channel|>analysis<|message|>" in message.content or "<|channel|>final<|message|>" in message.content %}\n'
        '                {{- raise_exception("You have passed a message containing <|channel|> tags in the content field. Instead of doing this, you should pass analysis messages (the string between \'<|message|>\' and \'<|end|>\') in the \'thinking\' field, and final messages (the string between \'<|message|>\' and \'<|end|>\') in the \'content\' field.") }}\n'
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        '        {%- if "thinking" in message %}\n'
        '            {%- if "<|channel|>analysis<|message|>" in message.thinking or "<|channel|>final<|message|>" in message.thinking %}\n'
        '                {{- raise_exception("You have passed a message containing <|channel|> tags in the thinking field. Instead of doing this, you should pass analysis messages (the string between \'<|message|>\' and \'<|end|>\') in the \'thinking\' field, and final messages (the string between \'<|message|>\' and \'<|end|>\') in the \'content\' field.") }}\n'
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        '        {%- if "tool_calls" in message %}\n'
        '            {#- We need very careful handling here - we want to drop the tool call analysis message if the model #}\n'
        '            {#- has output a later <|final|> message, but otherwise we want to retain it. This is the only case #}\n'
        '            {#- when we render CoT/analysis messages in inference. #}\n'
        '            {%- set future_final_message = namespace(found=false) %}\n'
        '            {%- for future_message in loop_messages[loop.index:] %}\n'
        '                {%- if future_message.role == \'assistant\' and "tool_calls" not in future_message %}\n'
        '                    {%- set future_final_message.found = true %}\n'
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        '            {#- We assume max 1 tool call per message, and so we infer the tool call name #}\n'
        '            {#- in "tool" messages from the most recent assistant tool call name #}\n'
        '            {%- set tool_call = message.tool_calls[0] %}\n'
        '            {%- if tool_call.function %}\n'
        '                {%- set tool_call = tool_call.function %}\n'
        '            {%- endif %}\n'
        '            {%- if message.content and message.thinking %}\n'
        '                {{- raise_exception("Cannot pass both content and thinking in an assistant message with tool calls! Put the analysis message in one or the other, but not both.") }}\n'
        '            {%- elif message.content and not future_final_message.found %}\n'
        '                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.content + "<|end|>" }}\n'
        '            {%- elif message.thinking and not future_final_message.found %}\n'
        '                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}\n'
        '            {%- endif %}\n'
        '            {{- "<|start|>assistant to=" }}\n'
        '            {{- "functions." + tool_call.name + "<|channel|>commentary " }}\n'
        '            {{- (tool_call.content_type if tool_call.content_type is defined else "json") + "<|message|>" }}\n'
        '            {{- tool_call.arguments|tojson }}\n'
        '            {{- "<|call|>" }}\n'
        '            {%- set last_tool_call.name = tool_call.name %}\n'
        '        {%- elif loop.last and not add_generation_prompt %}\n'
        '            {#- Only render the CoT if the final turn is an assistant turn and add_generation_prompt is false #}\n'
        '            {#- This is a situation that should only occur in training, never in inference. #}\n'
        '            {%- if "thinking" in message %}\n'
        '                {{- "<|start|>assistant<|channel|>analysis<|message|>" + message.thinking + "<|end|>" }}\n'
        '            {%- endif %}\n'
        '            {#- <|return|> indicates the end of generation, but <|end|> does not #}\n'
        '            {#- <|return|> should never be an input to the model, but we include it as the final token #}\n'
        '            {#- when training, so the model learns to emit it. #}\n'
        '            {{- "<|start|>assistant<|channel|>final<|message|>" + message.content + "<|return|>" }}\n'
        '        {%- else %}\n'
        '            {#- CoT is dropped during all previous turns, so we never render it for inference #}\n'
        '            {{- "<|start|>assistant<|channel|>final<|message|>" + message.content + "<|end|>" }}\n'
        '            {%- set last_tool_call.name = none %}\n'
        '        {%- endif %}\n'
        "    {%- elif message.role == 'tool' -%}\n"
        '        {%- if last_tool_call.name is none %}\n'
        '            {{- raise_exception("Message has tool role, but there was no previous assistant message with a tool call!") }}\n'
        '        {%- endif %}\n'
        '        {{- "<|start|>functions." + last_tool_call.name }}\n'
        '        {{- " to=assistant<|channel|>commentary<|message|>" + message.content|tojson + "<|end|>" }}\n'
        "    {%- elif message.role == 'user' -%}\n"
        '        {{- "<|start|>user<|message|>" + message.content + "<|end|>" }}\n'
        '    {%- endif -%}\n'
        '{%- endfor -%}\n'
        '\n'
        '{#- Generation prompt #}\n'
        '{%- if add_generation_prompt -%}\n'
        '<|start|>assistant\n'
        '{%- endif -%}'
    ),
    'qwen3_coder_2025_07.jinja': (
        "{% macro render_item_list(item_list, tag_name='required') %}\n"
        '    {%- if item_list is defined and item_list is iterable and item_list | length > 0 %}\n'
        "        {%- if tag_name %}{{- '\\n<' ~ tag_name ~ '>' -}}{% endif %}\n"
        "            {{- '[' }}\n"
        '                {%- for item in item_list -%}\n'
        '                    {%- if loop.index > 1 %}{{- ", "}}{% endif -%}\n'
        '                    {%- if item is string -%}\n'
        '                        {{ "`" ~ item ~ "`" }}\n'
        '                    {%- else -%}\n'
        '                        {{ item }}\n'
        '                    {%- endif -%}\n'
        '                {%- endfor -%}\n'
        "            {{- ']' }}\n"
        "        {%- if tag_name %}{{- '</' ~ tag_name ~ '>' -}}{% endif %}\n"
        '    {%- endif %}\n'
        '{% endmacro %}\n'
        '\n'
        '{%- if messages[0]["role"] == "system" %}\n'
        '    {%- set system_message = messages[0]["content"] %}\n'
        '    {%- set loop_messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set loop_messages = messages %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = [] %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if system_message is defined %}\n'
        '    {{- "<|im_start|>system\\n" + system_message }}\n'
        '{%- else %}\n'
        '    {%- if tools is iterable and tools | length > 0 %}\n'
        '        {{- "<|im_start|>system\\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve tasks." }}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if tools is iterable and tools | length > 0 %}\n'
        '    {{- "\\n\\nYou have access to the following functions:\\n\\n" }}\n'
        '    {{- "<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {%- if tool.function is defined %}\n'
        '            {%- set tool = tool.function %}\n'
        '        {%- endif %}\n'
        '        {{- "\\n<function>\\n<name>" ~ tool.name ~ "</name>" }}\n'
        "        {{- '\\n<description>' ~ (tool.description | trim) ~ '</description>' }}\n"
        "        {{- '\\n<parameters>' }}\n"
        '        {%- for param_name, param_fields in tool.parameters.properties|items %}\n'
        "            {{- '\\n<parameter>' }}\n"
        "            {{- '\\n<name>' ~ param_name ~ '</name>' }}\n"
        '            {%- if param_fields.type is defined %}\n'
        "                {{- '\\n<type>' ~ (param_fields.type | string) ~ '</type>' }}\n"
        '            {%- endif %}\n'
        '            {%- if param_fields.description is defined %}\n'
        "                {{- '\\n<description>' ~ (param_fields.description | trim) ~ '</description>' }}\n"
        '            {%- endif %}\n'
        "            {{- render_item_list(param_fields.enum, 'enum') }}\n"
        "            {%- set handled_keys = ['type', 'description', 'enum', 'required'] %}\n"
        '            {%- for json_key in param_fields.keys() | reject("in", handled_keys) %}\n'
        '                {%- set normed_json_key = json_key | replace("-", "_") | replace(" ", "_") | replace("$", "") %}\n'
        '                {%- if param_fields[json_key] is mapping %}\n'
        "                    {{- '\\n<' ~ normed_json_key ~ '>' ~ (param_fields[json_key] | tojson | safe) ~ '</' ~ normed_json_key ~ '>' }}\n"
        '                {%- else %}\n'
        "                    {{-'\\n<' ~ normed_json_key ~ '>' ~ (param_fields[json_key] | string) ~ '</' ~ normed_json_key ~ '>' }}\n"
        '                {%- endif %}\n'
        '            {%- endfor %}\n'
        "            {{- render_item_list(param_fields.required, 'required') }}\n"
        "            {{- '\\n</parameter>' }}\n"
        '        {%- endfor %}\n'
        "        {{- render_item_list(tool.parameters.required, 'required') }}\n"
        "        {{- '\\n</parameters>' }}\n"
        '        {%- if tool.return is defined %}\n'
        '            {%- if tool.return is mapping %}\n'
        "                {{- '\\n<return>' ~ (tool.return | tojson | safe) ~ '</return>' }}\n"
        '            {%- else %}\n'
        "                {{- '\\n<return>' ~ (tool.return | string) ~ '</return>' }}\n"
        '            {%- endif %}\n'
        '        {%- endif %}\n'
        "        {{- '\\n</function>' }}\n"
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>" }}\n'
        "    {{- '\\n\\nIf you choose to call a function ONLY reply in the following format with NO suffix:\\n\\n<tool_call>\\n<function=example_function_name>\\n<parameter=example_parameter_1>\\nvalue_1\\n</parameter>\\n<parameter=example_parameter_2>\\nThis is the value for the second parameter\\nthat can span\\nmultiple lines\\n</parameter>\\n</function>\\n</tool_call>\\n\\n<IMPORTANT>\\nReminder:\\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\\n- Required parameters MUST be specified\\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\\n</IMPORTANT>' }}\n"
        '{%- endif %}\n'
        '{%- if system_message is defined %}\n'
        "    {{- '<|im_end|>\\n' }}\n"
        '{%- else %}\n'
        '    {%- if tools is iterable and tools | length > 0 %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- for message in loop_messages %}\n'
        '    {%- if message.role == "assistant" and message.tool_calls is defined and message.tool_calls is iterable and message.tool_calls | length > 0 %}\n'
        "        {{- '<|im_start|>' + message.role }}\n"
        '        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}\n'
        "            {{- '\\n' + message.content | trim + '\\n' }}\n"
        '        {%- endif %}\n'
        '        {%- for tool_call in message.tool_calls %}\n'
        '            {%- if tool_call.function is defined %}\n'
        '                {%- set tool_call = tool_call.function %}\n'
        '            {%- endif %}\n'
        "            {{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n"
        '            {%- if tool_call.arguments is defined %}\n'
        '                {%- for args_name, args_value in tool_call.arguments|items %}\n'
        "                    {{- '<parameter=' + args_name + '>\\n' }}\n"
        '                    {%- set args_value = args_value if args_value is string else args_value | string %}\n'
        '                    {{- args_value }}\n'
        "                    {{- '\\n</parameter>\\n' }}\n"
        '                {%- endfor %}\n'
        '            {%- endif %}\n'
        "            {{- '</function>\\n</tool_call>' }}\n"
        '        {%- endfor %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "user" or message.role == "system" or message.role == "assistant" %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.previtem and loop.previtem.role != "tool" %}\n'
        "            {{- '<|im_start|>user\\n' }}\n"
        '        {%- endif %}\n'
        "        {{- '<tool_response>\\n' }}\n"
        '        {{- message.content }}\n'
        "        {{- '\\n</tool_response>\\n' }}\n"
        '        {%- if not loop.last and loop.nextitem.role != "tool" %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- elif loop.last %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- else %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}\n'
    ),
    'qwen3_coder_2025_08.jinja': (
        '{% macro render_extra_keys(json_dict, handled_keys) %}\n'
        '    {%- if json_dict is mapping %}\n'
        '        {%- for json_key in json_dict if json_key not in handled_keys %}\n'
        '            {%- if json_dict[json_key] is mapping %}\n'
        "                {{- '\\n<' ~ json_key ~ '>' ~ (json_dict[json_key] | tojson | safe) ~ '</' ~ json_key ~ '>' }}\n"
        '            {%- else %}\n'
        "                {{-'\\n<' ~ json_key ~ '>' ~ (json_dict[json_key] | string) ~ '</' ~ json_key ~ '>' }}\n"
        '            {%- endif %}\n'
        '        {%- endfor %}\n'
        '    {%- endif %}\n'
        '{% endmacro %}\n'
        '\n'
        '{%- if messages[0]["role"] == "system" %}\n'
        '    {%- set system_message = messages[0]["content"] %}\n'
        '    {%- set loop_messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set loop_messages = messages %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = [] %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if system_message is defined %}\n'
        '    {{- "<|im_start|>system\\n" + system_message }}\n'
        '{%- else %}\n'
        '    {%- if tools is iterable and tools | length > 0 %}\n'
        '        {{- "<|im_start|>system\\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve tasks." }}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if tools is iterable and tools | length > 0 %}\n'
        '    {{- "\\n\\nYou have access to the following functions:\\n\\n" }}\n'
        '    {{- "<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {%- if tool.function is defined %}\n'
        '            {%- set tool = tool.function %}\n'
        '        {%- endif %}\n'
        '        {{- "\\n<function>\\n<name>" ~ tool.name ~ "</name>" }}\n'
        '        {%- if tool.description is defined %}\n'
        "            {{- '\\n<description>' ~ (tool.description | trim) ~ '</description>' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<parameters>' }}\n"
        '        {%- if tool.parameters is defined and tool.parameters is mapping and tool.parameters.properties is defined and tool.parameters.properties is mapping %}\n'
        '            {%- for param_name, param_fields in tool.parameters.properties|items %}\n'
        "                {{- '\\n<parameter>' }}\n"
        "                {{- '\\n<name>' ~ param_name ~ '</name>' }}\n"
        '                {%- if param_fields.type is defined %}\n'
        "                    {{- '\\n<type>' ~ (param_fields.type | string) ~ '</type>' }}\n"
        '                {%- endif %}\n'
        '                {%- if param_fields.description is defined %}\n'
        "                    {{- '\\n<description>' ~ (param_fields.description | trim) ~ '</description>' }}\n"
        '                {%- endif %}\n'
        "                {%- set handled_keys = ['name', 'type', 'description'] %}\n"
        '                {{- render_extra_keys(param_fields, handled_keys) }}\n'
        "                {{- '\\n</parameter>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {% set handled_keys = ['type', 'properties'] %}\n"
        '        {{- render_extra_keys(tool.parameters, handled_keys) }}\n'
        "        {{- '\\n</parameters>' }}\n"
        "        {%- set handled_keys = ['type', 'name', 'description', 'parameters'] %}\n"
        '        {{- render_extra_keys(tool, handled_keys) }}\n'
        "        {{- '\\n</function>' }}\n"
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>" }}\n'
        "    {{- '\\n\\nIf you choose to call a function ONLY reply in the following format with NO suffix:\\n\\n<tool_call>\\n<function=example_function_name>\\n<parameter=example_parameter_1>\\nvalue_1\\n</parameter>\\n<parameter=example_parameter_2>\\nThis is the value for the second parameter\\nthat can span\\nmultiple lines\\n</parameter>\\n</function>\\n</tool_call>\\n\\n<IMPORTANT>\\nReminder:\\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\\n- Required parameters MUST be specified\\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\\n</IMPORTANT>' }}\n"
        '{%- endif %}\n'
        '{%- if system_message is defined %}\n'
        "    {{- '<|im_end|>\\n' }}\n"
        '{%- else %}\n'
        '    {%- if tools is iterable and tools | length > 0 %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- for message in loop_messages %}\n'
        '    {%- if message.role == "assistant" and message.tool_calls is defined and message.tool_calls is iterable and message.tool_calls | length > 0 %}\n'
        "        {{- '<|im_start|>' + message.role }}\n"
        '        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}\n'
        "            {{- '\\n' + message.content | trim + '\\n' }}\n"
        '        {%- endif %}\n'
        '        {%- for tool_call in message.tool_calls %}\n'
        '            {%- if tool_call.function is defined %}\n'
        '                {%- set tool_call = tool_call.function %}\n'
        '            {%- endif %}\n'
        "            {{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n"
        '            {%- if tool_call.arguments is defined %}\n'
        '                {%- for args_name, args_value in tool_call.arguments|items %}\n'
        "                    {{- '<parameter=' + args_name + '>\\n' }}\n"
        '                    {%- set args_value = args_value | tojson | safe if args_value is mapping else args_value | string %}\n'
        '                    {{- args_value }}\n'
        "                    {{- '\\n</parameter>\\n' }}\n"
        '                {%- endfor %}\n'
        '            {%- endif %}\n'
        "            {{- '</function>\\n</tool_call>' }}\n"
        '        {%- endfor %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "user" or message.role == "system" or message.role == "assistant" %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.previtem and loop.previtem.role != "tool" %}\n'
        "            {{- '<|im_start|>user\\n' }}\n"
        '        {%- endif %}\n'
        "        {{- '<tool_response>\\n' }}\n"
        '        {{- message.content }}\n'
        "        {{- '\\n</tool_response>\\n' }}\n"
        '        {%- if not loop.last and loop.nextitem.role != "tool" %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- elif loop.last %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- else %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}\n'
    ),
    'qwen3_coder_6211.jinja': (
        '{% macro render_extra_keys(json_dict, handled_keys) %}\n'
        '    {%- if json_dict is mapping %}\n'
        '        {%- for json_key in json_dict if json_key not in handled_keys %}\n'
        '            {%- if json_dict[json_key] is mapping or (json_dict[json_key] is sequence and json_dict[json_key] is not string) %}\n'
        "                {{- '\\n<' ~ json_key ~ '>' ~ (json_dict[json_key] | tojson | safe) ~ '</' ~ json_key ~ '>' }}\n"
        '            {%- else %}\n'
        "                {{-'\\n<' ~ json_key ~ '>' ~ (json_dict[json_key] | string) ~ '</' ~ json_key ~ '>' }}\n"
        '            {%- endif %}\n'
        '        {%- endfor %}\n'
        '    {%- endif %}\n'
        '{% endmacro %}\n'
        '\n'
        '{%- if messages[0]["role"] == "system" %}\n'
        '    {%- set system_message = messages[0]["content"] %}\n'
        '    {%- set loop_messages = messages[1:] %}\n'
        '{%- else %}\n'
        '    {%- set loop_messages = messages %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if not tools is defined %}\n'
        '    {%- set tools = [] %}\n'
        '{%- endif %}\n'
        '\n'
        '{%- if system_message is defined %}\n'
        '    {{- "<|im_start|>system\\n" + system_message }}\n'
        '{%- else %}\n'
        '    {%- if tools is iterable and tools | length > 0 %}\n'
        '        {{- "<|im_start|>system\\nYou are Qwen, a helpful AI assistant that can interact with a computer to solve tasks." }}\n'
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- if tools is iterable and tools | length > 0 %}\n'
        '    {{- "\\n\\n# Tools\\n\\nYou have access to the following functions:\\n\\n" }}\n'
        '    {{- "<tools>" }}\n'
        '    {%- for tool in tools %}\n'
        '        {%- if tool.function is defined %}\n'
        '            {%- set tool = tool.function %}\n'
        '        {%- endif %}\n'
        '        {{- "\\n<function>\\n<name>" ~ tool.name ~ "</name>" }}\n'
        '        {%- if tool.description is defined %}\n'
        "            {{- '\\n<description>' ~ (tool.description | trim) ~ '</description>' }}\n"
        '        {%- endif %}\n'
        "        {{- '\\n<parameters>' }}\n"
        '        {%- if tool.parameters is defined and tool.parameters is mapping and tool.parameters.properties is defined and tool.parameters.properties is mapping %}\n'
        '            {%- for param_name, param_fields in tool.parameters.properties|items %}\n'
        "                {{- '\\n<parameter>' }}\n"
        "                {{- '\\n<name>' ~ param_name ~ '</name>' }}\n"
        '                {%- if param_fields.type is defined %}\n'
        "                    {{- '\\n<type>' ~ (param_fields.type | string) ~ '</type>' }}\n"
        '                {%- endif %}\n'
        '                {%- if param_fields.description is defined %}\n'
        "                    {{- '\\n<description>' ~ (param_fields.description | trim) ~ '</description>' }}\n"
        '                {%- endif %}\n'
        "                {%- set handled_keys = ['name', 'type', 'description'] %}\n"
        '                {{- render_extra_keys(param_fields, handled_keys) }}\n'
        "                {{- '\\n</parameter>' }}\n"
        '            {%- endfor %}\n'
        '        {%- endif %}\n'
        "        {% set handled_keys = ['type', 'properties'] %}\n"
        '        {{- render_extra_keys(tool.parameters, handled_keys) }}\n'
        "        {{- '\\n</parameters>' }}\n"
        "        {%- set handled_keys = ['type', 'name', 'description', 'parameters'] %}\n"
        '        {{- render_extra_keys(tool, handled_keys) }}\n'
        "        {{- '\\n</function>' }}\n"
        '    {%- endfor %}\n'
        '    {{- "\\n</tools>" }}\n'
        "    {{- '\\n\\nIf you choose to call a function ONLY reply in the following format with NO suffix:\\n\\n<tool_call>\\n<function=example_function_name>\\n<parameter=example_parameter_1>\\nvalue_1\\n</parameter>\\n<parameter=example_parameter_2>\\nThis is the value for the second parameter\\nthat can span\\nmultiple lines\\n</parameter>\\n</function>\\n</tool_call>\\n\\n<IMPORTANT>\\nReminder:\\n- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\\n- Required parameters MUST be specified\\n- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after\\n- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls\\n</IMPORTANT>' }}\n"
        '{%- endif %}\n'
        '{%- if system_message is defined %}\n'
        "    {{- '<|im_end|>\\n' }}\n"
        '{%- else %}\n'
        '    {%- if tools is iterable and tools | length > 0 %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endif %}\n'
        '{%- for message in loop_messages %}\n'
        '    {%- if message.role == "assistant" and message.tool_calls is defined and message.tool_calls is iterable and message.tool_calls | length > 0 %}\n'
        "        {{- '<|im_start|>' + message.role }}\n"
        '        {%- if message.content is defined and message.content is string and message.content | trim | length > 0 %}\n'
        "            {{- '\\n' + message.content | trim + '\\n' }}\n"
        '        {%- endif %}\n'
        '        {%- for tool_call in message.tool_calls %}\n'
        '            {%- if tool_call.function is defined %}\n'
        '                {%- set tool_call = tool_call.function %}\n'
        '            {%- endif %}\n'
        "            {{- '\\n<tool_call>\\n<function=' + tool_call.name + '>\\n' }}\n"
        '            {%- if tool_call.arguments is defined %}\n'
        '                {%- for args_name, args_value in tool_call.arguments|items %}\n'
        "                    {{- '<parameter=' + args_name + '>\\n' }}\n"
        '                    {%- set args_value = args_value | tojson | safe if args_value is mapping or (args_value is sequence and args_value is not string) else args_value | string %}\n'
        '                    {{- args_value }}\n'
        "                    {{- '\\n</parameter>\\n' }}\n"
        '                {%- endfor %}\n'
        '            {%- endif %}\n'
        "            {{- '</function>\\n</tool_call>' }}\n"
        '        {%- endfor %}\n'
        "        {{- '<|im_end|>\\n' }}\n"
        '    {%- elif message.role == "user" or message.role == "system" or message.role == "assistant" %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}\n"
        '    {%- elif message.role == "tool" %}\n'
        '        {%- if loop.previtem and loop.previtem.role != "tool" %}\n'
        "            {{- '<|im_start|>user\\n' }}\n"
        '        {%- endif %}\n'
        "        {{- '<tool_response>\\n' }}\n"
        '        {{- message.content }}\n'
        "        {{- '\\n</tool_response>\\n' }}\n"
        '        {%- if not loop.last and loop.nextitem.role != "tool" %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- elif loop.last %}\n'
        "            {{- '<|im_end|>\\n' }}\n"
        '        {%- endif %}\n'
        '    {%- else %}\n'
        "        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}\n"
        '    {%- endif %}\n'
        '{%- endfor %}\n'
        '{%- if add_generation_prompt %}\n'
        "    {{- '<|im_start|>assistant\\n' }}\n"
        '{%- endif %}\n'
    ),
}
