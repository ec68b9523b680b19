"""What the web tests' hostile bot writes, and the secret the database must never serve."""

EVIL_NAME = "<script>window.__pwned='name'</script><img src=x onerror=\"window.__pwned='name-img'\">"
EVIL_DEBUG = "<script>window.__pwned='debug'</script>"
EVIL_DEBUG_2 = "<img src=x onerror=\"window.__pwned='debug-img'\"> \x1b[31mred\x1b[0m \u202eevil"
EVIL_LINE = "<img src=x onerror=\"window.__pwned='line'\">"
EVIL_STDERR = "</pre><script>window.__pwned='stderr'</script>\x1b[2J\x07"
SECRET = "s3cr3t-never-serve"

EVIL_REQUEST = f'''
import sys
if requests == 1:
    sys.stderr.write({EVIL_STDERR!r} + "\\n"); sys.stderr.flush()
    reply({{"type": "action", "index": 0, "debug": {EVIL_DEBUG!r}}})
elif requests == 2:
    reply({{"type": "action", "index": 0, "debug": {EVIL_DEBUG_2!r}}})
else:
    sys.stdout.write({EVIL_LINE!r} + "\\n"); sys.stdout.flush()
'''
