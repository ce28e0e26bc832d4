"""The database engine and sessions; SQLite gets WAL mode, PostgreSQL is used as given."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import Enum
from typing import Any, Generic, TypeVar

from sqlalchemy import CursorResult, Dialect, Engine, Executable, String, create_engine, event
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.types import TypeDecorator

E = TypeVar("E", bound=Enum)


class EnumText(TypeDecorator[E], Generic[E]):
    """An enum stored as its text value in a plain VARCHAR (no database enum type, no
    schema change): rows read back as members, and a value outside the enum is refused
    before it is written."""

    impl = String
    cache_ok = True

    def __init__(self, enum: type[E], length: int) -> None:
        super().__init__(length)
        self.enum = enum

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        return None if value is None else str(self.enum(value).value)

    def process_result_value(self, value: Any, dialect: Dialect) -> E | None:
        return None if value is None else self.enum(value)


def utcnow() -> datetime:
    """Naive UTC: SQLite has no time zones, so every stored time is UTC without tzinfo."""
    return datetime.now(UTC).replace(tzinfo=None)


def iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat(timespec="milliseconds") + "Z"


def make_engine(url: str) -> Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    if url.startswith("sqlite"):
        # Worker threads and request threads share the pool, hence check_same_thread off.
        # Pool as large as waitress's threads plus the workers, so no request waits for one.
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            pool_size=20,
            max_overflow=20,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=20, max_overflow=20)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets page reads proceed while a worker writes a verdict.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_sessions(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def changed(db: Session, statement: Executable) -> int:
    """Run an UPDATE or DELETE and return how many rows it changed."""
    result: CursorResult[Any] = db.execute(statement)  # type: ignore[assignment]
    return int(result.rowcount)


def put_row(
    db: Session, table: Any, keys: dict[str, Any], values: dict[str, Any] | None = None
) -> None:
    """Insert the row `keys` identifies, or, if one is there, set `values` on it (nothing
    with `values` None): one statement, so two requests writing the same row at once both
    succeed (a read-then-insert lets the second fail on the unique key: HTTP 500). `keys`
    must be the columns of a primary key or unique constraint of `table`."""
    from sqlalchemy.dialects import postgresql, sqlite

    # The two dialects spell ON CONFLICT alike; SQLite is the embedded store.
    dialect = db.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement: Any = insert(table).values(**keys, **(values or {}))
    if values:
        statement = statement.on_conflict_do_update(index_elements=list(keys), set_=values)
    else:
        statement = statement.on_conflict_do_nothing(index_elements=list(keys))
    db.execute(statement)


@contextmanager
def transaction(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """A session whose work is committed on success and rolled back on error."""
    with sessions() as session, session.begin():
        yield session
