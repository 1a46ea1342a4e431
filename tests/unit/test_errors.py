"""The user-facing errors: one family under WestbenchError (which the scripts' glue reports without a traceback),
structure problems catchable as one, none of them a bug's exception type, each keeping its message as written."""

import inspect

import pytest
from hypothesis import given
from hypothesis import strategies as st

import westbench.errors as errors
from westbench.errors import ConfigError, DownloadError, SequenceMismatchError, StructureError, WestbenchError

CLASSES = [cls for _, cls in inspect.getmembers(errors, inspect.isclass) if cls.__module__ == errors.__name__]


def test_every_error_of_the_module_is_a_documented_westbench_error():
    assert {cls.__name__ for cls in CLASSES} == {
        "WestbenchError",
        "ConfigError",
        "StructureError",
        "SequenceMismatchError",
        "DownloadError",
    }
    for cls in CLASSES:
        assert issubclass(cls, WestbenchError) and issubclass(cls, Exception), cls
        assert cls.__doc__ and cls.__doc__.strip(), cls


def test_structure_errors_are_caught_as_one_and_apart_from_config_errors():
    for cls in (SequenceMismatchError, DownloadError):
        with pytest.raises(StructureError):
            raise cls("1UAO: chain A has sequence GYDP, the config says GYDPETGTWG")
    with pytest.raises(ConfigError):
        try:
            raise ConfigError("proteins.chignolin.pdb_id: '1XYZ' does not exist")
        except StructureError:  # a config error is no structure error
            pytest.fail("ConfigError was caught as a StructureError")


@pytest.mark.parametrize("bug", [ValueError, KeyError, TypeError, RuntimeError, OSError])
def test_no_user_error_is_a_bugs_exception_type(bug):
    """A ``except ValueError`` around library code must not swallow a user error, nor the reverse."""
    assert not any(issubclass(cls, bug) for cls in CLASSES)
    assert not issubclass(bug, WestbenchError)


@given(st.text())
def test_the_message_is_kept_as_written(message):
    for cls in CLASSES:
        error = cls(message)
        assert str(error) == message and error.args == (message,)
