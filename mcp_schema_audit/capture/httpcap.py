"""A cap on the bytes of each HTTP response a server sends during a capture (Streamable HTTP and SSE).

The SDK reads a ``application/json`` reply whole before it parses it (``response.aread()``): a server that streams
one endless body grew the process to gigabytes within ``--timeout`` (4 GB in 15 s, then ``MemoryError``). Each
response's body now stops at ``MAX_RESPONSE_BYTES``, the size a snapshot or tools/list file may have: the capture
fails with exit 3 and one line naming the limit. Server-sent events keep the SDK's own 1 MiB per event as well.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx2

#: Bytes of one HTTP response body read at most (64 MiB, as a snapshot file).
MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class ResponseTooLarge(httpx2.ReadError):
    """A response body past ``MAX_RESPONSE_BYTES`` (an ``httpx2.ReadError``: the SDK and the capture's error
    mapping treat it as any broken read, with this message)."""


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, request: httpx2.Request) -> None:
        self._inner, self._limit, self._request = inner, limit, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._inner:
            seen += len(chunk)
            if seen > self._limit:
                raise ResponseTooLarge(
                    f"the server's HTTP response is too large (over {self._limit // (1024 * 1024)} MiB)",
                    request=self._request,
                )
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
