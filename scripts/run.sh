#!/usr/bin/env bash
# `make run`: the app on the embedded default (SQLite and Celery's filesystem
# broker under var/), served without DEBUG so that nothing shows a debug page.
# A secret key is generated once and kept in var/secret_key (settings read it);
# the demo user's password is made on first run and printed once.
set -eu
cd "$(dirname "$0")/.."
BIN=.venv/bin
VAR_DIR=${PREEMPTLAB_VAR_DIR:-var}
PORT=${PORT:-8000}
# var/ holds the SQLite file (password hashes, sessions, API tokens), the secret key and
# the broker's queued messages: this user's only, whatever was created before.
umask 077
mkdir -p "$VAR_DIR"
chmod -R go-rwx "$VAR_DIR"
if [ -z "${SECRET_KEY:-}" ] && [ ! -s "$VAR_DIR/secret_key" ]; then
  ("$BIN/python" -c 'import secrets; print(secrets.token_urlsafe(50))' > "$VAR_DIR/secret_key")
fi
# Plain http on this machine: cookies without the Secure flag, or the browser
# would never send the login session back.
export DEBUG=0 SESSION_COOKIE_SECURE=0 CSRF_COOKIE_SECURE=0 PORT
"$BIN/python" manage.py migrate --no-input -v 0
"$BIN/python" manage.py collectstatic --no-input -v 0
"$BIN/python" manage.py ensure_demo_user
"$BIN/python" manage.py load_demo --owner demo --if-empty
echo "preemptlab on http://127.0.0.1:$PORT/ (stop it with Ctrl-C)"
PATH="$PWD/$BIN:$PATH" exec "$BIN/honcho" start -f Procfile.dev
