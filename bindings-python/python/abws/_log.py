"""Logger ``abws``, the one the package and the core's records (through the extension) log
to, with a ``NullHandler`` so that an application without logging configuration sees no
"last resort" output. Imported by the modules that log, not by ``import abws``."""

import logging

logger = logging.getLogger("abws")
logger.addHandler(logging.NullHandler())
