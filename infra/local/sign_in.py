"""Where the local user pool is (the emulator's, made from infra/template.yaml), for
whatever signs users in or verifies their tokens against it: the local stack's
functions, `chalice local`, `make user` and `make seed`."""

from dataclasses import dataclass

# The pool's and its client's logical ids: their names in the emulator.
POOL_NAME, CLIENT_NAME = "UserPool", "UserPoolClient"


@dataclass(frozen=True)
class UserPool:
    """The emulator's user pool, as the authorizer and the sign-in function see it."""

    region: str
    url: str  # the emulator's
    id: str
    client_id: str

    @property
    def issuer(self) -> str:
        """The `iss` of its tokens: moto writes Cognito's own, as on AWS."""
        return f"https://cognito-idp.{self.region}.amazonaws.com/{self.id}"

    @property
    def jwks_url(self) -> str:
        """Its keys, as the emulator serves them (Cognito's path under the issuer)."""
        return f"{self.url}/{self.id}/.well-known/jwks.json"

    def environment(self) -> dict[str, str]:
        """What a function needs to sign users in here and to take their tokens."""
        return {
            "USER_POOL_ID": self.id,
            "USER_POOL_CLIENT_ID": self.client_id,
            "JWT_ISSUER": self.issuer,
            "JWT_AUDIENCE": self.client_id,
            "JWT_JWKS_URL": self.jwks_url,
            "AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER": self.url,
        }


def find_pool(url: str, region: str) -> UserPool:
    """The template's pool in the emulator at `url` (LookupError if it has none)."""
    from infra.local import aws_client

    client = aws_client("cognito-idp", url, region)
    listed = client.list_user_pools(MaxResults=60)["UserPools"]
    pools = [pool for pool in listed if pool["Name"] == POOL_NAME]
    if not pools:
        raise LookupError(f"the AWS emulator at {url} has no user pool {POOL_NAME}")
    pool_id = pools[0]["Id"]
    clients = client.list_user_pool_clients(UserPoolId=pool_id, MaxResults=60)["UserPoolClients"]
    client_id = next(c["ClientId"] for c in clients if c["ClientName"] == CLIENT_NAME)
    return UserPool(region, url, pool_id, client_id)
