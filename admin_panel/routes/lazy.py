"""View modules imported on a route's first request, not when the URL conf loads.

The URL conf is loaded before ``serve`` listens (the system checks read it) and the first page's
navigation builds the reverse table from it; neither needs a view's code, only its name.
Importing every view module (with its forms, selectors and services) there was the largest part
of a fresh process's start that the panel itself adds (docs/performance.md, "The start, second
pass").

A route module names its views as before, ``memory.memory_page``, after
``memory = ViewModule("admin_panel.views.memory")``. Each such name is a ``LazyView``: its
module is imported on its first call, or on the first read of any attribute Django or a
middleware looks up on the matched view (``csrf_exempt``, ``login_required``,
``_non_atomic_requests``), and from then on it answers for the real view.

Only plain (synchronous) function views can be named so. Django tells class-based views and
coroutine views apart by attributes it reads without calling the view (``view_class`` while it
builds the reverse table, the coroutine mark before a request): a lazy name answers the first as
absent without importing, and a view that turns out to be either is refused when it loads.
``tests/foundation/test_lazy_views.py`` loads every route's view.
"""

from __future__ import annotations

import importlib
import inspect
import threading
from typing import Any

from django.core.exceptions import ImproperlyConfigured


class LazyView:
    """A function view named by module and name, imported when first needed."""

    def __init__(self, module: str, name: str) -> None:
        # What Django reads for the reverse table and ResolverMatch, without importing.
        self.__module__ = module
        self.__qualname__ = self.__name__ = name
        self._view: Any = None
        self._loading = threading.Lock()

    def load(self) -> Any:
        view = self._view
        if view is None:
            with self._loading:
                if self._view is None:
                    found = getattr(importlib.import_module(self.__module__), self.__qualname__)
                    if inspect.isclass(found) or hasattr(found, "view_class") or inspect.iscoroutinefunction(found):
                        raise ImproperlyConfigured(
                            f"{self.__module__}.{self.__qualname__} is a class-based or coroutine view; "
                            "name it directly in the route module, not through ViewModule()."
                        )
                    self._view = found
                view = self._view
        return view

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.load()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes the proxy does not hold itself.
        if name == "view_class" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.load(), name)

    def __repr__(self) -> str:
        return f"<LazyView {self.__module__}.{self.__qualname__}>"


class ViewModule:
    """Stands for a view module in a route module: ``module.name`` is a ``LazyView``."""

    def __init__(self, dotted: str) -> None:
        self._dotted = dotted
        self._views: dict[str, LazyView] = {}

    def __getattr__(self, name: str) -> LazyView:
        if name.startswith("_"):
            raise AttributeError(name)
        view = self._views.get(name)
        if view is None:
            view = self._views[name] = LazyView(self._dotted, name)
        return view
