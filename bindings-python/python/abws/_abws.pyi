"""The compiled core (private; use the names exported by ``abws``)."""

__version__: str
