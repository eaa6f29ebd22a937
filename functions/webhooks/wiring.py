"""Which implementations the webhook routes get: endpoints, deliveries and attempts in
DynamoDB, the delivery queue (a re-send), and the targets' guard with this deployment's
rule (locally, loopback and http are targets too)."""

import functools

from common import aws
from common import webhook_targets as targets
from common.lambda_init import REHEARSAL_ID
from common.lists import Lists
from common.service_app import PlatformApp, ServiceBlueprint, create_app
from common.settings import Settings
from common.webhook_queue import DeliveryQueue
from common.webhook_repository import Attempts, Deliveries, WebhookRepository
from common.webhook_vault import Vault
from webhooks import routes

SERVICE = "webhooks"
FUNCTION = "WebhooksFunction"


def routes_for(settings: Settings) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(
            WebhookRepository(settings),
            Vault(settings),
            Deliveries(settings),
            Attempts(settings),
            DeliveryQueue(settings),
            functools.partial(targets.checked, local=settings.webhook_local_targets),
            Lists.from_settings(settings),
        )
    blueprint.function = FUNCTION
    return blueprint


def create(settings: Settings) -> PlatformApp:
    return create_app(SERVICE, settings, routes_for(settings))


def rehearse(app: PlatformApp, settings: Settings) -> None:
    """At init: an endpoint no one has, read through the whole request path (one
    GetItem: its client built, its connection open)."""
    app.rehearse("GET", "/api/webhooks/{id}", id=REHEARSAL_ID)
