# Two stages: the build one downloads and installs (pip, kubectl), the final one holds
# the virtualenv, kubectl and the app, runs as an unprivileged user, and writes only to
# its data folder and /tmp (the Kubernetes manifests mount both; the root filesystem
# may then be read-only).
FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
# kubectl: the workers read connected clusters with it (read-only verbs only).
ARG KUBECTL_VERSION=v1.35.0
COPY scripts/install_kubectl.py /tmp/
RUN python /tmp/install_kubectl.py "$KUBECTL_VERSION" /usr/local/bin/kubectl
RUN python -m venv /opt/venv
COPY requirements.lock /tmp/
RUN /opt/venv/bin/pip install --no-cache-dir -r /tmp/requirements.lock

FROM python:3.11-slim
# One version for the package and the image: pyproject.toml's, the manifests' tag.
LABEL org.opencontainers.image.title="preemptlab" org.opencontainers.image.version="0.1.0"
# uid 10001 (above the host's own users) in group 0, as OpenShift images are: Kubernetes
# runs it as 10001, OpenShift as any UID of the namespace's range, always in group 0, so
# whatever the app writes is group 0's and group-writable (README: OpenShift).
RUN useradd --system --uid 10001 --gid 0 --home-dir /app --no-create-home preemptlab
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PATH=/opt/venv/bin:$PATH HOME=/tmp \
    PREEMPTLAB_VAR_DIR=/app/var PREEMPTLAB_STATIC_ROOT=/app/staticfiles
WORKDIR /app
COPY --from=build /usr/local/bin/kubectl /usr/local/bin/kubectl
COPY --from=build /opt/venv /opt/venv
# The code belongs to root and is read-only to the app; only var/ and the collected
# static files are the app user's.
COPY . .
RUN install -d -o 10001 -g 0 -m 0770 /app/var /app/staticfiles
USER 10001
# Static files are collected at build time, as the app user (they are written 0600, then
# given to group 0: any UID OpenShift picks reads them), outside the data folder, and
# served by whitenoise.
RUN DEBUG=0 SECRET_KEY=build-only-not-secret python manage.py collectstatic --no-input \
    && rm -rf /app/var/* && chmod -R g=u /app/staticfiles
EXPOSE 8000
# The web process's; docker-compose gives worker and beat their own, Kubernetes its probes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://localhost:8000/healthz', timeout=4).status != 200)"]
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]
