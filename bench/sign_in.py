"""Rerunnable benchmark: how long a sign-in with a wrong password takes against one with
an email no one has (docs/identity.md: the time tells a guesser nothing).

Usage: `make bench-sign-in` (or .venv/bin/python bench/sign_in.py [--accounts N]
[--rounds R]).

Two local stacks, each started as `make run` starts it: one with its data in memory (the
tests' stacks: the pool keeps passwords as given), one with a data directory (`make
run`'s: the pool keeps them hashed, and a sign-in for no one costs a hash too). Each
registers N accounts, then R rounds of one wrong password for each account and one try
of an email no one has, interleaved (which goes first alternating), each try from a
client address of its own so none is slowed. A timing, not a test: the tests count the
work of each path instead (tests/integration/test_sign_in_routes.py), since a median of
a few tries on a busy machine tells noise from an oracle badly.

Prints a Markdown table: each stack's medians and their ratio.
"""

import argparse
import statistics
import tempfile
import time
import uuid

from tests.support.addresses import client_at, new_address
from tests.support.stack_process import StackProcess

PASSWORD = "A-long-Passphrase-2026"
WRONG = "Wrong-Password-2026"


def new_email() -> str:
    return f"bench-{uuid.uuid4().hex[:12]}@example.com"


def timed_login(stack: StackProcess, email: str) -> float:
    """Seconds a refused sign-in took, from an address of its own."""
    client = client_at(new_address())
    sent = {"email": email, "password": WRONG}
    started = time.perf_counter()
    answer = client.post(stack.gateway + "/api/auth/login", json=sent, timeout=60)
    took = time.perf_counter() - started
    assert answer.status_code == 401, answer.text
    return took


def measured(stack: StackProcess, accounts: int, rounds: int) -> dict[str, list[float]]:
    known = [new_email() for _ in range(accounts)]
    for email in known:
        made = client_at(new_address()).post(
            stack.gateway + "/api/auth/register",
            json={"email": email, "password": PASSWORD},
            timeout=60,
        )
        assert made.status_code == 201, made.text
    timed_login(stack, known[0])  # warm: the sign-in function's environment is up
    times: dict[str, list[float]] = {"wrong password": [], "unknown email": []}
    for n in range(rounds * accounts):
        tries = [("wrong password", known[n % accounts]), ("unknown email", new_email())]
        for kind, email in tries if n % 2 else reversed(tries):
            times[kind].append(timed_login(stack, email))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| pool's passwords | wrong password (ms) | unknown email (ms) | ratio | tries |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as data:
        stacks = (("as given (memory)", {}), ("hashed (data dir)", {"LOCAL_DATA_DIR": data}))
        for kept, env in stacks:
            stack = StackProcess(env).start()
            try:
                times = measured(stack, args.accounts, args.rounds)
            finally:
                stack.stop()
            wrong, unknown = (statistics.median(times[k]) * 1000 for k in times)
            tries = len(times["wrong password"])
            print(f"| {kept} | {wrong:.1f} | {unknown:.1f} | {wrong / unknown:.2f} | {tries} |")


if __name__ == "__main__":
    main()
