"""The console's release (docs/console.md): console/ in a private bucket behind
CloudFront, put there at deploy time by ConsoleFiles, signed in through the user pool's
hosted page; and no dependency cycle through the gateway's authorizer."""

import json
import shutil
import sys
import types
from pathlib import Path

import boto3
import pytest
import yaml
from moto import mock_aws

from infra import template
from infra.dev import console
from tests.release.test_release import ROOT, TEMPLATE, run, sam_tool


def resource(name: str) -> dict:
    return template.load()["Resources"][name]


# -- the template -----------------------------------------------------------------------


def test_the_files_are_served_by_cloudfront_from_a_bucket_nobody_else_reads():
    bucket = resource("ConsoleBucket")["Properties"]
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    allow, deny = resource("ConsoleBucketPolicy")["Properties"]["PolicyDocument"]["Statement"]
    assert allow["Principal"] == {"Service": "cloudfront.amazonaws.com"}
    assert allow["Action"] == "s3:GetObject"
    assert (
        "distribution/${ConsoleDistribution}"
        in allow["Condition"]["StringEquals"]["AWS:SourceArn"]["Fn::Sub"]
    )
    assert deny["Effect"] == "Deny" and deny["Condition"] == {
        "Bool": {"aws:SecureTransport": "false"}
    }
    config = resource("ConsoleDistribution")["Properties"]["DistributionConfig"]
    assert config["DefaultRootObject"] == "console"  # the page, as /console locally
    behaviour = config["DefaultCacheBehavior"]
    assert behaviour["ViewerProtocolPolicy"] == "redirect-to-https"
    assert behaviour["AllowedMethods"] == ["GET", "HEAD"]
    assert behaviour["ResponseHeadersPolicyId"] == {"Ref": "ConsoleHeadersPolicy"}
    for name in ("ConsoleBucket", "ConsoleDistribution", "ConsoleFiles", "ConsoleFilesLayer"):
        assert resource(name)["Condition"] == "ServesConsole"
    assert resource("ConsoleFilesLayer")["Properties"]["ContentUri"] == "../console"


def test_the_deployed_page_has_the_local_pages_policy_but_for_the_apis_address():
    headers = resource("ConsoleHeadersPolicy")["Properties"]["ResponseHeadersPolicyConfig"]
    policy_text = headers["SecurityHeadersConfig"]["ContentSecurityPolicy"][
        "ContentSecurityPolicy"
    ]["Fn::Sub"][0]
    deployed = dict(part.strip().split(" ", 1) for part in policy_text.split(";"))
    local = dict(part.strip().split(" ", 1) for part in console.POLICY.split(";"))
    assert deployed.pop("connect-src").split() == [
        "'self'",
        "https://*.execute-api.${AWS::Region}.${AWS::URLSuffix}",
        "https://logistics-${Id}.auth.${AWS::Region}.amazoncognito.com",
    ]
    assert local.pop("connect-src") == "'self'"
    assert deployed == local
    assert headers["SecurityHeadersConfig"]["FrameOptions"]["FrameOption"] == "DENY"


def test_the_hosted_sign_in_is_the_code_flow_of_a_public_client_back_to_the_console():
    client = resource("UserPoolClient")["Properties"]
    assert client["GenerateSecret"] is False  # a page keeps no secret: PKCE instead
    assert client["AllowedOAuthFlows"] == {
        "Fn::If": ["ServesConsole", ["code"], {"Ref": "AWS::NoValue"}]
    }
    for urls in ("CallbackURLs", "LogoutURLs"):
        assert client[urls]["Fn::If"][1] == [
            {"Fn::Sub": "https://${ConsoleDistribution.DomainName}/console"}
        ]
    assert resource("ConsoleUserPoolDomain")["Condition"] == "ConsoleSignsInWithPool"
    assert template.load()["Conditions"]["ConsoleSignsInWithPool"] == {
        "Fn::And": [{"Condition": "ServesConsole"}, {"Condition": "CreatesUserPool"}]
    }
    cognito = resource("ConsoleFiles")["Properties"]["Cognito"]["Fn::If"]
    assert cognito[0] == "ConsoleSignsInWithPool"
    assert set(cognito[1]) == {"domain", "clientId", "scopes"}  # what the page reads
    prefix = resource("ConsoleUserPoolDomain")["Properties"]["Domain"]["Fn::Sub"][0]
    assert f"https://{prefix}.auth." in cognito[1]["domain"]["Fn::Sub"][0]


def test_the_gateway_allows_the_consoles_origin_when_told_to():
    cors = resource("GatewayApi")["Properties"]["Cors"]["AllowOrigin"]
    assert cors == {
        "Fn::If": [
            "CorsForConsole",
            {"Fn::Sub": "'https://${ConsoleDistribution.DomainName}'"},
            {"Fn::Sub": "'${CorsAllowOrigin}'"},
        ]
    }
    for function in ("InventoryFunction", "OrdersFunction", "ShippingFunction"):
        env = resource(function)["Properties"]["Environment"]["Variables"]
        assert env["CORS_ALLOW_ORIGIN"]["Fn::If"][0] == "CorsForConsole", function


# -- no cycle --------------------------------------------------------------------------


def _references(value) -> set[str]:
    """The logical ids a piece of CloudFormation refers to (Ref, GetAtt, Sub)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "Ref" and isinstance(inner, str):
                found.add(inner)
            elif key == "Fn::GetAtt":
                found.add(inner[0] if isinstance(inner, list) else inner.split(".")[0])
            elif key == "Fn::Sub":
                text = inner if isinstance(inner, str) else inner[0]
                found |= {name.split(".")[0] for name in _sub_names(text)}
                found |= _references(inner[1:] if isinstance(inner, list) else [])
            else:
                found |= _references(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= _references(inner)
    return found


def _sub_names(text: str) -> list[str]:
    import re

    return re.findall(r"\$\{([^!}][^}]*)\}", text)


def cycle(resources: dict) -> list[str] | None:
    """A dependency cycle among CloudFormation resources, or None."""
    graph = {
        name: (
            _references(res.get("Properties", {}))
            | set(
                res.get("DependsOn", [])
                if isinstance(res.get("DependsOn"), list)
                else [res["DependsOn"]]
                if res.get("DependsOn")
                else []
            )
        )
        & set(resources)
        for name, res in resources.items()
    }
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name):
        state[name] = 1
        path.append(name)
        for after in sorted(graph[name]):
            if state.get(after) == 1:
                return path[path.index(after) :] + [after]
            if after not in state and (found := visit(after)):
                return found
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (found := visit(name)):
            return found
    return None


@pytest.fixture(scope="module")
def translated(tmp_path_factory) -> dict:
    """The template as CloudFormation runs it (SAM's transform done)."""
    target = tmp_path_factory.mktemp("translated") / "cloudformation.yaml"
    run(sam_tool("python"), str(ROOT / "infra" / "translate.py"), str(TEMPLATE), str(target))
    return yaml.safe_load(target.read_text(encoding="utf-8"))


def test_the_console_makes_no_dependency_cycle(translated):
    resources = translated["Resources"]
    assert cycle(resources) is None
    # What it avoids: a callback on the gateway's address, which the authorizer (whose
    # audience is this client) sits behind.
    on_gateway = json.loads(json.dumps(resources))
    on_gateway["UserPoolClient"]["Properties"]["CallbackURLs"] = [
        {"Fn::Sub": "https://${GatewayApi}.execute-api.${AWS::Region}.amazonaws.com/console"}
    ]
    found = cycle(on_gateway)
    # (through the authorizer, or the sign-in function, whose pool client it is too)
    assert found and {"GatewayApi", "UserPoolClient"} <= set(found)
    assert {"AuthorizerFunction", "AuthFunction"} & set(found)


# -- the deployer, run against emulated S3 --------------------------------------------------


class _Responses:
    """cfnresponse, as Lambda provides it to inline code: what was answered to CloudFormation."""

    SUCCESS, FAILED = "SUCCESS", "FAILED"

    def __init__(self):
        self.sent = []

    def send(self, event, context, status, data, physicalResourceId=None, reason=None):
        self.sent.append({"status": status, "id": physicalResourceId, "reason": reason})


@pytest.fixture
def deployer(tmp_path, monkeypatch):
    """The ConsoleDeployerFunction's inline code, with a copy of console/ as its layer."""
    files = tmp_path / "opt"
    shutil.copytree(ROOT / "console", files)
    monkeypatch.setenv("CONSOLE_FILES", str(files))
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)
    responses = _Responses()
    monkeypatch.setitem(sys.modules, "cfnresponse", responses)
    code = resource("ConsoleDeployerFunction")["Properties"]["Code"]["ZipFile"]
    assert len(code) <= 4096  # CloudFormation's limit for inline code
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket="console-bucket")
        module = types.ModuleType("index")
        exec(compile(code, "index.py", "exec"), module.__dict__)  # noqa: S102
        yield types.SimpleNamespace(handler=module.handler, s3=s3, files=files, responses=responses)


def _event(kind: str, cognito: dict | None = None, bucket: str = "console-bucket") -> dict:
    props = {
        "ServiceToken": "arn",
        "Bucket": bucket,
        "Files": "arn:layer:1",
        "ApiBaseUrl": "https://abc.execute-api.us-east-1.amazonaws.com/api",
    }
    if cognito:
        props["Cognito"] = cognito
    return {
        "RequestType": kind,
        "ResourceProperties": props,
        "ResponseURL": "https://x",
        "StackId": "s",
        "RequestId": "r",
        "LogicalResourceId": "ConsoleFiles",
    }


def _objects(s3) -> dict[str, dict]:
    keys = [item["Key"] for item in s3.list_objects_v2(Bucket="console-bucket").get("Contents", [])]
    return {key: s3.get_object(Bucket="console-bucket", Key=key) for key in keys}


COGNITO = {
    "domain": "https://logistics-1.auth.us-east-1.amazoncognito.com",
    "clientId": "client-1",
    "scopes": "openid email",
}


def test_the_deployer_publishes_the_files_the_local_gateway_serves(deployer):
    deployer.handler(_event("Create", COGNITO), None)
    assert deployer.responses.sent == [
        {"status": "SUCCESS", "id": "console-files-console-bucket", "reason": None}
    ]
    stored = _objects(deployer.s3)
    local = {path: page for path, page in console.pages().items() if path != "/console/"}
    assert {f"/{key}" for key in stored} == set(local)
    for key, answer in stored.items():
        page = local[f"/{key}"]
        assert answer["ContentType"] == page.content_type, key
        assert answer["CacheControl"] == "no-cache", key
        if key != "console/config.json":
            assert answer["Body"].read() == page.body, key
    config = json.loads(stored["console/config.json"]["Body"].read())
    assert config == {
        "apiBaseUrl": "https://abc.execute-api.us-east-1.amazonaws.com/api",
        "cognito": COGNITO,
    }


def test_an_update_removes_what_console_no_longer_has_and_a_delete_empties_the_bucket(deployer):
    deployer.handler(_event("Create"), None)
    (deployer.files / "favicon.svg").unlink()
    deployer.handler(_event("Update"), None)
    stored = _objects(deployer.s3)
    assert "console/favicon.svg" not in stored and "console/js/main.js" in stored
    assert json.loads(stored["console/config.json"]["Body"].read())["cognito"] is None
    deployer.handler(_event("Delete"), None)
    assert _objects(deployer.s3) == {}
    assert [sent["status"] for sent in deployer.responses.sent] == ["SUCCESS"] * 3


def test_a_deployer_that_fails_tells_cloudformation_why(deployer):
    deployer.handler(_event("Create", bucket="no-such-bucket"), None)
    (sent,) = deployer.responses.sent
    assert sent["status"] == "FAILED" and "NoSuchBucket" in sent["reason"]


def test_console_holds_only_files_a_browser_is_served():
    """console/ is deployed whole (the layer): nothing in it that is not for the page."""
    every = {
        path.relative_to(ROOT / "console").as_posix()
        for path in (ROOT / "console").rglob("*")
        if path.is_file()
    }
    assert every == set(console.files())
    assert Path(ROOT / "console" / "index.html").exists()
