"""The raw JSON-RPC results, tapped from the transport streams before the SDK's models parse them."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from mcp_schema_audit.capture.target import scrub_secrets
from mcp_schema_audit.errors import CaptureError
from mcp_schema_audit.jsontext import non_json_number_at

if TYPE_CHECKING:
    from typing import TypeAlias

    from mcp.client import Transport
    from mcp.client._transport import ReadStream, WriteStream  # the SDK's stream protocols (no public module)
    from mcp.shared.message import SessionMessage
    from mcp.types import RequestId

    #: One reply as the tap saw it: ``(method of the request it answers, raw result, raw error, request id)``.
    Reply: TypeAlias = "tuple[str | None, dict[str, Any] | None, dict[str, Any] | None, RequestId]"


class WireLog:
    """JSON-RPC traffic seen on the transport: request methods by id, raw results and errors.

    Every reply is redacted as it arrives (``secrets``: what the user gave, see ``target.reply_secrets``), so
    no listing, handshake, call result or error the server sends can carry a secret into a snapshot, a
    report, a recording or a message: this tap is the one place where server data enters.

    ``replies`` holds ``(method, result, error, request id)`` per reply in arrival order; ``sent`` the id of
    the last request sent per method (a tool call's reply is looked up by its own id, so a late answer to an
    earlier call that timed out is never taken for it).
    """

    def __init__(self, secrets: list[str] | None = None) -> None:
        self.secrets = list(secrets or [])  #: values replaced by ``***`` in every reply, as it is received
        self.methods: dict[RequestId, str] = {}  #: method of each request sent, by request id
        self.sent: dict[str, RequestId] = {}
        self.replies: list[Reply] = []
        self.non_json: dict[int, str] = {}  #: reply index → JSON Pointer of a NaN/Infinity the server sent in it
        self.unparsable = 0  #: messages the transport could not parse (e.g. log lines on a stdio server's stdout)
        self.noise: list[str] = []  #: the last few of them as the server wrote them (raw text, not yet cleaned)
        self.containers = 0  #: JSON values in the replies so far (``jsonio.MAX_JSON_VALUES`` at most)

    def note_unparsable(self, exc: Exception) -> None:
        """Count one message the transport could not parse and keep what the server wrote (the last 3).

        Raises ``CaptureError`` when the message is a reply to a request still awaited that the SDK's parser
        refuses although it is JSON to a lenient reader (a lone UTF-16 surrogate escape such as ``"\\ud800"``):
        the SDK drops it and the request would wait out the whole timeout, so the capture fails at once."""
        self.unparsable += 1
        errors = getattr(exc, "errors", None)
        try:
            first = errors()[0] if callable(errors) else {}
            raw, why = first.get("input"), str(first.get("msg") or "")
        except Exception:  # noqa: BLE001 - only a detail for the error message
            raw, why = None, ""
        if raw is None:
            return
        self._refuse_unreadable_reply(raw, why)
        if not isinstance(raw, str):
            import json

            raw = json.dumps(raw, ensure_ascii=False, default=str)
        self.noise = [*self.noise, raw[:500]][-3:]

    def _refuse_unreadable_reply(self, raw: Any, why: str) -> None:
        """Raise ``CaptureError`` if ``raw`` (text the SDK could not parse) is a reply to a request sent (a handshake
        or listing request: a tools/call reply is left to time out, as it does in a host)."""
        import json

        if not isinstance(raw, (str, bytes)) or len(raw) > 200_000_000:
            return
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            return
        if not (
            isinstance(message, dict)
            and message.get("jsonrpc") == "2.0"
            and ("result" in message or "error" in message)
        ):
            return
        rid = message.get("id")
        if isinstance(rid, (str, int)) and not isinstance(rid, bool) and rid in self.methods:
            method = self.methods[rid]
            if method == "tools/call":
                return  # a probe call: it times out as a host's would (the call-timeout outcome), the run goes on
            reason = " ".join(why.split())[:200] or "not valid JSON"
            lowered = reason.lower()
            hint = (
                "a lone UTF-16 surrogate escape (\\ud800 without its pair) is the usual cause: the server must "
                "send valid Unicode"
                if "surrogate" in lowered or "hex escape" in lowered
                else "the reply is nested deeper than the SDK's JSON parser goes"
                if "recursion" in lowered
                else "the server must send JSON the MCP SDK's parser accepts"
            )
            raise CaptureError(
                f"the server's reply to {method} cannot be read by an MCP client ({reason}); "
                "the SDK drops it, so hosts wait for it until they time out",
                hint=hint,
            )

    def non_json_reply(self, request_id: RequestId | None = None) -> tuple[str, str] | None:
        """``(method, "result/pointer" or "error/pointer")`` of the first reply holding a number JSON cannot
        hold (NaN, Infinity; see ``jsontext.non_json_number_at``), among all replies or only the replies to
        request ``request_id``; None when there is none."""
        for index, pointer in sorted(self.non_json.items()):
            method, result, _error, rid = self.replies[index]
            if request_id is None or rid == request_id:
                where = ("result" if result is not None else "error") + pointer
                return str(method), where if len(where) <= 200 else where[:199] + "…"
        return None

    def results(self, method: str, start: int = 0) -> list[dict[str, Any]]:
        """Raw ``result`` dicts of ``method`` replies received since reply number ``start``."""
        return [res for m, res, _, _ in self.replies[start:] if m == method and res is not None]

    def reply(self, request_id: RequestId) -> tuple[dict[str, Any] | None, dict[str, Any] | None] | None:
        """``(raw result, raw error)`` of the reply to request ``request_id`` (the last one), or None if none came."""
        for _m, res, err, rid in reversed(self.replies):
            if rid == request_id:
                return res, err
        return None


class _Tap:
    """What both taps share: the stream proxied, the log, closing (also as an async context manager)."""

    def __init__(
        self, inner: ReadStream[SessionMessage | Exception] | WriteStream[SessionMessage], log: WireLog
    ) -> None:
        self._inner = inner
        self._log = log

    @property
    def last_context(self) -> Any:  # the dispatcher reads it to carry OpenTelemetry context
        return getattr(self._inner, "last_context", None)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


class _TapWriteStream(_Tap):
    """Proxy for the transport's write stream: notes the method and id of every request sent in the ``WireLog``."""

    def __init__(self, inner: WriteStream[SessionMessage], log: WireLog) -> None:
        super().__init__(inner, log)
        self._writer = inner

    async def send(self, item: SessionMessage) -> None:
        message = getattr(item, "message", None)
        method = getattr(message, "method", None)
        if method is not None and message is not None and hasattr(message, "id"):
            self._log.methods[message.id] = method
            self._log.sent[method] = message.id
        await self._writer.send(item)

    async def __aenter__(self) -> _TapWriteStream:
        return self


class _TapReadStream(_Tap):
    """Proxy for the transport's read stream: records every reply's raw result or error in the ``WireLog``
    (secrets scrubbed), and each message the transport could not parse."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], log: WireLog) -> None:
        super().__init__(inner, log)
        self._reader = inner

    async def receive(self) -> SessionMessage | Exception:
        item = await self._reader.receive()
        if isinstance(item, Exception):
            self._log.note_unparsable(item)
        message = getattr(item, "message", None)
        if message is not None and hasattr(message, "id") and not hasattr(message, "method"):
            method = self._log.methods.get(message.id)
            result = getattr(message, "result", None)
            error = getattr(message, "error", None)
            kept: dict[str, Any] | None = None
            if isinstance(result, dict):
                self._count(result)
                kept = scrub_secrets(copy.deepcopy(result), self._log.secrets)
                self._log.replies.append((method, kept, None, message.id))
            elif error is not None:
                dumped = error.model_dump(mode="json") if hasattr(error, "model_dump") else {"message": str(error)}
                kept = scrub_secrets(dumped, self._log.secrets)
                self._log.replies.append((method, None, kept, message.id))
            where = non_json_number_at(kept) if kept is not None else None
            if where is not None:
                self._log.non_json[len(self._log.replies) - 1] = where
        return item

    def _count(self, result: dict[str, Any]) -> None:
        """Count ``result``'s JSON values into the run's total, before anything copies it: past ``MAX_JSON_VALUES``
        (over every reply and page) the capture fails at once (ten pages of two million ``"ab"`` each grew the
        process to 2.2 GB within ``--timeout``, as every later step copied and walked them)."""
        from mcp_schema_audit.snapshot.jsonio import MAX_JSON_VALUES, TOO_MANY_VALUES, count_values

        self._log.containers += count_values(result, MAX_JSON_VALUES - self._log.containers)
        if self._log.containers > MAX_JSON_VALUES:
            raise CaptureError(f"the server's replies: {TOO_MANY_VALUES}")

    def __aiter__(self) -> _TapReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        import anyio

        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _TapReadStream:
        return self


@contextlib.asynccontextmanager
async def tapped(transport: Transport, log: WireLog) -> AsyncIterator[tuple[_TapReadStream, _TapWriteStream]]:
    """``transport`` (entered here) with both its streams proxied: every request and reply noted in ``log``."""
    async with transport as (read_stream, write_stream):
        yield _TapReadStream(read_stream, log), _TapWriteStream(write_stream, log)


def last_result(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The last of ``results`` (raw results of one method, as ``WireLog.results`` lists them), ``{}`` for none."""
    return results[-1] if results else {}
