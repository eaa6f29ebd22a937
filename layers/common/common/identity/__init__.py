"""Who is calling and who is who: callers and their roles, accounts in the user pool and
how their tokens are revoked, the claims on userIds, and password guesses counted and
slowed."""
