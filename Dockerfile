FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PREEMPTLAB_VAR_DIR=/app/var
WORKDIR /app
# kubectl: the workers read connected clusters with it (read-only verbs only).
ARG KUBECTL_VERSION=v1.35.0
COPY scripts/install_kubectl.py /tmp/
RUN python /tmp/install_kubectl.py "$KUBECTL_VERSION" && rm /tmp/install_kubectl.py
COPY requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
# Static files are collected at build time and served by whitenoise.
RUN DEBUG=0 SECRET_KEY=build-only-not-secret python manage.py collectstatic --no-input
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120"]
