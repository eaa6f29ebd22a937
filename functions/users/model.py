"""The record of rights requests' model: the layer's (common.data_request_model), as the
erasure function records its progress there too; named here as the users function's own."""

from common.data_request_model import SHARDS, DataRequestModel, RecentIndex

__all__ = ["SHARDS", "DataRequestModel", "RecentIndex"]
