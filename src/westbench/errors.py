"""Errors that westbench reports to users.

Every error carries a message that names the protein, the file and what to
change, so that a failed Snakemake job explains itself in its log.
"""


class WestbenchError(Exception):
    """Base class of errors caused by user input rather than by a bug."""


class ConfigError(WestbenchError):
    """The configuration breaks the schema or names something that does not exist."""


class StructureError(WestbenchError):
    """A structure file cannot be read, or holds no usable protein."""


class SequenceMismatchError(StructureError):
    """The sequence in a structure differs from the configured one."""


class DownloadError(StructureError):
    """A structure could not be downloaded."""
