"""Queries of the hot paths (the action, the game page, the session's user) compiled to SQL
once per process instead of once per call.

Every action reads the game (locked, with its snapshot) and its seats (with their users). The
ORM builds, clones and compiles those querysets anew each time: about a millisecond of CPU per
action, more than PostgreSQL takes to answer them (issue 21 profiled it). ``Prepared`` compiles
the queryset once, with a marker in place of the value it is run with, keeps Django's compiler
(its select list, its related-object populators, its converters) and then only substitutes the
value and runs the SQL: the rows become model instances exactly as the queryset would make
them (``from_db``, ``select_related`` objects attached), the same SQL goes to the database.

Only for querysets of one shape (filters on the values ``build`` takes, each appearing once in
the SQL; no ``known related objects``); annotations are set on the objects as the queryset
sets them. Kept per database alias, since the SQL depends on the backend.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from django.db import connections
from django.db.models import Model, QuerySet, signals
from django.db.models.constants import OnConflict
from django.db.models.expressions import DatabaseDefault
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

M = TypeVar("M", bound=Model)

#: what the queryset is built with in place of its first value (the next ones: MARKER + 1, ...):
#: within every integer column's range, smallint's too (Django turns a lookup beyond its field's
#: range into an empty result on PostgreSQL, with no parameter), and a number no query of the
#: site holds as a constant of its own
MARKER = 32_719


class Prepared(Generic[M]):
    """``build(*values)`` -> a queryset, compiled on first use; ``run(*values)`` -> its
    objects."""

    def __init__(self, build: Callable[..., QuerySet[M]]) -> None:
        self._build = build
        self._arity = len(inspect.signature(build).parameters)
        self._compiled: dict[str, tuple[Any, ...]] = {}
        self._lock = threading.Lock()

    def _compile(self, alias: str) -> tuple[Any, ...]:
        markers = [MARKER + i for i in range(self._arity)]
        queryset = self._build(*markers)
        if queryset._known_related_objects:  # type: ignore[attr-defined]
            raise ValueError("a related manager's queryset cannot be prepared")
        compiler = queryset.query.get_compiler(using=alias)
        sql, params = compiler.as_sql()
        slots = []
        for marker in markers:
            found = [i for i, p in enumerate(params) if p == marker]
            if len(found) != 1:
                raise ValueError(f"a value must appear once in the query, not {len(found)} times")
            slots.append(found[0])
        klass_info, select = compiler.klass_info, compiler.select
        converters = compiler.get_converters([s[0] for s in select[0 : compiler.col_count]])
        compiled: tuple[Any, ...]
        iterable = queryset._iterable_class  # type: ignore[attr-defined]
        if iterable is not ModelIterable:
            if iterable is not ValuesListIterable or queryset.query.annotations:
                raise ValueError("a values_list() of plain columns only: their rows as they come")
            # values_list(): rows, no objects
            compiled = (sql, list(params), slots, None, 0, 0, [], [], {}, converters, compiler)
        else:
            start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
            init_list = [f[0].target.attname for f in select[start:end]]
            compiled = (
                sql, list(params), slots, klass_info["model"], start, end, init_list,
                get_related_populators(klass_info, select, alias),
                dict(compiler.annotation_col_map), converters, compiler,
            )  # fmt: skip
        with self._lock:
            self._compiled[alias] = compiled
        return compiled

    def _rows(self, values: tuple[Any, ...], using: str) -> tuple[tuple[Any, ...], Any]:
        compiled = self._compiled.get(using) or self._compile(using)
        sql, params, slots, *_, converters, compiler = compiled
        params = list(params)
        for slot, value in zip(slots, values, strict=True):
            params[slot] = value
        with connections[using].cursor() as cursor:
            cursor.execute(sql, params)
            rows: Any = cursor.fetchall()
        if converters:
            rows = [tuple(row) for row in compiler.apply_converters(rows, converters)]
        return compiled, rows

    def rows(self, *values: Any, using: str = "default") -> list[tuple[Any, ...]]:
        """The tuples of a ``values_list()`` queryset built with ``values``, in its order."""
        compiled, rows = self._rows(values, using)
        if compiled[3] is not None:
            raise ValueError("rows() is for a values_list() queryset; run() makes objects")
        return list(rows)

    def run(self, *values: Any, using: str = "default") -> list[M]:
        """The objects the queryset built with ``values`` would give, in its order."""
        compiled, rows = self._rows(values, using)
        _, _, _, model, start, end, init_list, populators, annotations, _, _ = compiled
        if model is None:
            raise ValueError("run() makes objects; a values_list() queryset gives rows()")
        objects = []
        for row in rows:
            obj = model.from_db(using, init_list, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for name, position in annotations.items():  # as ModelIterable sets them
                setattr(obj, name, row[position])
            objects.append(obj)
        return objects


class PreparedCount:
    """``build().count()`` for a queryset of no values (a list of the site's own, such as the
    lobby's), the statement written once per database alias: ``SELECT COUNT(*)`` over the
    queryset's own SQL, ordering left out. The ORM built and compiled the count anew on each
    page, window functions and all."""

    def __init__(self, build: Callable[[], QuerySet[Any]]) -> None:
        self._build = build
        self._sql: dict[str, tuple[str, list[Any]]] = {}

    def run(self, using: str = "default") -> int:
        found = self._sql.get(using)
        if found is None:
            sql, params = self._build().order_by().query.get_compiler(using=using).as_sql()
            found = self._sql[using] = (f"SELECT COUNT(*) FROM ({sql}) counted", list(params))
        with connections[using].cursor() as cursor:
            cursor.execute(*found)
            return int(cursor.fetchone()[0])


class PreparedUpdate:
    """``UPDATE <table> SET <columns> WHERE <columns>`` of one model, the SQL written once per
    database alias; each value is prepared by its field (``get_db_prep_save``) as
    ``QuerySet.update`` and ``Model.save`` do. For the action's writes, whose columns are
    fixed: the ORM built and compiled each of them anew (a tenth of the action's CPU)."""

    def __init__(self, model: type[Model], set_fields: Sequence[str], where: Sequence[str]):
        meta = model._meta
        self._set = [meta.get_field(name) for name in set_fields]
        self._where = [meta.get_field(name) for name in where]
        self._table = meta.db_table
        self._sql: dict[str, str] = {}

    def sql(self, alias: str) -> str:
        found = self._sql.get(alias)
        if found is None:
            quote = connections[alias].ops.quote_name
            assignments = ", ".join(f"{quote(f.column)} = %s" for f in self._set)
            condition = " AND ".join(f"{quote(f.column)} = %s" for f in self._where)
            found = f"UPDATE {quote(self._table)} SET {assignments} WHERE {condition}"
            self._sql[alias] = found
        return found

    def run(self, values: Sequence[Any], where: Sequence[Any], using: str = "default") -> int:
        """Set the columns to ``values`` in the rows where the key columns are ``where``: the
        number of rows changed."""
        connection = connections[using]
        params = [
            *(f.get_db_prep_save(v, connection) for f, v in zip(self._set, values, strict=True)),
            *(f.get_db_prep_value(v, connection) for f, v in zip(self._where, where, strict=True)),
        ]
        with connection.cursor() as cursor:
            cursor.execute(self.sql(using), params)
            return cursor.rowcount


def _insert_fields(model: type[Model], db_defaults: bool = False) -> list[Any]:
    """The columns a prepared insert of ``model`` writes: every concrete one but its automatic
    primary key. Refused when the database would make one of the values (``Model.save`` and
    ``bulk_create`` know how, the prepared inserts do not); ``db_defaults``: columns with a
    database default are let through, for a caller that checks each value."""
    meta = model._meta
    fields = [f for f in meta.concrete_fields if f is not meta.pk]
    if not getattr(meta.pk, "db_returning", False) or any(
        f.generated or (f.has_db_default() and not db_defaults) for f in fields
    ):
        raise ValueError(f"{meta.label}: only an automatic key and plain columns")
    return fields


class PreparedInsert(Generic[M]):
    """``INSERT`` of a new object of one model with all its concrete columns but an automatic
    primary key, which is set on the object afterwards, as ``Model.save`` does (with its
    ``pre_save``/``post_save`` signals); the SQL written once per database alias."""

    def __init__(self, model: type[M]) -> None:
        self._model = model
        self._pk = model._meta.pk
        self._fields = _insert_fields(model)
        self._sql: dict[str, tuple[str, bool]] = {}

    def sql(self, alias: str) -> tuple[str, bool]:
        """The statement, and whether it returns the new primary key (else the cursor says)."""
        found = self._sql.get(alias)
        if found is None:
            connection = connections[alias]
            quote = connection.ops.quote_name
            columns = ", ".join(quote(f.column) for f in self._fields)
            marks = ", ".join(["%s"] * len(self._fields))
            sql = f"INSERT INTO {quote(self._model._meta.db_table)} ({columns}) VALUES ({marks})"
            returning = connection.features.can_return_columns_from_insert
            if returning:
                sql += f" RETURNING {quote(self._pk.column)}"
            found = self._sql[alias] = (sql, returning)
        return found

    def run(self, obj: M, using: str = "default") -> None:
        model = self._model
        signals.pre_save.send(
            sender=model, instance=obj, raw=False, using=using, update_fields=None
        )
        connection = connections[using]
        sql, returning = self.sql(using)
        params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in self._fields]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if returning:
                pk = cursor.fetchone()[0]
            else:
                pk = connection.ops.last_insert_id(cursor, model._meta.db_table, self._pk.column)
        setattr(obj, self._pk.attname, pk)
        obj._state.adding = False
        obj._state.db = using
        signals.post_save.send(
            sender=model, instance=obj, created=True, update_fields=None, raw=False, using=using
        )


class PreparedInsertIgnoring(Generic[M]):
    """``bulk_create(objs, ignore_conflicts=True)`` of a few new objects of one model: one
    ``INSERT`` that skips the rows a unique constraint already holds (PostgreSQL's ``ON
    CONFLICT DO NOTHING``, SQLite's ``INSERT OR IGNORE``), the SQL of each row count written
    once per database alias. Like ``bulk_create`` with ``ignore_conflicts``: no signals, no
    keys set on the objects. For the rows an action queues (notifications.outbox): the ORM's
    ``bulk_create`` checks, batches and compiles them anew on every action."""

    def __init__(self, model: type[M]) -> None:
        self._model = model
        self._table = model._meta.db_table
        self._sql: dict[tuple[str, int], str] = {}

    @functools.cached_property
    def _fields(self) -> list[Any]:
        # on first use: the model's relations are resolved once every app has loaded
        return _insert_fields(self._model, db_defaults=True)

    def sql(self, alias: str, rows: int) -> str:
        found = self._sql.get((alias, rows))
        if found is None:
            ops = connections[alias].ops
            columns = ", ".join(ops.quote_name(f.column) for f in self._fields)
            row = "(" + ", ".join(["%s"] * len(self._fields)) + ")"
            suffix = ops.on_conflict_suffix_sql(self._fields, OnConflict.IGNORE, None, None)
            found = (
                f"{ops.insert_statement(on_conflict=OnConflict.IGNORE)} "
                f"{ops.quote_name(self._table)} ({columns}) VALUES {', '.join([row] * rows)}"
                + (f" {suffix}" if suffix else "")
            )
            self._sql[(alias, rows)] = found
        return found

    def run(self, objs: Sequence[M], using: str = "default") -> None:
        """Insert ``objs`` (none: no statement), each row unless it conflicts; more rows than
        one statement may hold (SQLite's limit on parameters) go in several, as with
        ``bulk_create``."""
        connection = connections[using]
        rows = []
        for obj in objs:
            obj._prepare_related_fields_for_save(operation_name="bulk_create")
            values = [f.pre_save(obj, True) for f in self._fields]
            if any(isinstance(value, DatabaseDefault) for value in values):
                # a column left to its database default: bulk_create writes DEFAULT for it
                self._model._default_manager.using(using).bulk_create(objs, ignore_conflicts=True)
                return
            prepared = zip(self._fields, values, strict=True)
            rows.append([f.get_db_prep_save(v, connection) for f, v in prepared])
        size = max(connection.ops.bulk_batch_size(self._fields, objs), 1)
        for start in range(0, len(rows), size):
            batch = rows[start : start + size]
            with connection.cursor() as cursor:
                cursor.execute(self.sql(using, len(batch)), [v for row in batch for v in row])
        for obj in objs:
            obj._state.adding = False
            obj._state.db = using
