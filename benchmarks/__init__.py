"""Side-by-side speed of chatformats against jinja2, transformers and minijinja.

Run everything with ``python -m benchmarks`` (``--quick`` for a fast subset); see
``benchmarks/README.md`` and ``benchmarks/run.py``.
"""
