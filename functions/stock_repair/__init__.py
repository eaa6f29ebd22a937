"""The stock repair: the orders service's scheduled function, which puts right what a
crash between an order's stock move and its status write left (docs/api.md#stock-follows-orders)."""
