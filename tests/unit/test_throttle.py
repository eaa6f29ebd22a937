"""The local gateway's throttle: API Gateway's token bucket, with its template's limits."""

from infra import template
from infra.local.settings import THROTTLE_PARAMETERS, LocalSettings, Throttle
from infra.local.throttle import TokenBucket


class Clock:
    now = 100.0

    def __call__(self):
        return self.now


def test_a_burst_is_taken_then_requests_come_at_the_rate():
    clock = Clock()
    bucket = TokenBucket(rate=2, burst=5, clock=clock)
    assert [bucket.take() for _ in range(7)] == [True] * 5 + [False] * 2
    clock.now += 0.5  # one token back
    assert [bucket.take(), bucket.take()] == [True, False]
    clock.now += 100  # never more than the burst
    assert sum(bucket.take() for _ in range(10)) == 5


def test_the_local_limits_default_to_the_templates_and_can_be_set():
    parameters = template.load()["Parameters"]
    defaults = LocalSettings.from_env({})
    assert defaults.gateway_throttle == Throttle(
        float(parameters[THROTTLE_PARAMETERS["THROTTLE_RATE_LIMIT"]]["Default"]),
        int(parameters[THROTTLE_PARAMETERS["THROTTLE_BURST_LIMIT"]]["Default"]),
    )
    assert defaults.gateway_throttle.rate >= 1000  # never throttles normal use
    # Settings made in code (no environment) get the same throttles, never none.
    assert (LocalSettings().gateway_throttle, LocalSettings().notification_throttle) == (
        defaults.gateway_throttle,
        defaults.notification_throttle,
    )
    set_ = LocalSettings.from_env(
        {"NOTIFICATION_THROTTLE_RATE_LIMIT": "3", "NOTIFICATION_THROTTLE_BURST_LIMIT": "4"}
    )
    assert set_.notification_throttle == Throttle(3.0, 4)


def test_the_template_throttles_both_stages_with_those_parameters():
    apis = template.resources("AWS::Serverless::Api")
    for api, prefix in (("GatewayApi", "Gateway"), ("NotificationApi", "Notification")):
        (method, *own) = apis[api]["Properties"]["MethodSettings"]
        assert method["ResourcePath"] == "/*"
        assert method["ThrottlingRateLimit"] == {"Ref": f"{prefix}ThrottleRateLimit"}
        assert method["ThrottlingBurstLimit"] == {"Ref": f"{prefix}ThrottleBurstLimit"}
    function = template.resources("AWS::Serverless::Function")["NotificationFunction"]
    assert function["Properties"]["ReservedConcurrentExecutions"] == {
        "Ref": "NotificationReservedConcurrency"
    }
    assert template.identity_validation() is not None


def test_the_sign_in_routes_have_limits_of_their_own_which_the_local_gateway_reads():
    assert template.method_throttles("GatewayApi") == {
        ("/api/auth/login", "POST"): (100.0, 200),
        ("/api/auth/register", "POST"): (100.0, 200),
        # the carriers' intake, under the tracking function's own concurrency
        ("/api/transportistas/{codigo}/eventos", "POST"): (100.0, 200),
    }
    assert template.method_throttles("NotificationApi") == {}
