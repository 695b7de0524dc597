"""A connected cluster's history, a room of the connected app: what each snapshot's
digest keeps and the real preemptions (models.py, app label ``connected``, imported by
connected/models.py), the digest and the drift (services.py), the worker's follow-up and
alert deliveries (tasks.py), the drift and Explain pages (views.py, urls.py) and the
API's shapes (serializers.py). Imports nothing itself: import the module you need."""
