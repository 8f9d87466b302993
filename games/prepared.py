"""Queries of the action's path compiled to SQL once per process instead of once per call.

Every action reads the game (locked, with its snapshot) and its seats (with their users). The
ORM builds, clones and compiles those querysets anew each time: about a millisecond of CPU per
action, more than PostgreSQL takes to answer them (issue 21 profiled it). ``Prepared`` compiles
the queryset once, with a marker in place of the value it is run with, keeps Django's compiler
(its select list, its related-object populators, its converters) and then only substitutes the
value and runs the SQL: the rows become model instances exactly as the queryset would make
them (``from_db``, ``select_related`` objects attached), the same SQL goes to the database.

Only for querysets of one shape (filters on one value, no ``known related objects``); kept
per database alias, since the SQL depends on the backend.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

M = TypeVar("M", bound=Model)

#: what the queryset is built with in place of the value: no real id or seq is this number
MARKER = 7_318_249_106_531_977


class Prepared(Generic[M]):
    """``build(value)`` -> a queryset, compiled on first use; ``run(value)`` -> its objects."""

    def __init__(self, build: Callable[[Any], QuerySet[M]]) -> None:
        self._build = build
        self._compiled: dict[str, tuple[Any, ...]] = {}
        self._lock = threading.Lock()

    def _compile(self, alias: str) -> tuple[Any, ...]:
        queryset = self._build(MARKER)
        if queryset._known_related_objects:  # type: ignore[attr-defined]
            raise ValueError("a related manager's queryset cannot be prepared")
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots = [i for i, p in enumerate(params) if p == MARKER]
        if len(slots) != 1:
            raise ValueError(f"the value must appear once in the query, not {len(slots)} times")
        klass_info, select = compiler.klass_info, compiler.select
        converters = compiler.get_converters([s[0] for s in select[0 : compiler.col_count]])
        compiled: tuple[Any, ...]
        iterable = queryset._iterable_class  # type: ignore[attr-defined]
        if iterable is not ModelIterable:
            if iterable is not ValuesListIterable or queryset.query.annotations:
                raise ValueError("a values_list() of plain columns only: their rows as they come")
            # values_list(): rows, no objects
            compiled = (sql, list(params), slots[0], None, 0, 0, [], [], converters, compiler)
        else:
            start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
            init_list = [f[0].target.attname for f in select[start:end]]
            compiled = (
                sql, list(params), slots[0], klass_info["model"], start, end, init_list,
                get_related_populators(klass_info, select, alias), converters, compiler,
            )  # fmt: skip
        with self._lock:
            self._compiled[alias] = compiled
        return compiled

    def _rows(self, value: Any, using: str) -> tuple[tuple[Any, ...], Any]:
        compiled = self._compiled.get(using) or self._compile(using)
        sql, params, slot, *_, converters, compiler = compiled
        params = list(params)
        params[slot] = value
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows: Any = cursor.fetchall()
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return compiled, rows

    def rows(self, value: Any, using: str = "default") -> list[tuple[Any, ...]]:
        """The tuples of a ``values_list()`` queryset built with ``value``, in its order."""
        compiled, rows = self._rows(value, using)
        if compiled[3] is not None:
            raise ValueError("rows() is for a values_list() queryset; run() makes objects")
        return list(rows)

    def run(self, value: Any, using: str = "default") -> list[M]:
        """The objects the queryset built with ``value`` would give, in its order."""
        compiled, rows = self._rows(value, using)
        _, _, _, model, start, end, init_list, populators, _, _ = compiled
        if model is None:
            raise ValueError("run() makes objects; a values_list() queryset gives rows()")
        objects = []
        for row in rows:
            obj = model.from_db(using, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            objects.append(obj)
        return objects
