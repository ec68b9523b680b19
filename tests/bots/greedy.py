"""Well-behaved test bot: always takes the last legal action (3 points in the toy game)."""
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "request":
        print(json.dumps({"type": "action", "action": message["legal"][-1], "debug": "max"}), flush=True)
    elif message["type"] == "quit":
        break
