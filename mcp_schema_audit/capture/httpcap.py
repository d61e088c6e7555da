"""A cap on the bytes of each HTTP response a server sends during a capture (Streamable HTTP and SSE), and on each
message a stdio server writes (``CappedStdout``).

The SDK reads a ``application/json`` reply whole before it parses it (``response.aread()``): a server that streams
one endless body grew the process to gigabytes within ``--timeout`` (4 GB in 15 s, then ``MemoryError``). Each
response's body now stops at ``MAX_RESPONSE_BYTES``, the size a snapshot or tools/list file may have, or past
``jsonio.MAX_JSON_VALUES`` values (each a Python object once parsed, counted by ``jsonio.value_marks``): the
capture fails with exit 3 and one line naming the limit. Server-sent events keep the SDK's own 1 MiB per event as well.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio.abc
import httpx2

from mcp_schema_audit.errors import CaptureError

#: Bytes of one HTTP response body read at most (64 MiB, as a snapshot file).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class ResponseTooLarge(httpx2.ReadError):
    """A response body past ``MAX_RESPONSE_BYTES`` (an ``httpx2.ReadError``: the SDK and the capture's error
    mapping treat it as any broken read, with this message)."""


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, request: httpx2.Request) -> None:
        self._inner, self._limit, self._request = inner, limit, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        from mcp_schema_audit.snapshot.jsonio import MAX_JSON_VALUES, TOO_MANY_VALUES, value_marks

        seen = marks = 0
        async for chunk in self._inner:
            seen += len(chunk)
            marks += value_marks(chunk)  # what the SDK's parse makes Python objects of (``CappedStdout``)
            if seen > self._limit:
                raise ResponseTooLarge(
                    f"the server's HTTP response is too large (over {self._limit // (1024 * 1024)} MiB)",
                    request=self._request,
                )
            if marks >= MAX_JSON_VALUES:
                raise ResponseTooLarge(f"the server's HTTP response {TOO_MANY_VALUES}", request=self._request)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class CappedTransport(httpx2.AsyncBaseTransport):
    """``httpx2.AsyncHTTPTransport`` whose every response body stops at ``limit`` bytes (``ResponseTooLarge``)."""

    def __init__(self, limit: int = MAX_RESPONSE_BYTES) -> None:
        self._inner = httpx2.AsyncHTTPTransport()
        self._limit = limit

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            status_code=response.status_code,
            headers=response.headers,
            stream=_CappedStream(stream, self._limit, request),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        await self._inner.aclose()


#: Bytes of one stdio message (one line) read at most, as an HTTP body (the SDK joins a line's chunks anew for each
#: chunk it reads, so a line near the bound costs seconds: a 20 MB call result is a probe finding, not a failure).
MAX_LINE_BYTES = MAX_RESPONSE_BYTES


class CappedStdout(anyio.abc.ByteReceiveStream):
    """A stdio server's stdout, as the SDK's reader receives it, with each line (one JSON-RPC message) bounded: past
    ``MAX_LINE_BYTES``, or holding ``jsonio.MAX_JSON_VALUES`` or more ``,``/``:``/``[``/``{`` (each value a Python
    object once parsed: a 4 MB line of two million ``{}`` took 827 MB and overran ``--timeout`` in the SDK's
    parse), the capture fails (``CaptureError``, exit 3) before the SDK parses it. Counted on the bytes: marks
    inside strings count too, so a line may be refused that holds fewer values (four million commas in text)."""

    def __init__(self, inner: anyio.abc.ByteReceiveStream, limit: int = MAX_LINE_BYTES) -> None:
        from mcp_schema_audit.snapshot.jsonio import MAX_JSON_VALUES, TOO_MANY_VALUES, value_marks

        self._inner, self._limit, self._values = inner, limit, MAX_JSON_VALUES
        self._too_many, self._marks_of = TOO_MANY_VALUES, value_marks  # imported once, not per chunk
        self._bytes = self._marks = 0

    async def receive(self, max_bytes: int = 65536) -> bytes:
        chunk = await self._inner.receive(max_bytes)
        lines = chunk.split(b"\n")
        for i, part in enumerate(lines):
            self._bytes += len(part)
            self._marks += self._marks_of(part)
            if self._bytes > self._limit:
                raise CaptureError(f"a message from the server is too large (over {self._limit // (1024 * 1024)} MiB)")
            if self._marks >= self._values:
                raise CaptureError(f"a message from the server {self._too_many}")
            if i < len(lines) - 1:  # a line ended: the next one counts from nothing
                self._bytes = self._marks = 0
        return chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CappedProcess(anyio.abc.Process):
    """The SDK's server process, its stdout read through ``CappedStdout``; everything else is the process's. An
    ``anyio.abc.Process`` itself: the SDK asserts that before it signals a server that outlived its closed stdin
    (a plain wrapper failed every such capture with ``AssertionError``)."""

    def __init__(self, process: Any) -> None:  # the SDK's ServerProcess: anyio's on POSIX, its own on Windows
        self._inner = process
        self._stdout = CappedStdout(process.stdout) if process.stdout is not None else None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def wait(self) -> int:
        return await self._inner.wait()

    def terminate(self) -> None:
        self._inner.terminate()

    def kill(self) -> None:
        self._inner.kill()

    def send_signal(self, signal: Any) -> None:
        self._inner.send_signal(signal)

    @property
    def pid(self) -> int:
        return self._inner.pid

    @property
    def returncode(self) -> int | None:
        return self._inner.returncode

    @property
    def stdin(self) -> anyio.abc.ByteSendStream | None:
        return self._inner.stdin

    @property
    def stdout(self) -> anyio.abc.ByteReceiveStream | None:
        return self._stdout

    @property
    def stderr(self) -> anyio.abc.ByteReceiveStream | None:
        return self._inner.stderr

    def __getattr__(self, name: str) -> Any:  # the backend's own attributes (the SDK closes its transport)
        return getattr(self._inner, name)


def cap_stdio() -> None:
    """From now on, the stdio servers the SDK spawns (``mcp.client.stdio``) are read through ``CappedStdout``
    (installed once per process: concurrent captures share it)."""
    import mcp.client.stdio as sdk_stdio

    spawn = sdk_stdio._create_platform_compatible_process
    if getattr(spawn, "capped", False):
        return

    async def capped(*args: Any, **kwargs: Any) -> Any:
        return _CappedProcess(await spawn(*args, **kwargs))

    capped.capped = True  # type: ignore[attr-defined]
    sdk_stdio._create_platform_compatible_process = capped
