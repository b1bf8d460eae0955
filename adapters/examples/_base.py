"""Shared by the buggy examples: the Python template's parser and protocol loop.

Each example changes exactly one thing of the template (adapters/python/adapter.py) and says
which bug it plants; `tch run` must report it with the verdict the example names.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from adapter import (  # noqa: E402,F401
    FirstCallOnly,
    HermesParser,
    NoTools,
    error,
    serve,
    text,
    with_options,
)
