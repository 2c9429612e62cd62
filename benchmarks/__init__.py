"""Side-by-side speed of chatformats against jinja2, transformers and minijinja.

Run everything with ``python -m benchmarks`` (``--quick`` for a fast subset); ``benchmarks/README.md``
describes the engines, the workloads and the method, and lists the modules (one concern each).
"""
