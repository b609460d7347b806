"""minirag_store: the index engine behind minirag's MCP server and CLI.

Importing this package is cheap: fastembed, lancedb, markitdown and onnxruntime are
imported lazily, on the first call that needs them.
"""

from minirag_store.config import Config, load_config
from minirag_store.errors import ConfigError, MiniragError
from minirag_store.meta import version
from minirag_store.results import Progress
from minirag_store.service import Index

__all__ = ["Config", "ConfigError", "Index", "MiniragError", "Progress", "load_config", "version"]
