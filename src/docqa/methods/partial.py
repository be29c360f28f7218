"""How a method hands over what it did for a question that failed part way.

A method does not decide what a failure is: it raises, and the runner (docqa.methods.errors)
tells a question's error from an infrastructure error. A method that has recorded steps before
the failure (an agent's first calls) keeps them for the runner by failing inside
:func:`keeping_trace`, which raises :class:`PartialAnswer` with the prediction so far.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from docqa.core.prediction import Prediction


class PartialAnswer(Exception):
    """A question that failed part way: ``partial`` is the method's prediction so far (its
    pages, trace and usage, no answer) and ``error`` the exception that ended it, also the
    ``__cause__``."""

    def __init__(self, partial: Prediction, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.partial = partial
        self.error = error


@contextmanager
def keeping_trace(partial: Callable[[], Prediction]) -> Iterator[None]:
    """Run the block; an exception in it leaves as :class:`PartialAnswer` carrying
    ``partial()``, the prediction the method has built so far. Not a catch: the error still
    ends the question, and the runner decides what it is."""
    try:
        yield
    except PartialAnswer:
        raise
    except Exception as error:
        raise PartialAnswer(partial(), error) from error
