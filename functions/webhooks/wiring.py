"""Which implementations the webhook routes get: endpoints, deliveries and attempts in
DynamoDB, the delivery queue (a re-send), and the targets' guard with this deployment's
rule (locally, loopback and http are targets too)."""

import functools

from common.http.lists import Lists
from common.http.service_app import PlatformApp, ServiceBlueprint, create_app
from common.platform import aws
from common.platform.lambda_init import REHEARSAL_ID
from common.platform.settings import Cloud, Http, Pages, Webhooks
from common.webhooks import targets
from common.webhooks.queue import DeliveryQueue
from common.webhooks.repository import Attempts, Deliveries, WebhookRepository
from common.webhooks.vault import Vault
from webhooks import routes

SERVICE = "webhooks"
FUNCTION = "WebhooksFunction"


def routes_for(cloud: Cloud, pages: Pages, webhooks: Webhooks) -> ServiceBlueprint:
    with aws.acting_as(FUNCTION):
        blueprint = routes.blueprint(
            WebhookRepository(cloud),
            Vault(cloud, webhooks),
            Deliveries(cloud),
            Attempts(cloud),
            DeliveryQueue(cloud, webhooks),
            functools.partial(targets.checked, local=webhooks.webhook_local_targets),
            Lists.from_settings(pages, cloud),
        )
    blueprint.function = FUNCTION
    return blueprint


def create(cloud: Cloud, http: Http, pages: Pages, webhooks: Webhooks) -> PlatformApp:
    return create_app(SERVICE, http, routes_for(cloud, pages, webhooks))


def rehearse(app: PlatformApp) -> None:
    """At init: an endpoint no one has, read through the whole request path (one
    GetItem: its client built, its connection open)."""
    app.rehearse("GET", "/api/webhooks/{id}", id=REHEARSAL_ID)
