"""The sign-in attempts' table's model: the layer's (common.attempts_model), as the users
function counts password checks there too; named here as the sign-in function's own."""

from common.attempts_model import AttemptsModel

__all__ = ["AttemptsModel"]
