"""The dashboard (docs/api.md#dashboard): the state of the operation at a glance, read from
a handful of items of its figures table, which the dashboard's figures function keeps
from the tables' streams (functions/dashboard_figures)."""
