"""Validate wire messages against their era's official MCP schema.

The implementation lives in ``lesson.content.wire_schema`` so that ``lesson check`` and the tests share it. This
module *is* that module (not a copy), so a test that patches ``tests.schemas`` patches what runs.
"""

import sys

from lesson.content import wire_schema

sys.modules[__name__] = wire_schema
