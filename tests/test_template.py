"""template.yaml: the function, the table, least privilege, CORS and the conditional JWT authorizer.

Conditions are evaluated here for given parameters (a tiny resolver for !If, !Equals, !Not and
parameter !Ref), so a test states what a deployment with or without an issuer actually gets.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.aws import ROOT, template

NO_VALUE = object()
TEMPLATE = template()
RESOURCES: dict[str, Any] = TEMPLATE["Resources"]
FUNCTION = RESOURCES["AgentFunction"]["Properties"]
TABLE = RESOURCES["SessionsTable"]

EXPECTED_TABLE_ACTIONS = [
    "dynamodb:BatchGetItem",
    "dynamodb:BatchWriteItem",
    "dynamodb:DeleteItem",
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:Query",
    "dynamodb:UpdateItem",
]


def parameters(**overrides: str) -> dict[str, str]:
    """The parameters' defaults, with overrides."""
    values = {name: str(p.get("Default", "")) for name, p in TEMPLATE["Parameters"].items()}
    values.update(overrides)
    return values


def resolve(node: Any, params: dict[str, str]) -> Any:
    """Evaluate conditions and parameter references; other intrinsics stay as they are."""
    return _resolve(node, params, {})


def _resolve(node: Any, params: dict[str, str], conditions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        items = [_resolve(n, params, conditions) for n in node]
        return [i for i in items if i is not NO_VALUE]
    if not isinstance(node, dict):
        return node
    if len(node) == 1:
        ((key, value),) = node.items()
        if key == "Ref":
            return NO_VALUE if value == "AWS::NoValue" else params.get(value, node)
        if key == "If":
            name, yes, no = value
            chosen = yes if _truth(name, params, conditions) else no
            return _resolve(chosen, params, conditions)
        if key == "Equals":
            left, right = (_resolve(v, params, conditions) for v in value)
            return left == right
        if key == "Not":
            return not _resolve(value[0], params, conditions)
        if key == "Condition":
            return _truth(value, params, conditions)
    items = {k: _resolve(v, params, conditions) for k, v in node.items()}
    return {k: v for k, v in items.items() if v is not NO_VALUE}


def _truth(name: str, params: dict[str, str], conditions: dict[str, Any]) -> bool:
    if name not in conditions:
        conditions[name] = _resolve(TEMPLATE["Conditions"][name], params, conditions)
    return bool(conditions[name])


def deployed(params: dict[str, str]) -> dict[str, Any]:
    """The resources a deployment with these parameters creates, conditions applied."""
    kept = {}
    for name, resource in RESOURCES.items():
        condition = resource.get("Condition")
        if condition is None or resolve({"Condition": condition}, params):
            kept[name] = resolve(resource, params)
    return kept


WITH_ISSUER = parameters(JwtIssuer="https://cognito-idp.us-east-1.amazonaws.com/us-east-1_Example", JwtAudience="abc")


# -- the function ----------------------------------------------------------------------------------


def test_the_function_runs_python_3_13_on_arm64_from_the_lambda_entry() -> None:
    assert FUNCTION["Runtime"] == "python3.13"
    assert FUNCTION["Architectures"] == ["arm64"]
    assert FUNCTION["Handler"] == "handlers.api.handler"
    assert FUNCTION["MemorySize"] == 1024


def test_the_function_stops_before_api_gateway_gives_up() -> None:
    integration = RESOURCES["AgentIntegration"]["Properties"]
    assert integration["TimeoutInMillis"] <= 30_000, "HTTP APIs allow at most 30 s"
    assert FUNCTION["Timeout"] * 1000 < integration["TimeoutInMillis"]
    assert FUNCTION["Timeout"] > 20, "room for a model request (agent_core min_model_seconds is 20)"


def test_snapstart_on_published_versions_and_the_api_invokes_the_alias() -> None:
    assert FUNCTION["SnapStart"] == {"ApplyOn": "PublishedVersions"}
    assert FUNCTION["AutoPublishAlias"] == "live"
    alias = {"Ref": "AgentFunction.Alias"}
    assert RESOURCES["AgentIntegration"]["Properties"]["IntegrationUri"] == alias
    assert RESOURCES["AgentIntegration"]["Properties"]["PayloadFormatVersion"] == "2.0"
    assert RESOURCES["AgentApiInvokePermission"]["Properties"]["FunctionName"] == alias
    # SnapStart refuses ephemeral storage above 512 MB and provisioned concurrency.
    assert FUNCTION.get("EphemeralStorage", {"Size": 512})["Size"] <= 512
    assert "ProvisionedConcurrencyConfig" not in FUNCTION


def test_the_function_environment() -> None:
    env = resolve(FUNCTION["Environment"]["Variables"], parameters())
    assert env == {
        "STORAGE_BACKEND": "dynamodb",
        "SESSIONS_TABLE": {"Ref": "SessionsTable"},
        "AGENT_MODEL": "pseudo",
        "AGENT_MODELS": "",
        "REQUIRE_AUTH": "false",
        "POWERTOOLS_SERVICE_NAME": "translation-agent",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "POWERTOOLS_METRICS_NAMESPACE": "TranslationAgent",
        "POWERTOOLS_LOGGER_LOG_EVENT": "false",
        "POWERTOOLS_TRACE_DISABLED": "true",
    }, "no API key variable unless a key is given"
    keyed = resolve(FUNCTION["Environment"]["Variables"], parameters(OpenAIApiKey="sk-x", AnthropicApiKey="a-x"))
    assert keyed["OPENAI_API_KEY"] == "sk-x" and keyed["ANTHROPIC_API_KEY"] == "a-x"
    for name in ("OpenAIApiKey", "AnthropicApiKey"):
        assert TEMPLATE["Parameters"][name]["NoEcho"] is True


def test_tracing_is_off_by_default_and_on_with_the_parameter() -> None:
    """`Tracing: Disabled` makes SAM add no tracing config and no X-Ray policy; Active turns on both and the Tracer."""
    assert TEMPLATE["Parameters"]["Tracing"]["Default"] == "Disabled"
    assert set(TEMPLATE["Parameters"]["Tracing"]["AllowedValues"]) == {"Active", "Disabled"}
    assert FUNCTION["Tracing"] == {"Ref": "Tracing"}
    on = resolve(FUNCTION["Environment"]["Variables"], parameters(Tracing="Active"))
    assert on["POWERTOOLS_TRACE_DISABLED"] == "false"


SIGN_IN = {
    "OidcClientId": "1example23456789abcdefghij",
    "OidcAuthorizeUrl": "https://login.auth.eu-west-1.amazoncognito.com/oauth2/authorize",
    "OidcTokenUrl": "https://login.auth.eu-west-1.amazoncognito.com/oauth2/token",
}


def test_the_ui_sign_in_reaches_the_function_only_when_configured() -> None:
    default = resolve(FUNCTION["Environment"]["Variables"], parameters())
    assert not [name for name in default if name.startswith("OIDC_")]
    env = resolve(FUNCTION["Environment"]["Variables"], {**WITH_ISSUER, **SIGN_IN})
    assert {k: v for k, v in env.items() if k.startswith("OIDC_")} == {
        "OIDC_CLIENT_ID": SIGN_IN["OidcClientId"],
        "OIDC_AUTHORIZE_URL": SIGN_IN["OidcAuthorizeUrl"],
        "OIDC_TOKEN_URL": SIGN_IN["OidcTokenUrl"],
        "OIDC_SCOPES": "openid",
    }, "the scopes' default; no logout URL unless given"
    logout = "https://login.auth.eu-west-1.amazoncognito.com/logout"
    env = resolve(
        FUNCTION["Environment"]["Variables"],
        {**WITH_ISSUER, **SIGN_IN, "OidcScopes": "openid email", "OidcLogoutUrl": logout},
    )
    assert env["OIDC_SCOPES"] == "openid email" and env["OIDC_LOGOUT_URL"] == logout


def test_the_sign_in_parameters_take_https_urls_only() -> None:
    for name in ("OidcAuthorizeUrl", "OidcTokenUrl", "OidcLogoutUrl"):
        param = TEMPLATE["Parameters"][name]
        assert param["Default"] == ""
        pattern = re.compile(param["AllowedPattern"])
        assert pattern.fullmatch("") and pattern.fullmatch("https://x.auth.us-east-1.amazoncognito.com/oauth2/token")
        for bad in ("http://x.example.com/token", "x.example.com", "https://a b"):
            assert not pattern.fullmatch(bad), (name, bad)
    assert TEMPLATE["Parameters"]["OidcScopes"]["Default"] == "openid"
    assert not re.compile(TEMPLATE["Parameters"]["OidcClientId"]["AllowedPattern"]).fullmatch("a b")


def test_the_sign_in_is_all_or_nothing_and_needs_an_issuer() -> None:
    rule = TEMPLATE["Rules"]["SignInWithIssuer"]
    names = ("OidcClientId", "OidcAuthorizeUrl", "OidcTokenUrl", "OidcLogoutUrl")
    assert rule["RuleCondition"] == {"Or": [{"Not": [{"Equals": [{"Ref": n}, ""]}]} for n in names]}
    together, issuer = (a["Assert"] for a in rule["Assertions"])
    assert together == {"And": [{"Not": [{"Equals": [{"Ref": n}, ""]}]} for n in names[:3]]}
    assert issuer == {"Not": [{"Equals": [{"Ref": "JwtIssuer"}, ""]}]}


def test_function_logs_expire() -> None:
    assert FUNCTION["LoggingConfig"]["LogGroup"] == {"Ref": "AgentFunctionLogs"}
    assert RESOURCES["AgentFunctionLogs"]["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}


# -- the table -------------------------------------------------------------------------------------


def test_the_table_is_retained_encrypted_recoverable_and_expires_items() -> None:
    props = TABLE["Properties"]
    assert TABLE["DeletionPolicy"] == "Retain" and TABLE["UpdateReplacePolicy"] == "Retain"
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["SSESpecification"] == {"SSEEnabled": True}
    assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
    assert props["TimeToLiveSpecification"] == {"AttributeName": "expiresAt", "Enabled": True}


# -- least privilege -------------------------------------------------------------------------------


def statements(params: dict[str, str]) -> list[dict[str, Any]]:
    """The function's inline policy statements for these parameters."""
    policies = resolve(FUNCTION["Policies"], params)
    assert len(policies) == 1, "one inline policy; no SAM policy templates or managed policies"
    result: list[dict[str, Any]] = policies[0]["Statement"]
    return result


def test_table_actions_are_exactly_the_ones_the_code_uses_on_the_table_and_its_index() -> None:
    table = next(s for s in statements(parameters()) if s["Sid"] == "SessionsTable")
    assert table["Effect"] == "Allow"
    assert sorted(table["Action"]) == EXPECTED_TABLE_ACTIONS
    indexes = [i["IndexName"] for i in TABLE["Properties"]["GlobalSecondaryIndexes"]]
    assert table["Resource"] == [
        {"GetAtt": "SessionsTable.Arn"},
        *[{"Sub": f"${{SessionsTable.Arn}}/index/{name}"} for name in indexes],
    ]


def test_the_table_actions_match_the_dynamodb_calls_in_storage() -> None:
    sources = [p for p in sorted((ROOT / "storage").glob("*.py")) if "dynamodb" in p.read_text(encoding="utf-8")]
    assert ROOT / "storage" / "dynamodb.py" in sources
    used = sorted({action for source in sources for action in dynamodb_actions_used(source)})
    assert used == EXPECTED_TABLE_ACTIONS


def dynamodb_actions_used(source_file: Path) -> list[str]:
    """The IAM actions behind every boto3 DynamoDB call in the file (transaction items included)."""
    source = source_file.read_text(encoding="utf-8")
    per_call = {
        "get_item": ["GetItem"],
        "put_item": ["PutItem"],
        "update_item": ["UpdateItem"],
        "delete_item": ["DeleteItem"],
        "query": ["Query"],
        "scan": ["Scan"],
        "batch_get_item": ["BatchGetItem"],
        "batch_write_item": ["BatchWriteItem"],
        "transact_get_items": ["GetItem"],
    }
    per_transact_item = {
        "Put": "PutItem",
        "Update": "UpdateItem",
        "Delete": "DeleteItem",
        "ConditionCheck": "ConditionCheckItem",
    }
    actions: set[str] = set()
    for method in re.findall(r"\bclient\.(\w+)\(", source):
        if method == "transact_write_items":
            actions.update(
                per_transact_item[k] for k in re.findall(r'"(Put|Update|Delete|ConditionCheck)"\s*:', source)
            )
        else:
            assert method in per_call, (
                f"storage/dynamodb.py calls {method}: map it to its IAM action here and in the template"
            )
            actions.update(per_call[method])
    return sorted(f"dynamodb:{a}" for a in actions)


def test_bedrock_is_granted_only_with_a_bedrock_model_id() -> None:
    assert [s["Sid"] for s in statements(parameters())] == ["SessionsTable"]
    granted = statements(parameters(BedrockModelId="us.anthropic.claude-sonnet-4-5-20250929-v1:0"))
    bedrock = next(s for s in granted if s["Sid"] == "BedrockInvoke")
    assert sorted(bedrock["Action"]) == ["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"]


def test_no_statement_grants_a_wildcard_action() -> None:
    for statement in statements(parameters(BedrockModelId="x")):
        assert all("*" not in action for action in statement["Action"])


# -- the API: CORS and the JWT authorizer ----------------------------------------------------------


def test_no_cors_configuration_by_default_and_never_a_wildcard_origin() -> None:
    origins = TEMPLATE["Parameters"]["CorsAllowedOrigins"]
    assert origins["Default"] == ""
    assert "CorsConfiguration" not in deployed(parameters())["AgentApi"]["Properties"]
    pattern = re.compile(origins["AllowedPattern"])
    assert pattern.fullmatch("https://app.example.com,http://localhost:8000")
    for bad in ("*", "https://*.example.com", "https://a.example.com,*", "https://a.com, https://b.com"):
        assert not pattern.fullmatch(bad), bad
    cors = deployed(parameters(CorsAllowedOrigins="https://app.example.com"))["AgentApi"]["Properties"]
    config = cors["CorsConfiguration"]
    assert config["AllowOrigins"] == {"Split": [",", "https://app.example.com"]}
    assert config["AllowCredentials"] is False


def test_without_an_issuer_there_is_no_authorizer_and_require_auth_follows_its_parameter() -> None:
    stack = deployed(parameters())
    assert "JwtAuthorizer" not in stack
    assert stack["ApiRoute"]["Properties"]["AuthorizationType"] == "NONE"
    assert "AuthorizerId" not in stack["ApiRoute"]["Properties"]
    locked = deployed(parameters(RequireAuth="true"))["AgentFunction"]["Properties"]
    assert locked["Environment"]["Variables"]["REQUIRE_AUTH"] == "true"


def test_with_an_issuer_every_api_route_needs_the_jwt_and_the_function_requires_auth() -> None:
    stack = deployed(WITH_ISSUER)
    authorizer = stack["JwtAuthorizer"]["Properties"]
    assert authorizer["AuthorizerType"] == "JWT"
    assert authorizer["JwtConfiguration"]["Issuer"] == WITH_ISSUER["JwtIssuer"]
    assert authorizer["IdentitySource"] == ["$request.header.Authorization"]
    env = stack["AgentFunction"]["Properties"]["Environment"]["Variables"]
    assert env["REQUIRE_AUTH"] == "true"
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in stack.values() if r["Type"].endswith("::Route")}
    for key, route in routes.items():
        method, path = key.split(" ", 1)
        if path.startswith("/api"):
            assert route["AuthorizationType"] == "JWT" and route["AuthorizerId"] == {"Ref": "JwtAuthorizer"}, key
        else:
            # The static UI: a browser loading a page sends no token; it reads nothing but files.
            assert method == "GET" and route["AuthorizationType"] == "NONE", key
    assert "ANY /api/{proxy+}" in routes


def test_an_issuer_needs_an_audience() -> None:
    rule = TEMPLATE["Rules"]["AudienceWithIssuer"]
    assert rule["RuleCondition"] == {"Not": [{"Equals": [{"Ref": "JwtIssuer"}, ""]}]}
    assert rule["Assertions"][0]["Assert"] == {"Not": [{"Equals": [{"Ref": "JwtAudience"}, ""]}]}


# -- linting ---------------------------------------------------------------------------------------


def cfn_lint() -> list[str]:
    """cfn-lint from this interpreter's environment."""
    script = Path(sys.executable).with_name("cfn-lint")
    return [str(script)] if script.exists() else [sys.executable, "-m", "cfnlint"]


@pytest.mark.slow
def test_cfn_lint_finds_nothing() -> None:
    pytest.importorskip("cfnlint")
    result = subprocess.run(
        [*cfn_lint(), str(ROOT / "template.yaml")], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_lambda_package_ships_every_package_the_app_imports() -> None:
    """`sam build` (the Makefile) copies the project's packages: every one the app can import is there."""
    makefile = (ROOT / "Makefile").read_text()
    copied = set(re.search(r"cp -R ([\w ]+) \"\$\(ARTIFACTS_DIR\)/\"", makefile).group(1).split())  # type: ignore[union-attr]
    probe = (
        "import sys, handlers.api, service.container, service.exports, service.interchange, service.workbench;"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    ours = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists() and p.name not in ("tests", "bench")}
    needed = set(loaded.stdout.split()) & ours
    assert needed <= copied, f"the package lacks {needed - copied}"
    assert "terminal" not in needed, "the Lambda app does not need the terminal client"


# -- the web UI: its bundle in S3, CloudFront in front of it and of the API ---------------------------

DISTRIBUTION = RESOURCES["WebDistribution"]["Properties"]["DistributionConfig"]
CACHING_DISABLED = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad"
ALL_VIEWER_EXCEPT_HOST = "b689b0a8-53d0-40ab-baf2-68738e2966ac"


def test_the_ui_bucket_is_private_and_read_by_the_distribution_alone() -> None:
    bucket = RESOURCES["WebBucket"]["Properties"]
    assert all(bucket["PublicAccessBlockConfiguration"].values()) and len(bucket["PublicAccessBlockConfiguration"]) == 4
    allow, deny = RESOURCES["WebBucketPolicy"]["Properties"]["PolicyDocument"]["Statement"]
    assert allow["Principal"] == {"Service": "cloudfront.amazonaws.com"} and allow["Action"] == "s3:GetObject"
    assert "${WebDistribution}" in allow["Condition"]["StringEquals"]["AWS:SourceArn"]["Sub"]
    assert deny["Effect"] == "Deny" and deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    oac = RESOURCES["WebOriginAccessControl"]["Properties"]["OriginAccessControlConfig"]
    assert (oac["OriginAccessControlOriginType"], oac["SigningBehavior"], oac["SigningProtocol"]) == (
        "s3",
        "always",
        "sigv4",
    )
    ui = next(o for o in DISTRIBUTION["Origins"] if o["Id"] == "ui")
    assert ui["OriginAccessControlId"] == {"GetAtt": "WebOriginAccessControl.Id"}
    assert ui["S3OriginConfig"] == {"OriginAccessIdentity": ""}, "OAC, not the legacy origin access identity"


def test_the_ui_is_compressed_and_cached_by_its_objects_headers_over_https() -> None:
    default = DISTRIBUTION["DefaultCacheBehavior"]
    assert default["TargetOriginId"] == "ui" and default["Compress"] is True
    assert default["ViewerProtocolPolicy"] == "redirect-to-https"
    assert default["CachePolicyId"] == "658327ea-f89d-4fab-a63d-7e88639e58f6", "Managed-CachingOptimized"
    assert DISTRIBUTION["DefaultRootObject"] == "index.html"
    makefile = (ROOT / "Makefile").read_text()
    assert "--cache-control 'public, max-age=31536000, immutable'" in makefile
    assert "--cache-control 'no-cache'" in makefile
    assert makefile.index('s3://$$bucket/assets"') < makefile.index('s3://$$bucket/index.html"'), "assets first"


def test_the_api_is_on_the_uis_origin_uncached_with_the_viewers_authorization() -> None:
    """The UI calls `api/…` and `auth.json` relative to its page: CloudFront sends both to the HTTP API."""
    api = next(o for o in DISTRIBUTION["Origins"] if o["Id"] == "api")
    assert api["DomainName"] == {"Sub": "${AgentApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}"}
    assert api["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    integration = RESOURCES["AgentIntegration"]["Properties"]["TimeoutInMillis"]
    assert api["CustomOriginConfig"]["OriginReadTimeout"] * 1000 > integration
    behaviors = {b["PathPattern"]: b for b in DISTRIBUTION["CacheBehaviors"]}
    assert set(behaviors) == {"/api/*", "/auth.json"}
    for behavior in behaviors.values():
        assert behavior["TargetOriginId"] == "api"
        # Caching disabled: the only way CloudFront forwards Authorization through an origin request policy.
        assert behavior["CachePolicyId"] == CACHING_DISABLED
        assert behavior["OriginRequestPolicyId"] == ALL_VIEWER_EXCEPT_HOST, "API Gateway needs its own Host"
    assert {"POST", "DELETE"} <= set(behaviors["/api/*"]["AllowedMethods"])


def test_the_function_serves_the_api_and_the_sign_in_settings_not_the_ui_files() -> None:
    routes = {r["Properties"]["RouteKey"] for r in RESOURCES.values() if r["Type"] == "AWS::ApiGatewayV2::Route"}
    assert routes == {"ANY /api/{proxy+}", "GET /auth.json"}
    copied = re.search(r"cp -R ([\w ]+) \"\$\(ARTIFACTS_DIR\)/\"", (ROOT / "Makefile").read_text())
    assert copied and "web" not in copied.group(1).split()
    outputs = TEMPLATE["Outputs"]
    assert outputs["SiteUrl"]["Value"] == {"Sub": "https://${WebDistribution.DomainName}/"}
    assert {"WebBucketName", "WebDistributionId", "ApiUrl"} <= set(outputs)


def cloudfront_csp(params: dict[str, str]) -> str:
    """The UI's Content-Security-Policy as CloudFront sends it for these parameters."""
    config = RESOURCES["WebHeadersPolicy"]["Properties"]["ResponseHeadersPolicyConfig"]
    value = resolve(config["SecurityHeadersConfig"]["ContentSecurityPolicy"]["ContentSecurityPolicy"], params)
    if isinstance(value, str):
        return value
    text, names = value["Sub"]
    index, (separator, url) = names["TokenHost"]["Select"][0], names["TokenHost"]["Select"][1]["Split"]
    result: str = text.replace("${TokenHost}", url.split(separator)[index])
    return result


def test_cloudfront_sends_the_ui_the_policy_the_local_server_does() -> None:
    """The page's inline script is allowed by its hash in both: an edit of it must update the template."""
    from handlers.security import COMMON, inline_script_hashes, ui_csp
    from handlers.web import SignInConfig

    hashes = inline_script_hashes((ROOT / "web" / "index.html").read_text(encoding="utf-8"))
    assert hashes, "web/index.html has its inline script"
    assert cloudfront_csp(parameters()) == ui_csp(hashes)
    signed_in = {**WITH_ISSUER, **SIGN_IN}
    sign_in = SignInConfig("oidc", SIGN_IN["OidcClientId"], SIGN_IN["OidcAuthorizeUrl"], SIGN_IN["OidcTokenUrl"])
    assert cloudfront_csp(signed_in) == ui_csp(hashes, sign_in.connect_sources)
    headers = RESOURCES["WebHeadersPolicy"]["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    assert headers["FrameOptions"]["FrameOption"] == COMMON["X-Frame-Options"]
    assert headers["ReferrerPolicy"]["ReferrerPolicy"] == COMMON["Referrer-Policy"]
    assert (
        f"max-age={headers['StrictTransportSecurity']['AccessControlMaxAgeSec']}" in COMMON["Strict-Transport-Security"]
    )
    assert all(h["Override"] for h in headers.values())
