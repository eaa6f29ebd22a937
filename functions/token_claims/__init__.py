"""The token-claims function: what Cognito puts in its access tokens for this platform."""
