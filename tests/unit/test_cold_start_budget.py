"""The cold-start bench's budget line and its fastest-rounds reading (bench/cold_start.py):
what `make bench-cold-start` tells the team, from the rounds it measured."""

from bench.cold_start import fastest, verdict


def run(init: float, floor: float = 0.160, baseline: float = 0.128, first=1.2, second=1.0):
    return {"import": init, "floor": floor, "baseline": baseline, "first": first, "second": second}


def test_an_api_function_passes_within_three_tenths_above_the_floor_and_half_above_its_second():
    assert verdict("OrdersFunction", [run(0.206)]) == (
        "OrdersFunction pass (1.29x floor, first/second 1.20)"
    )
    assert verdict("OrdersFunction", [run(0.210)]).startswith("OrdersFunction short (1.31x")
    assert verdict("UsersFunction", [run(0.210)]).startswith("UsersFunction short (1.31x floor")
    assert verdict("OrdersFunction", [run(0.180, first=1.6)]).startswith("OrdersFunction short")


def test_any_other_function_is_held_to_the_baseline_and_not_to_its_first_request():
    assert verdict("EventSweeperFunction", [run(0.166, first=9.0)]) == (
        "EventSweeperFunction pass (1.30x baseline)"
    )
    assert verdict("EventSweeperFunction", [run(0.168)]).startswith("EventSweeperFunction short")


def test_the_verdict_is_the_median_round_not_the_luckiest_or_the_worst():
    rounds = [run(0.190), run(0.210), run(0.260)]  # 1.19x, 1.31x, 1.63x of the floor
    assert verdict("InventoryFunction", rounds).startswith("InventoryFunction short (1.31x")


def test_the_fastest_reading_pairs_the_fastest_init_with_the_fastest_reference():
    # A round slowed down for the floor but not for the function reads low as a ratio;
    # the fastest of each does not depend on which round was slowed.
    rounds = [run(0.200, floor=0.190), run(0.230, floor=0.160), run(0.210, floor=0.175)]
    assert fastest("ShippingFunction", rounds) == "ShippingFunction 1.25x floor"
    assert fastest("OrderEventsFunction", [run(0.150), run(0.140, baseline=0.140)]) == (
        "OrderEventsFunction 1.09x baseline"
    )
