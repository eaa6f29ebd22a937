"""The emulated user pool runs, on every access token, the code the template's pool runs
as its pre token generation trigger: `make run` names it (infra/dev/__main__.py), and the
emulation imports none of it (tests/unit/test_guardrails.py)."""

from infra import template
from infra.dev.__main__ import TOKEN_TRIGGER
from infra.local.user_pool import token_trigger
from token_claims import wiring
from token_claims.claims import with_user_id


def test_make_runs_trigger_is_the_code_of_the_template_pools_trigger_function():
    ((_, pool),) = template.resources("AWS::Cognito::UserPool").items()
    arn = pool["Properties"]["LambdaConfig"]["PreTokenGenerationConfig"]["LambdaArn"]
    function = template.resources("AWS::Serverless::Function")[arn["Fn::GetAtt"][0]]
    assert function["Properties"]["Handler"] == "token_claims.lambda_app.handler"
    assert arn["Fn::GetAtt"][0] == wiring.FUNCTION
    assert token_trigger(TOKEN_TRIGGER) is with_user_id


def test_the_trigger_adds_a_customers_user_id_to_the_access_token():
    event = {"request": {"userAttributes": {"custom:userId": "42"}}}
    details = token_trigger(TOKEN_TRIGGER)(event)["response"]["claimsAndScopeOverrideDetails"]
    assert details["accessTokenGeneration"]["claimsToAddOrOverride"] == {"userId": "42"}
