"""An HTTP answer, as the fake's services build it and its handler sends it."""
import json
from dataclasses import dataclass, field


@dataclass
class Reply:
    """Bytes are sent as they are, anything else as JSON."""
    status: int
    body: object = b""
    headers: list = field(default_factory=list)
    content_type: str = "application/json"

    def data(self):
        return self.body if isinstance(self.body, bytes) else json.dumps(self.body).encode()
