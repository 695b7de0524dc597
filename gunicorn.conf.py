"""gunicorn's settings for the docker-compose stack (gunicorn reads ./gunicorn.conf.py
from its working directory, /app in the image).

gunicorn believes X-Forwarded-Proto and the like only from forwarded_allow_ips, which
it defaults to 127.0.0.1: anything on the container's loopback could claim HTTPS. Here
it is the reverse proxy's addresses alone, the same PREEMPTLAB_PROXY_ADDRESSES that
operations.throttling believes X-Forwarded-For from; empty believes nobody.

umask: the files gunicorn's workers write under PREEMPTLAB_VAR_DIR (uploads, logs) are
this user's only, as preemptlab.private.PRIVATE_UMASK makes them elsewhere (gunicorn's
own umask setting covers its sockets only)."""

import os
import sys

os.umask(0o077)

forwarded_allow_ips = os.environ.get("PREEMPTLAB_PROXY_ADDRESSES", "")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from operations.logs import gunicorn_logger_class  # noqa: E402

# A share link's token (/s/<token>/) never reaches the access log: not in the request
# line, the path, nor the Referer of what a shared page loads.
logger_class = gunicorn_logger_class()

# LOG_FORMAT=json: gunicorn's own lines (start-up, workers, one access line a request) as
# JSON objects too (operations/logs.py), the request's path without its query string.
if os.environ.get("LOG_FORMAT") == "json":
    from operations.logs import gunicorn_logconfig

    logconfig_dict = gunicorn_logconfig()
    # The request id the app answers with, in the access line.
    access_log_format = '%(h)s "%(r)s" %(s)s %({x-request-id}o)s'
