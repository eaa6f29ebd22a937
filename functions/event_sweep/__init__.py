"""The event sweep: the orders service's scheduled function, which publishes the events
orders left pending."""
