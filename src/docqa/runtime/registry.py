"""Name → implementation registries for datasets, retrievers, backends, methods and metrics.

Each registry is declared with one map from registered name to the module that registers it.
The module is imported the first time its name is asked for, so looking up ``bm25`` never
imports torch for ``colqwen2``, and adding an implementation is adding a module and one line
in that map — nothing has to be imported up front.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from docqa.runtime.spec import Options

T = TypeVar("T")


class Registry(Generic[T]):
    """A named table of implementations, filled by ``@registry.register("name")``.

    ``modules`` maps each of docqa's own names to the module whose import registers it; code
    outside docqa may still register a name of its own at run time.
    """

    def __init__(self, kind: str, modules: Mapping[str, str]) -> None:
        self.kind = kind
        self.modules = dict(modules)
        self._items: dict[str, T] = {}
        self._options: dict[str, type[Options]] = {}

    def register(self, name: str, options: type[Options] | None = None) -> Callable[[T], T]:
        """Register ``name``; ``options`` is its option spec (docqa.runtime.spec), the one
        declaration of what its config entry may hold (none: it takes no options)."""

        def add(item: T) -> T:
            if name in self._items:
                raise ValueError(f"{self.kind} {name!r} is registered twice")
            self._items[name] = item
            if options is not None:
                self._options[name] = options
            return item

        return add

    def get(self, name: str) -> T:
        if name not in self._items and name in self.modules:
            importlib.import_module(self.modules[name])
        try:
            return self._items[name]
        except KeyError:
            known = ", ".join(self.names()) or "none"
            raise KeyError(f"unknown {self.kind} {name!r}; known: {known}") from None

    def options(self, name: str) -> type[Options]:
        """The option spec ``name`` was registered with (importing its module if needed)."""
        from docqa.runtime.spec import Options

        self.get(name)
        return self._options.get(name, Options)

    def has_options(self, name: str) -> bool:
        """Whether ``name`` was registered with an option spec (one without takes no options)."""
        self.get(name)
        return name in self._options

    def names(self) -> list[str]:
        """Every declared name, imported or not, and any registered at run time (a plugin, a
        benchmark's own backend) without a declaration."""
        return sorted(set(self.modules) | set(self._items))

    def load_all(self) -> None:
        """Import every declared module (for listings and checks that need them all)."""
        for name in self.modules:
            self.get(name)
