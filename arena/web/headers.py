"""`ExtraHeaders`: ASGI middleware adding fixed headers to every HTTP response, each only when
the response (or an inner middleware) has not set it already. The viewer's security headers and
the contest server's referrer policy are both made with it."""

from __future__ import annotations


class ExtraHeaders:
    def __init__(self, app, headers: list[tuple[bytes, bytes]]):
        self.app = app
        self.headers = list(headers)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (name, value) for name, value in self.headers if name not in names]
            await send(message)

        await self.app(scope, receive, with_headers)
