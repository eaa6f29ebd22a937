"""How every list is answered (docs/api.md#lists): in pages of ascending id, with a signed
token for the next one, a body never over MAX_RESPONSE_BYTES, and a whole list read for
at most READ_SECONDS."""

import dataclasses
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from chalice import Response
from chalice.app import Request

from common.http.responses import JSON_CONTENT_TYPE, api_json
from common.platform import jsonio, keys
from common.platform.settings import Cloud, Pages
from common.storage.paging import MAX_LIMIT, Page, issue_token, parse_limit, read_token

# How long a list without `limit` goes on reading pages before it answers with what it
# has and a token: an environment that serves a list serves nothing else meanwhile, and
# each next page costs what the last did (about 0.1 s per 1,000 items on AWS, 0.35 s
# locally), so a whole list of a big table would hold it up to the function's timeout.
READ_SECONDS = 2.0
# The first read of a whole list, doubled at each next one up to MAX_LIMIT: the time is
# looked at between reads, so a first read of MAX_LIMIT on a busy host (eight lists at
# once on two shared cores: 5-6 s each here) could alone run to the function's timeout.
FIRST_READ = 250


@dataclasses.dataclass(frozen=True)
class Lists:
    """How every list is answered (docs/api.md#lists): in pages of ascending id, a signed
    token for the next one, a body never over `max_bytes`, and a whole list read for at
    most `max_seconds` (by `clock`)."""

    token_keys: keys.KeyRing
    max_bytes: int
    max_seconds: float = READ_SECONDS
    clock: Callable[[], float] = time.monotonic

    @classmethod
    def from_settings(cls, pages: Pages, cloud: Cloud) -> "Lists":
        return cls(keys.page_token_keys(pages, cloud), pages.max_response_bytes)

    def answer(
        self,
        request: Request,
        fetch: Callable[[int, int], Page],
        filters: Mapping[str, str | None] | None = None,
        shown: Callable[[Any], object] = api_json,
        position: Callable[[Any], int] = lambda item: item.id,
    ) -> Response:
        """Answer with the page that `fetch(after, limit)` reads, each item as `shown`
        makes it (by default as the API shows it); the filters (query parameters) bind
        the token, so it cannot be used with other ones. `position(item)`: the number
        the list is in ascending order of, a page resuming after one (by default its id;
        a newest-first list's is a number that falls as ids rise)."""
        filters = filters or {}
        query: Mapping[str, str] = request.query_params or {}
        limit = parse_limit(query.get("limit"))
        list_name = request.context.get("resourcePath", request.path)
        after = read_token(self.token_keys, query.get("nextToken"), list_name, filters)
        body, resume_after = self._body(fetch, after, limit, shown, position)
        headers = {}
        if resume_after is not None:
            token = issue_token(self.token_keys, list_name, filters, resume_after)
            headers = {
                "X-Next-Token": token,
                "Link": f'<{_next_page_link(request, token)}>; rel="next"',
            }
        return Response(
            body=body, status_code=200, headers={"Content-Type": JSON_CONTENT_TYPE, **headers}
        )

    def _body(
        self,
        fetch: Callable[[int, int], Page],
        after: int,
        limit: int | None,
        shown: Callable[[Any], object] = api_json,
        position: Callable[[Any], int] = lambda item: item.id,
    ) -> tuple[str, int | None]:
        """The JSON array of the page, cut where the next item would pass `max_bytes`
        (never before its first item), and where the list goes on after it.

        With a limit, one read of at most `limit` items; without, reads of FIRST_READ,
        then twice as many each time up to MAX_LIMIT, until the list ends, the body is
        full, or `max_seconds` have gone by."""
        parts: list[str] = []
        size = 2  # the brackets
        started = self.clock()
        reading = FIRST_READ
        while True:
            page = fetch(after, limit or reading)
            reading = min(reading * 2, MAX_LIMIT)
            for item in page.items:
                encoded = jsonio.dumps(shown(item), ascii_only=False)
                cost = len(encoded.encode("utf-8")) + (1 if parts else 0)
                if parts and size + cost > self.max_bytes:
                    return f"[{','.join(parts)}]", after
                parts.append(encoded)
                size += cost
                after = position(item)
            if (
                page.resume_after is None
                or limit is not None
                or self.clock() - started >= self.max_seconds
            ):
                return f"[{','.join(parts)}]", page.resume_after
            after = page.resume_after


def _next_page_link(request: Request, token: str) -> str:
    """The same path (with any stage prefix) and query, with this token: a relative
    reference (RFC 8288)."""
    path = request.context.get("path", request.path)
    query = request.query_params
    pairs = [
        (name, value)
        for name in query or {}
        if name != "nextToken" and query is not None
        for value in query.getlist(name)
    ]
    pairs.append(("nextToken", token))
    return (
        path
        + "?"
        + "&".join(f"{quote(name, safe='')}={quote(value, safe='')}" for name, value in pairs)
    )
