"""preemptlab serve: the web app on the embedded default (SQLite and Celery's
filesystem broker in the data dir, a worker beside the web server), as `make run`."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys


def serve(port: int) -> int:
    from preemptlab.private import keep_private
    from preemptlab.runtime import var_dir

    var = var_dir()
    var.mkdir(mode=0o700, parents=True, exist_ok=True)
    keep_private(var)  # the web server and the worker below inherit the umask
    key = var / "secret_key"
    if not os.environ.get("SECRET_KEY") and not key.is_file():
        key.write_text(secrets.token_urlsafe(50))
        key.chmod(0o600)
    # Plain http on this machine: cookies without the Secure flag, no debug pages.
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PREEMPTLAB_VAR_DIR": str(var),
        "DEBUG": "0",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
    }
    manage = [sys.executable, "-m", "django"]
    for step in (
        ["migrate", "--no-input", "-v", "0"],
        ["collectstatic", "--no-input", "-v", "0"],
        ["ensure_demo_user"],
        ["load_demo", "--owner", "demo", "--if-empty"],
    ):
        subprocess.run([*manage, *step], env=env, check=True)
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "-l", "WARNING"],
        env=env,
    )
    print(f"preemptlab on http://127.0.0.1:{port}/ (stop it with Ctrl-C)", flush=True)
    web = [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", "2"]
    try:
        return subprocess.call(web, env=env)
    except KeyboardInterrupt:
        return 0
    finally:
        # SIGTERM: a running analysis stops within seconds and is queued again
        # (config/celery.py). A worker still there after 30 s is killed: its lease
        # lapses and the reconciler queues its analysis again at the next start.
        worker.terminate()
        try:
            worker.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
