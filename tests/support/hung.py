"""A server on 127.0.0.1 that accepts every connection and never answers: an inventory
that hangs. It keeps what it accepted, so a test can tell whether it was asked."""

import socket
import threading


class HungServer:
    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self.accepted: list = []  # (connection, address) of each, held open
        threading.Thread(target=self._accept, daemon=True, name="hung").start()

    def _accept(self) -> None:
        while True:
            try:
                self.accepted.append(self._socket.accept())
            except OSError:  # closed
                return

    def close(self) -> None:
        self._socket.close()
        for connection, _ in self.accepted:
            connection.close()
