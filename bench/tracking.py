"""Rerunnable benchmark: a carrier's burst of tracking events, and the API's requests
meanwhile (docs/api.md#carriers).

Usage: `make bench-tracking` (or .venv/bin/python bench/tracking.py [--events N]
[--shipments S] [--carriers C] [--rounds R] [--probes P]). It starts the local stack on
free ports (data in memory), as `make run` does.

A carrier (registered with `POST /api/transportistas`) has S shipments. Each round:

1. Baseline: one client makes P of the API's ordinary requests one after another (in
   turn `GET /api/envios/{id}`, `GET /api/pedidos/{id}`, `GET /api/inventario/{id}`),
   nothing else running.
2. Burst: the carrier pushes N events for its S shipments (N/S each, forward in time,
   each signed as Standard Webhooks specifies, its own webhook-id) from C connections at
   once, as fast as they are answered; a 429 (the intake's own limit) is retried after
   its Retry-After, as a carrier does. Meanwhile the same client makes the same P
   requests.

It prints, per round and over all rounds, the median time of the API's requests in
each, and their ratio (burst / baseline, the same run's); the burst's answers by status
and its events a second; and checks that every event was recorded (each shipment's
events counted) and that no answer, the carrier's or the API's, was a 5xx.
"""

import argparse
import statistics
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import requests

from common.platform import jsonio
from tests.support.carriers import signed
from tests.support.stack_client import token
from tests.support.stack_process import PATIENT_STOCK_CHECK, StackClient, StackProcess

STATES = ("ASIGNADO", "EN_RUTA", "EN_REPARTO", "INTENTO_FALLIDO", "EN_REPARTO", "ENTREGADO")


def created(http: StackClient, method: str, path: str, **kw) -> dict:
    """What a set-up request made: its 201's body (anything else stops the run, saying it)."""
    answer = http.gateway(method, path, **kw)
    assert answer.status_code == 201, (path, answer.status_code, answer.text)
    return answer.json()


def setup(http: StackClient, shipments: int) -> dict:
    carrier = http.gateway(
        "POST", "/api/transportistas", json={"codigo": "BENCH", "nombre": "Bench"}
    )
    assert carrier.status_code == 201, carrier.text
    product = created(
        http,
        "POST",
        "/api/inventario",
        json={
            "sku": "TRK-1",
            "nombre": "Caja",
            "precioUnitario": 1,
            "stockActual": 10**6,
            "umbralMinimo": 0,
            "bodega": "Lima",
        },
    )
    order = created(
        http,
        "POST",
        "/api/pedidos",
        json={
            "userId": 7,
            "userEmail": "b@example.com",
            "clienteNombre": "B",
            "total": 1,
            "tipoPedido": "NACIONAL",
            "destino": "Lima",
            "productoId": product["id"],
            "cantidad": 1,
        },
    )
    made = [
        created(
            http,
            "POST",
            "/api/envios",
            json={
                "pedidoId": order["id"],
                "tipoEnvio": "EXPRESS",
                "transportista": "Bench",
                "destino": "Lima",
            },
        )
        for _ in range(shipments)
    ]
    return {
        "secret": carrier.json()["secreto"],
        "shipments": made,
        "order": order,
        "product": product,
    }


def probes(http: StackClient, world: dict, count: int) -> tuple[list[float], Counter]:
    """`count` of the API's requests, one after another: their times and statuses."""
    paths = [
        f"/api/envios/{world['shipments'][0]['id']}",
        f"/api/pedidos/{world['order']['id']}",
        f"/api/inventario/{world['product']['id']}",
    ]
    times, statuses = [], Counter()
    for n in range(count):
        started = time.perf_counter()
        answer = http.gateway("GET", paths[n % len(paths)])
        times.append(time.perf_counter() - started)
        statuses[answer.status_code] += 1
    return times, statuses


def push(session: requests.Session, url: str, secret: str, body: dict, msg_id: str) -> list[int]:
    """One event, signed, retried after a 429 as a carrier would; every status answered."""
    raw = jsonio.dumps(body)
    answers = []
    while True:
        headers = {"Content-Type": "application/json", **signed(secret, raw, msg_id)}
        answer = session.post(url, data=raw.encode(), headers=headers, timeout=60)
        answers.append(answer.status_code)
        if answer.status_code not in (409, 429):
            return answers
        time.sleep(float(answer.headers.get("Retry-After", "1")))


def burst(stack: StackProcess, world: dict, events: int, carriers: int, round_no: int) -> tuple:
    """The carrier's events, from `carriers` connections at once; (statuses, seconds)."""
    shipments = world["shipments"]
    start = datetime(2026, 12, 1) + timedelta(days=round_no)
    url = f"{stack.gateway}/api/transportistas/BENCH/eventos"
    sessions = [requests.Session() for _ in range(carriers)]

    def send(n: int) -> list[int]:
        shipment = shipments[n % len(shipments)]
        step = n // len(shipments)
        body = {
            "codigoSeguimiento": shipment["codigoSeguimiento"],
            "estado": STATES[step % len(STATES)],
            "fecha": (start + timedelta(minutes=step)).isoformat() + "Z",
            "ubicacion": f"Hub {step}",
        }
        return push(sessions[n % carriers], url, world["secret"], body, f"r{round_no}-e{n}")

    started = time.perf_counter()
    with ThreadPoolExecutor(carriers) as pool:
        answered = [status for statuses in pool.map(send, range(events)) for status in statuses]
    return Counter(answered), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--shipments", type=int, default=100)
    parser.add_argument("--carriers", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--probes", type=int, default=150)
    args = parser.parse_args()
    stack = StackProcess(PATIENT_STOCK_CHECK).start()
    try:
        http = StackClient(stack, token())
        world = setup(http, args.shipments)
        probes(http, world, 30)  # every function warm
        base_all, burst_all, answers, api_statuses = [], [], Counter(), Counter()
        print(
            f"\n{args.events} events for {args.shipments} shipments from {args.carriers} "
            f"connections; {args.probes} API requests per phase, one client:\n"
        )
        print("| round | baseline p50 ms | during the burst p50 ms | ratio | burst s | events/s |")
        print("|---|---|---|---|---|---|")
        for round_no in range(args.rounds):
            base, statuses = probes(http, world, args.probes)
            api_statuses.update(statuses)
            with ThreadPoolExecutor(1) as carrier:
                pushed = carrier.submit(burst, stack, world, args.events, args.carriers, round_no)
                during, statuses = [], Counter()
                while not pushed.done():
                    taken, seen = probes(http, world, 3)
                    during += taken
                    statuses.update(seen)
                got, seconds = pushed.result()
            api_statuses.update(statuses)
            answers.update(got)
            ratio = statistics.median(during) / statistics.median(base)
            print(
                f"| {round_no + 1} | {statistics.median(base) * 1000:.1f} | "
                f"{statistics.median(during) * 1000:.1f} | {ratio:.2f} | {seconds:.1f} | "
                f"{args.events / seconds:.0f} |"
            )
            base_all += base
            burst_all += during
        overall = statistics.median(burst_all) / statistics.median(base_all)
        print(
            f"\nAll rounds: baseline p50 {statistics.median(base_all) * 1000:.1f} ms, during "
            f"bursts {statistics.median(burst_all) * 1000:.1f} ms: ratio {overall:.2f} "
            f"(target at most 1.5)"
        )
        print(
            f"The carrier's answers: {dict(sorted(answers.items()))}; the API's: "
            f"{dict(sorted(api_statuses.items()))}"
        )
        recorded = sum(
            len(http.gateway("GET", f"/api/envios/{s['id']}/eventos").json())
            for s in world["shipments"]
        )
        print(f"Events recorded: {recorded} of {args.events * args.rounds}")
        assert recorded == args.events * args.rounds, recorded
        assert not [s for s in (*answers, *api_statuses) if s >= 500], "a 5xx"
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
